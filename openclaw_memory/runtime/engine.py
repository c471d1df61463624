"""MemoryEngine: the storage the factory opens, and the reads the doors share.

The record store (truth, `store.ports.RecordStore`; SQLite by default) + the vector index
(derived, fed by the outbox; Chroma) + the embedder + the clock + the indexer that follows the
store. Every method takes a Scope: there is no unscoped read. Construction is by
`MemoryEngine.open(config)`, the one place that turns the storage config into these objects.
It builds no stage and writes no memory: the write stage (`write/consolidate`, `MemoryWriter`)
and forget and restore (`write/forget.py`) are handed the store and the indexer by the factory,
the read stage its read ports (`factory.read_ports`).
"""

from __future__ import annotations

import logging
from typing import Sequence

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from ..core.clock import Clock, SystemClock
from ..config import MemoryConfig, load_config
from ..embed.embedding import (
    build_embedder,
    embed_query,
    embedder_dim,
    embedder_name,
)
from ..errors import IndexMismatchError, NotFoundError
from ..core import switches_from
from ..lang import languages
from ..store.sqlite import Database
from ..store.indexer import Indexer
from ..store.ports import ManagedVectorIndex, RecordStore
from ..store import open_chroma
from ..store import open_record_store
from ..store import tiered
from ..types import MemoryRecord, Scope

log = logging.getLogger(__name__)


class MemoryEngine:
    def __init__(
        self,
        config: MemoryConfig,
        store: RecordStore,
        index: ManagedVectorIndex,
        embedder: BaseEmbedding,
        clock: Clock,
        *,
        background: bool = True,
    ) -> None:
        self.config = config
        self.store = store
        self.index = index
        self.embedder = embedder
        self.clock = clock
        self.model_name = index.embedder_name
        #: the language packs under config's `rules.disabled`, for what reads a text through the
        #: open storage alone (edit, import, maintenance); the factory checks the names
        self.langs = languages(switches_from(config.rules.disabled))
        self._check_vectors_model()
        self.indexer = Indexer(store, index, background=background)
        watch = getattr(index, "watch", None)
        if watch is not None:  # a vector index folder lost while the store was not
            watch.at_start()

    @property
    def db(self) -> Database:
        """The SQLite database under the record store (tools and tests that inspect the file);
        stages use `store`."""
        return self.store.db  # type: ignore[attr-defined]

    @classmethod
    def open(
        cls,
        config: MemoryConfig | str | None = None,
        *,
        clock: Clock | None = None,
        embedder: BaseEmbedding | None = None,
        background: bool | None = None,
        check_embedder: bool = True,
    ) -> "MemoryEngine":
        cfg = config if isinstance(config, MemoryConfig) else load_config(config)
        emb = embedder or build_embedder(cfg.storage.embedding_model, cfg.storage.query_runtime)
        name = embedder_name(emb)
        index = open_chroma(cfg, name, embedder_dim(emb))
        store = None
        try:
            if check_embedder:
                index.check_embedder()
            store = open_record_store(cfg)
            bg = cfg.storage.background_indexing if background is None else background
            return cls(
                cfg, store, tiered(cfg, index, store), emb, clock or SystemClock(), background=bg
            )
        except (
            BaseException
        ):  # a refused open (mismatch, locked file) keeps no client or connection
            index.close()
            if store is not None:
                store.close()
            raise

    def _check_vectors_model(self) -> None:
        stored = self.store.embedder()
        if stored is None:
            self.store.set_embedder(self.model_name)
        elif stored != self.model_name:
            where = getattr(self.store, "path", "the record store")
            raise IndexMismatchError(
                f"{where}: stored vectors come from embedder {stored!r}, the config uses "
                f"{self.model_name!r}; run `openclaw-memory reindex` to re-embed and rebuild the index"
            )

    # ---- reinforcement ----------------------------------------------------------------------

    def touch(self, scope: Scope, ids: Sequence[str]) -> None:
        """Count one access of each record, now (what recall injected)."""
        if ids:
            self.store.touch(scope, ids, self.clock.now())

    # ---- read -------------------------------------------------------------------------------

    def get(self, scope: Scope, record_id: str) -> MemoryRecord:
        r = self.store.get(scope, record_id)
        if r is None:
            raise NotFoundError(f"memory {record_id!r} not found for user {scope.user_id!r}")
        return r

    def neighbours(
        self, scope: Scope, record_id: str, *, before: int = 1, after: int = 1
    ) -> tuple[list[MemoryRecord], list[MemoryRecord]]:
        """Live episodes of the same session just before and after an episode (nearest first)."""
        return self.store.session_neighbours(
            scope, record_id, before=before, after=after, now=self.clock.now()
        )

    def chain(self, scope: Scope, record_id: str) -> list[MemoryRecord]:
        """The record and the records it replaced, newest first."""
        out = [self.get(scope, record_id)]
        while out[-1].prev_id and len(out) < 100:
            prev = self.store.get(scope, out[-1].prev_id)
            if prev is None:
                break
            out.append(prev)
        return out

    def versions(self, scope: Scope, record_id: str) -> list[dict]:
        return self.store.versions(scope, record_id)

    def keyword(
        self, scope: Scope, text: str, *, limit: int = 30, statuses: Sequence[str] = ("active",)
    ) -> list[tuple[str, float]]:
        """(record id, relevance in (0, 1]) best first (the store's keyword search)."""
        return self.store.keyword_search(scope, text, statuses=statuses, limit=limit)

    def embed_query(self, text: str) -> np.ndarray:
        return embed_query(self.embedder, text)

    def semantic(
        self, scope: Scope, vector: np.ndarray, *, limit: int = 30, tier: str = "hot"
    ) -> list[tuple[str, float]]:
        """Vector search; pending writes of this scope are indexed first (read-your-writes)."""
        return self.indexer.searcher(scope, tier)(vector, limit)

    def audit_log(self, scope: Scope, record_id: str | None = None, limit: int = 100) -> list[dict]:
        return self.store.audit_log(scope, record_id, limit)

    # ---- the index follows the store ---------------------------------------------------------

    def written(self) -> None:
        """Tell the indexer that writes queued outbox entries (it applies them soon)."""
        self.indexer.notify()

    def sync_index(self, scope: Scope | None = None) -> int:
        """Apply the pending outbox entries (of one scope, or all) now; returns how many."""
        return self.indexer.drain(scope)

    # ---- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        self.indexer.close()
        self.index.close()
        self.store.close()
