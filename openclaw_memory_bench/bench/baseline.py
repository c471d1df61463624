"""What a naive memory lookup costs: brute-force cosine over all of a user's vectors, plus FTS.

Per question: embed it, read every active vector of the user from SQLite, one numpy matrix
product, the top k, an FTS5 keyword query, and the matching rows. No Chroma, no fusion, no
budget. It reads the same SQLite file as the middleware, through its own read-only connection
(`store.sqlite.readonly`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from openclaw_memory.embed.embedding import embed_query
from openclaw_memory.store.sqlite import ReadOnlyStore
from openclaw_memory.types import Scope


class NaiveSearch:
    """Brute-force vector search + keyword search over one scope at a time."""

    def __init__(self, sqlite_file: Path, embedder: BaseEmbedding, *, k: int = 10) -> None:
        self.embedder = embedder
        self.k = k
        self.store = ReadOnlyStore(sqlite_file)

    def search(self, scope: Scope, text: str) -> list[str]:
        """Ids of the top-k vector hits followed by the keyword hits (duplicates removed)."""
        qvec = embed_query(self.embedder, text)
        all_ids, matrix = self.store.active_vectors(scope)
        ids: list[str] = []
        if matrix is not None:
            scores = matrix @ qvec
            k = min(self.k, len(all_ids))
            top = np.argpartition(-scores, k - 1)[:k]
            ids = [all_ids[i] for i in top[np.argsort(-scores[top])]]
        keyword = [rid for rid, _ in self.store.keyword_search(scope, text, limit=self.k)]
        found = list(dict.fromkeys([*ids, *keyword]))
        self.store.get_many(scope, found)
        return found

    def close(self) -> None:
        self.store.close()
