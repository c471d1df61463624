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
    for s in ranked:
        r = s.record
        eligible = r.type is MemoryType.EPISODE and (
            s.kept or s.reason.startswith("below relevance")
        )
        if s.kept and r.id in shown:
            s = dataclasses.replace(s, kept=False, reason=f"shown as context of {shown[r.id]}")
        elif eligible and done < units:
            done += 1
            context = _context(engine, scope, r, before, after, shown if s.kept else {})
            s = dataclasses.replace(s, context=context)
            if s.kept:
                shown.setdefault(r.id, r.id)
                for c in context:
                    shown.setdefault(c.id, r.id)
        out.append(s)
    return out


def _context(
    engine: MemoryEngine,
    scope: Scope,
    r: MemoryRecord,
    before: int,
    after: int,
    shown: dict[str, str],
) -> tuple[MemoryRecord, ...]:
    earlier, later = engine.neighbours(scope, r.id, before=before, after=after)
    around = [*reversed(earlier), *later]
    if not around:
        return ()
    turns = [t for c in around for t in c.source.turn_ids]
    retired = engine.store.retired_turns(scope, turns) if turns else {}
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
