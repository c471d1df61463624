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
   vectors are written again, active -> hot, archived -> cold;
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

from ..clock import Clock, SystemClock
from ..config import MemoryConfig
from ..embedding import build_embedder, embedder_dim, embedder_name
from ..store import records as rec
from ..store.db import Database
from ..store.vector import ChromaIndex
from ..types import MemoryRecord, Scope
from .common import (
    drop_collection,
    part_stale_ids,
    reembed,
    scopes_in,
    stale_vector_ids,
    tier_collections,
    upsert_from_sqlite,
)

#: progress(done, total): called as records are embedded and indexed (e.g. evaluate.ProgressBar).
Progress = Callable[[int, int], None]
_PAGE = 1000


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
    database = Database(config.sqlite_file)
    index = None
    damaged: Path | None = None
    try:
        index = _open_index(config, name, dim)
        if index.unusable and index.path is not None:
            index.close()
            damaged = _move_aside(index.path, (clock or SystemClock()).now())
            index = _open_index(config, name, dim)
        result = _rebuild(database, index, emb, progress, batch, config.long_term.sentence_vectors)
        if damaged is not None:
            shutil.rmtree(damaged, ignore_errors=True)
            result["rebuilt_unusable_index"] = str(config.chroma_dir)
        return result
    finally:
        if index is not None:
            index.close()
        database.close()


def _open_index(config: MemoryConfig, name: str, dim: int) -> ChromaIndex:
    vs = config.storage.vector_store
    return ChromaIndex(
        kind=vs.kind,
        path=config.chroma_dir,
        host=vs.host,
        port=vs.port,
        prefix=vs.collection_prefix,
        embedder_name=name,
        dim=dim,
        search_ef=vs.search_ef,
    )


def _move_aside(path: Path, now: float) -> Path:
    """Rename a damaged index directory out of the way (kept until the rebuild succeeded)."""
    aside = path.with_name(f"{path.name}.damaged-{int(now)}")
    path.rename(aside)
    return aside


def _rebuild(
    database: Database,
    index: ChromaIndex,
    emb: BaseEmbedding,
    progress: Progress | None,
    batch: int,
    max_parts: int,
) -> dict[str, Any]:
    name, dim = index.embedder_name, index.dim
    with database.read() as db:
        last_seq = db.execute("SELECT COALESCE(MAX(seq), 0) FROM outbox").fetchone()[0]
        stale = stale_vector_ids(db, name, dim)
        known = set(stale)
        stale += [i for i in part_stale_ids(db, max_parts) if i not in known]
        live = db.execute("SELECT COUNT(*) FROM records WHERE status != 'inactive'").fetchone()[0]
        scopes = scopes_in(db)
    tick = _Ticker(progress, len(stale) + int(live))
    reembedded = reembed(database, emb, name, stale, batch, on_batch=tick, max_parts=max_parts)
    dropped = _retire_old_vectors(database, name, dim)
    collections = sum(drop_collection(index, n) for n in tier_collections(index))
    indexed = sum(_index_scope(database, index, s, tick) for s in scopes)
    index.stamp_embedder()
    with database.write() as db:
        cleared = db.execute("DELETE FROM outbox WHERE seq <= ?", (last_seq,)).rowcount
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


def _retire_old_vectors(database: Database, name: str, dim: int) -> int:
    """Drop vectors of another model (left only on inactive or deleted records); stamp the meta."""
    with database.write() as db:
        dropped = db.execute(
            "DELETE FROM vectors WHERE model != ? OR dim != ? OR record_id NOT IN "
            "(SELECT id FROM records)",
            (name, dim),
        ).rowcount
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('embedder', ?)", (name,))
    return int(dropped)


def _index_scope(database: Database, index: ChromaIndex, scope: Scope, tick: _Ticker) -> int:
    written, after = 0, 0
    while True:
        page = _page(database, scope, after)
        if not page:
            return written
        after = page[-1][0]
        records = [r for _, r in page]
        written += upsert_from_sqlite(database, index, scope, records)
        tick(len(records))


def _page(database: Database, scope: Scope, after: int) -> list[tuple[int, MemoryRecord]]:
    with database.read() as db:
        rows = db.execute(
            "SELECT * FROM records WHERE user_id = ? AND agent_id = ? "
            "AND status != 'inactive' AND rid > ? ORDER BY rid LIMIT ?",
            (scope.user_id, scope.agent_id, after, _PAGE),
        ).fetchall()
    return [(row["rid"], rec.row_to_record(row)) for row in rows]
