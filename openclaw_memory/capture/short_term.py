"""Short-term memory: each session's sliding window, bounded by tokens, persisted in SQLite.

Eviction drops the oldest messages until the window fits `max_tokens` and `window_size` (docs/design.md seed 002
§2.1: by tokens, not by count alone). Messages leave the window but stay in the table, so a
summary can cite them and a restarted process restores the window as it was. Maintenance prunes
them later (`prune`): once out of the window and older than `prune_after_days`, unless they are
among their session's newest `keep_per_session`. A pruned turn leaves its key behind (the user
message's row, emptied), because hosts send whole transcripts again (OpenClaw's agent_end does,
every turn): without the key, a long session's old turns would be captured a second time.
"""

from __future__ import annotations

from ..clock import DAY, Clock
from ..config import ShortTermConfig
from ..store.db import Database
from ..tokens import count_tokens
from ..types import Scope

SUMMARY_ROLE = "summary"


class ShortTermMemory:
    def __init__(self, db: Database, cfg: ShortTermConfig, clock: Clock) -> None:
        self.db, self.cfg, self.clock = db, cfg, clock

    def add(
        self, scope: Scope, session_id: str, role: str, content: str, turn_id: str | None = None
    ) -> int:
        """Append a message, evict the oldest past the budgets; return the window's token count."""
        with self.db.write() as db:
            self._append(db, scope, session_id, role, content, turn_id)
        return self.tokens(scope, session_id)

    def add_turn(
        self, scope: Scope, session_id: str, user: str, reply: str, turn_id: str | None
    ) -> None:
        """The user's message and the reply (when there is one), in one transaction."""
        with self.db.write() as db:
            self._append(db, scope, session_id, "user", user, turn_id)
            if reply:
                self._append(db, scope, session_id, "assistant", reply, turn_id)

    def _append(
        self, db, scope: Scope, session_id: str, role: str, content: str, turn_id: str | None
    ) -> None:
        db.execute(
            "INSERT INTO messages(session_id, user_id, agent_id, role, content, tokens, turn_id, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session_id,
                scope.user_id,
                scope.agent_id,
                role,
                content,
                count_tokens(content),
                turn_id,
                self.clock.now(),
            ),
        )
        self._evict(db, scope, session_id)

    def _evict(self, db, scope: Scope, session_id: str) -> None:
        rows = db.execute(
            "SELECT seq, tokens FROM messages WHERE user_id = ? AND agent_id = ? AND session_id = ? "
            "AND in_window = 1 ORDER BY seq",
            (scope.user_id, scope.agent_id, session_id),
        ).fetchall()
        total = sum(r["tokens"] for r in rows)
        count = len(rows)
        evict = []
        for r in rows[:-1]:  # the newest message always stays
            if total <= self.cfg.max_tokens and count <= self.cfg.window_size:
                break
            evict.append(r["seq"])
            total -= r["tokens"]
            count -= 1
        if evict:
            db.execute(
                f"UPDATE messages SET in_window = 0 WHERE seq IN ({','.join('?' * len(evict))})",
                evict,
            )

    def window(self, scope: Scope, session_id: str, max_tokens: int | None = None) -> list[dict]:
        """The window's messages, oldest first; with max_tokens, only the newest that fit."""
        with self.db.read() as db:
            rows = db.execute(
                "SELECT role, content, tokens, turn_id FROM messages WHERE user_id = ? AND agent_id = ? "
                "AND session_id = ? AND in_window = 1 ORDER BY seq",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchall()
        out, used = [], 0
        for r in reversed(rows):
            if max_tokens is not None and used + r["tokens"] > max_tokens:
                break
            used += r["tokens"]
            out.append({"role": r["role"], "content": r["content"], "turn_id": r["turn_id"]})
        return list(reversed(out))

    def tokens(self, scope: Scope, session_id: str) -> int:
        with self.db.read() as db:
            row = db.execute(
                "SELECT COALESCE(SUM(tokens), 0) FROM messages WHERE user_id = ? AND agent_id = ? "
                "AND session_id = ? AND in_window = 1",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchone()
        return int(row[0])

    def over_threshold(self, scope: Scope, session_id: str) -> bool:
        return self.tokens(scope, session_id) > self.cfg.summary_threshold

    def replace_with_summary(self, scope: Scope, session_id: str, summary: str) -> None:
        """The window becomes one summary message (docs/design.md seed 002 §2.2)."""
        with self.db.write() as db:
            db.execute(
                "UPDATE messages SET in_window = 0 WHERE user_id = ? AND agent_id = ? AND session_id = ?",
                (scope.user_id, scope.agent_id, session_id),
            )
            db.execute(
                "INSERT INTO messages(session_id, user_id, agent_id, role, content, tokens, turn_id, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, NULL, ?)",
                (
                    session_id,
                    scope.user_id,
                    scope.agent_id,
                    SUMMARY_ROLE,
                    summary,
                    count_tokens(summary),
                    self.clock.now(),
                ),
            )

    def captured_turn_ids(self, scope: Scope, session_id: str) -> set[str]:
        with self.db.read() as db:
            rows = db.execute(
                "SELECT DISTINCT turn_id FROM messages WHERE user_id = ? AND agent_id = ? AND session_id = ? "
                "AND turn_id IS NOT NULL",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchall()
        return {r[0] for r in rows}

    def prune(self, user_id: str | None = None, agent_id: str | None = None) -> int:
        """Drop the messages the policy no longer keeps (of every user, one user, or one of its
        agents); return how many. A turn's user message stays as an empty row holding the key."""
        days, keep = self.cfg.prune_after_days, self.cfg.keep_per_session
        if days <= 0:
            return 0
        conds = [
            (c, v)
            for c, v in (("user_id = ?", user_id), ("agent_id = ?", agent_id))
            if v is not None
        ]
        where = ("WHERE " + " AND ".join(c for c, _ in conds)) if conds else ""
        args = (*[v for _, v in conds], self.clock.now() - days * DAY, int(keep))
        stale = (
            "SELECT seq FROM (SELECT seq, in_window, created_at, content, "
            "ROW_NUMBER() OVER (PARTITION BY user_id, agent_id, session_id ORDER BY seq DESC) AS newer "
            f"FROM messages {where}) WHERE in_window = 0 AND created_at <= ? AND newer > ? AND content != ''"
        )
        with self.db.write() as db:
            kept_keys = db.execute(
                f"UPDATE messages SET content = '', tokens = 0 WHERE seq IN ({stale}) "
                "AND role = 'user' AND turn_id IS NOT NULL",
                args,
            ).rowcount
            dropped = db.execute(f"DELETE FROM messages WHERE seq IN ({stale})", args).rowcount
            return int(kept_keys) + int(dropped)
