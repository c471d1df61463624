"""Periodic cleanup (docs/design.md seed 002 §4.3): memories nobody used for a long time and that matter little
are deleted for real, vectors included, so no orphan vector is left behind.

A record qualifies when all of these hold:
- live (active or archived); inactive records are the audit trail of forget and supersession;
- unused for `cleanup_unused_days`: its last access, or its last content update if never accessed;
- importance <= `cleanup_max_importance`;
- not a profile record, not an explicit user command, not a summary.

Summaries are kept whatever their age. The seed keeps only weekly rollups of old summaries; rolling
them up is not built (the seed's `summary_keep_days` key is retired, config.RETIRED_KEYS), so
nothing is lost meanwhile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.clock import DAY
from ..write.policy import type_values, types_where
from ..types import Scope
from .common import WRITER, partition

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine

_BATCH = 500
_KEPT = type_values(types_where(kept_by_cleanup=True))  # the policy table


def cleanup(engine: MemoryEngine, scope: Scope) -> int:
    """Delete the unused, unimportant records of scope's partition; return how many."""
    f = engine.config.forgetting
    part = partition(scope)
    now = engine.clock.now()
    cutoff = now - f.cleanup_unused_days * DAY
    reason = (
        f"unused for {f.cleanup_unused_days:g} days and importance <= {f.cleanup_max_importance:g}"
    )
    done = 0
    while True:
        store = engine.store
        with store.transaction():
            victims = store.unused(part, _KEPT, f.cleanup_max_importance, cutoff, _BATCH)
            store.delete_records(part, [r.id for r in victims])  # queues the vector deletes
            for r in victims:
                store.audit(part, r.id, "delete", reason, now, None, WRITER)
        done += len(victims)
        if len(victims) < _BATCH:
            break
    if done:
        engine.written()
    return done
