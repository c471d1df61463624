"""Repairing and removing: doctor, reindex and purge.

Doctor reconciles the derived indexes with the source of truth, reindex rebuilds the vector index,
purge removes every trace of a user or of one record.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from ..types import AuditEntry, MemoryRecord, Scope
from . import runner as runs
from .runner import TIERS
from .runner import drop_collection
from .runner import reembed
from .runner import tier_collections
from .runner import tier_of
from .runner import upsert_from_store
from .runner import WRITER
from .runner import MaintenancePorts
from pathlib import Path
from llama_index.core.base.embeddings.base import BaseEmbedding
from ..core.clock import Clock, SystemClock
from ..config import MemoryConfig
from ..embed.embedding import build_embedder, embedder_dim, embedder_name
from ..store.ports import MaintenanceStore
from ..store import open_chroma
from ..store import open_record_store
from ..store import tiered
from ..store.tiered_index import TieredIndex
from ..errors import NotFoundError
from ..store.sqlite import hashed_user

# Doctor: reconcile the derived indexes with SQLite, the source of truth (docs/design.md invariant 2).
#
# The outbox is drained first, so only real damage remains (a crash between commit and index
# write, a hand-edited collection, a lost Chroma directory). Then, per (user, agent) partition:
#
# - vectors in the hot/cold collections without a live record there (deleted, inactive, or in the
#   other tier) are orphans: deleted (a record's sentence-part vectors count as the record's);
# - live records (active -> hot, archived -> cold) without a vector in their tier are re-added from
#   the SQLite `vectors` table; a SQLite vector that is missing, stale (content changed) or made by
#   another embedder is recomputed with the ports' embedder first;
#
# and for the whole store:
#
# - hot/cold collections that belong to no partition with records are orphan collections (names
#   are hashes, so they are recognised by elimination): dropped;
# - FTS rows without a record are deleted, records without an FTS row get one;
# - SQLite vectors without a record are deleted.
#
# With repair=False the same problems are counted and nothing is written: the outbox is not
# drained (its pending entries are counted, and the records they concern are left out of the
# vector checks, since the indexer will bring them in line) and no collection is created.
#
# Two states are refused rather than "repaired", because the repair would destroy the only copy:
#
# - SQLite holds no record while the vector index holds collections with vectors (a memory.db
#   lost, truncated or pointed elsewhere): dropping them as orphans would delete every user's
#   index; doctor reports `refused` and drops nothing; restore the database, or run reindex to
#   start the index over from the (empty) database on purpose;
# - the vector index cannot be opened (a damaged chroma.sqlite3): doctor reports it
#   (`unusable_vector_index`); the CLI's `doctor` then rebuilds the index from SQLite with
#   reindex when repairing.
#
# The report also shows the scheduled maintenance: its latest runs (when, by which process, what
# they changed or why they failed) and who holds the lease now (maintain/runner.py).

PROBLEMS = (
    "orphan_vectors",
    "missing_vectors",
    "stale_sqlite_vectors",
    "orphan_collections",
    "orphan_fts",
    "missing_fts",
    "orphan_sqlite_vectors",
    "unusable_vector_index",
)


@dataclass
class DoctorReport:
    """Problems found and fixed, by kind (see PROBLEMS)."""

    repair: bool
    scopes: int = 0
    drained: int = 0
    #: outbox entries still to apply (counted, not applied, when not repairing)
    outbox_pending: int = 0
    #: repairs doctor would not make, and why (see the module docstring)
    refused: list[str] = field(default_factory=list)
    found: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PROBLEMS, 0))
    fixed: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PROBLEMS, 0))
    #: the scheduled maintenance: {"runs": latest first, "lease": holder or None}
    maintenance: dict = field(default_factory=dict)

    @property
    def problems(self) -> int:
        return sum(self.found.values())

    @property
    def healthy(self) -> bool:
        """Nothing found, or everything found was fixed; nothing refused."""
        return not self.refused and all(self.fixed[k] >= n for k, n in self.found.items())

    def to_dict(self) -> dict:
        return {
            "repair": self.repair,
            "scopes": self.scopes,
            "drained": self.drained,
            "outbox_pending": self.outbox_pending,
            "refused": list(self.refused),
            "found": dict(self.found),
            "fixed": dict(self.fixed),
            "problems": self.problems,
            "healthy": self.healthy,
            "maintenance": dict(self.maintenance),
        }


def doctor(
    ports: MaintenancePorts,
    repair: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> DoctorReport:
    """Check (and with repair, fix) the vector and keyword indexes against SQLite.

    progress(done, total): called as the (user, agent) partitions are checked."""
    report = DoctorReport(repair=repair)
    if ports.index.unusable:
        report.found["unusable_vector_index"] = 1  # fixed by reindex (the CLI runs it)
        report.refused.append(f"vector index: {ports.index.unusable}")
        _check_fts(ports, report)
        _check_sqlite_vectors(ports, report)
        report.maintenance = maintenance_status(ports)
        return report
    report.drained = ports.sync_index() if repair else 0
    scopes = ports.store.scopes()
    pending = ports.store.pending_by_scope()
    report.outbox_pending = sum(len(v) for v in pending.values())
    report.scopes = len(scopes)
    existing = set(tier_collections(ports.index))
    for done, scope in enumerate(scopes, 1):
        _check_vectors(ports, scope, report, pending.get((scope.user_id, scope.agent_id), set()))
        if progress is not None:
            progress(done, len(scopes))
    _check_collections(ports, scopes, existing, report)
    _check_fts(ports, report)
    _check_sqlite_vectors(ports, report)
    report.maintenance = maintenance_status(ports)
    return report


def maintenance_status(ports: MaintenancePorts, limit: int = 3) -> dict:
    """The latest maintenance runs (newest first) and the current lease holder, if any."""
    return {
        "runs": runs.recent(ports.store, limit),
        "lease": runs.lease(ports.store, ports.clock.now()),
    }


def _note(report: DoctorReport, kind: str, n: int) -> None:
    report.found[kind] += n
    if report.repair:
        report.fixed[kind] += n


def _check_vectors(
    ports: MaintenancePorts,
    scope: Scope,
    report: DoctorReport,
    pending: set[str] = frozenset(),  # type: ignore[assignment]
) -> None:
    statuses = ports.store.live_statuses(scope)
    stale = ports.store.stale_vector_ids(ports.model_name, ports.index.dim, scope)
    want = {i: tier_of(status) for i, status in statuses.items()}
    readd: set[str] = set(stale)
    for tier in TIERS:
        have = ports.index.ids(scope, tier)  # the store's own, for a tier searched exactly
        should = {i for i, t in want.items() if t == tier}
        orphans, missing = (have - should) - pending, (should - have) - pending
        _note(report, "orphan_vectors", len(orphans))
        _note(report, "missing_vectors", len(missing))
        if report.repair and orphans:
            ports.index.delete(scope, sorted(orphans), tiers=(tier,))
        readd |= missing
    _note(report, "stale_sqlite_vectors", len(stale))
    if report.repair and readd:
        _readd(ports, scope, sorted(readd), set(stale))


def _readd(ports: MaintenancePorts, scope: Scope, ids: list[str], stale: set[str]) -> None:
    found = ports.store.get_many(scope, ids)
    records: list[MemoryRecord] = [found[i] for i in ids if i in found]
    reembed(
        ports.store,
        ports.embedder,
        ports.model_name,
        [r.id for r in records if r.id in stale],
        max_parts=ports.config.long_term.sentence_vectors,
    )
    upsert_from_store(ports.store, ports.index, scope, records)


def _check_collections(
    ports: MaintenancePorts, scopes: list[Scope], existing: set[str], report: DoctorReport
) -> None:
    known = {ports.index.collection_name(s, t) for s in scopes for t in TIERS}
    orphans = sorted(existing - known)
    report.found["orphan_collections"] += len(orphans)
    if not scopes and orphans and _vectors_in(ports, orphans):
        where = getattr(ports.store, "path", "the record store")
        report.refused.append(
            f"{where} holds no records but the vector index holds {len(orphans)} collections "
            "with vectors: the database looks lost or empty, so nothing was dropped; restore "
            "memory.db from a backup, or run `openclaw-memory reindex` to empty the index on purpose"
        )
        return
    if report.repair:
        report.fixed["orphan_collections"] += sum(
            drop_collection(ports.index, name) for name in orphans
        )


def _vectors_in(ports: MaintenancePorts, names: list[str]) -> int:
    """Vectors held by the named collections (read only)."""
    total = 0
    for name in names:
        total += ports.index.collection_size(name)
    return total


def _check_fts(ports: MaintenancePorts, report: DoctorReport) -> None:
    orphan, missing = ports.store.keyword_index_gaps()
    _note(report, "orphan_fts", len(orphan))
    _note(report, "missing_fts", len(missing))
    if not report.repair or not (orphan or missing):
        return
    ports.store.repair_keyword_index(orphan, missing)


def _check_sqlite_vectors(ports: MaintenancePorts, report: DoctorReport) -> None:
    n = ports.store.orphan_vector_rows(delete=report.repair)
    _note(report, "orphan_sqlite_vectors", n)


# Reindex: rebuild the vector index from SQLite with the configured embedder (docs/design.md invariant 4).
#
# Works exactly when `MemoryEngine.open` refuses with IndexMismatchError, so it opens the pieces
# itself (Database, ChromaIndex, embedder) instead of being handed the maintenance ports:
#
# 1. records that are live (active or archived) and whose SQLite vector is missing, stale or made by
#    another model or dimension, or whose sentence-part vectors are not the ones
#    `long_term.sentence_vectors` asks for (a store written before them), are embedded again, in
#    batches, and their `vectors` rows replaced;
#    leftover vectors of another model (inactive records, deleted records) are dropped;
# 2. the SQLite meta row 'embedder' names the configured model;
# 3. every hot/cold collection is dropped (their dimension may differ) and each partition's live
#    vectors are written again, active -> hot, archived -> cold, into a collection for the tiers
#    over `storage.vector_store.exact_below` records (the smaller ones are searched exactly from
#    the store: store/tiered_index.py);
# 4. the index is stamped with the embedder and the outbox entries it made redundant are cleared.
#
# An embedded index Chroma cannot open at all (a damaged chroma.sqlite3) is moved aside, rebuilt
# from SQLite in a fresh directory, and the damaged copy deleted once the rebuild succeeded (it is
# derived data, and may hold vectors of purged users); `rebuilt_unusable_index` says so.
#
# Run it with no other process writing to the store.

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
    store: MaintenanceStore,
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


# Purge: remove every trace of a user, or of one record, from SQLite, the keyword index and
# Chroma (seed 001 §1.1, docs/design.md invariant 6). `forget` deactivates and keeps an audit trail; purge does not.
#
# Afterwards the keyword index is merged into one segment (FTS5 `optimize`): deleting a row from
# an FTS5 table only adds a delete marker, and the row's lowercased and segmented tokens ("lisbon",
# "花生") stay in the older index segments until they are merged, which may be never. Then the
# SQLite file is vacuumed (secure_delete is on, and VACUUM plus a WAL truncate take the freed pages
# off the disk). The user's Chroma collections are dropped with their segment
# directories, and the embedded Chroma's own SQLite file is vacuumed and its segment files
# scrubbed too (`ChromaIndex.compact`). What remains is one audit row saying that a purge happened,
# with the user id replaced by a sha256 prefix, so an operator can prove the deletion without
# keeping the identifier.
#
# Through the middleware, use `MemoryMiddleware.purge_user`: it also drops the user's captures
# still queued in the background worker, which would otherwise write the data back.
#
# Not covered: text of a purged record quoted inside another record of the same user (a compaction
# summary of purged events keeps its digest); purge the user, or the summary too, to remove that.

__all__ = ["hashed_user", "purge_record", "purge_user", "purged_at"]


def purge_user(
    ports: MaintenancePorts, user_id: str, agent_id: str | None = None
) -> dict[str, int]:
    """Delete everything of user_id (every agent, or one); return rows removed per table."""
    Scope(user_id, agent_id or "default")  # validates the ids
    store = ports.store
    agents = store.user_agents(user_id, agent_id)
    for agent in agents:  # let in-flight index work of the user finish before the drop
        ports.sync_index(Scope(user_id, agent))
    counts = store.purge_user(user_id, agent_id, ports.clock.now(), WRITER)
    counts["collections"] = 0
    for agent in agents:
        before = set(ports.index.scope_names())
        ports.index.drop_scope(Scope(user_id, agent))
        counts["collections"] += len(before - set(ports.index.scope_names()))
    store.vacuum()
    counts["index_bytes_zeroed"] = sum(ports.index.compact().values())
    return counts


def purge_record(ports: MaintenancePorts, scope: Scope, record_id: str) -> dict[str, int]:
    """Delete one record and its version chain (older and newer versions) everywhere, with the
    verbatim episodes and short-term messages of the turns it was distilled from."""
    store = ports.store
    with store.transaction():
        if store.get(scope, record_id) is None:
            raise NotFoundError(f"memory {record_id!r} not found for user {scope.user_id!r}")
        ids = _chain(ports, scope, record_id)
        episodes, turns = _episodes_of(ports, scope, ids)
        ids = [*ids, *(e for e in episodes if e not in ids)]
        # records, keyword rows, vectors, versions, their audit rows (reasons can quote the
        # content) and the short-term messages of the turns go; index deletes are queued
        done = store.purge_records(scope, ids, sorted(turns))
        counts = {
            "vectors": done["vectors"],
            "records": done["records"],
            "audit": done["audit"],
            "episodes": len(episodes),
            "messages": done["messages"],
        }
        reason = f"purged {len(ids)} record(s): the version chain and the episodes of its turns"
        store.audit(AuditEntry(scope, record_id, "purge", reason, ports.clock.now(), None, WRITER))
        store.optimize_keyword_index()
    ports.sync_index(scope)
    store.vacuum()
    return counts


def _episodes_of(
    ports: MaintenancePorts, scope: Scope, ids: list[str]
) -> tuple[list[str], set[str]]:
    """The verbatim episodes of the turns these records were distilled from (a record purged
    while its turn stays logged would be recalled again from the episode)."""
    turns = {
        t
        for r in ports.store.get_many(scope, ids).values()
        if r.type.value != "episode"
        for t in r.source.turn_ids
    }
    if not turns:
        return [], turns
    return ports.store.episodes_of_turns(scope, sorted(turns)), turns


def _chain(ports: MaintenancePorts, scope: Scope, record_id: str) -> list[str]:
    """record_id plus every record reachable through prev_id links, in either direction."""
    store = ports.store
    seen: list[str] = []
    todo = [record_id]
    while todo and len(seen) < 10_000:
        rid = todo.pop()
        if rid in seen:
            continue
        seen.append(rid)
        r = store.get(scope, rid)
        if r is not None and r.prev_id:
            todo.append(r.prev_id)
        todo += [x.id for x in store.successors(scope, rid, limit=100)]
    return [i for i in seen if store.get(scope, i) is not None]


def purged_at(ports: MaintenancePorts, user_id: str, agent_id: str) -> float | None:
    """When user_id (all agents, or agent_id) was last purged, from the purge's audit row.

    A write recorded before that time and replayed after it (the OpenClaw plugin's spool) must
    not bring the user's data back; the service refuses such a replay.
    """
    return ports.store.purged_at(user_id, agent_id)
