"""`PostgresRecordStore`: the record store port over PostgreSQL.

Several service processes may share one database: write transactions queue on one advisory
lock (see `db.py`), maintenance runs under the store's lease, and every read goes to the
database, so a write through one process is seen by the next read through any other.
"""

from __future__ import annotations

from .db import PostgresDatabase
from .housekeeping import Housekeeping
from .logs import Logs
from .reads import Reads
from .writes import Writes


class PostgresRecordStore(Writes, Reads, Logs, Housekeeping):
    """The source of truth in PostgreSQL: records, versions, keyword index, audit, outbox,
    sessions, the short-term window and the maintenance log."""

    def __init__(self, db: PostgresDatabase) -> None:
        self.db = db

    @classmethod
    def open(cls, dsn: str) -> "PostgresRecordStore":
        """Connect to the database at dsn and bring its schema up to date."""
        return cls(PostgresDatabase(dsn))

    @property
    def where(self) -> str:
        """The server and database, as errors and logs name them (no password)."""
        return self.db.where
