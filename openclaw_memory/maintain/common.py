"""Helpers the maintenance jobs share: scope discovery, the archive transition, Chroma plumbing.

Maintenance works on (user, agent) partitions: a Scope passed in with a workspace is widened to
its partition, because TTL, caps and compaction are properties of the partition, not of a view.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ..embedding import embed_with_parts
from ..store import records as rec
from ..store.db import Database
from ..store.vector import ChromaIndex
from ..text import sentence_parts
from ..policy import type_values, types_where
from ..types import MemoryRecord, Scope, Status, memory_text

#: The writer recorded in audit rows and provenance of everything maintenance does.
WRITER = "openclaw-memory maintenance"
TIERS = ("hot", "cold")
#: The types max_facts_per_user does not cap (the episodic log and summaries; the policy table).
UNCAPPED_TYPES = type_values(types_where(capped=False))


def partition(scope: Scope) -> Scope:
    """The (user, agent) partition of a scope."""
    return Scope(scope.user_id, scope.agent_id)


def scopes_in(db: sqlite3.Connection, user_id: str | None = None) -> list[Scope]:
    """Every (user, agent) partition that has records, optionally for one user, sorted."""
    if user_id is None:
        rows = db.execute(
            "SELECT DISTINCT user_id, agent_id FROM records ORDER BY user_id, agent_id"
        )
    else:
        rows = db.execute(
            "SELECT DISTINCT user_id, agent_id FROM records WHERE user_id = ? ORDER BY agent_id",
            (user_id,),
        )
    return [Scope(r[0], r[1]) for r in rows.fetchall()]


def archive(db: sqlite3.Connection, r: MemoryRecord, now: float, reason: str) -> MemoryRecord:
    """Move a live record to the cold tier (deep recall only), with an audit row.

    `updated_at` is left alone: archiving is not a content change, and cleanup measures disuse
    from the last access or content update.
    """
    moved = r.replace(status=Status.ARCHIVED)
    # Not inactive, so update() queues an upsert and the indexer moves the vector to cold.
    rec.update(db, moved, None, "", reindex=False)
    rec.audit(db, r.scope, r.id, "archive", reason, now, None, WRITER)
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


def stale_vector_ids(
    db: sqlite3.Connection, model: str, dim: int, scope: Scope | None = None
) -> list[str]:
    """Live records whose SQLite vector is missing, from another model or dimension, or stale."""
    sql = (
        "SELECT r.id FROM records r LEFT JOIN vectors v ON v.record_id = r.id "
        "WHERE r.status != 'inactive' AND (v.record_id IS NULL OR v.model != ? OR v.dim != ? "
        "OR v.content_hash != r.content_hash)"
    )
    args: list = [model, int(dim)]
    if scope is not None:
        sql += " AND r.user_id = ? AND r.agent_id = ?"
        args += [scope.user_id, scope.agent_id]
    return [row[0] for row in db.execute(sql + " ORDER BY r.rid", args).fetchall()]


def part_stale_ids(db: sqlite3.Connection, max_parts: int, scope: Scope | None = None) -> list[str]:
    """Live records whose stored sentence-part vectors are not the ones `max_parts` asks for
    (a store written before sentence vectors, or under another setting)."""
    sql = (
        "SELECT r.id, r.subject, r.summary, r.detail, v.dim, LENGTH(v.parts) AS size FROM records r "
        "JOIN vectors v ON v.record_id = r.id WHERE r.status != 'inactive'"
    )
    args: list = []
    if scope is not None:
        sql += " AND r.user_id = ? AND r.agent_id = ?"
        args += [scope.user_id, scope.agent_id]
    out = []
    for row in db.execute(sql + " ORDER BY r.rid", args):
        have = (row["size"] or 0) // (4 * row["dim"])
        if have != len(
            sentence_parts(memory_text(row["subject"], row["summary"], row["detail"]), max_parts)
        ):
            out.append(row["id"])
    return out


def records_by_id(db: sqlite3.Connection, ids: Sequence[str]) -> list[MemoryRecord]:
    """Records for ids in any scope (maintenance-internal: the ids came from a scoped query)."""
    out: list[MemoryRecord] = []
    for chunk in chunks(list(ids), 500):
        marks = ",".join("?" * len(chunk))
        out += [
            rec.row_to_record(r)
            for r in db.execute(f"SELECT * FROM records WHERE id IN ({marks})", chunk)
        ]
    return out


def reembed(
    database: Database,
    embedder: Any,
    model: str,
    ids: Sequence[str],
    batch: int = 64,
    on_batch: Callable[[int], None] | None = None,
    max_parts: int = 0,
) -> int:
    """Embed the records with these ids again (with up to `max_parts` sentence-part vectors
    each) and store the vectors in SQLite; return how many.

    Records are read a batch at a time, so a full re-embedding never holds the store in memory.
    """
    done = 0
    for id_group in chunks(list(ids), batch):
        with database.read() as db:
            group = records_by_id(db, id_group)
        vecs = embed_with_parts(embedder, [r.text for r in group], max_parts)
        with database.write() as db:
            for r, v, parts in zip(group, vecs.whole, vecs.parts, strict=True):
                rec.put_vector(db, r, v, model)
                rec.put_parts(db, r, parts)
        done += len(group)
        if on_batch is not None:
            on_batch(len(group))
    return done


def upsert_from_sqlite(
    database: Database, index: ChromaIndex, scope: Scope, records: Sequence[MemoryRecord]
) -> int:
    """Copy the SQLite vectors of live records into their tier; return how many were written."""
    written = 0
    for group in chunks(list(records), 256):
        with database.read() as db:
            vecs, parts = rec.vectors_with_parts(db, [r.id for r in group])
        by_tier: dict[str, list[tuple[str, np.ndarray, dict]]] = {t: [] for t in TIERS}
        for r in group:
            tier = tier_of(r.status.value)
            if tier and r.id in vecs:
                by_tier[tier].append((r.id, vecs[r.id], vector_meta(r)))
        for tier, items in by_tier.items():
            index.upsert(scope, tier, items, parts)
            written += len(items)
    return written


def tier_collections(index: ChromaIndex) -> list[str]:
    """Every hot/cold collection under the index's prefix (not the meta collection)."""
    heads = tuple(f"{index.prefix}_{t}_" for t in TIERS)
    return sorted(n for n in index.scope_names() if n.startswith(heads))


def drop_collection(index: ChromaIndex, name: str) -> bool:
    """Delete one collection by name (orphans have no Scope to pass to drop_scope)."""
    return index.drop_collection(name)
