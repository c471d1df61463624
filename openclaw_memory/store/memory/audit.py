"""The audit log and the outbox of the in-memory store."""

from __future__ import annotations

from typing import Any, Sequence

from ...types import Scope
from .base import MemoryBase
from .records import scope_key


class AuditMixin(MemoryBase):
    # ---- audit ----------------------------------------------------------------------------

    def audit(
        self,
        scope: Scope,
        record_id: str | None,
        action: str,
        reason: str,
        at: float,
        channel: str | None = None,
        writer: str | None = None,
    ) -> None:
        self.s.audit.append(
            {
                "seq": self.s.next_seq(),
                "at": at,
                "user_id": scope.user_id,
                "agent_id": scope.agent_id,
                "record_id": record_id,
                "action": action,
                "channel": channel,
                "reason": reason,
                "writer": writer,
            }
        )

    def audit_log(
        self, scope: Scope, record_id: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        rows = [
            dict(a)
            for a in reversed(self.s.audit)
            if (a["user_id"], a["agent_id"]) == scope_key(scope)
            and (not record_id or a["record_id"] == record_id)
        ]
        return rows[:limit]

    def audit_of(self, scope: Scope, ids: Sequence[str], limit: int = 500) -> list[dict[str, Any]]:
        wanted = set(ids)
        rows = [
            dict(a)
            for a in self.s.audit
            if a["record_id"] in wanted and (a["user_id"], a["agent_id"]) == scope_key(scope)
        ]
        return sorted(rows, key=lambda a: (-a["at"], -a["seq"]))[:limit]

    # ---- outbox ---------------------------------------------------------------------------

    def pending(self, scope: Scope | None = None) -> int:
        return len(self._entries(scope))

    def _entries(self, scope: Scope | None) -> list[dict[str, Any]]:
        if scope is None:
            return list(self.s.outbox)
        return [e for e in self.s.outbox if (e["user_id"], e["agent_id"]) == scope_key(scope)]

    def next_entries(self, scope: Scope | None, limit: int) -> list[dict[str, Any]]:
        return [dict(e) for e in self._entries(scope)[:limit]]

    def done(self, seqs: Sequence[int]) -> None:
        gone = set(seqs)
        with self.transaction():
            self.s.outbox = [e for e in self.s.outbox if e["seq"] not in gone]
