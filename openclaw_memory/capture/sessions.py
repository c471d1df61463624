"""Sessions: opened by the `new` hook, ended by the `summary` hook, kept in the record store."""

from __future__ import annotations

from ..core.clock import Clock
from ..errors import ValidationError
from ..store.ports import SessionLog
from ..lang.text import valid_unicode
from ..types import Scope


class Sessions:
    def __init__(self, store: SessionLog, clock: Clock) -> None:
        self.store, self.clock = store, clock

    #: an open session's last_active_at is refreshed at most this often (seconds): most requests
    #: then only read, with no write transaction on the request path
    ACTIVE_GRANULARITY = 60.0

    def open(self, scope: Scope, session_id: str) -> bool:
        """Open or continue a session; True when it is new (the `context` hook then runs)."""
        now = self.clock.now()
        row = self.store.session(scope, session_id)
        if (
            row is not None
            and row["ended_at"] is None
            and 0 <= now - row["last_active_at"] < self.ACTIVE_GRANULARITY
        ):
            return False
        return self.store.open_session(scope, session_id, now)

    def end(self, scope: Scope, session_id: str, reason: str, summary_id: str | None) -> None:
        self.store.end_session(scope, session_id, self.clock.now(), reason, summary_id)

    def participants(self, agent_id: str, session_id: str) -> list[Scope]:
        """Every user who has spoken in this session of this agent (a shared session has
        several), oldest first."""
        return [Scope(u, agent_id) for u in self.store.participants(agent_id, session_id)]

    def is_open(self, scope: Scope, session_id: str) -> bool:
        row = self.store.session(scope, session_id)
        return row is not None and row["ended_at"] is None


def check_session_id(session_id: str) -> None:
    """A session id is a non-empty string of at most 256 characters of valid Unicode."""
    if not isinstance(session_id, str) or not session_id.strip() or len(session_id) > 256:
        raise ValidationError(
            f"session_id: expected a non-empty string of at most 256 characters, found {session_id!r}"
        )
    if valid_unicode(session_id) != session_id:
        raise ValidationError(
            f"session_id: expected valid Unicode text, found lone surrogates in {session_id!r}"
        )
