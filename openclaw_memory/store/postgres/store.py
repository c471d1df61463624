"""`PostgresRecordStore`: the SQL record store (`store/sql_store.py`) over PostgreSQL.

Several service processes may share one database: write transactions queue on one advisory
lock (see `db.py`), maintenance runs under the store's lease, and every read goes to the
database, so a write through one process is seen by the next read through any other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..sql_store import SqlStore
from .db import PostgresDatabase
from .dialect import POSTGRES

if TYPE_CHECKING:
    from ..ports import RecordStore


class PostgresRecordStore(SqlStore):
    """The source of truth in PostgreSQL: records, versions, keyword index, audit, outbox,
    sessions, the short-term window and the maintenance log."""

    def __init__(self, db: PostgresDatabase) -> None:
        super().__init__(db, POSTGRES)

    @classmethod
    def open(cls, dsn: str) -> "PostgresRecordStore":
        """Connect to the database at dsn and bring its schema up to date."""
        return cls(PostgresDatabase(dsn))

    @property
    def where(self) -> str:
        """The server and database, as errors and logs name them (no password)."""
        return self.db.where


if TYPE_CHECKING:

    def _implements_the_port(store: PostgresRecordStore) -> RecordStore:
        return store  # mypy checks the protocol here
