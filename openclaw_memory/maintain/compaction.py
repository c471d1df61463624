"""Compaction of event streams (docs/design.md seed 000 §2.3): when a subject holds more than
`compaction_trigger` live events, the oldest `compaction_batch` become one summary memory.

The summary is extractive (no LLM, so it runs offline and cannot invent anything): the period it
covers, counts by kind, and the distinct one-line outcomes, within a token cap. It links to every
event it replaces and carries the union of their turn ids, so the evidence stays reachable; the
events themselves go to the cold archive (deep recall only), never deleted here.

Not built: rolling old episodes of a session into the same kind of summary; episodes age out
through TTL (`episode_ttl_days`) and cleanup instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.clock import iso_date
from ..write.consolidate.records import new_id
from ..embed.embedding import embed_passages
from ..lang import all_on
from ..lang.text import has_cjk
from ..core.tokens import count_tokens
from ..types import Channel, MemoryRecord, MemoryType, Scope, Source
from .common import WRITER, archive, partition

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine

DIGEST_MAX_TOKENS = 200
OUTCOME_MAX_CHARS = 80


@dataclass(frozen=True)
class Compaction:
    """One summary written and the events it replaced."""

    summary_id: str
    subject: str | None
    event_ids: tuple[str, ...]


def compact_events(
    engine: MemoryEngine, scope: Scope, *, trigger: int | None = None, batch: int | None = None
) -> list[Compaction]:
    """Compact every crowded event subject of scope's partition until none exceeds the trigger."""
    f = engine.config.forgetting
    trigger = f.compaction_trigger if trigger is None else int(trigger)
    batch = f.compaction_batch if batch is None else int(batch)
    if batch <= 0:
        return []
    part = partition(scope)
    out: list[Compaction] = []
    for subject in _crowded_subjects(engine, part, trigger):
        while True:
            done = _compact_oldest(engine, part, subject, trigger, batch)
            if done is None:
                break
            out.append(done)
    if out:
        engine.written()
    return out


def _crowded_subjects(engine: MemoryEngine, part: Scope, trigger: int) -> list[str | None]:
    return engine.store.crowded_event_subjects(part, trigger)


def _compact_oldest(
    engine: MemoryEngine, part: Scope, subject: str | None, trigger: int, batch: int
) -> Compaction | None:
    """One round, in one transaction: the summary is inserted and the events archived together."""
    store = engine.store
    with store.transaction():
        if store.live_event_count(part, subject) <= trigger:
            return None
        events = store.oldest_live_events(part, subject, batch)
        now = engine.clock.now()
        summary = summary_record(new_id(engine.clock), part, subject, events, now)
        vec = embed_passages(engine.embedder, [summary.text])[0]
        store.insert(summary, vec, engine.model_name)
        reason = f"compaction of {len(events)} events"
        store.audit(part, summary.id, "insert", reason, now, Channel.SUMMARY.value, WRITER)
        for e in events:
            archive(store, e, now, f"compacted into {summary.id}")
    return Compaction(summary.id, subject, tuple(e.id for e in events))


def summary_record(
    record_id: str, scope: Scope, subject: str | None, events: Sequence[MemoryRecord], now: float
) -> MemoryRecord:
    """The summary memory standing for events: provenance to every one of them."""
    turn_ids = tuple(dict.fromkeys(t for e in events for t in e.source.turn_ids))
    entities = tuple(dict.fromkeys(x for e in events for x in e.entities))[:20]
    return MemoryRecord(
        id=record_id,
        scope=scope,
        type=MemoryType.SUMMARY,
        summary=digest(subject, events),
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
    subject: str | None, events: Sequence[MemoryRecord], *, max_tokens: int = DIGEST_MAX_TOKENS
) -> str:
    """Extractive digest: period, counts by kind, distinct one-line outcomes; at most max_tokens."""
    zh = sum(has_cjk(e.summary) for e in events) * 2 > len(events)
    first, last = min(e.created_at for e in events), max(e.created_at for e in events)
    kinds = Counter(_kind(e, zh) for e in events).most_common()
    outcomes = Counter(_outcome(e.summary) for e in events)  # insertion order = first seen
    head = _head(subject, len(events), iso_date(first), iso_date(last), kinds, zh)
    parts: list[str] = []
    for i, (line, n) in enumerate(outcomes.items()):
        item = _item(line, n, zh)
        rest = len(outcomes) - i - 1
        tail = _form(zh, "more").format(n=rest) if rest else ""
        if parts and count_tokens(_join(head, [*parts, item, tail], zh)) > max_tokens:
            parts.append(_form(zh, "more").format(n=len(outcomes) - i))
            break
        parts.append(item)
    return _join(head, parts, zh)


def _form(zh: bool, name: str) -> str:
    """A form of the digest (`compaction` table) in the language a has-Han flag means."""
    return str(all_on().of_han(zh).table("compaction").entry("digest").settings[name])


def _head(subject: str | None, n: int, start: str, end: str, kinds: list, zh: bool) -> str:
    period = _form(zh, "period_day" if start == end else "period_span").format(start=start, end=end)
    about = _form(zh, "about").format(subject=subject) if subject else ""
    counts = _form(zh, "counts_sep").join(
        _form(zh, "count").format(kind=k, count=c) for k, c in kinds
    )
    return _form(zh, "head").format(about=about, n=n, period=period, counts=counts)


def _join(head: str, parts: list[str], zh: bool) -> str:
    body = _form(zh, "parts_sep").join(p for p in parts if p)
    return head + body + _form(zh, "end")


def _item(line: str, n: int, zh: bool) -> str:
    if n == 1:
        return line
    return _form(zh, "repeated").format(line=line, n=n)


def _kind(e: MemoryRecord, zh: bool) -> str:
    return e.tags[0] if e.tags else _form(zh, "event")


def _outcome(summary: str) -> str:
    line = (summary.strip().splitlines() or [""])[0].strip().rstrip("。.")
    return line if len(line) <= OUTCOME_MAX_CHARS else line[: OUTCOME_MAX_CHARS - 1].rstrip() + "…"
