"""The entity-link backlog: records stored before entity memory existed get their links.

Opening a store only notes the backlog (store/entity_backfill.py); maintenance works through it
here, a batch per transaction and at most `PER_RUN` records a run, so a large store is linked
over a few scheduled runs without holding the write lock for long. Each batch commits with its
cursor: a run stopped anywhere resumes where it stopped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store.entity_backfill import BATCH

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine

#: records one maintenance run examines at most; the rest wait for the next run
PER_RUN = 20_000


def link_backlog(engine: MemoryEngine, budget: int | None = PER_RUN) -> int:
    """Link the backlog's next records, `budget` at most (None: all that are left); returns
    how many were examined (0 once the backlog is done)."""
    done = 0
    while budget is None or done < budget:
        step = BATCH if budget is None else min(BATCH, budget - done)
        examined, left = engine.store.backfill_entity_links(step)
        done += examined
        if not left or not examined:
            break
    return done
