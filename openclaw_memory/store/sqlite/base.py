"""The SQLite store's base: its connection, transactions, and the error boundary.

Every method of `SQLiteStore` reads or writes through `_read()` / `_write()`, which turn a
driver error (`sqlite3.Error`, or SQLCipher's `Error` for an encrypted store) into the package's
`StoreError` (naming the database file), so no driver exception leaves the store.
"""

from __future__ import annotations

import contextlib
import sqlite3
from typing import Iterator

from ...errors import StoreError
from ..db import Database, unreadable


def store_error(path: object, exc: Exception) -> StoreError:
    """The package's error for a driver error: a damaged file names the remedy."""
    # "malformed", "not a database": the base class itself, not a busy or bad call (sqlite3's
    # or SQLCipher's, whose classes have the same names outside sqlite3's tree)
    if type(exc).__name__ == "DatabaseError":
        return unreadable(str(path), exc)
    return StoreError(f"{path}: {exc}")


class SQLiteBase:
    def __init__(self, db: Database) -> None:
        self.db = db

    @property
    def path(self) -> str:
        return str(self.db.path)

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        try:
            with self.db.read() as conn:
                yield conn
        except self.db.driver.Error as exc:
            raise store_error(self.db.path, exc) from exc

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        try:
            with self.db.write() as conn:
                yield conn
        except self.db.driver.Error as exc:
            raise store_error(self.db.path, exc) from exc

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic write (`BEGIN IMMEDIATE`); nested calls join the outer transaction."""
        with self._write():
            yield

    def in_transaction(self) -> bool:
        return self.db.nested()

    def vacuum(self) -> None:
        try:
            self.db.vacuum()
        except self.db.driver.Error as exc:
            raise StoreError(f"{self.db.path}: vacuum failed: {exc}") from exc

    def close(self) -> None:
        self.db.close()
