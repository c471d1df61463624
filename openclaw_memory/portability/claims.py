"""An imported claim goes through check-before-write, as a claim said in conversation does.

Both imports of new facts use it: the workspace import (MEMORY.md and the daily notes) and a JSON
Lines import into a store that already holds other live memories of the user (`jsonl.py` says
when a file is a restore instead). The claim is weighed on the imported channel, so the source
priority decides a conflict: explicit > admin > imported > implicit. A file that contradicts what
a stronger channel wrote is kept for the record, inactive, never as a second live value of the
subject; what the user says later corrects an imported value (`Decisions._is_doubt`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..types import Candidate, MemoryRecord
from ..write.consolidate import Consolidator
from ..write.consolidate.decide import Decisions
from ..write.consolidate.records import deactivate

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine


def claim_decisions(engine: MemoryEngine) -> Decisions:
    """The decisions of check-before-write over the engine's store, built once per import."""
    return Consolidator(
        engine.store, engine.embedder, engine.model_name, engine.clock, engine.config
    ).decisions


def write_claim(
    engine: MemoryEngine,
    decisions: Decisions,
    r: MemoryRecord,
    vec: Any,
    parts: Any,
    origin: str,
) -> str:
    """Write one imported claim (its draft record r) in the caller's transaction; returns what
    consolidation did ("insert", "update", "doubt", "skip"). origin names the file and line."""
    result = decisions.decide(engine.store, _candidate(r), r, vec)
    kept = result.record
    if result.action == "doubt" and kept is not None:
        kept = deactivate(
            engine.store,
            kept,
            engine.clock.now(),
            f"imported from {origin}; contradicts {result.replaced_id}, which a stronger "
            "channel wrote",
            r.source.channel,
            r.source.writer,
        )
    if kept is not None and result.action != "skip":
        engine.store.put_parts(kept, parts)
    return result.action


def _candidate(r: MemoryRecord) -> Candidate:
    """The candidate consolidation weighs for an imported draft (the draft is its record)."""
    return Candidate(
        r.type,
        r.summary,
        subject=r.subject,
        tags=r.tags,
        entities=r.entities,
        importance=r.importance,
        confidence=r.confidence,
        channel=r.source.channel,
        turn_ids=r.source.turn_ids,
    )
