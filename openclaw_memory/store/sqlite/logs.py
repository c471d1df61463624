"""Sessions, the short-term message window and the maintenance log, in SQLite."""

from __future__ import annotations

from typing import Any, Sequence

from ...types import Scope
from .base import SQLiteBase


class LogsMixin(SQLiteBase):
    # ---- sessions -------------------------------------------------------------------------

    def session(self, scope: Scope, session_id: str) -> dict[str, Any] | None:
        with self._read() as db:
            row = db.execute(
                "SELECT started_at, last_active_at, ended_at FROM sessions "
                "WHERE user_id = ? AND agent_id = ? AND id = ?",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchone()
        return dict(row) if row is not None else None

    def open_session(self, scope: Scope, session_id: str, now: float) -> bool:
        with self._write() as db:
            row = db.execute(
                "SELECT ended_at FROM sessions WHERE user_id = ? AND agent_id = ? AND id = ?",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO sessions(id, user_id, agent_id, started_at, last_active_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (session_id, scope.user_id, scope.agent_id, now, now),
                )
                return True
            db.execute(
                "UPDATE sessions SET last_active_at = ?, ended_at = NULL "
                "WHERE user_id = ? AND agent_id = ? AND id = ?",
                (now, scope.user_id, scope.agent_id, session_id),
            )
            return False

    def end_session(
        self, scope: Scope, session_id: str, now: float, reason: str, summary_id: str | None
    ) -> None:
        with self._write() as db:
            db.execute(
                "UPDATE sessions SET ended_at = ?, end_reason = ?, "
                "summary_id = COALESCE(?, summary_id) WHERE user_id = ? AND agent_id = ? AND id = ?",
                (now, reason, summary_id, scope.user_id, scope.agent_id, session_id),
            )

    def participants(self, agent_id: str, session_id: str) -> list[str]:
        with self._read() as db:
            rows = db.execute(
                "SELECT user_id FROM sessions WHERE agent_id = ? AND id = ? ORDER BY started_at",
                (agent_id, session_id),
            ).fetchall()
        return [r[0] for r in rows]

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
        with self._write() as db:
            db.execute(
                "INSERT INTO messages(session_id, user_id, agent_id, role, content, tokens, "
                "turn_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, scope.user_id, scope.agent_id, role, content, tokens, turn_id, at),
            )

    def window_messages(self, scope: Scope, session_id: str) -> list[dict[str, Any]]:
        with self._read() as db:
            rows = db.execute(
                "SELECT seq, role, content, tokens, turn_id FROM messages WHERE user_id = ? "
                "AND agent_id = ? AND session_id = ? AND in_window = 1 ORDER BY seq",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchall()
        return [dict(r) for r in rows]

    def window_tokens(self, scope: Scope, session_id: str) -> int:
        with self._read() as db:
            row = db.execute(
                "SELECT COALESCE(SUM(tokens), 0) FROM messages WHERE user_id = ? AND agent_id = ? "
                "AND session_id = ? AND in_window = 1",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchone()
        return int(row[0])

    def leave_window(self, scope: Scope, session_id: str, seqs: Sequence[int] | None) -> None:
        with self._write() as db:
            if seqs is None:
                db.execute(
                    "UPDATE messages SET in_window = 0 WHERE user_id = ? AND agent_id = ? "
                    "AND session_id = ?",
                    (scope.user_id, scope.agent_id, session_id),
                )
            elif seqs:
                db.execute(
                    f"UPDATE messages SET in_window = 0 WHERE seq IN ({','.join('?' * len(seqs))})",
                    list(seqs),
                )

    def captured_turn_ids(self, scope: Scope, session_id: str) -> set[str]:
        with self._read() as db:
            rows = db.execute(
                "SELECT DISTINCT turn_id FROM messages WHERE user_id = ? AND agent_id = ? "
                "AND session_id = ? AND turn_id IS NOT NULL",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchall()
        return {r[0] for r in rows}

    def session_messages(self, scope: Scope, session_id: str, limit: int = 5000) -> list[dict]:
        with self._read() as db:
            return [
                dict(m)
                for m in db.execute(
                    "SELECT turn_id, role, content FROM messages WHERE user_id = ? AND agent_id = ? "
                    "AND session_id = ? AND turn_id IS NOT NULL AND content != '' "
                    f"ORDER BY seq LIMIT {int(limit)}",
                    (scope.user_id, scope.agent_id, session_id),
                )
            ]

    def prune_messages(
        self, user_id: str | None, agent_id: str | None, before: float, keep: int
    ) -> int:
        conds = [
            (c, v)
            for c, v in (("user_id = ?", user_id), ("agent_id = ?", agent_id))
            if v is not None
        ]
        where = ("WHERE " + " AND ".join(c for c, _ in conds)) if conds else ""
        args = (*[v for _, v in conds], before, int(keep))
        stale = (
            "SELECT seq FROM (SELECT seq, in_window, created_at, content, "
            "ROW_NUMBER() OVER (PARTITION BY user_id, agent_id, session_id ORDER BY seq DESC) "
            f"AS newer FROM messages {where}) WHERE in_window = 0 AND created_at <= ? "
            "AND newer > ? AND content != ''"
        )
        with self._write() as db:
            kept_keys = db.execute(
                f"UPDATE messages SET content = '', tokens = 0 WHERE seq IN ({stale}) "
                "AND role = 'user' AND turn_id IS NOT NULL",
                args,
            ).rowcount
            dropped = db.execute(f"DELETE FROM messages WHERE seq IN ({stale})", args).rowcount
            return int(kept_keys) + int(dropped)

    # ---- the maintenance lease and run log ------------------------------------------------

    def acquire_lease(self, name: str, holder: str, now: float, seconds: float) -> bool:
        with self._write() as db:
            db.execute(
                "INSERT INTO leases(name, holder, expires_at) VALUES (?, ?, ?) ON CONFLICT(name) "
                "DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at "
                "WHERE leases.expires_at <= ? OR leases.holder = excluded.holder",
                (name, holder, now + seconds, now),
            )
            row = db.execute("SELECT holder FROM leases WHERE name = ?", (name,)).fetchone()
        return row is not None and row[0] == holder

    def release_lease(self, name: str, holder: str) -> None:
        with self._write() as db:
            db.execute("DELETE FROM leases WHERE name = ? AND holder = ?", (name, holder))

    def lease(self, name: str, now: float) -> dict[str, Any] | None:
        with self._read() as db:
            row = db.execute(
                "SELECT holder, expires_at FROM leases WHERE name = ? AND expires_at > ?",
                (name, now),
            ).fetchone()
        return dict(row) if row else None

    def begin_run(self, trigger: str, holder: str, now: float) -> int:
        with self._write() as db:
            db.execute("UPDATE maintenance_runs SET status = 'abandoned' WHERE status = 'running'")
            cur = db.execute(
                "INSERT INTO maintenance_runs(trigger, holder, started_at, status) "
                "VALUES (?, ?, ?, 'running')",
                (trigger, holder, now),
            )
            return int(cur.lastrowid or 0)  # an INSERT always sets it

    def finish_run(
        self, run_id: int, now: float, status: str, counts: str, error: str | None
    ) -> None:
        with self._write() as db:
            db.execute(
                "UPDATE maintenance_runs SET finished_at = ?, status = ?, counts = ?, error = ? "
                "WHERE id = ?",
                (now, status, counts, error, run_id),
            )

    def recent_runs(self, limit: int) -> list[dict[str, Any]]:
        with self._read() as db:
            rows = db.execute(
                "SELECT * FROM maintenance_runs ORDER BY started_at DESC, id DESC LIMIT ?",
                (int(limit),),
            ).fetchall()
        return [dict(r) for r in rows]

    def last_run_started(self) -> float | None:
        with self._read() as db:
            row = db.execute("SELECT MAX(started_at) FROM maintenance_runs").fetchone()
        return None if row[0] is None else float(row[0])
