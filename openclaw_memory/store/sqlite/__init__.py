"""The SQLite record store: the default source of truth (one file, WAL, FTS5 keyword index).

`SQLiteStore` is the SQL record store (`store/sql_store.py`) on one SQLite file with the SQLite
dialect (`dialect.py`); with a read-only view of a file another process owns.
"""

from __future__ import annotations

import sqlite3
import numpy as np
from typing import Any, Iterable, TYPE_CHECKING
from ...types import Scope, MemoryRecord
from .. import records as rec
from ..ports import hashed_user
from pathlib import Path
from ..db import Database, unreadable
from ..keys import StoreKey
from ..sql_store import SqlStore
from .dialect import SQLITE, fts5_search
from ...errors import StoreError

__all__ = ["ReadOnlyStore", "SQLiteStore", "hashed_user"]


class SQLiteStore(SqlStore):
    """The record store on one SQLite file (see `store/db.py` for the connection). Every driver
    error (sqlite3's, or SQLCipher's for an encrypted store) leaves it as a `StoreError` naming
    the file; a damaged file names the remedy."""

    def __init__(self, db: Database) -> None:
        super().__init__(db, SQLITE)

    @classmethod
    def open(cls, path: str | Path, *, key: StoreKey | None = None) -> "SQLiteStore":
        """The store at path; with a key, an encrypted (SQLCipher) one."""
        return cls(Database(path, key=key))

    @property
    def was_empty(self) -> bool:
        """The file existed with no bytes in it (it usually means the database was lost)."""
        return self.db.was_empty

    def _driver_errors(self) -> tuple[type[Exception], ...]:
        return (self.db.driver.Error,)

    def _error(self, exc: Exception) -> StoreError:
        # "malformed", "not a database": the base class itself, not a busy or bad call (sqlite3's
        # or SQLCipher's, whose classes have the same names outside sqlite3's tree)
        if type(exc).__name__ == "DatabaseError":
            return unreadable(str(self.db.path), exc)
        return StoreError(f"{self.db.path}: {exc}")

    def _written_order(self, table: str) -> str:
        return "seq" if table in ("audit", "messages") else "rowid"


if TYPE_CHECKING:  # the type checker holds the class to the port
    from ..ports import RecordStore

    _conforms: type[RecordStore] = SQLiteStore


# A read-only view of a store file another process owns: the benchmark's naive baseline and
# the evaluation's vector reuse read one without opening (or migrating) it as a store.


class ReadOnlyStore:
    """One read-only connection to a SQLite store file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.conn = sqlite3.connect(
                f"file:{self.path}?mode=ro", uri=True, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open read-only: {exc}") from exc
        self.conn.row_factory = sqlite3.Row

    def _rows(self, sql: str, args: Iterable[Any] = ()) -> list[sqlite3.Row]:
        try:
            return self.conn.execute(sql, tuple(args)).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from exc

    def embedder(self) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = 'embedder'")
        return str(rows[0][0]) if rows else None

    def vectors_by_text(self, model: str) -> list[tuple[str, np.ndarray]]:
        """(text hash, vector) of every stored vector made by `model`."""
        return [
            (r[0], np.frombuffer(r[1], dtype=np.float32))
            for r in self._rows("SELECT content_hash, vec FROM vectors WHERE model = ?", (model,))
        ]

    def parts_with_text(self, model: str) -> list[tuple[str | None, str, str | None, np.ndarray]]:
        """(subject, summary, detail, part vectors (k, d)) of every record with sentence-part
        vectors made by `model` (none from a store written before parts existed)."""
        columns = {row[1] for row in self._rows("PRAGMA table_info(vectors)")}
        if "parts" not in columns:
            return []
        rows = self._rows(
            "SELECT r.subject, r.summary, r.detail, v.dim, v.parts FROM vectors v "
            "JOIN records r ON r.id = v.record_id WHERE v.model = ? AND v.parts IS NOT NULL",
            (model,),
        )
        return [
            (r[0], r[1], r[2], np.frombuffer(r[4], dtype=np.float32).reshape(-1, r[3]))
            for r in rows
        ]

    def active_vectors(self, scope: Scope) -> tuple[list[str], np.ndarray | None]:
        """Ids and the (n, d) matrix of the stored vectors of the scope's active records."""
        rows = self._rows(
            "SELECT r.id AS id, v.vec AS vec FROM records r JOIN vectors v ON v.record_id = r.id "
            "WHERE r.user_id = ? AND r.agent_id = ? AND r.status = 'active'",
            (scope.user_id, scope.agent_id),
        )
        if not rows:
            return [], None
        matrix = np.frombuffer(b"".join(r["vec"] for r in rows), dtype=np.float32)
        return [r["id"] for r in rows], matrix.reshape(len(rows), -1)

    def keyword_search(self, scope: Scope, text: str, limit: int) -> list[tuple[str, float]]:
        """(id, BM25 relevance) best first, as the store's keyword search finds them."""
        try:
            return fts5_search(self.conn, scope, text, ("active",), limit)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from exc

    def get_many(self, scope: Scope, ids: Iterable[str]) -> dict[str, MemoryRecord]:
        try:
            return rec.get_many(self.conn, scope, ids)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from exc

    def ids_saying(self, user_id: str, summary: str) -> set[str]:
        """Ids of the user's records (any agent, any status) with exactly this summary."""
        return {
            r[0]
            for r in self._rows(
                "SELECT id FROM records WHERE user_id = ? AND summary = ?", (user_id, summary)
            )
        }

    def close(self) -> None:
        self.conn.close()
