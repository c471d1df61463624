"""Episode context: index the turn, deliver the exchange around it.

A turn is embedded and searched on its own (a short text matches a question best), but it is
delivered with its neighbouring turns of the same session: the question it answers, the reply
it got. A later candidate that is already shown as the context of a kept episode gives up its
place ("shown as context of ..."), so the same words are never injected twice.

A window that ends on a question runs one turn further when another speaker says that turn: a
question is delivered with its answer ("What did you take away from it?" -> "It taught me
self-acceptance ..."; 你最后选了哪家？ -> 选了河边那家). The same speaker going on is no answer, so
a log of one person's turns (the user's alone) never grows this way.

A logged turn that only asked the assistant for something (a question, a command, small talk:
`extract.request_grammar`) is kept for audit and never delivered, neither as a memory nor as
the context of another turn: a turn's window never chains unrelated requests.

Neighbours are live episodes of the same scope and session only: forgotten, expired or outdated
turns (whose distilled memory was replaced) never come back as context.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

from ..runtime.engine import MemoryEngine
from ..extract.request_grammar import asked_only
from ..types import MemoryRecord, MemoryType, ScoredMemory, Scope


def attach_context(
    engine: MemoryEngine,
    scope: Scope,
    ranked: Sequence[ScoredMemory],
    *,
    before: int,
    after: int,
    units: int,
) -> list[ScoredMemory]:
    """Give the first `units` episodes that are kept (or only below the relevance threshold)
    their neighbouring turns; drop later kept episodes already shown in a kept one's context."""
    if before <= 0 and after <= 0:
        return list(ranked)
    shown: dict[str, str] = {}  # episode id -> the kept episode whose context shows it
    out: list[ScoredMemory] = []
    done = 0
    first = [s.record for s in ranked if _eligible(s)][:units]
    around = _Around(engine, scope, before, after).read(first)
    for s in ranked:
        r = s.record
        eligible = _eligible(s)
        if s.kept and r.id in shown:
            s = dataclasses.replace(s, kept=False, reason=f"shown as context of {shown[r.id]}")
        elif eligible and done < units:
            done += 1
            context = _context(around, r, shown if s.kept else {})
            s = dataclasses.replace(s, context=context)
            if s.kept:
                shown.setdefault(r.id, r.id)
                for c in context:
                    shown.setdefault(c.id, r.id)
        out.append(s)
    return out


#: why a logged request for help is ranked but never delivered
ASKED_ONLY = "a request for help, not a memory"


def set_requests_aside(ranked: Sequence[ScoredMemory]) -> list[ScoredMemory]:
    """A logged turn that only asked the assistant for something (`extract.request_grammar`)
    keeps its place in the ranking for audit and is never delivered."""
    return [
        dataclasses.replace(s, kept=False, reason=ASKED_ONLY)
        if _eligible(s) and asked_only(s.record.tags)
        else s
        for s in ranked
    ]


def _eligible(s: ScoredMemory) -> bool:
    """An episode that may get its context: kept, or only below the relevance threshold."""
    return s.record.type is MemoryType.EPISODE and (
        s.kept or s.reason.startswith("below relevance")
    )


class _Around:
    """The neighbours of episodes and which of their turns are retired, read for the first
    episodes at once (one retired-turn lookup for all, not one an episode); an episode not read
    ahead (a kept one shown as context let a later one in) is read when asked for."""

    def __init__(self, engine: MemoryEngine, scope: Scope, before: int, after: int) -> None:
        self.engine, self.scope, self.before, self.after = engine, scope, before, after
        self.neighbours: dict[str, tuple[list[MemoryRecord], list[MemoryRecord]]] = {}
        self.retired: dict[str, str] = {}

    def read(self, episodes: Sequence[MemoryRecord]) -> "_Around":
        fresh = [r for r in episodes if r.id not in self.neighbours]
        if fresh:
            # one turn more after (when any): the answer to a window that ends on a question
            more = 1 if self.after > 0 else 0
            found = self.engine.neighbours_of(
                self.scope, [r.id for r in fresh], before=self.before, after=self.after + more
            )
            self.neighbours.update(
                (rid, (earlier, _answered(later, self.after)))
                for rid, (earlier, later) in found.items()
            )
        turns = [
            t
            for r in fresh
            for side in self.neighbours[r.id]
            for c in side
            for t in c.source.turn_ids
        ]
        if turns:
            self.retired.update(self.engine.store.retired_turns(self.scope, turns))
        return self

    def of(self, r: MemoryRecord) -> tuple[list[MemoryRecord], list[MemoryRecord]]:
        return self.read([r]).neighbours[r.id]


#: a turn that ends asking (a photo shared after it aside): "...?", "...？", "...吗", "...呢。"
_ASKS = re.compile(r"(?:[?？]|[吗呢么][。!！]?)\s*(?:\[[^\[\]]*\]\s*)?$")


def asks(r: MemoryRecord) -> bool:
    """The turn ends on a question."""
    return _ASKS.search(r.text) is not None


def _speaker(r: MemoryRecord) -> str | None:
    """Who said the turn: an episode's first tag (`capture.events.episode_candidate`)."""
    return r.tags[0] if r.tags else None


def _answered(later: list[MemoryRecord], after: int) -> list[MemoryRecord]:
    """The first `after` later turns; one more when the last of them ends on a question and
    another speaker says the next turn (its answer). With `after` 0, none."""
    if after <= 0 or len(later) <= after:
        return later[:after]
    last, answer = later[after - 1], later[after]
    who, replier = _speaker(last), _speaker(answer)
    if asks(last) and who is not None and replier is not None and who != replier:
        return later[: after + 1]
    return later[:after]


def _context(around: _Around, r: MemoryRecord, shown: dict[str, str]) -> tuple[MemoryRecord, ...]:
    earlier, later = around.of(r)
    if not earlier and not later:
        return ()
    retired = around.retired
    ordered = [*reversed(earlier), r, *later]
    window = tuple(
        c
        for c in ordered
        if c is r
        or (
            c.id not in shown
            and not asked_only(c.tags)
            and not (c.source.turn_ids and all(t in retired for t in c.source.turn_ids))
        )
    )
    return window if len(window) > 1 else ()
