"""Reindex: rebuild the vector index from SQLite with the configured embedder (docs/design.md invariant 4).

Works exactly when `MemoryEngine.open` refuses with IndexMismatchError, so it opens the pieces
itself (Database, ChromaIndex, embedder) instead of the engine:

1. records that are live (active or archived) and whose SQLite vector is missing, stale or made by
   another model or dimension, or whose sentence-part vectors are not the ones
   `long_term.sentence_vectors` asks for (a store written before them), are embedded again, in
   batches, and their `vectors` rows replaced;
   leftover vectors of another model (inactive records, deleted records) are dropped;
2. the SQLite meta row 'embedder' names the configured model;
3. every hot/cold collection is dropped (their dimension may differ) and each partition's live
   vectors are written again, active -> hot, archived -> cold, into a collection for the tiers
   over `storage.vector_store.exact_below` records (the smaller ones are searched exactly from
   the store: store/tiered_index.py);
4. the index is stamped with the embedder and the outbox entries it made redundant are cleared.

An embedded index Chroma cannot open at all (a damaged chroma.sqlite3) is moved aside, rebuilt
from SQLite in a fresh directory, and the damaged copy deleted once the rebuild succeeded (it is
derived data, and may hold vectors of purged users); `rebuilt_unusable_index` says so.

Run it with no other process writing to the store.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding

from ..core.clock import Clock, SystemClock
from ..config import MemoryConfig
from ..embed.embedding import build_embedder, embedder_dim, embedder_name
from ..store.ports import RecordStore
from ..store.backends import open_chroma, open_record_store, tiered
from ..store.tiered_index import TieredIndex
from .common import drop_collection, reembed, tier_collections

#: progress(done, total): called as records are embedded and indexed (e.g. openclaw_memory_bench.evaluate.ProgressBar).
Progress = Callable[[int, int], None]


class _Ticker:
    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0

    def __call__(self, n: int) -> None:
        self.done += n
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)


def reindex(
    config: MemoryConfig,
    *,
    progress: Progress | None = None,
    embedder: BaseEmbedding | None = None,
    batch: int = 64,
    clock: Clock | None = None,
) -> dict[str, Any]:
    """Re-embed what needs it and rebuild every Chroma collection; return what was done.
    clock: dates the name a damaged index is moved aside to (the system clock by default)."""
    emb = embedder or build_embedder(config.storage.embedding_model)
    name = embedder_name(emb)
    dim = embedder_dim(emb)
    store = open_record_store(config)
    index = None
    damaged: Path | None = None
    try:
        index = open_chroma(config, name, dim)
        if index.unusable and index.path is not None:
            index.close()
            damaged = _move_aside(index.path, (clock or SystemClock()).now())
            index = open_chroma(config, name, dim)
        result = _rebuild(
            store,
            tiered(config, index, store),
            emb,
            progress,
            batch,
            config.long_term.sentence_vectors,
        )
        if damaged is not None:
            shutil.rmtree(damaged, ignore_errors=True)
            result["rebuilt_unusable_index"] = str(config.chroma_dir)
        return result
    finally:
        if index is not None:
            index.close()
        store.close()


def _move_aside(path: Path, now: float) -> Path:
    """Rename a damaged index directory out of the way (kept until the rebuild succeeded)."""
    aside = path.with_name(f"{path.name}.damaged-{int(now)}")
    path.rename(aside)
    return aside


def _rebuild(
    store: RecordStore,
    index: TieredIndex,
    emb: BaseEmbedding,
    progress: Progress | None,
    batch: int,
    max_parts: int,
) -> dict[str, Any]:
    name, dim = index.embedder_name, index.dim
    last_seq = store.last_outbox_seq()
    stale = store.stale_vector_ids(name, dim)
    known = set(stale)
    stale += [i for i in store.part_stale_ids(max_parts) if i not in known]
    live = store.live_count()
    scopes = store.scopes()
    tick = _Ticker(progress, len(stale) + int(live))
    reembedded = reembed(store, emb, name, stale, batch, on_batch=tick, max_parts=max_parts)
    dropped = store.retire_vectors(name, dim)
    collections = sum(drop_collection(index, n) for n in tier_collections(index))
    indexed = 0
    for scope in scopes:
        n = index.rebuild_scope(scope)
        tick(n)
        indexed += n
    index.stamp_embedder()
    cleared = store.clear_outbox(last_seq)
    if progress is not None and tick.done < tick.total:
        progress(tick.total, tick.total)
    return {
        "embedder": name,
        "dim": dim,
        "scopes": len(scopes),
        "records": int(live),
        "reembedded": reembedded,
        "indexed": indexed,
        "dropped_vectors": dropped,
        "dropped_collections": collections,
        "outbox_cleared": cleared,
    }
