"""Helpers the maintenance jobs share: scope discovery, the archive transition, Chroma plumbing.

Maintenance works on (user, agent) partitions: a Scope passed in with a workspace is widened to
its partition, because TTL, caps and compaction are properties of the partition, not of a view.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ..embed.embedding import embed_with_parts
from ..store.ports import MaintenanceStore, ManagedVectorIndex, VectorIndex
from ..core.policy import type_values, types_where
from ..types import MemoryRecord, Scope, Status

#: The writer recorded in audit rows and provenance of everything maintenance does.
WRITER = "openclaw-memory maintenance"
TIERS = ("hot", "cold")
#: The types max_facts_per_user does not cap (the episodic log and summaries; the policy table).
UNCAPPED_TYPES = type_values(types_where(capped=False))


def partition(scope: Scope) -> Scope:
    """The (user, agent) partition of a scope."""
    return Scope(scope.user_id, scope.agent_id)


def archive(store: MaintenanceStore, r: MemoryRecord, now: float, reason: str) -> MemoryRecord:
    """Move a live record to the cold tier (deep recall only), with an audit row.

    `updated_at` is left alone: archiving is not a content change, and cleanup measures disuse
    from the last access or content update.
    """
    moved = r.replace(status=Status.ARCHIVED)
    # Not inactive, so update() queues an upsert and the indexer moves the vector to cold.
    store.update(moved, None, "", reindex=False)
    store.audit(r.scope, r.id, "archive", reason, now, None, WRITER)
    return moved


def tier_of(status: str) -> str | None:
    """The Chroma tier a record with this status lives in (None: no vector)."""
    return {Status.ACTIVE.value: "hot", Status.ARCHIVED.value: "cold"}.get(status)


def vector_meta(r: MemoryRecord) -> dict:
    """The metadata stored with a vector (the same fields the indexer writes)."""
    return {"type": r.type.value, "workspace": r.scope.workspace or ""}


def chunks(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def reembed(
    store: MaintenanceStore,
    embedder: Any,
    model: str,
    ids: Sequence[str],
    batch: int = 64,
    on_batch: Callable[[int], None] | None = None,
    max_parts: int = 0,
) -> int:
    """Embed the records with these ids again (with up to `max_parts` sentence-part vectors
    each) and keep the vectors in the record store; return how many.

    Records are read a batch at a time, so a full re-embedding never holds the store in memory.
    """
    done = 0
    for id_group in chunks(list(ids), batch):
        group = store.records_by_id(id_group)
        vecs = embed_with_parts(embedder, [r.text for r in group], max_parts)
        with store.transaction():
            for r, v, parts in zip(group, vecs.whole, vecs.parts, strict=True):
                store.put_vector(r, v, model)
                store.put_parts(r, parts)
        done += len(group)
        if on_batch is not None:
            on_batch(len(group))
    return done


def upsert_from_store(
    store: MaintenanceStore, index: VectorIndex, scope: Scope, records: Sequence[MemoryRecord]
) -> int:
    """Copy the stored vectors of live records into their tier; return how many were written."""
    written = 0
    for group in chunks(list(records), 256):
        vecs, parts = store.vectors_with_parts([r.id for r in group])
        by_tier: dict[str, list[tuple[str, np.ndarray, dict]]] = {t: [] for t in TIERS}
        for r in group:
            tier = tier_of(r.status.value)
            if tier and r.id in vecs:
                by_tier[tier].append((r.id, vecs[r.id], vector_meta(r)))
        for tier, items in by_tier.items():
            index.upsert(scope, tier, items, parts)
            written += len(items)
    return written


def tier_collections(index: ManagedVectorIndex) -> list[str]:
    """Every hot/cold collection under the index's prefix (not the meta collection)."""
    heads = tuple(f"{index.prefix}_{t}_" for t in TIERS)
    return sorted(n for n in index.scope_names() if n.startswith(heads))


def drop_collection(index: ManagedVectorIndex, name: str) -> bool:
    """Delete one collection by name (orphans have no Scope to pass to drop_scope)."""
    return index.drop_collection(name)
