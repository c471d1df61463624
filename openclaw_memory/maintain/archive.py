"""The per-user cap on curated memories: max_facts_per_user (docs/design.md seed 002 §4.3).

When a partition holds more live curated records (profile, preference, fact, decision, task) than
the cap, the least valuable go to the cold archive until the cap holds. Value, lowest first:
importance, then the last use (last access, or the last content update when never accessed), then
access count, then age. Profile records and explicit user commands are archived only after every
other kind: the user asked for those. The episodic log and summaries are not capped here; TTL and
compaction keep them in check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..types import Scope
from .common import UNCAPPED_TYPES, archive, partition

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine


def count_curated(engine: MemoryEngine, scope: Scope) -> int:
    """Live curated records in scope's partition."""
    return engine.store.curated_count(partition(scope), UNCAPPED_TYPES)


def enforce_cap(engine: MemoryEngine, scope: Scope, cap: int | None = None) -> int:
    """Archive the lowest-value curated records above the cap; return how many were archived."""
    limit = engine.config.long_term.max_facts_per_user if cap is None else int(cap)
    part = partition(scope)
    now = engine.clock.now()
    store = engine.store
    with store.transaction():
        excess = store.curated_count(part, UNCAPPED_TYPES) - limit
        if excess <= 0:
            return 0
        victims = store.lowest_value(part, UNCAPPED_TYPES, excess)
        reason = f"over the cap of {limit} curated memories (lowest value)"
        for r in victims:
            archive(store, r, now, reason)
    engine.written()
    return len(victims)
