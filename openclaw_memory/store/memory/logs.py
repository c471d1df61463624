"""The in-memory store's logs: audit, outbox, sessions, the short-term window, maintenance."""

from __future__ import annotations

from typing import Any, Sequence
from ...types import Scope
from .base import MemoryBase
from .records import scope_key

# The audit log and the outbox of the in-memory store.


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


# Sessions, the short-term window, the maintenance lease and log, in lists and dicts.


class LogsMixin(MemoryBase):
    # ---- sessions -------------------------------------------------------------------------

    def session(self, scope: Scope, session_id: str) -> dict[str, Any] | None:
        row = self.s.sessions.get((scope.user_id, scope.agent_id, session_id))
        if row is None:
            return None
        return {k: row[k] for k in ("started_at", "last_active_at", "ended_at")}

    def open_session(self, scope: Scope, session_id: str, now: float) -> bool:
        key = (scope.user_id, scope.agent_id, session_id)
        with self.transaction():
            row = self.s.sessions.get(key)
            if row is None:
                self.s.sessions[key] = {
                    "id": session_id,
                    "user_id": scope.user_id,
                    "agent_id": scope.agent_id,
                    "started_at": now,
                    "last_active_at": now,
                    "ended_at": None,
                    "end_reason": None,
                    "summary_id": None,
                    "order": self.s.next_seq(),
                }
                return True
            row.update(last_active_at=now, ended_at=None)
            return False

    def end_session(
        self, scope: Scope, session_id: str, now: float, reason: str, summary_id: str | None
    ) -> None:
        row = self.s.sessions.get((scope.user_id, scope.agent_id, session_id))
        if row is not None:
            row.update(ended_at=now, end_reason=reason, summary_id=summary_id or row["summary_id"])

    def participants(self, agent_id: str, session_id: str) -> list[str]:
        rows = [r for (_, a, s), r in self.s.sessions.items() if a == agent_id and s == session_id]
        return [r["user_id"] for r in sorted(rows, key=lambda r: (r["started_at"], r["order"]))]

    # ---- the short-term window ------------------------------------------------------------

    def append_message(
        self,
        scope: Scope,
        session_id: str,
        role: str,
        content: str,
        tokens: int,
        turn_id: str | None,
        at: float,
    ) -> None:
        self.s.messages.append(
            {
                "seq": self.s.next_seq(),
                "session_id": session_id,
                "user_id": scope.user_id,
                "agent_id": scope.agent_id,
                "role": role,
                "content": content,
                "tokens": tokens,
                "turn_id": turn_id,
                "created_at": at,
                "in_window": 1,
            }
        )

    def _session_messages(self, scope: Scope, session_id: str) -> list[dict[str, Any]]:
        return [
            m
            for m in self.s.messages
            if (m["user_id"], m["agent_id"], m["session_id"])
            == (scope.user_id, scope.agent_id, session_id)
        ]

    def window_messages(self, scope: Scope, session_id: str) -> list[dict[str, Any]]:
        return [
            {k: m[k] for k in ("seq", "role", "content", "tokens", "turn_id")}
            for m in self._session_messages(scope, session_id)
            if m["in_window"]
        ]

    def leave_window(self, scope: Scope, session_id: str, seqs: Sequence[int] | None) -> None:
        chosen = None if seqs is None else set(seqs)
        for m in self._session_messages(scope, session_id):
            if chosen is None or m["seq"] in chosen:
                m["in_window"] = 0

    def captured_turn_ids(self, scope: Scope, session_id: str) -> set[str]:
        return {
            m["turn_id"]
            for m in self._session_messages(scope, session_id)
            if m["turn_id"] is not None
        }

    def session_messages(self, scope: Scope, session_id: str, limit: int = 5000) -> list[dict]:
        return [
            {k: m[k] for k in ("turn_id", "role", "content")}
            for m in self._session_messages(scope, session_id)
            if m["turn_id"] is not None and m["content"] != ""
        ][:limit]

    def prune_messages(
        self, user_id: str | None, agent_id: str | None, before: float, keep: int
    ) -> int:
        chosen = [
            m
            for m in self.s.messages
            if (user_id is None or m["user_id"] == user_id)
            and (agent_id is None or m["agent_id"] == agent_id)
        ]
        newer: dict[tuple[str, str, str], int] = {}
        stale = set()
        for m in reversed(chosen):  # newest first, as ROW_NUMBER() ... ORDER BY seq DESC
            key = (m["user_id"], m["agent_id"], m["session_id"])
            newer[key] = newer.get(key, 0) + 1
            if (
                not m["in_window"]
                and m["created_at"] <= before
                and newer[key] > keep
                and m["content"] != ""
            ):
                stale.add(m["seq"])
        done = 0
        kept = []
        for m in self.s.messages:
            if m["seq"] not in stale:
                kept.append(m)
            elif m["role"] == "user" and m["turn_id"] is not None:
                m.update(content="", tokens=0)  # the row keeps the turn's key
                kept.append(m)
                done += 1
            else:
                done += 1
        self.s.messages = kept
        return done

    # ---- the maintenance lease and run log ------------------------------------------------

    def acquire_lease(self, name: str, holder: str, now: float, seconds: float) -> bool:
        with self.transaction():
            row = self.s.leases.get(name)
            if row is None or row["expires_at"] <= now or row["holder"] == holder:
                self.s.leases[name] = {"holder": holder, "expires_at": now + seconds}
            return self.s.leases[name]["holder"] == holder

    def release_lease(self, name: str, holder: str) -> None:
        row = self.s.leases.get(name)
        if row is not None and row["holder"] == holder:
            del self.s.leases[name]

    def lease(self, name: str, now: float) -> dict[str, Any] | None:
        row = self.s.leases.get(name)
        return dict(row) if row is not None and row["expires_at"] > now else None

    def begin_run(self, trigger: str, holder: str, now: float) -> int:
        for r in self.s.runs:
            if r["status"] == "running":
                r["status"] = "abandoned"
        run_id = len(self.s.runs) + 1
        self.s.runs.append(
            {
                "id": run_id,
                "trigger": trigger,
                "holder": holder,
                "started_at": now,
                "finished_at": None,
                "status": "running",
                "counts": None,
                "error": None,
            }
        )
        return run_id

    def finish_run(
        self, run_id: int, now: float, status: str, counts: str, error: str | None
    ) -> None:
        for r in self.s.runs:
            if r["id"] == run_id:
                r.update(finished_at=now, status=status, counts=counts, error=error)

    def recent_runs(self, limit: int) -> list[dict[str, Any]]:
        rows = sorted(self.s.runs, key=lambda r: (-r["started_at"], -r["id"]))
        return [dict(r) for r in rows[: int(limit)]]
