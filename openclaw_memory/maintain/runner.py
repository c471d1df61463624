"""Forgetting and running it: TTL, the per-user cap, compaction, cleanup, the run log.

The forgetting jobs in the order they run, the maintenance run log with the lease that lets one
process at a time run them, the entity-link backlog of records stored before entity memory
existed, and the schedule that runs them (with message pruning) by itself; and what every job
shares (doctor and reindex too): the ports it is handed (`MaintenancePorts`), scope discovery,
the archive transition, Chroma plumbing.
Maintenance works on (user, agent) partitions: a Scope passed in with a workspace is widened to
its partition, because TTL, caps and compaction are properties of the partition, not of a view.
Over 600 lines: one concept, the jobs and the run that orders them.
"""

from __future__ import annotations

import numpy as np
import json
import os
import secrets
import socket
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TYPE_CHECKING
from llama_index.core.base.embeddings.base import BaseEmbedding
from ..core.clock import Clock
from ..config import MemoryConfig
from ..embed.embedding import embed_with_parts, embed_passages
from ..store.ports import MaintenanceStore, ManagedVectorIndex, UnusedQuery, VectorIndex
from ..core.policy import type_values, types_where
from ..types import AuditEntry, Channel, MemoryRecord, MemoryType, Scope, Source, Status
from ..core.clock import DAY, iso_date
from collections import Counter
from dataclasses import dataclass, asdict, field
from ..write.consolidate.records import new_id
from ..lang import Languages
from ..lang.pack import LanguagePack
from ..lang.entities import mentions_of, named_in
from ..lang.text import majority
from ..core.tokens import count_tokens
from ..store.entity_linking import BATCH
from ..capture.pipeline import ShortTermMemory

if TYPE_CHECKING:
    from ..config import MaintenanceConfig

# The ports maintenance is handed: the record store (`store.ports.MaintenanceStore`), the managed
# vector index, the embedder and its name, the clock, the config, and the two calls into the
# indexer that stays with the storage that opened it (drain the outbox now; wake it for soon).
# The factory builds them over an open engine (`runtime.factory.maintenance_ports`); a test
# builds them over an in-memory store and a numpy index. Every job, doctor and purge takes
# `MaintenancePorts` and reads nothing else.


class Drain(Protocol):
    """Apply the pending outbox entries (of one scope, or all) now; returns how many."""

    def __call__(self, scope: Scope | None = None) -> int: ...


@dataclass(frozen=True)
class MaintenancePorts:
    """What the maintenance jobs, doctor and purge read of one open storage."""

    store: MaintenanceStore
    index: ManagedVectorIndex
    embedder: BaseEmbedding
    #: the embedder's name: what the stored vectors carry
    model_name: str
    clock: Clock
    #: read for forgetting, long_term (the cap, sentence vectors) and short_term (pruning)
    config: MemoryConfig
    #: drains the index feed now (`store.indexer.Indexer.drain`)
    sync_index: Drain
    #: wakes the indexer for the entries just queued (`store.indexer.Indexer.notify`)
    written: Callable[[], None]
    #: the language packs under config's `rules.disabled`: what a record written or linked
    #: names is read with them (None: every rule on)
    langs: Languages | None = None


# Helpers the maintenance jobs share: scope discovery, the archive transition, Chroma plumbing.
#
# Maintenance works on (user, agent) partitions: a Scope passed in with a workspace is widened to
# its partition, because TTL, caps and compaction are properties of the partition, not of a view.

#: The writer recorded in audit rows and provenance of everything maintenance does.
WRITER = "openclaw-memory maintenance"
TIERS = ("hot", "cold")
#: The types max_facts_per_user does not cap (the episodic log and summaries; the policy table).
UNCAPPED_TYPES = type_values(types_where(capped=False))


def partition(scope: Scope) -> Scope:
    """The (user, agent) partition of a scope."""
    return Scope(scope.user_id, scope.agent_id)


def archive(
    store: MaintenanceStore,
    r: MemoryRecord,
    now: float,
    reason: str,
    langs: Languages | None = None,
) -> MemoryRecord:
    """Move a live record to the cold tier (deep recall only), with an audit row; what it
    names is read with `langs` (every rule on by default).

    `updated_at` is left alone: archiving is not a content change, and cleanup measures disuse
    from the last access or content update.
    """
    moved = r.replace(status=Status.ARCHIVED)
    # Not inactive, so update() queues an upsert and the indexer moves the vector to cold.
    store.update(moved, None, "", reindex=False, mentions=mentions_of(moved, langs))
    store.audit(AuditEntry(r.scope, r.id, "archive", reason, now, None, WRITER))
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


# Forgetting and running it: TTL, the per-user cap, compaction, cleanup, the run log.
#
# The forgetting jobs in the order they run, the maintenance run log with the lease that lets one
# process at a time run them, the entity-link backlog of records stored before entity memory
# existed, and the schedule that runs them (with message pruning) by itself.

# TTL: live records past their `expires_at` move to the cold archive (docs/design.md seed 000 §2.3).
#
# Expiry is not deletion: an expired event or task leaves normal recall but stays reachable by deep
# recall (the cold tier) and by its id, with an audit row saying why. Real deletion is cleanup's job.

REASON = "expired (ttl)"
_BATCH = 500


def expire(ports: MaintenancePorts, scope: Scope) -> int:
    """Archive the active records of scope's partition whose expires_at <= now; return how many."""
    part = partition(scope)
    now = ports.clock.now()
    done = 0
    while True:
        with ports.store.transaction():
            due = ports.store.expired(part, now, _BATCH)
            for r in due:
                archive(ports.store, r, now, REASON, ports.langs)
        done += len(due)
        if len(due) < _BATCH:
            break
    if done:
        ports.written()
    return done


# The per-user cap on curated memories: max_facts_per_user (docs/design.md seed 002 §4.3).
#
# When a partition holds more live curated records (profile, preference, fact, decision, task) than
# the cap, the least valuable go to the cold archive until the cap holds. Value, lowest first:
# importance, then the last use (last access, or the last content update when never accessed), then
# access count, then age. Profile records and explicit user commands are archived only after every
# other kind: the user asked for those. The episodic log and summaries are not capped here; TTL and
# compaction keep them in check.


def count_curated(ports: MaintenancePorts, scope: Scope) -> int:
    """Live curated records in scope's partition."""
    return ports.store.curated_count(partition(scope), UNCAPPED_TYPES)


def enforce_cap(ports: MaintenancePorts, scope: Scope, cap: int | None = None) -> int:
    """Archive the lowest-value curated records above the cap; return how many were archived."""
    limit = ports.config.long_term.max_facts_per_user if cap is None else int(cap)
    part = partition(scope)
    now = ports.clock.now()
    store = ports.store
    with store.transaction():
        excess = store.curated_count(part, UNCAPPED_TYPES) - limit
        if excess <= 0:
            return 0
        victims = store.lowest_value(part, UNCAPPED_TYPES, excess)
        reason = f"over the cap of {limit} curated memories (lowest value)"
        for r in victims:
            archive(store, r, now, reason, ports.langs)
    ports.written()
    return len(victims)


# Periodic cleanup (docs/design.md seed 002 §4.3): memories nobody used for a long time and that matter little
# are deleted for real, vectors included, so no orphan vector is left behind.
#
# A record qualifies when all of these hold:
# - live (active or archived); inactive records are the audit trail of forget and supersession;
# - unused for `cleanup_unused_days`: its last access, or its last content update if never accessed;
# - importance <= `cleanup_max_importance`;
# - not a profile record, not an explicit user command, not a summary.
#
# Summaries are kept whatever their age. The seed keeps only weekly rollups of old summaries; rolling
# them up is not built (the seed's `summary_keep_days` key is retired, config.RETIRED_KEYS), so
# nothing is lost meanwhile.

_KEPT = type_values(types_where(kept_by_cleanup=True))  # the policy table


def cleanup(ports: MaintenancePorts, scope: Scope) -> int:
    """Delete the unused, unimportant records of scope's partition; return how many."""
    f = ports.config.forgetting
    part = partition(scope)
    now = ports.clock.now()
    cutoff = now - f.cleanup_unused_days * DAY
    reason = (
        f"unused for {f.cleanup_unused_days:g} days and importance <= {f.cleanup_max_importance:g}"
    )
    unused = UnusedQuery(tuple(_KEPT), f.cleanup_max_importance, cutoff, _BATCH)
    done = 0
    while True:
        store = ports.store
        with store.transaction():
            victims = store.unused(part, unused)
            store.delete_records(part, [r.id for r in victims])  # queues the vector deletes
            for r in victims:
                store.audit(AuditEntry(part, r.id, "delete", reason, now, None, WRITER))
        done += len(victims)
        if len(victims) < _BATCH:
            break
    if done:
        ports.written()
    return done


# Compaction of event streams (docs/design.md seed 000 §2.3): when a subject holds more than
# `compaction_trigger` live events, the oldest `compaction_batch` become one summary memory.
#
# The summary is extractive (no LLM, so it runs offline and cannot invent anything): the period it
# covers, counts by kind, and the distinct one-line outcomes, within a token cap. It links to every
# event it replaces and carries the union of their turn ids, so the evidence stays reachable; the
# events themselves go to the cold archive (deep recall only), never deleted here.
#
# Not built: rolling old episodes of a session into the same kind of summary; episodes age out
# through TTL (`episode_ttl_days`) and cleanup instead.

DIGEST_MAX_TOKENS = 200
OUTCOME_MAX_CHARS = 80


@dataclass(frozen=True)
class Compaction:
    """One summary written and the events it replaced."""

    summary_id: str
    subject: str | None
    event_ids: tuple[str, ...]


def compact_events(
    ports: MaintenancePorts, scope: Scope, *, trigger: int | None = None, batch: int | None = None
) -> list[Compaction]:
    """Compact every crowded event subject of scope's partition until none exceeds the trigger."""
    f = ports.config.forgetting
    trigger = f.compaction_trigger if trigger is None else int(trigger)
    batch = f.compaction_batch if batch is None else int(batch)
    if batch <= 0:
        return []
    part = partition(scope)
    out: list[Compaction] = []
    for subject in _crowded_subjects(ports, part, trigger):
        while True:
            done = _compact_oldest(ports, part, subject, trigger, batch)
            if done is None:
                break
            out.append(done)
    if out:
        ports.written()
    return out


def _crowded_subjects(ports: MaintenancePorts, part: Scope, trigger: int) -> list[str | None]:
    return ports.store.crowded_event_subjects(part, trigger)


def _compact_oldest(
    ports: MaintenancePorts, part: Scope, subject: str | None, trigger: int, batch: int
) -> Compaction | None:
    """One round, in one transaction: the summary is inserted and the events archived together."""
    store = ports.store
    with store.transaction():
        if store.live_event_count(part, subject) <= trigger:
            return None
        events = store.oldest_live_events(part, subject, batch)
        now = ports.clock.now()
        summary = summary_record(new_id(ports.clock), part, subject, events, now, ports.langs)
        vec = embed_passages(ports.embedder, [summary.text])[0]
        store.insert(summary, vec, ports.model_name, mentions=mentions_of(summary, ports.langs))
        reason = f"compaction of {len(events)} events"
        store.audit(
            AuditEntry(part, summary.id, "insert", reason, now, Channel.SUMMARY.value, WRITER)
        )
        for e in events:
            archive(store, e, now, f"compacted into {summary.id}", ports.langs)
    return Compaction(summary.id, subject, tuple(e.id for e in events))


def summary_record(
    record_id: str,
    scope: Scope,
    subject: str | None,
    events: Sequence[MemoryRecord],
    now: float,
    langs: Languages | None = None,
) -> MemoryRecord:
    """The summary memory standing for events: provenance to every one of them (its digest
    in the language `langs` reads most of them in)."""
    turn_ids = tuple(dict.fromkeys(t for e in events for t in e.source.turn_ids))
    entities = tuple(dict.fromkeys(x for e in events for x in e.entities))[:20]
    return MemoryRecord(
        id=record_id,
        scope=scope,
        type=MemoryType.SUMMARY,
        summary=digest(subject, events, langs=langs),
        subject=subject,
        tags=("compaction",),
        entities=entities,
        importance=max(e.importance for e in events),
        confidence=sum(e.confidence for e in events) / len(events),
        source=Source(Channel.SUMMARY, None, turn_ids, WRITER),
        created_at=now,
        updated_at=now,
        links=tuple(e.id for e in events),
    )


def digest(
    subject: str | None,
    events: Sequence[MemoryRecord],
    *,
    max_tokens: int = DIGEST_MAX_TOKENS,
    langs: Languages | None = None,
) -> str:
    """Extractive digest: period, counts by kind, distinct one-line outcomes; at most
    max_tokens; in the language of most events, by the packs `langs` (every rule on by default)."""
    lp = majority([e.summary for e in events], "compaction", ties=False, langs=langs)
    first, last = min(e.created_at for e in events), max(e.created_at for e in events)
    kinds = Counter(_kind(e, lp) for e in events).most_common()
    outcomes = Counter(_outcome(e.summary) for e in events)  # insertion order = first seen
    head = _head(subject, len(events), iso_date(first), iso_date(last), kinds, lp)
    parts: list[str] = []
    for i, (line, n) in enumerate(outcomes.items()):
        item = _item(line, n, lp)
        rest = len(outcomes) - i - 1
        tail = _form(lp, "more").format(n=rest) if rest else ""
        if parts and count_tokens(_join(head, [*parts, item, tail], lp)) > max_tokens:
            parts.append(_form(lp, "more").format(n=len(outcomes) - i))
            break
        parts.append(item)
    return _join(head, parts, lp)


def _form(lp: LanguagePack, name: str) -> str:
    """A form of the digest in the language of most of its events (their `compaction` table)."""
    return str(lp.table("compaction").entry("digest").settings[name])


def _head(subject: str | None, n: int, start: str, end: str, kinds: list, lp: LanguagePack) -> str:
    period = _form(lp, "period_day" if start == end else "period_span").format(start=start, end=end)
    about = _form(lp, "about").format(subject=subject) if subject else ""
    counts = _form(lp, "counts_sep").join(
        _form(lp, "count").format(kind=k, count=c) for k, c in kinds
    )
    return _form(lp, "head").format(about=about, n=n, period=period, counts=counts)


def _join(head: str, parts: list[str], lp: LanguagePack) -> str:
    body = _form(lp, "parts_sep").join(p for p in parts if p)
    return head + body + _form(lp, "end")


def _item(line: str, n: int, lp: LanguagePack) -> str:
    if n == 1:
        return line
    return _form(lp, "repeated").format(line=line, n=n)


def _kind(e: MemoryRecord, lp: LanguagePack) -> str:
    return e.tags[0] if e.tags else _form(lp, "event")


def _outcome(summary: str) -> str:
    line = (summary.strip().splitlines() or [""])[0].strip().rstrip("。.")
    return line if len(line) <= OUTCOME_MAX_CHARS else line[: OUTCOME_MAX_CHARS - 1].rstrip() + "…"


# The maintenance run log and the lease that lets one process at a time run maintenance.
#
# Both live in the record store, so every process on a store (the service, MCP servers, the CLI) sees the
# same state: a run is due when the last run recorded by any of them is old enough, and the lease
# row says who runs now. A lease carries an expiry, so a runner that died frees it by itself.
# Counts are kept as totals only: the log names no user, so a purge leaves nothing of one here.

LEASE = "maintenance"


def holder_id() -> str:
    """A lease holder name for one runner: host, process id and a random tag (host:pid:tag)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def acquire(
    store: MaintenanceStore, holder: str, now: float, seconds: float, name: str = LEASE
) -> bool:
    """Take the lease for `seconds` unless another holder has it unexpired; True when taken."""
    return store.acquire_lease(name, holder, now, seconds)


def release(store: MaintenanceStore, holder: str, name: str = LEASE) -> None:
    """Give the lease back (only if this holder still has it)."""
    store.release_lease(name, holder)


def lease(store: MaintenanceStore, now: float, name: str = LEASE) -> dict[str, Any] | None:
    """The unexpired lease, if any: {"holder", "expires_at"}."""
    return store.lease(name, now)


def begin(store: MaintenanceStore, trigger: str, holder: str, now: float) -> int:
    """Log the start of a run; returns its id. Called with the lease held, so a run still marked
    running was left by a runner that died: it is marked abandoned."""
    return store.begin_run(trigger, holder, now)


def finish(
    store: MaintenanceStore,
    run_id: int,
    now: float,
    counts: dict[str, int] | None,
    error: str | None = None,
) -> None:
    """Log how a run ended: its totals, or the error that stopped it."""
    status = "failed" if error else "ok"
    store.finish_run(run_id, now, status, json.dumps(counts or {}, sort_keys=True), error)


def recent(store: MaintenanceStore, limit: int = 5) -> list[dict[str, Any]]:
    """The latest runs, newest first, with their counts decoded."""
    return [{**r, "counts": json.loads(r["counts"] or "{}")} for r in store.recent_runs(limit)]


def last_started(store: MaintenanceStore) -> float | None:
    """When the latest run began, whatever its outcome (a failing run is not retried in a loop)."""
    runs = store.recent_runs(1)  # the newest start first
    return float(runs[0]["started_at"]) if runs else None


# The entity-link backlog: records stored before entity memory existed get their links.
#
# Opening a store only notes the backlog (store/entity_linking.py); maintenance works through it
# here, a batch per transaction and at most `PER_RUN` records a run, so a large store is linked
# over a few scheduled runs without holding the write lock for long. What each record of a batch
# names is read here, before the store's write transaction (the store files it, and never reads
# a text in a language). Each batch commits with its cursor: a run stopped anywhere resumes where
# it stopped.

#: records one maintenance run examines at most; the rest wait for the next run
PER_RUN = 20_000


def link_batch(
    store: MaintenanceStore, limit: int = BATCH, langs: Languages | None = None
) -> tuple[int, int]:
    """Link the backlog's next `limit` records: the ones that want links read from the store,
    what each names read from its text and `entities` field with `langs` (a forgotten one as
    it was while live), then filed by the store in one transaction; returns (records examined,
    records left)."""
    named = [(r, named_in(r.text, r.entities, langs)) for r in store.entity_backlog(limit)]
    return store.backfill_entity_links(named, limit)


def link_backlog(
    store: MaintenanceStore, budget: int | None = PER_RUN, langs: Languages | None = None
) -> int:
    """Link the backlog's next records, `budget` at most (None: all that are left), reading
    what each names with `langs`; returns how many were examined (0 once the backlog is
    done)."""
    done = 0
    while budget is None or done < budget:
        step = BATCH if budget is None else min(BATCH, budget - done)
        examined, left = link_batch(store, step, langs)
        done += examined
        if not left or not examined:
            break
    return done


# run_maintenance: TTL, cap, compaction and cleanup, in that order, for one partition or all,
# then the pruning of old short-term messages (of every partition, or of the one user); a run
# over the whole store also links older records to their entities (maintain/runner.py).
#
# Each job commits its own transactions and queues index changes in the outbox; the runner drains
# the outbox of every partition it touched at the end, so the vector index agrees when it returns.


@dataclass
class MaintenanceReport:
    """Counts of what one maintenance run changed, in total and per partition ("user/agent")."""

    scopes: int = 0
    expired: int = 0
    capped: int = 0
    summaries: int = 0
    compacted: int = 0
    deleted: int = 0
    messages_pruned: int = 0
    #: records of the entity-link backlog examined (derived rows: not counted as changed)
    entity_backlog: int = 0
    by_scope: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def changed(self) -> int:
        return (
            self.expired
            + self.capped
            + self.summaries
            + self.compacted
            + self.deleted
            + self.messages_pruned
        )

    def add(self, scope: Scope, counts: dict[str, int]) -> None:
        self.scopes += 1
        self.by_scope[f"{scope.user_id}/{scope.agent_id}"] = counts
        for key, n in counts.items():
            setattr(self, key, getattr(self, key) + n)

    def to_dict(self) -> dict:
        return {**asdict(self), "changed": self.changed}

    def totals(self) -> dict[str, int]:
        """The counts without the per-partition breakdown (no user id in them)."""
        return {k: v for k, v in self.to_dict().items() if k != "by_scope"}


def run_maintenance(
    ports: MaintenancePorts, scope: Scope | None = None, *, user_id: str | None = None
) -> MaintenanceReport:
    """Run every forgetting job for scope's partition, or for every partition with records
    (of user_id, when given)."""
    if scope is None:
        targets = ports.store.scopes(user_id)
    else:
        targets = [partition(scope)]
    report = MaintenanceReport()
    for part in targets:
        report.add(part, maintain_scope(ports, part))
    if scope is None and user_id is None:
        report.entity_backlog = link_backlog(ports.store, langs=ports.langs)
    for part in targets:
        ports.sync_index(part)
    short_term = ShortTermMemory(ports.store, ports.config.short_term, ports.clock)
    if scope is not None:
        report.messages_pruned = short_term.prune(scope.user_id, scope.agent_id)
    else:
        report.messages_pruned = short_term.prune(user_id)
    return report


def maintain_scope(ports: MaintenancePorts, scope: Scope) -> dict[str, int]:
    """The four jobs on one partition; the counts of each."""
    expired = expire(ports, scope)
    capped = enforce_cap(ports, scope)
    compactions = compact_events(ports, scope)
    deleted = cleanup(ports, scope)
    return {
        "expired": expired,
        "capped": capped,
        "summaries": len(compactions),
        "compacted": sum(len(c.event_ids) for c in compactions),
        "deleted": deleted,
    }


# Scheduled maintenance: the forgetting jobs and message pruning, run by themselves.
#
# A long-running process that owns a store (`serve`, `mcp`) starts a `MaintenanceScheduler`. Every
# `check_seconds` it asks whether a run is due: the latest run logged by any process on the store
# (maintain/runner.py) is `interval_hours` old by the injected clock, or there is none. A due run
# takes the store's lease first, so with several processes on one store one of them runs it and the
# others see the fresh log entry and wait for the next interval. Each run is logged with its totals
# (or its error), and every change it makes has its own audit row, written by the jobs.

log = logging.getLogger(__name__)
HOUR = 3600.0


class MaintenanceBusyError(Exception):
    """Another process holds the maintenance lease."""


class MaintenanceScheduler:
    """Runs `run` (default: run_maintenance over every partition) when due, one runner per store."""

    def __init__(
        self,
        ports: MaintenancePorts,
        cfg: MaintenanceConfig,
        *,
        holder: str | None = None,
        run: Callable[[MaintenancePorts], MaintenanceReport] = run_maintenance,
    ) -> None:
        self.ports = ports
        self.cfg = cfg
        self.holder = holder or holder_id()
        self._run = run
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._running = threading.Lock()

    def next_due(self) -> float | None:
        """When the next run is due (None: at once, no run was ever logged)."""
        last = last_started(self.ports.store)
        return None if last is None else last + self.cfg.interval_hours * HOUR

    def due(self) -> bool:
        due = self.next_due()
        return due is None or self.ports.clock.now() >= due

    def tick(self) -> MaintenanceReport | None:
        """One check: run if enabled and due and the lease is free; the report, else None."""
        if not self.cfg.enabled:
            return None
        try:
            return self._under_lease("schedule", force=False)
        except MaintenanceBusyError:
            return None

    def run_now(self, trigger: str = "manual") -> MaintenanceReport:
        """Run now, due or not, under the lease; MaintenanceBusyError when another runner holds
        it. A failing run is logged with its error and re-raised."""
        report = self._under_lease(trigger, force=True)
        assert report is not None  # forced: never skipped
        return report

    def _under_lease(self, trigger: str, *, force: bool) -> MaintenanceReport | None:
        with self._running:  # one run at a time in this process too
            now = self.ports.clock.now()
            if not acquire(self.ports.store, self.holder, now, self.cfg.lease_seconds):
                held = lease(self.ports.store, now) or {}
                raise MaintenanceBusyError(
                    f"maintenance is running in another process ({held.get('holder', '?')})"
                )
            try:
                if not force and not self.due():
                    return None
                return self._logged(trigger, now)
            finally:
                release(self.ports.store, self.holder)

    def _logged(self, trigger: str, now: float) -> MaintenanceReport:
        run_id = begin(self.ports.store, trigger, self.holder, now)
        try:
            report = self._run(self.ports)
        except Exception as exc:
            finish(
                self.ports.store,
                run_id,
                self.ports.clock.now(),
                None,
                f"{type(exc).__name__}: {exc}",
            )
            raise
        finish(self.ports.store, run_id, self.ports.clock.now(), report.totals())
        if report.changed:
            log.info(
                "maintenance (%s): %d change(s) in %d partition(s)",
                trigger,
                report.changed,
                report.scopes,
            )
        return report

    def nudge(self) -> str:
        """Run in the background now if a run is due: "started", "not_due", "running" or "off"."""
        if not self.cfg.enabled:
            return "off"
        if self._running.locked():
            return "running"
        if not self.due():
            return "not_due"
        threading.Thread(
            target=self._checked_tick, name="ocm-maintenance-nudge", daemon=True
        ).start()
        return "started"

    def start(self) -> MaintenanceScheduler:
        """Check in a background thread every `check_seconds` until stop()."""
        if self._thread is None and self.cfg.enabled:
            self._thread = threading.Thread(target=self._loop, name="ocm-maintenance", daemon=True)
            self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(max(self.cfg.check_seconds, 0.05)):
            self._checked_tick()

    def _checked_tick(self) -> None:
        try:
            self.tick()
        except Exception:  # logged in the run log too; the next interval tries again
            log.exception("scheduled maintenance failed")

    def stop(self, timeout: float = 60.0) -> None:
        """Stop checking; a run in progress finishes first (up to timeout)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None


def start_scheduler(ports: MaintenancePorts, cfg: MaintenanceConfig) -> MaintenanceScheduler | None:
    """A started scheduler over the ports' store, or None when maintenance.enabled is false."""
    return MaintenanceScheduler(ports, cfg).start() if cfg.enabled else None
