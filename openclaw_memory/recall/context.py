"""Episode context: index the turn, deliver the exchange around it.

A turn is embedded and searched on its own (a short text matches a question best), but it is
delivered with its neighbouring turns of the same session: the question it answers, the reply
it got. A later candidate that is already shown as the context of a kept episode gives up its
place ("shown as context of ..."), so the same words are never injected twice.

Neighbours are live episodes of the same scope and session only: forgotten, expired or outdated
turns (whose distilled memory was replaced) never come back as context.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from ..engine import MemoryEngine
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
            self.neighbours.update(
                self.engine.neighbours_of(
                    self.scope, [r.id for r in fresh], before=self.before, after=self.after
                )
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
            and not (c.source.turn_ids and all(t in retired for t in c.source.turn_ids))
        )
    )
    return window if len(window) > 1 else ()
