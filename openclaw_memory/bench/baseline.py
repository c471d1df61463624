"""What a naive memory lookup costs: brute-force cosine over all of a user's vectors, plus FTS.

Per question: embed it, read every active vector of the user from SQLite, one numpy matrix
product, the top k, an FTS5 keyword query, and the matching rows. No Chroma, no fusion, no
budget. It reads the same SQLite file as the middleware, through its own read-only connection.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from ..embedding import embed_query
from ..store import records as rec
from ..types import Scope


class NaiveSearch:
    """Brute-force vector search + keyword search over one scope at a time."""

    def __init__(self, sqlite_file: Path, embedder: BaseEmbedding, *, k: int = 10) -> None:
        self.embedder = embedder
        self.k = k
        self.conn = sqlite3.connect(
            f"file:{sqlite_file}?mode=ro", uri=True, check_same_thread=False
        )
        self.conn.row_factory = sqlite3.Row

    def search(self, scope: Scope, text: str) -> list[str]:
        """Ids of the top-k vector hits followed by the keyword hits (duplicates removed)."""
        qvec = embed_query(self.embedder, text)
        rows = self.conn.execute(
            "SELECT r.id AS id, v.vec AS vec FROM records r JOIN vectors v ON v.record_id = r.id "
            "WHERE r.user_id = ? AND r.agent_id = ? AND r.status = 'active'",
            (scope.user_id, scope.agent_id),
        ).fetchall()
        ids: list[str] = []
        if rows:
            matrix = np.frombuffer(b"".join(r["vec"] for r in rows), dtype=np.float32).reshape(
                len(rows), -1
            )
            scores = matrix @ qvec
            k = min(self.k, len(rows))
            top = np.argpartition(-scores, k - 1)[:k]
            ids = [rows[i]["id"] for i in top[np.argsort(-scores[top])]]
        keyword = [rid for rid, _ in rec.keyword_search(self.conn, scope, text, limit=self.k)]
        found = list(dict.fromkeys([*ids, *keyword]))
        rec.get_many(self.conn, scope, found)
        return found

    def close(self) -> None:
        self.conn.close()
