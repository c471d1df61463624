"""Whole-store work in SQLite: scopes, forgetting look-ups, reindex, doctor, purge, export and import."""

from __future__ import annotations

import numpy as np
from typing import Any, Sequence, Iterator
from ...lang.text import sentence_parts
from ...types import MemoryRecord, Scope, memory_text
from .. import records as rec, sql as shared
from .records import SQLiteBase
from ..ports import hashed_user
from ..sql import SQLITE

# Whole-store work in SQLite: scopes, the forgetting jobs' look-ups, reindex, doctor.


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


def _chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _in(types: Sequence[str]) -> str:
    """Stored type names (from the policy table, never user text) as an SQL list."""
    return ", ".join(repr(str(t)) for t in types)


class HousekeepingMixin(SQLiteBase):
    # ---- scopes and records across scopes -------------------------------------------------

    def scopes(self, user_id: str | None = None) -> list[Scope]:
        with self._read() as db:
            if user_id is None:
                rows = db.execute(
                    "SELECT DISTINCT user_id, agent_id FROM records ORDER BY user_id, agent_id"
                ).fetchall()
            else:
                rows = db.execute(
                    "SELECT DISTINCT user_id, agent_id FROM records WHERE user_id = ? "
                    "ORDER BY agent_id",
                    (user_id,),
                ).fetchall()
        return [Scope(r[0], r[1]) for r in rows]

    def records_by_id(self, ids: Sequence[str]) -> list[MemoryRecord]:
        out: list[MemoryRecord] = []
        with self._read() as db:
            for chunk in _chunks(list(ids), 500):
                out += [
                    rec.row_to_record(r)
                    for r in db.execute(
                        f"SELECT * FROM records WHERE id IN ({_marks(chunk)})", list(chunk)
                    )
                ]
        return out

    def live_statuses(self, scope: Scope) -> dict[str, str]:
        """record id -> status of the partition's records that are not inactive."""
        with self._read() as db:
            rows = db.execute(
                "SELECT id, status FROM records "
                "WHERE user_id = ? AND agent_id = ? AND status != 'inactive'",
                (scope.user_id, scope.agent_id),
            ).fetchall()
        return {r["id"]: r["status"] for r in rows}

    def record_count(self) -> int:
        """Records of every scope and status."""
        with self._read() as db:
            return int(db.execute("SELECT COUNT(*) FROM records").fetchone()[0])

    def live_count(self) -> int:
        with self._read() as db:
            return int(
                db.execute("SELECT COUNT(*) FROM records WHERE status != 'inactive'").fetchone()[0]
            )

    # ---- forgetting -----------------------------------------------------------------------

    def expired(self, scope: Scope, now: float, limit: int) -> list[MemoryRecord]:
        with self._read() as db:
            return rec.query(
                db,
                scope,
                where="status = 'active' AND expires_at IS NOT NULL AND expires_at <= ?",
                args=(now,),
                order="expires_at ASC, rid ASC",
                limit=limit,
            )

    def unused(
        self,
        scope: Scope,
        kept_types: Sequence[str],
        max_importance: float,
        cutoff: float,
        limit: int,
    ) -> list[MemoryRecord]:
        """Live or archived records, not of `kept_types`, not explicit, of importance at most
        `max_importance`, neither used nor updated since `cutoff`, in written order."""
        where = (
            f"status IN ('active', 'archived') AND type NOT IN ({_in(kept_types)}) "
            "AND channel != 'explicit' AND importance <= ? "
            "AND COALESCE(last_accessed_at, updated_at) <= ?"
        )
        with self._read() as db:
            return rec.query(
                db, scope, where=where, args=(max_importance, cutoff), order="rid ASC", limit=limit
            )

    def crowded_event_subjects(self, scope: Scope, more_than: int) -> list[str | None]:
        """Subjects with more than `more_than` live events, sorted."""
        with self._read() as db:
            rows = db.execute(
                "SELECT subject FROM records WHERE user_id = ? AND agent_id = ? "
                "AND status = 'active' AND type = 'event' GROUP BY subject HAVING COUNT(*) > ? "
                "ORDER BY subject",
                (scope.user_id, scope.agent_id, more_than),
            ).fetchall()
        return [r[0] for r in rows]

    _EVENTS = "status = 'active' AND type = 'event' AND subject IS ?"

    def live_event_count(self, scope: Scope, subject: str | None) -> int:
        with self._read() as db:
            return int(
                db.execute(
                    f"SELECT COUNT(*) FROM records WHERE user_id = ? AND agent_id = ? "
                    f"AND {self._EVENTS}",
                    (scope.user_id, scope.agent_id, subject),
                ).fetchone()[0]
            )

    def oldest_live_events(
        self, scope: Scope, subject: str | None, limit: int
    ) -> list[MemoryRecord]:
        with self._read() as db:
            return rec.query(
                db,
                scope,
                where=self._EVENTS,
                args=(subject,),
                order="created_at ASC, rid ASC",
                limit=limit,
            )

    def curated_count(self, scope: Scope, uncapped: Sequence[str]) -> int:
        """Live records of the partition not of the `uncapped` types."""
        with self._read() as db:
            row = db.execute(
                f"SELECT COUNT(*) FROM records WHERE user_id = ? AND agent_id = ? "
                f"AND status = 'active' AND type NOT IN ({', '.join(repr(t) for t in uncapped)})",
                (scope.user_id, scope.agent_id),
            ).fetchone()
        return int(row[0])

    def lowest_value(self, scope: Scope, uncapped: Sequence[str], limit: int) -> list[MemoryRecord]:
        """Live records not of the `uncapped` types, lowest value first: profile and explicit
        last, then by importance, disuse, access count and age."""
        where = f"status = 'active' AND type NOT IN ({', '.join(repr(t) for t in uncapped)})"
        order = (
            "(type = 'profile' OR channel = 'explicit') ASC, importance ASC, "
            "COALESCE(last_accessed_at, updated_at) ASC, access_count ASC, created_at ASC, rid ASC"
        )
        with self._read() as db:
            return rec.query(db, scope, where=where, order=order, limit=limit)

    # ---- vectors kept in the store (reindex, doctor) --------------------------------------

    def embedder(self) -> str | None:
        with self._read() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        return None if row is None else str(row[0])

    def set_embedder(self, name: str) -> None:
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('embedder', ?)", (name,))

    def put_vector(self, record: MemoryRecord, vector: np.ndarray, model: str) -> None:
        with self._write() as db:
            rec.put_vector(db, record, vector, model)

    def stale_vector_ids(self, model: str, dim: int, scope: Scope | None = None) -> list[str]:
        """Live records whose stored vector is missing, of another model or dimension, or of
        an older text, in written order."""
        sql = (
            "SELECT r.id FROM records r LEFT JOIN vectors v ON v.record_id = r.id "
            "WHERE r.status != 'inactive' AND (v.record_id IS NULL OR v.model != ? OR v.dim != ? "
            "OR v.content_hash != r.content_hash)"
        )
        args: list = [model, int(dim)]
        if scope is not None:
            sql += " AND r.user_id = ? AND r.agent_id = ?"
            args += [scope.user_id, scope.agent_id]
        with self._read() as db:
            return [row[0] for row in db.execute(sql + " ORDER BY r.rid", args).fetchall()]

    def part_stale_ids(self, max_parts: int, scope: Scope | None = None) -> list[str]:
        """Live records whose stored sentence-part vectors are not the ones `max_parts` asks
        for (a store written before sentence vectors, or under another setting)."""
        sql = (
            "SELECT r.id, r.subject, r.summary, r.detail, v.dim, LENGTH(v.parts) AS size "
            "FROM records r JOIN vectors v ON v.record_id = r.id WHERE r.status != 'inactive'"
        )
        args: list = []
        if scope is not None:
            sql += " AND r.user_id = ? AND r.agent_id = ?"
            args += [scope.user_id, scope.agent_id]
        out = []
        with self._read() as db:
            for row in db.execute(sql + " ORDER BY r.rid", args):
                have = (row["size"] or 0) // (4 * row["dim"])
                text = memory_text(row["subject"], row["summary"], row["detail"])
                if have != len(sentence_parts(text, max_parts)):
                    out.append(row["id"])
        return out

    def retire_vectors(self, model: str, dim: int) -> int:
        """Drop stored vectors of another model or dimension, or of no record; record `model`
        as the store's embedder. Returns how many were dropped."""
        with self._write() as db:
            dropped = db.execute(
                "DELETE FROM vectors WHERE model != ? OR dim != ? OR record_id NOT IN "
                "(SELECT id FROM records)",
                (model, dim),
            ).rowcount
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('embedder', ?)", (model,))
        return int(dropped)

    def orphan_vector_rows(self, *, delete: bool = False) -> int:
        """Stored vectors of no record (deleted when `delete`); returns how many."""
        sql = "FROM vectors WHERE record_id NOT IN (SELECT id FROM records)"
        with self._read() as db:
            n = int(db.execute(f"SELECT COUNT(*) {sql}").fetchone()[0])
        if delete and n:
            with self._write() as db:
                db.execute(f"DELETE {sql}")
        return n

    # ---- outbox and keyword index as a whole (reindex, doctor) ----------------------------

    def last_outbox_seq(self) -> int:
        with self._read() as db:
            return int(db.execute("SELECT COALESCE(MAX(seq), 0) FROM outbox").fetchone()[0])

    def clear_outbox(self, upto: int) -> int:
        """Drop the entries queued up to `upto` (a full rebuild covered them)."""
        with self._write() as db:
            return int(db.execute("DELETE FROM outbox WHERE seq <= ?", (upto,)).rowcount)

    def pending_by_scope(self) -> dict[tuple[str, str], set[str]]:
        """Records with outbox entries still to apply, by (user, agent)."""
        out: dict[tuple[str, str], set[str]] = {}
        with self._read() as db:
            for r in db.execute("SELECT user_id, agent_id, record_id FROM outbox"):
                out.setdefault((r[0], r[1]), set()).add(r[2])
        return out

    def keyword_index_gaps(self) -> tuple[list[int], list[str]]:
        """Keyword rows of no record, and records with no keyword row."""
        with self._read() as db:
            orphan = [
                r[0]
                for r in db.execute(
                    "SELECT rowid FROM records_fts WHERE rowid NOT IN (SELECT rid FROM records)"
                ).fetchall()
            ]
            missing = [
                r[0]
                for r in db.execute(
                    "SELECT id FROM records WHERE rid NOT IN (SELECT rowid FROM records_fts)"
                ).fetchall()
            ]
        return orphan, missing

    def repair_keyword_index(self, orphan: Sequence[int], missing: Sequence[str]) -> None:
        records = self.records_by_id(missing)
        with self._write() as db:
            for rowid in orphan:
                db.execute("DELETE FROM records_fts WHERE rowid = ?", (rowid,))
            for r in records:
                rid = db.execute("SELECT rid FROM records WHERE id = ?", (r.id,)).fetchone()[0]
                rec.index_text(db, rid, r)

    def optimize_keyword_index(self) -> None:
        """Merge the FTS5 index into one segment, so deleted rows' tokens leave its pages (the
        freed pages are zeroed by secure_delete and dropped by the VACUUM that follows)."""
        with self._write() as db:
            db.execute("INSERT INTO records_fts(records_fts) VALUES ('optimize')")


# Purge in SQLite: every row of a user, or records with their audit rows and messages.

#: Tables keyed by user_id/agent_id, deleted row by row for a user purge.
USER_TABLES = ("versions", "outbox", "messages", "sessions", "audit")


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


# Export and import of a user's rows in SQLite: `store/sql.py` with SQLite's
# dialect, in the written order of each table (its rowid).

USER_ROWS = shared.USER_ROWS


class PortabilityMixin(SQLiteBase):
    def user_records(
        self, user_id: str, agent_id: str | None = None, *, newest_first: bool = False
    ) -> list[MemoryRecord]:
        with self._read() as db:
            return shared.user_records(db, SQLITE, user_id, agent_id, newest_first=newest_first)

    def user_rows(
        self, table: str, user_id: str, agent_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        order = "seq" if table in ("audit", "messages") else "rowid"
        with self._read() as db:
            rows = shared.user_rows(db, SQLITE, table, user_id, agent_id, order)
        yield from rows

    def record_owner(self, record_id: str) -> tuple[str, str] | None:
        with self._read() as db:
            return shared.record_owner(db, SQLITE, record_id)

    def holds(self, scope: Scope, record: MemoryRecord) -> bool:
        with self._read() as db:
            return shared.holds(db, SQLITE, scope, record)

    def import_row(self, table: str, item: dict[str, Any]) -> int:
        with self._write() as db:
            return shared.import_row(db, SQLITE, table, item)
