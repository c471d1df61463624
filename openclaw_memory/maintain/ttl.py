"""TTL: live records past their `expires_at` move to the cold archive (docs/design.md seed 000 §2.3).

Expiry is not deletion: an expired event or task leaves normal recall but stays reachable by deep
recall (the cold tier) and by its id, with an audit row saying why. Real deletion is cleanup's job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..types import Scope
from .common import archive, partition

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine

REASON = "expired (ttl)"
_BATCH = 500


def expire(engine: MemoryEngine, scope: Scope) -> int:
    """Archive the active records of scope's partition whose expires_at <= now; return how many."""
    part = partition(scope)
    now = engine.clock.now()
    done = 0
    while True:
        with engine.store.transaction():
            due = engine.store.expired(part, now, _BATCH)
            for r in due:
                archive(engine.store, r, now, REASON)
        done += len(due)
        if len(due) < _BATCH:
            break
    if done:
        engine.written()
    return done
