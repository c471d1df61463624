"""Whole-store work in PostgreSQL: scopes, the embedder stamp, purges and the console's counts."""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

from ...types import Scope
from . import keywords
from .db import Connection, PostgresDatabase
from .sql import scope_sql
from .writes import _delete_rows

#: tables keyed by user_id/agent_id, deleted row by row for a user purge
_USER_TABLES = ("versions", "outbox", "messages", "sessions", "audit")


def hashed_user(user_id: str) -> str:
    """What stays of a purged user id in the audit log."""
    return "sha256:" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:16]


class Housekeeping:
    """Scopes, reindex's look-ups, purges, counts, vacuum and close."""

    db: PostgresDatabase

    def scopes(self, user_id: str | None = None) -> list[Scope]:
        with self.db.read() as c:
            if user_id is None:
                rows = c.execute(
                    "SELECT DISTINCT user_id, agent_id FROM records ORDER BY user_id, agent_id"
                ).fetchall()
            else:
                rows = c.execute(
                    "SELECT DISTINCT user_id, agent_id FROM records WHERE user_id = %s "
                    "ORDER BY agent_id",
                    (user_id,),
                ).fetchall()
        return [Scope(r[0], r[1]) for r in rows]

    def stale_vector_ids(self, model: str, dim: int, scope: Scope | None = None) -> list[str]:
        sql = (
            "SELECT r.id FROM records r LEFT JOIN vectors v ON v.record_id = r.id "
            "WHERE r.status <> 'inactive' AND (v.record_id IS NULL OR v.model <> %s "
            "OR v.dim <> %s OR v.content_hash <> r.content_hash)"
        )
        args: list[Any] = [model, int(dim)]
        if scope is not None:
            sql += " AND r.user_id = %s AND r.agent_id = %s"
            args += [scope.user_id, scope.agent_id]
        with self.db.read() as c:
            return [row[0] for row in c.execute(sql + " ORDER BY r.rid", args).fetchall()]

    def embedder(self) -> str | None:
        with self.db.read() as c:
            row = c.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        return None if row is None else str(row[0])

    def set_embedder(self, name: str) -> None:
        with self.db.write() as c:
            c.execute(
                "INSERT INTO meta(key, value) VALUES ('embedder', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (name,),
            )

    def user_agents(self, user_id: str, agent_id: str | None = None) -> list[str]:
        """The agents under which the user has any row (records, sessions, messages, ...)."""
        where, args = _user_where(user_id, agent_id)
        found: set[str] = set()
        with self.db.read() as c:
            for table in ("records", *_USER_TABLES):
                found.update(
                    r[0]
                    for r in c.execute(f"SELECT DISTINCT agent_id FROM {table} WHERE {where}", args)
                )
        return sorted(found)

    def purge_user(
        self, user_id: str, agent_id: str | None, at: float, writer: str
    ) -> dict[str, int]:
        where, args = _user_where(user_id, agent_id)
        counts: dict[str, int] = {}
        with self.db.write() as c:
            rows = c.execute(f"SELECT rid, id FROM records WHERE {where}", args).fetchall()
            rids, ids = [r[0] for r in rows], [r[1] for r in rows]
            counts["fts"] = keywords.unindex(c, rids)
            counts["vectors"] = c.execute(
                "DELETE FROM vectors WHERE record_id = ANY(%s)", (ids,)
            ).rowcount
            counts["records"] = c.execute(f"DELETE FROM records WHERE {where}", args).rowcount
            for table in _USER_TABLES:
                counts[table] = c.execute(f"DELETE FROM {table} WHERE {where}", args).rowcount
            summary = ", ".join(f"{k} {v}" for k, v in counts.items())
            _audit_purge(c, user_id, agent_id, at, f"purged user: {summary}", writer)
        return counts

    def audit_purge_request(
        self, user_id: str, agent_id: str | None, at: float, reason: str, writer: str
    ) -> None:
        """An audit row about a purge of a user, under the hashed user id."""
        with self.db.write() as c:
            _audit_purge(c, user_id, agent_id, at, reason, writer)

    def episodes_of_turns(self, scope: Scope, turns: Sequence[str]) -> list[str]:
        """The episodes logged for these turns."""
        if not turns:
            return []
        sql, args = scope_sql(scope, "r")
        with self.db.read() as c:
            rows = c.execute(
                "SELECT DISTINCT r.id FROM records r JOIN record_turns t ON t.rid = r.rid "
                f"WHERE {sql} AND t.user_id = r.user_id AND t.agent_id = r.agent_id "
                "AND r.type = 'episode' AND t.turn_id = ANY(%s) ORDER BY r.id",
                (*args, list(turns)),
            ).fetchall()
        return [row[0] for row in rows]

    def purge_records(
        self, scope: Scope, ids: Sequence[str], turns: Sequence[str]
    ) -> dict[str, int]:
        with self.db.write() as c:
            rows = c.execute(
                "SELECT rid, id FROM records WHERE user_id = %s AND agent_id = %s AND id = ANY(%s) "
                "ORDER BY rid",
                (scope.user_id, scope.agent_id, list(ids)),
            ).fetchall()
            counts = {
                "vectors": c.execute(
                    "SELECT COUNT(*) FROM vectors WHERE record_id = ANY(%s)",
                    ([r[1] for r in rows],),
                ).fetchone()[0]
            }
            counts["records"] = _delete_rows(c, scope, rows)
            counts["audit"] = c.execute(
                "DELETE FROM audit WHERE user_id = %s AND agent_id = %s AND record_id = ANY(%s)",
                (scope.user_id, scope.agent_id, list(ids)),
            ).rowcount
            counts["messages"] = (
                c.execute(
                    "DELETE FROM messages WHERE user_id = %s AND agent_id = %s AND turn_id = ANY(%s)",
                    (scope.user_id, scope.agent_id, sorted(turns)),
                ).rowcount
                if turns
                else 0
            )
        return counts

    def purged_at(self, user_id: str, agent_id: str) -> float | None:
        with self.db.read() as c:
            row = c.execute(
                "SELECT MAX(at) FROM audit WHERE user_id = %s AND action = 'purge' "
                "AND agent_id IN ('*', %s)",
                (hashed_user(user_id), agent_id),
            ).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def counts_by_scope(self) -> list[dict[str, Any]]:
        with self.db.read() as c:
            rows = c.execute(
                "SELECT user_id, agent_id, status, type, n FROM record_counts WHERE n > 0 "
                "ORDER BY user_id, agent_id, status, type"
            ).fetchall()
        return [dict(zip(row.keys(), row)) for row in rows]

    def vacuum(self) -> None:
        self.db.vacuum()

    def close(self) -> None:
        self.db.close()


def _user_where(user_id: str, agent_id: str | None) -> tuple[str, list[str]]:
    if agent_id is None:
        return "user_id = %s", [user_id]
    return "user_id = %s AND agent_id = %s", [user_id, agent_id]


def _audit_purge(
    c: Connection, user_id: str, agent_id: str | None, at: float, reason: str, writer: str
) -> None:
    # the row must not carry the user id, and "*" (every agent) is no valid Scope
    c.execute(
        "INSERT INTO audit(at, user_id, agent_id, record_id, action, channel, reason, writer) "
        "VALUES (%s, %s, %s, NULL, 'purge', 'admin', %s, %s)",
        (at, hashed_user(user_id), agent_id or "*", reason, writer),
    )
