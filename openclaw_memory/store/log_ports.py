"""The record store's ports for logs: the audit log, the outbox, sessions, the short-term
message window and the maintenance log (contracts in ports.py)."""

from __future__ import annotations

from typing import Any, Protocol, Sequence

from ..types import Scope


class AuditLog(Protocol):
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
        """Append an audit row."""

    def audit_log(
        self, scope: Scope, record_id: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        """Audit rows of the scope (of one record), newest first."""

    def audit_of(self, scope: Scope, ids: Sequence[str], limit: int = 500) -> list[dict[str, Any]]:
        """Audit rows of these records, newest first."""


class Outbox(Protocol):
    """The durable queue the vector index follows (docs/design.md invariant 2)."""

    def pending(self, scope: Scope | None = None) -> int: ...

    def next_entries(self, scope: Scope | None, limit: int) -> list[dict[str, Any]]:
        """The oldest queued entries: {seq, record_id, user_id, agent_id, op}."""

    def done(self, seqs: Sequence[int]) -> None:
        """Drop applied entries."""


class SessionLog(Protocol):
    def session(self, scope: Scope, session_id: str) -> dict[str, Any] | None:
        """{started_at, last_active_at, ended_at} of a session, or None."""

    def open_session(self, scope: Scope, session_id: str, now: float) -> bool:
        """Open a new session or reopen/continue one; True when it is new."""

    def end_session(
        self, scope: Scope, session_id: str, now: float, reason: str, summary_id: str | None
    ) -> None: ...

    def participants(self, agent_id: str, session_id: str) -> list[str]:
        """Users who have spoken in this session of this agent, oldest first."""


class MessageWindow(Protocol):
    """The short-term window: messages of a session, the newest kept within budgets."""

    def append_message(
        self,
        scope: Scope,
        session_id: str,
        role: str,
        content: str,
        tokens: int,
        turn_id: str | None,
        at: float,
    ) -> None: ...

    def window_messages(self, scope: Scope, session_id: str) -> list[dict[str, Any]]:
        """The messages in the window, oldest first: {seq, role, content, tokens, turn_id}."""

    def window_tokens(self, scope: Scope, session_id: str) -> int:
        """The tokens of the messages in the window."""

    def leave_window(self, scope: Scope, session_id: str, seqs: Sequence[int] | None) -> None:
        """Take these messages (all, when None) out of the window; they stay logged."""

    def captured_turn_ids(self, scope: Scope, session_id: str) -> set[str]: ...

    def session_messages(self, scope: Scope, session_id: str, limit: int = 5000) -> list[dict]:
        """Non-empty messages carrying a turn id, in order: {turn_id, role, content}."""

    def prune_messages(
        self, user_id: str | None, agent_id: str | None, before: float, keep: int
    ) -> int:
        """Drop messages out of the window, older than `before`, past the `keep` newest of
        their session (a user message keeps an empty row holding its turn key)."""


class MaintenanceLog(Protocol):
    """The lease that lets one process at a time run maintenance, and the run log."""

    def acquire_lease(self, name: str, holder: str, now: float, seconds: float) -> bool: ...

    def release_lease(self, name: str, holder: str) -> None: ...

    def lease(self, name: str, now: float) -> dict[str, Any] | None: ...

    def begin_run(self, trigger: str, holder: str, now: float) -> int: ...

    def finish_run(
        self, run_id: int, now: float, status: str, counts: str, error: str | None
    ) -> None: ...

    def recent_runs(self, limit: int) -> list[dict[str, Any]]: ...

    def last_run_started(self) -> float | None: ...
