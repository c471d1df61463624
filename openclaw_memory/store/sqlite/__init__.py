"""The SQLite record store: the default source of truth (one file, WAL, FTS5 keyword index).

`SQLiteStore` implements `ports.RecordStore`; its statements live in this package and in
`store/records.py`, and every `sqlite3.Error` leaves it as a `StoreError`.
"""

from __future__ import annotations

from pathlib import Path

from ..db import Database
from .console import ConsoleMixin
from .housekeeping import HousekeepingMixin, hashed_user
from .logs import LogsMixin
from .records import RecordsMixin

__all__ = ["SQLiteStore", "hashed_user"]


class SQLiteStore(RecordsMixin, LogsMixin, HousekeepingMixin, ConsoleMixin):
    """The record store on one SQLite file (see `store/db.py` for the connection)."""

    @classmethod
    def open(cls, path: str | Path) -> "SQLiteStore":
        return cls(Database(path))

    @property
    def was_empty(self) -> bool:
        """The file existed with no bytes in it (it usually means the database was lost)."""
        return self.db.was_empty
