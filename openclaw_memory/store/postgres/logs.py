"""The logs of the PostgreSQL record store: audit, outbox, sessions, the short-term window and
the maintenance lease and runs."""

from __future__ import annotations

from typing import Any, Sequence

from ...types import Scope
from .db import PostgresDatabase


def _dicts(rows: Sequence[Any]) -> list[dict[str, Any]]:
    return [dict(zip(row.keys(), row)) for row in rows]


class Logs:
    """Audit, outbox, sessions, messages and maintenance of the PostgreSQL record store."""

    db: PostgresDatabase

    # ---- audit --------------------------------------------------------------------------------

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
        with self.db.write() as c:
            c.execute(
                "INSERT INTO audit(at, user_id, agent_id, record_id, action, channel, reason, writer) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (at, scope.user_id, scope.agent_id, record_id, action, channel, reason, writer),
            )

    def audit_log(
        self, scope: Scope, record_id: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        where, args = "user_id = %s AND agent_id = %s", [scope.user_id, scope.agent_id]
        if record_id:
            where += " AND record_id = %s"
            args.append(record_id)
        with self.db.read() as c:
            rows = c.execute(
                f"SELECT * FROM audit WHERE {where} ORDER BY seq DESC LIMIT %s", (*args, int(limit))
            ).fetchall()
        return _dicts(rows)

    def audit_of(self, scope: Scope, ids: Sequence[str], limit: int = 500) -> list[dict[str, Any]]:
        if not ids:
            return []
        with self.db.read() as c:
            rows = c.execute(
                "SELECT * FROM audit WHERE user_id = %s AND agent_id = %s AND record_id = ANY(%s) "
                "ORDER BY at DESC, seq DESC LIMIT %s",
                (scope.user_id, scope.agent_id, list(ids), int(limit)),
            ).fetchall()
        return _dicts(rows)

    # ---- outbox -------------------------------------------------------------------------------

    def pending(self, scope: Scope | None = None) -> int:
        with self.db.read() as c:
            if scope is None:
                return int(c.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])
            return int(
                c.execute(
                    "SELECT COUNT(*) FROM outbox WHERE user_id = %s AND agent_id = %s",
                    (scope.user_id, scope.agent_id),
                ).fetchone()[0]
            )

    def next_entries(self, scope: Scope | None, limit: int) -> list[dict[str, Any]]:
        cols = "*"
        with self.db.read() as c:
            if scope is None:
                rows = c.execute(
                    f"SELECT {cols} FROM outbox ORDER BY seq LIMIT %s", (int(limit),)
                ).fetchall()
            else:
                rows = c.execute(
                    f"SELECT {cols} FROM outbox WHERE user_id = %s AND agent_id = %s "
                    "ORDER BY seq LIMIT %s",
                    (scope.user_id, scope.agent_id, int(limit)),
                ).fetchall()
        return _dicts(rows)

    def done(self, seqs: Sequence[int]) -> None:
        if seqs:
            with self.db.write() as c:
                c.execute("DELETE FROM outbox WHERE seq = ANY(%s)", ([int(s) for s in seqs],))

    # ---- sessions -----------------------------------------------------------------------------

    def session(self, scope: Scope, session_id: str) -> dict[str, Any] | None:
        with self.db.read() as c:
            row = c.execute(
                "SELECT started_at, last_active_at, ended_at FROM sessions "
                "WHERE user_id = %s AND agent_id = %s AND id = %s",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchone()
        return dict(zip(row.keys(), row)) if row else None

    def open_session(self, scope: Scope, session_id: str, now: float) -> bool:
        with self.db.write() as c:
            row = c.execute(
                "INSERT INTO sessions(id, user_id, agent_id, started_at, last_active_at) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (user_id, agent_id, id) "
                "DO UPDATE SET last_active_at = EXCLUDED.last_active_at, ended_at = NULL "
                "RETURNING (xmax = 0) AS created",
                (session_id, scope.user_id, scope.agent_id, now, now),
            ).fetchone()
        return bool(row[0])

    def end_session(
        self, scope: Scope, session_id: str, now: float, reason: str, summary_id: str | None
    ) -> None:
        with self.db.write() as c:
            c.execute(
                "UPDATE sessions SET ended_at = %s, end_reason = %s, "
                "summary_id = COALESCE(%s, summary_id) WHERE user_id = %s AND agent_id = %s AND id = %s",
                (now, reason, summary_id, scope.user_id, scope.agent_id, session_id),
            )

    def participants(self, agent_id: str, session_id: str) -> list[str]:
        with self.db.read() as c:
            rows = c.execute(
                "SELECT user_id FROM sessions WHERE agent_id = %s AND id = %s "
                "ORDER BY started_at, user_id",
                (agent_id, session_id),
            ).fetchall()
        return [row[0] for row in rows]

    # ---- the short-term window ----------------------------------------------------------------

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
        with self.db.write() as c:
            c.execute(
                "INSERT INTO messages(session_id, user_id, agent_id, role, content, tokens, "
                "turn_id, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (session_id, scope.user_id, scope.agent_id, role, content, tokens, turn_id, at),
            )

    def window_messages(self, scope: Scope, session_id: str) -> list[dict[str, Any]]:
        with self.db.read() as c:
            rows = c.execute(
                "SELECT seq, role, content, tokens, turn_id FROM messages WHERE user_id = %s "
                "AND agent_id = %s AND session_id = %s AND in_window = 1 ORDER BY seq",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchall()
        return _dicts(rows)

    def window_tokens(self, scope: Scope, session_id: str) -> int:
        with self.db.read() as c:
            row = c.execute(
                "SELECT COALESCE(SUM(tokens), 0) FROM messages WHERE user_id = %s "
                "AND agent_id = %s AND session_id = %s AND in_window = 1",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchone()
        return int(row[0])

    def leave_window(self, scope: Scope, session_id: str, seqs: Sequence[int] | None) -> None:
        where = "user_id = %s AND agent_id = %s AND session_id = %s"
        args: list[Any] = [scope.user_id, scope.agent_id, session_id]
        if seqs is not None:
            if not seqs:
                return
            where += " AND seq = ANY(%s)"
            args.append([int(s) for s in seqs])
        with self.db.write() as c:
            c.execute(f"UPDATE messages SET in_window = 0 WHERE {where}", args)

    def captured_turn_ids(self, scope: Scope, session_id: str) -> set[str]:
        with self.db.read() as c:
            rows = c.execute(
                "SELECT DISTINCT turn_id FROM messages WHERE user_id = %s AND agent_id = %s "
                "AND session_id = %s AND turn_id IS NOT NULL",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchall()
        return {row[0] for row in rows}

    def session_messages(self, scope: Scope, session_id: str, limit: int = 5000) -> list[dict]:
        with self.db.read() as c:
            rows = c.execute(
                "SELECT turn_id, role, content FROM messages WHERE user_id = %s AND agent_id = %s "
                "AND session_id = %s AND turn_id IS NOT NULL AND content <> '' ORDER BY seq LIMIT %s",
                (scope.user_id, scope.agent_id, session_id, int(limit)),
            ).fetchall()
        return _dicts(rows)

    def prune_messages(
        self, user_id: str | None, agent_id: str | None, before: float, keep: int
    ) -> int:
        conds = [
            (c, v)
            for c, v in (("user_id = %s", user_id), ("agent_id = %s", agent_id))
            if v is not None
        ]
        where = ("WHERE " + " AND ".join(c for c, _ in conds)) if conds else ""
        args = (*[v for _, v in conds], before, int(keep))
        stale = (
            "SELECT seq FROM (SELECT seq, in_window, created_at, content, ROW_NUMBER() OVER "
            "(PARTITION BY user_id, agent_id, session_id ORDER BY seq DESC) AS newer "
            f"FROM messages {where}) m WHERE in_window = 0 AND created_at <= %s AND newer > %s "
            "AND content <> ''"
        )
        with self.db.write() as c:
            kept = c.execute(
                f"UPDATE messages SET content = '', tokens = 0 WHERE seq IN ({stale}) "
                "AND role = 'user' AND turn_id IS NOT NULL",
                args,
            ).rowcount
            dropped = c.execute(f"DELETE FROM messages WHERE seq IN ({stale})", args).rowcount
        return int(kept or 0) + int(dropped or 0)

    # ---- maintenance --------------------------------------------------------------------------

    def acquire_lease(self, name: str, holder: str, now: float, seconds: float) -> bool:
        with self.db.write() as c:
            c.execute(
                "INSERT INTO leases(name, holder, expires_at) VALUES (%s, %s, %s) "
                "ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, "
                "expires_at = EXCLUDED.expires_at "
                "WHERE leases.expires_at <= %s OR leases.holder = EXCLUDED.holder",
                (name, holder, now + seconds, now),
            )
            row = c.execute("SELECT holder FROM leases WHERE name = %s", (name,)).fetchone()
        return row is not None and row[0] == holder

    def release_lease(self, name: str, holder: str) -> None:
        with self.db.write() as c:
            c.execute("DELETE FROM leases WHERE name = %s AND holder = %s", (name, holder))

    def lease(self, name: str, now: float) -> dict[str, Any] | None:
        with self.db.read() as c:
            row = c.execute(
                "SELECT holder, expires_at FROM leases WHERE name = %s AND expires_at > %s",
                (name, now),
            ).fetchone()
        return dict(zip(row.keys(), row)) if row else None

    def begin_run(self, trigger: str, holder: str, now: float) -> int:
        with self.db.write() as c:
            c.execute("UPDATE maintenance_runs SET status = 'abandoned' WHERE status = 'running'")
            row = c.execute(
                "INSERT INTO maintenance_runs(trigger, holder, started_at, status) "
                "VALUES (%s, %s, %s, 'running') RETURNING id",
                (trigger, holder, now),
            ).fetchone()
        return int(row[0])

    def finish_run(
        self, run_id: int, now: float, status: str, counts: str, error: str | None
    ) -> None:
        with self.db.write() as c:
            c.execute(
                "UPDATE maintenance_runs SET finished_at = %s, status = %s, counts = %s, "
                "error = %s WHERE id = %s",
                (now, status, counts, error, run_id),
            )

    def recent_runs(self, limit: int) -> list[dict[str, Any]]:
        with self.db.read() as c:
            rows = c.execute(
                "SELECT * FROM maintenance_runs ORDER BY started_at DESC, id DESC LIMIT %s",
                (int(limit),),
            ).fetchall()
        return _dicts(rows)

    def last_run_started(self) -> float | None:
        with self.db.read() as c:
            row = c.execute("SELECT MAX(started_at) FROM maintenance_runs").fetchone()
        return None if row[0] is None else float(row[0])
