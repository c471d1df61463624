"""The SQLite record store: the default source of truth (one file, WAL, FTS5 keyword index).

`SQLiteStore` implements `ports.RecordStore`; its statements live in this package and in
`store/records.py`, and every driver error (sqlite3's, or SQLCipher's for an encrypted store)
leaves it as a `StoreError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pathlib import Path

from ..db import Database
from ..keys import StoreKey
from .console import ConsoleMixin
from .entities import EntitiesMixin
from ..ports import hashed_user
from .housekeeping import HousekeepingMixin
from .logs import LogsMixin
from .portability import PortabilityMixin
from .purge import PurgeMixin
from .records import RecordsMixin

__all__ = ["SQLiteStore", "hashed_user"]


class SQLiteStore(
    RecordsMixin,
    EntitiesMixin,
    LogsMixin,
    HousekeepingMixin,
    PurgeMixin,
    ConsoleMixin,
    PortabilityMixin,
):
    """The record store on one SQLite file (see `store/db.py` for the connection)."""

    @classmethod
    def open(cls, path: str | Path, *, key: StoreKey | None = None) -> "SQLiteStore":
        """The store at path; with a key, an encrypted (SQLCipher) one."""
        return cls(Database(path, key=key))

    @property
    def was_empty(self) -> bool:
        """The file existed with no bytes in it (it usually means the database was lost)."""
        return self.db.was_empty


if TYPE_CHECKING:  # the type checker holds the class to the port
    from ..ports import RecordStore

    _conforms: type[RecordStore] = SQLiteStore
