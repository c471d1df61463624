"""Purge in SQLite: every row of a user, or records with their audit rows and messages."""

from __future__ import annotations

from typing import Any, Sequence

from ...types import Scope
from .. import records as rec
from ..ports import hashed_user
from .base import SQLiteBase

#: Tables keyed by user_id/agent_id, deleted row by row for a user purge.
USER_TABLES = ("versions", "outbox", "messages", "sessions", "audit")


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


def _chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


class PurgeMixin(SQLiteBase):
    # ---- purge ----------------------------------------------------------------------------

    @staticmethod
    def _user_where(user_id: str, agent_id: str | None) -> tuple[str, list]:
        if agent_id is None:
            return "user_id = ?", [user_id]
        return "user_id = ? AND agent_id = ?", [user_id, agent_id]

    def user_agents(self, user_id: str, agent_id: str | None = None) -> list[str]:
        """The agents under which the user has any row (records, sessions, messages, ...)."""
        where, args = self._user_where(user_id, agent_id)
        found: set[str] = set()
        with self._read() as db:
            for table in ("records", *USER_TABLES):
                found.update(
                    r[0]
                    for r in db.execute(
                        f"SELECT DISTINCT agent_id FROM {table} WHERE {where}", args
                    )
                )
        return sorted(found)

    def purge_user(
        self, user_id: str, agent_id: str | None, at: float, writer: str
    ) -> dict[str, int]:
        """Delete every row of the user (every agent, or one) and audit the purge under a hashed
        user id; returns rows removed per table."""
        where, args = self._user_where(user_id, agent_id)
        counts: dict[str, int] = {}
        with self._write() as db:
            rows = db.execute(f"SELECT rid, id FROM records WHERE {where}", args).fetchall()
            fts = vectors = 0
            for group in _chunks(rows, 500):
                fts += db.execute(
                    f"DELETE FROM records_fts WHERE rowid IN ({_marks(group)})",
                    [r["rid"] for r in group],
                ).rowcount
                vectors += db.execute(
                    f"DELETE FROM vectors WHERE record_id IN ({_marks(group)})",
                    [r["id"] for r in group],
                ).rowcount
            n = db.execute(f"DELETE FROM records WHERE {where}", args).rowcount
            counts.update({"records": n, "fts": fts, "vectors": vectors})
            for table in USER_TABLES:
                counts[table] = db.execute(f"DELETE FROM {table} WHERE {where}", args).rowcount
            summary = ", ".join(f"{k} {v}" for k, v in counts.items())
            # the row must not carry the user id, and "*" (every agent) is no valid Scope
            db.execute(
                "INSERT INTO audit(at, user_id, agent_id, record_id, action, channel, reason, "
                "writer) VALUES (?, ?, ?, NULL, 'purge', 'admin', ?, ?)",
                (at, hashed_user(user_id), agent_id or "*", f"purged user: {summary}", writer),
            )
            db.execute("INSERT INTO records_fts(records_fts) VALUES ('optimize')")
        return counts

    def episodes_of_turns(self, scope: Scope, turns: Sequence[str]) -> list[str]:
        """The episodes logged for these turns."""
        if not turns:
            return []
        sql, args = rec._scope_sql(scope, "r")
        with self._read() as db:
            rows = db.execute(
                f"SELECT DISTINCT r.id FROM records r, json_each(r.turn_ids) j WHERE {sql} "
                f"AND r.type = 'episode' AND j.value IN ({_marks(turns)})",
                (*args, *turns),
            ).fetchall()
        return [row[0] for row in rows]

    def purge_records(
        self, scope: Scope, ids: Sequence[str], turns: Sequence[str]
    ) -> dict[str, int]:
        """Delete records everywhere with their audit rows, and the short-term messages of
        `turns` (the window holds the same turns verbatim)."""
        with self._write() as db:
            counts = {
                "vectors": int(
                    db.execute(
                        f"SELECT COUNT(*) FROM vectors WHERE record_id IN ({_marks(ids)})",
                        list(ids),
                    ).fetchone()[0]
                )
            }
            counts["records"] = rec.delete_records(db, scope, ids)
            # audit reasons can quote the content ("forgotten on request: ...")
            counts["audit"] = db.execute(
                f"DELETE FROM audit WHERE user_id = ? AND agent_id = ? "
                f"AND record_id IN ({_marks(ids)})",
                (scope.user_id, scope.agent_id, *ids),
            ).rowcount
            counts["messages"] = (
                db.execute(
                    f"DELETE FROM messages WHERE user_id = ? AND agent_id = ? "
                    f"AND turn_id IN ({_marks(turns)})",
                    (scope.user_id, scope.agent_id, *turns),
                ).rowcount
                if turns
                else 0
            )
        return counts

    def purged_at(self, user_id: str, agent_id: str) -> float | None:
        with self._read() as db:
            row = db.execute(
                "SELECT MAX(at) FROM audit WHERE user_id = ? AND action = 'purge' "
                "AND agent_id IN ('*', ?)",
                (hashed_user(user_id), agent_id),
            ).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def audit_purge_request(
        self, user_id: str, agent_id: str | None, at: float, reason: str, writer: str
    ) -> None:
        """An audit row about a purge of a user, under the hashed user id."""
        with self._write() as db:
            db.execute(
                "INSERT INTO audit(at, user_id, agent_id, record_id, action, channel, reason, "
                "writer) VALUES (?, ?, ?, NULL, 'purge', 'admin', ?, ?)",
                (at, hashed_user(user_id), agent_id or "*", reason, writer),
            )
