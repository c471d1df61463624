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

from ..store import records as rec
from ..types import Scope
from .common import UNCAPPED_TYPES, archive, partition

if TYPE_CHECKING:
    from ..engine import MemoryEngine

_CURATED = f"status = 'active' AND type NOT IN ({', '.join(repr(t) for t in UNCAPPED_TYPES)})"
#: Lowest value first: the rows archived when over the cap.
VALUE_ORDER = (
    "(type = 'profile' OR channel = 'explicit') ASC, importance ASC, "
    "COALESCE(last_accessed_at, updated_at) ASC, access_count ASC, created_at ASC, rid ASC"
)


def count_curated(engine: MemoryEngine, scope: Scope) -> int:
    """Live curated records in scope's partition."""
    with engine.db.read() as db:
        return _count(db, partition(scope))


def _count(db, part: Scope) -> int:
    row = db.execute(
        f"SELECT COUNT(*) FROM records WHERE user_id = ? AND agent_id = ? AND {_CURATED}",
        (part.user_id, part.agent_id),
    ).fetchone()
    return int(row[0])


def enforce_cap(engine: MemoryEngine, scope: Scope, cap: int | None = None) -> int:
    """Archive the lowest-value curated records above the cap; return how many were archived."""
    limit = engine.config.long_term.max_facts_per_user if cap is None else int(cap)
    part = partition(scope)
    now = engine.clock.now()
    with engine.db.write() as db:
        excess = _count(db, part) - limit
        if excess <= 0:
            return 0
        victims = rec.query(db, part, where=_CURATED, order=VALUE_ORDER, limit=excess)
        reason = f"over the cap of {limit} curated memories (lowest value)"
        for r in victims:
            archive(db, r, now, reason)
    engine.indexer.notify()
    return len(victims)
