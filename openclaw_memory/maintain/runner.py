"""run_maintenance: TTL, cap, compaction and cleanup, in that order, for one partition or all,
then the pruning of old short-term messages (of every partition, or of the one user); a run
over the whole store also links older records to their entities (maintain/entity_links.py).

Each job commits its own transactions and queues index changes in the outbox; the runner drains
the outbox of every partition it touched at the end, so the vector index agrees when it returns.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from ..capture.short_term import ShortTermMemory
from ..types import Scope
from .archive import enforce_cap
from .cleanup import cleanup
from .common import partition
from .compaction import compact_events
from .entity_links import link_backlog
from .ttl import expire

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine


@dataclass
class MaintenanceReport:
    """Counts of what one maintenance run changed, in total and per partition ("user/agent")."""

    scopes: int = 0
    expired: int = 0
    capped: int = 0
    summaries: int = 0
    compacted: int = 0
    deleted: int = 0
    messages_pruned: int = 0
    #: records of the entity-link backlog examined (derived rows: not counted as changed)
    entity_backlog: int = 0
    by_scope: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def changed(self) -> int:
        return (
            self.expired
            + self.capped
            + self.summaries
            + self.compacted
            + self.deleted
            + self.messages_pruned
        )

    def add(self, scope: Scope, counts: dict[str, int]) -> None:
        self.scopes += 1
        self.by_scope[f"{scope.user_id}/{scope.agent_id}"] = counts
        for key, n in counts.items():
            setattr(self, key, getattr(self, key) + n)

    def to_dict(self) -> dict:
        return {**asdict(self), "changed": self.changed}

    def totals(self) -> dict[str, int]:
        """The counts without the per-partition breakdown (no user id in them)."""
        return {k: v for k, v in self.to_dict().items() if k != "by_scope"}


def run_maintenance(
    engine: MemoryEngine, scope: Scope | None = None, *, user_id: str | None = None
) -> MaintenanceReport:
    """Run every forgetting job for scope's partition, or for every partition with records
    (of user_id, when given)."""
    if scope is None:
        targets = engine.store.scopes(user_id)
    else:
        targets = [partition(scope)]
    report = MaintenanceReport()
    for part in targets:
        report.add(part, maintain_scope(engine, part))
    if scope is None and user_id is None:
        report.entity_backlog = link_backlog(engine)
    for part in targets:
        engine.sync_index(part)
    short_term = ShortTermMemory(engine.store, engine.config.short_term, engine.clock)
    if scope is not None:
        report.messages_pruned = short_term.prune(scope.user_id, scope.agent_id)
    else:
        report.messages_pruned = short_term.prune(user_id)
    return report


def maintain_scope(engine: MemoryEngine, scope: Scope) -> dict[str, int]:
    """The four jobs on one partition; the counts of each."""
    expired = expire(engine, scope)
    capped = enforce_cap(engine, scope)
    compactions = compact_events(engine, scope)
    deleted = cleanup(engine, scope)
    return {
        "expired": expired,
        "capped": capped,
        "summaries": len(compactions),
        "compacted": sum(len(c.event_ids) for c in compactions),
        "deleted": deleted,
    }
