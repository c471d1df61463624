"""Sessions: opened by the `new` hook, ended by the `summary` hook, kept in SQLite."""

from __future__ import annotations

from ..clock import Clock
from ..errors import ValidationError
from ..store.db import Database
from ..text import valid_unicode
from ..types import Scope


class Sessions:
    def __init__(self, db: Database, clock: Clock) -> None:
        self.db, self.clock = db, clock

    #: an open session's last_active_at is refreshed at most this often (seconds): most requests
    #: then only read, with no write transaction on the request path
    ACTIVE_GRANULARITY = 60.0

    def open(self, scope: Scope, session_id: str) -> bool:
        """Open or continue a session; True when it is new (the `context` hook then runs)."""
        now = self.clock.now()
        with self.db.read() as db:
            row = db.execute(
                "SELECT ended_at, last_active_at FROM sessions WHERE user_id = ? AND agent_id = ? AND id = ?",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchone()
        if row is not None and row[0] is None and 0 <= now - row[1] < self.ACTIVE_GRANULARITY:
            return False
        with self.db.write() as db:
            row = db.execute(
                "SELECT ended_at FROM sessions WHERE user_id = ? AND agent_id = ? AND id = ?",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO sessions(id, user_id, agent_id, started_at, last_active_at) VALUES (?, ?, ?, ?, ?)",
                    (session_id, scope.user_id, scope.agent_id, now, now),
                )
                return True
            db.execute(
                "UPDATE sessions SET last_active_at = ?, ended_at = NULL WHERE user_id = ? AND agent_id = ? AND id = ?",
                (now, scope.user_id, scope.agent_id, session_id),
            )
            return False

    def end(self, scope: Scope, session_id: str, reason: str, summary_id: str | None) -> None:
        with self.db.write() as db:
            db.execute(
                "UPDATE sessions SET ended_at = ?, end_reason = ?, summary_id = COALESCE(?, summary_id) "
                "WHERE user_id = ? AND agent_id = ? AND id = ?",
                (self.clock.now(), reason, summary_id, scope.user_id, scope.agent_id, session_id),
            )

    def participants(self, agent_id: str, session_id: str) -> list[Scope]:
        """Every user who has spoken in this session of this agent (a shared session has
        several), oldest first."""
        with self.db.read() as db:
            rows = db.execute(
                "SELECT user_id FROM sessions WHERE agent_id = ? AND id = ? ORDER BY started_at",
                (agent_id, session_id),
            ).fetchall()
        return [Scope(r[0], agent_id) for r in rows]

    def is_open(self, scope: Scope, session_id: str) -> bool:
        with self.db.read() as db:
            row = db.execute(
                "SELECT ended_at FROM sessions WHERE user_id = ? AND agent_id = ? AND id = ?",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchone()
        return row is not None and row[0] is None


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
