"""Doctor: reconcile the derived indexes with SQLite, the source of truth (docs/design.md invariant 2).

The outbox is drained first, so only real damage remains (a crash between commit and index
write, a hand-edited collection, a lost Chroma directory). Then, per (user, agent) partition:

- vectors in the hot/cold collections without a live record there (deleted, inactive, or in the
  other tier) are orphans: deleted (a record's sentence-part vectors count as the record's);
- live records (active -> hot, archived -> cold) without a vector in their tier are re-added from
  the SQLite `vectors` table; a SQLite vector that is missing, stale (content changed) or made by
  another embedder is recomputed with the engine's embedder first;

and for the whole store:

- hot/cold collections that belong to no partition with records are orphan collections (names
  are hashes, so they are recognised by elimination): dropped;
- FTS rows without a record are deleted, records without an FTS row get one;
- SQLite vectors without a record are deleted.

With repair=False the same problems are counted and nothing is written: the outbox is not
drained (its pending entries are counted, and the records they concern are left out of the
vector checks, since the indexer will bring them in line) and no collection is created.

Two states are refused rather than "repaired", because the repair would destroy the only copy:

- SQLite holds no record while the vector index holds collections with vectors (a memory.db
  lost, truncated or pointed elsewhere): dropping them as orphans would delete every user's
  index; doctor reports `refused` and drops nothing; restore the database, or run reindex to
  start the index over from the (empty) database on purpose;
- the vector index cannot be opened (a damaged chroma.sqlite3): doctor reports it
  (`unusable_vector_index`); the CLI's `doctor` then rebuilds the index from SQLite with
  reindex when repairing.

The report also shows the scheduled maintenance: its latest runs (when, by which process, what
they changed or why they failed) and who holds the lease now (maintain/runs.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..types import MemoryRecord, Scope
from . import runs
from .common import (
    TIERS,
    drop_collection,
    reembed,
    tier_collections,
    tier_of,
    upsert_from_store,
)

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine

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
    engine: MemoryEngine,
    repair: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> DoctorReport:
    """Check (and with repair, fix) the vector and keyword indexes against SQLite.

    progress(done, total): called as the (user, agent) partitions are checked."""
    report = DoctorReport(repair=repair)
    if engine.index.unusable:
        report.found["unusable_vector_index"] = 1  # fixed by reindex (the CLI runs it)
        report.refused.append(f"vector index: {engine.index.unusable}")
        _check_fts(engine, report)
        _check_sqlite_vectors(engine, report)
        report.maintenance = maintenance_status(engine)
        return report
    report.drained = engine.sync_index() if repair else 0
    scopes = engine.store.scopes()
    pending = engine.store.pending_by_scope()
    report.outbox_pending = sum(len(v) for v in pending.values())
    report.scopes = len(scopes)
    existing = set(tier_collections(engine.index))
    for done, scope in enumerate(scopes, 1):
        _check_vectors(engine, scope, report, pending.get((scope.user_id, scope.agent_id), set()))
        if progress is not None:
            progress(done, len(scopes))
    _check_collections(engine, scopes, existing, report)
    _check_fts(engine, report)
    _check_sqlite_vectors(engine, report)
    report.maintenance = maintenance_status(engine)
    return report


def maintenance_status(engine: MemoryEngine, limit: int = 3) -> dict:
    """The latest maintenance runs (newest first) and the current lease holder, if any."""
    return {
        "runs": runs.recent(engine.store, limit),
        "lease": runs.lease(engine.store, engine.clock.now()),
    }


def _note(report: DoctorReport, kind: str, n: int) -> None:
    report.found[kind] += n
    if report.repair:
        report.fixed[kind] += n


def _check_vectors(
    engine: MemoryEngine,
    scope: Scope,
    report: DoctorReport,
    pending: set[str] = frozenset(),  # type: ignore[assignment]
) -> None:
    statuses = engine.store.live_statuses(scope)
    stale = engine.store.stale_vector_ids(engine.model_name, engine.index.dim, scope)
    want = {i: tier_of(status) for i, status in statuses.items()}
    readd: set[str] = set(stale)
    for tier in TIERS:
        have = engine.index.ids(scope, tier)  # the store's own, for a tier searched exactly
        should = {i for i, t in want.items() if t == tier}
        orphans, missing = (have - should) - pending, (should - have) - pending
        _note(report, "orphan_vectors", len(orphans))
        _note(report, "missing_vectors", len(missing))
        if report.repair and orphans:
            engine.index.delete(scope, sorted(orphans), tiers=(tier,))
        readd |= missing
    _note(report, "stale_sqlite_vectors", len(stale))
    if report.repair and readd:
        _readd(engine, scope, sorted(readd), set(stale))


def _readd(engine: MemoryEngine, scope: Scope, ids: list[str], stale: set[str]) -> None:
    found = engine.store.get_many(scope, ids)
    records: list[MemoryRecord] = [found[i] for i in ids if i in found]
    reembed(
        engine.store,
        engine.embedder,
        engine.model_name,
        [r.id for r in records if r.id in stale],
        max_parts=engine.config.long_term.sentence_vectors,
    )
    upsert_from_store(engine.store, engine.index, scope, records)


def _check_collections(
    engine: MemoryEngine, scopes: list[Scope], existing: set[str], report: DoctorReport
) -> None:
    known = {engine.index.collection_name(s, t) for s in scopes for t in TIERS}
    orphans = sorted(existing - known)
    report.found["orphan_collections"] += len(orphans)
    if not scopes and orphans and _vectors_in(engine, orphans):
        where = getattr(engine.store, "path", "the record store")
        report.refused.append(
            f"{where} holds no records but the vector index holds {len(orphans)} collections "
            "with vectors: the database looks lost or empty, so nothing was dropped; restore "
            "memory.db from a backup, or run `openclaw-memory reindex` to empty the index on purpose"
        )
        return
    if report.repair:
        report.fixed["orphan_collections"] += sum(
            drop_collection(engine.index, name) for name in orphans
        )


def _vectors_in(engine: MemoryEngine, names: list[str]) -> int:
    """Vectors held by the named collections (read only)."""
    total = 0
    for name in names:
        total += engine.index.collection_size(name)
    return total


def _check_fts(engine: MemoryEngine, report: DoctorReport) -> None:
    orphan, missing = engine.store.keyword_index_gaps()
    _note(report, "orphan_fts", len(orphan))
    _note(report, "missing_fts", len(missing))
    if not report.repair or not (orphan or missing):
        return
    engine.store.repair_keyword_index(orphan, missing)


def _check_sqlite_vectors(engine: MemoryEngine, report: DoctorReport) -> None:
    n = engine.store.orphan_vector_rows(delete=report.repair)
    _note(report, "orphan_sqlite_vectors", n)
