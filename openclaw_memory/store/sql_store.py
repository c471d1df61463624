"""`SqlStore`: the record store, written once over a dialect (SQLite, PostgreSQL).

The record-facing methods come from `store/records.py`; this module adds the logs (sessions, the
short-term window, the maintenance lease and runs), the whole-store work (the forgetting jobs'
look-ups, reindex, doctor, purge, export and import) and the console's list. Each backend is this
class with its connection and its `sql.Dialect` (`store/sqlite`, `store/postgres`).

Over 600 lines: the whole-store statements of every backend, in one place.
"""

from __future__ import annotations

import numpy as np
from typing import Any, Iterator, Sequence
from ..errors import StoreError
from ..lang.text import sentence_parts
from ..types import MemoryRecord, Scope, WindowMessage, memory_text
from . import sql as shared
from .ports import ListPage, ListQuery, UnusedQuery, hashed_user
from .records import SqlRecords, _marks, _chunks, delete_rows, put_vector, query, row_to_record
from .sql import as_dict


def _types(types: Sequence[str]) -> str:
    """Stored type names (from the policy table, never user text) as an SQL list."""
    return ", ".join(repr(str(t)) for t in types)


#: tables keyed by user_id/agent_id, deleted row by row for a user purge
USER_TABLES = ("versions", "outbox", "messages", "sessions", "audit")

#: the written order of each user table an export carries
_WRITTEN = {
    "versions": "superseded_at, record_id, version",
    "audit": "seq",
    "sessions": "started_at, agent_id, id",
    "messages": "seq",
}

_EVENTS = "status = 'active' AND type = 'event' AND subject {same} ?"


class SqlStore(SqlRecords):
    """The record store (`ports.RecordStore`) over one SQL database and its dialect."""

    # ---- sessions -------------------------------------------------------------------------

    def session(self, scope: Scope, session_id: str) -> dict[str, Any] | None:
        with self._read() as db:
            row = db.execute(
                "SELECT started_at, last_active_at, ended_at FROM sessions "
                "WHERE user_id = ? AND agent_id = ? AND id = ?",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchone()
        return as_dict(row) if row is not None else None

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
                "SELECT user_id FROM sessions WHERE agent_id = ? AND id = ? "
                "ORDER BY started_at, user_id",
                (agent_id, session_id),
            ).fetchall()
        return [r[0] for r in rows]

    # ---- the short-term window ------------------------------------------------------------

    def append_message(self, scope: Scope, message: WindowMessage) -> None:
        m = message
        with self._write() as db:
            db.execute(
                "INSERT INTO messages(session_id, user_id, agent_id, role, content, tokens, "
                "turn_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (m.session_id, scope.user_id, scope.agent_id, m.role, m.content, m.tokens)
                + (m.turn_id, m.at),
            )

    def window_messages(self, scope: Scope, session_id: str) -> list[dict[str, Any]]:
        with self._read() as db:
            rows = db.execute(
                "SELECT seq, role, content, tokens, turn_id FROM messages WHERE user_id = ? "
                "AND agent_id = ? AND session_id = ? AND in_window = 1 ORDER BY seq",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchall()
        return [as_dict(r) for r in rows]

    def leave_window(self, scope: Scope, session_id: str, seqs: Sequence[int] | None) -> None:
        where = "user_id = ? AND agent_id = ? AND session_id = ?"
        args: list[Any] = [scope.user_id, scope.agent_id, session_id]
        if seqs is not None:
            if not seqs:
                return
            where += f" AND seq IN ({_marks(seqs)})"
            args += [int(s) for s in seqs]
        with self._write() as db:
            db.execute(f"UPDATE messages SET in_window = 0 WHERE {where}", args)

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
            rows = db.execute(
                "SELECT turn_id, role, content FROM messages WHERE user_id = ? AND agent_id = ? "
                "AND session_id = ? AND turn_id IS NOT NULL AND content <> '' "
                f"ORDER BY seq LIMIT {int(limit)}",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchall()
        return [as_dict(m) for m in rows]

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
            f"AS newer FROM messages {where}) m WHERE in_window = 0 AND created_at <= ? "
            "AND newer > ? AND content <> ''"
        )
        with self._write() as db:
            kept_keys = db.execute(
                f"UPDATE messages SET content = '', tokens = 0 WHERE seq IN ({stale}) "
                "AND role = 'user' AND turn_id IS NOT NULL",
                args,
            ).rowcount
            dropped = db.execute(f"DELETE FROM messages WHERE seq IN ({stale})", args).rowcount
            return int(kept_keys or 0) + int(dropped or 0)

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
        return as_dict(row) if row else None

    def begin_run(self, trigger: str, holder: str, now: float) -> int:
        with self._write() as db:
            db.execute("UPDATE maintenance_runs SET status = 'abandoned' WHERE status = 'running'")
            rows = db.execute(
                "INSERT INTO maintenance_runs(trigger, holder, started_at, status) "
                "VALUES (?, ?, ?, 'running') RETURNING id",
                (trigger, holder, now),
            ).fetchall()
            return int(rows[0][0])

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
        return [as_dict(r) for r in rows]

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
                    row_to_record(r)
                    for r in db.execute(
                        f"SELECT * FROM records WHERE id IN ({_marks(chunk)}) ORDER BY rid", chunk
                    ).fetchall()
                ]
        return out

    def live_statuses(self, scope: Scope) -> dict[str, str]:
        """record id -> status of the partition's records that are not inactive."""
        with self._read() as db:
            rows = db.execute(
                "SELECT id, status FROM records "
                "WHERE user_id = ? AND agent_id = ? AND status <> 'inactive'",
                (scope.user_id, scope.agent_id),
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    def record_count(self) -> int:
        """Records of every scope and status."""
        with self._read() as db:
            return int(db.execute("SELECT COUNT(*) FROM records").fetchone()[0])

    def live_count(self) -> int:
        with self._read() as db:
            return int(
                db.execute("SELECT COUNT(*) FROM records WHERE status <> 'inactive'").fetchone()[0]
            )

    # ---- forgetting -----------------------------------------------------------------------

    def _partition(
        self, scope: Scope, where: str, args: Sequence[Any], order: str, limit: int
    ) -> list[MemoryRecord]:
        with self._read() as db:
            return query(db, scope, where=where, args=args, order=order, limit=limit)

    def expired(self, scope: Scope, now: float, limit: int) -> list[MemoryRecord]:
        return self._partition(
            scope,
            "status = 'active' AND expires_at IS NOT NULL AND expires_at <= ?",
            (now,),
            "expires_at ASC, rid ASC",
            limit,
        )

    def unused(self, scope: Scope, q: UnusedQuery) -> list[MemoryRecord]:
        kept = f" AND type NOT IN ({_types(q.kept_types)})" if q.kept_types else ""
        return self._partition(
            scope,
            f"status IN ('active', 'archived'){kept} AND channel <> 'explicit' "
            "AND importance <= ? AND COALESCE(last_accessed_at, updated_at) <= ?",
            (q.max_importance, q.cutoff),
            "rid ASC",
            q.limit,
        )

    def crowded_event_subjects(self, scope: Scope, more_than: int) -> list[str | None]:
        """Subjects with more than `more_than` live events, sorted."""
        with self._read() as db:
            rows = db.execute(
                "SELECT subject FROM records WHERE user_id = ? AND agent_id = ? "
                "AND status = 'active' AND type = 'event' GROUP BY subject HAVING COUNT(*) > ? "
                "ORDER BY subject NULLS FIRST",
                (scope.user_id, scope.agent_id, more_than),
            ).fetchall()
        return [r[0] for r in rows]

    def live_event_count(self, scope: Scope, subject: str | None) -> int:
        events = _EVENTS.format(same=self.dialect.same)
        with self._read() as db:
            return int(
                db.execute(
                    f"SELECT COUNT(*) FROM records WHERE user_id = ? AND agent_id = ? AND {events}",
                    (scope.user_id, scope.agent_id, subject),
                ).fetchone()[0]
            )

    def oldest_live_events(
        self, scope: Scope, subject: str | None, limit: int
    ) -> list[MemoryRecord]:
        events = _EVENTS.format(same=self.dialect.same)
        return self._partition(scope, events, (subject,), "created_at ASC, rid ASC", limit)

    def curated_count(self, scope: Scope, uncapped: Sequence[str]) -> int:
        """Live records of the partition not of the `uncapped` types."""
        capped = f" AND type NOT IN ({_types(uncapped)})" if uncapped else ""
        with self._read() as db:
            row = db.execute(
                "SELECT COUNT(*) FROM records WHERE user_id = ? AND agent_id = ? "
                f"AND status = 'active'{capped}",
                (scope.user_id, scope.agent_id),
            ).fetchone()
        return int(row[0])

    def lowest_value(self, scope: Scope, uncapped: Sequence[str], limit: int) -> list[MemoryRecord]:
        """Live records not of the `uncapped` types, lowest value first: profile and explicit
        last, then by importance, disuse, access count and age."""
        capped = f" AND type NOT IN ({_types(uncapped)})" if uncapped else ""
        order = (
            "(type = 'profile' OR channel = 'explicit') ASC, importance ASC, "
            "COALESCE(last_accessed_at, updated_at) ASC, access_count ASC, created_at ASC, rid ASC"
        )
        return self._partition(scope, f"status = 'active'{capped}", (), order, limit)

    # ---- vectors kept in the store (reindex, doctor) --------------------------------------

    def embedder(self) -> str | None:
        with self._read() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        return None if row is None else str(row[0])

    def set_embedder(self, name: str) -> None:
        with self._write() as db:
            db.execute(self.dialect.upsert("meta", ("key", "value"), ("key",)), ("embedder", name))

    def put_vector(self, record: MemoryRecord, vector: np.ndarray, model: str) -> None:
        with self._write() as db:
            put_vector(db, record, vector, model)

    def stale_vector_ids(self, model: str, dim: int, scope: Scope | None = None) -> list[str]:
        """Live records whose stored vector is missing, of another model or dimension, or of
        an older text, in written order."""
        sql = (
            "SELECT r.id FROM records r LEFT JOIN vectors v ON v.record_id = r.id "
            "WHERE r.status <> 'inactive' AND (v.record_id IS NULL OR v.model <> ? OR v.dim <> ? "
            "OR v.content_hash <> r.content_hash)"
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
            "FROM records r JOIN vectors v ON v.record_id = r.id WHERE r.status <> 'inactive'"
        )
        args: list = []
        if scope is not None:
            sql += " AND r.user_id = ? AND r.agent_id = ?"
            args += [scope.user_id, scope.agent_id]
        out = []
        with self._read() as db:
            for row in db.execute(sql + " ORDER BY r.rid", args).fetchall():
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
                "DELETE FROM vectors WHERE model <> ? OR dim <> ? OR record_id NOT IN "
                "(SELECT id FROM records)",
                (model, dim),
            ).rowcount
            db.execute(self.dialect.upsert("meta", ("key", "value"), ("key",)), ("embedder", model))
        return int(dropped or 0)

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
            return int(db.execute("DELETE FROM outbox WHERE seq <= ?", (upto,)).rowcount or 0)

    def pending_by_scope(self) -> dict[tuple[str, str], set[str]]:
        """Records with outbox entries still to apply, by (user, agent)."""
        out: dict[tuple[str, str], set[str]] = {}
        with self._read() as db:
            for r in db.execute("SELECT user_id, agent_id, record_id FROM outbox").fetchall():
                out.setdefault((r[0], r[1]), set()).add(r[2])
        return out

    def keyword_index_gaps(self) -> tuple[list[int], list[str]]:
        """Keyword rows of no record, and records with no keyword row."""
        with self._read() as db:
            return self.dialect.keyword_gaps(db)

    def repair_keyword_index(self, orphan: Sequence[int], missing: Sequence[str]) -> None:
        with self._write() as db:
            self.dialect.unindex(db, list(orphan))
            for chunk in _chunks(list(missing), 500):
                for row in db.execute(
                    f"SELECT * FROM records WHERE id IN ({_marks(chunk)}) ORDER BY rid", chunk
                ).fetchall():
                    self.dialect.index_text(db, row["rid"], row_to_record(row))

    def optimize_keyword_index(self) -> None:
        """Compact the keyword index so deleted rows' tokens leave the disk (purge)."""
        with self._write() as db:
            self.dialect.optimize_keyword_index(db)

    # ---- purge ----------------------------------------------------------------------------

    def user_agents(self, user_id: str, agent_id: str | None = None) -> list[str]:
        """The agents under which the user has any row (records, sessions, messages, ...)."""
        where, args = shared.user_where(self.dialect, user_id, agent_id)
        found: set[str] = set()
        with self._read() as db:
            for table in ("records", *USER_TABLES):
                found.update(
                    r[0]
                    for r in db.execute(
                        f"SELECT DISTINCT agent_id FROM {table} WHERE {where}", args
                    ).fetchall()
                )
        return sorted(found)

    def purge_user(
        self, user_id: str, agent_id: str | None, at: float, writer: str
    ) -> dict[str, int]:
        """Delete every row of the user (every agent, or one) and audit the purge under a hashed
        user id; returns rows removed per table."""
        where, args = shared.user_where(self.dialect, user_id, agent_id)
        counts: dict[str, int] = {}
        with self._write() as db:
            rows = db.execute(f"SELECT rid, id FROM records WHERE {where}", args).fetchall()
            fts = self.dialect.unindex(db, [r[0] for r in rows])
            vectors = 0
            for group in _chunks([r[1] for r in rows], 500):
                vectors += db.execute(
                    f"DELETE FROM vectors WHERE record_id IN ({_marks(group)})", group
                ).rowcount
            n = db.execute(f"DELETE FROM records WHERE {where}", args).rowcount
            counts.update({"records": n, "fts": fts, "vectors": vectors})
            for table in USER_TABLES:
                counts[table] = db.execute(f"DELETE FROM {table} WHERE {where}", args).rowcount
            summary = ", ".join(f"{k} {v}" for k, v in counts.items())
            _audit_purge(db, user_id, agent_id, at, f"purged user: {summary}", writer)
            self.dialect.optimize_keyword_index(db)
        return counts

    def episodes_of_turns(self, scope: Scope, turns: Sequence[str]) -> list[str]:
        """The episodes logged for these turns (by `record_turns`, kept by triggers)."""
        if not turns:
            return []
        sql, args = shared.scope_sql(scope, "r")
        with self._read() as db:
            rows = db.execute(
                "SELECT DISTINCT r.id FROM records r JOIN record_turns t ON t.rid = r.rid "
                f"WHERE {sql} AND t.user_id = r.user_id AND t.agent_id = r.agent_id "
                f"AND r.type = 'episode' AND t.turn_id IN ({_marks(turns)}) ORDER BY r.id",
                (*args, *turns),
            ).fetchall()
        return [row[0] for row in rows]

    def purge_records(
        self, scope: Scope, ids: Sequence[str], turns: Sequence[str]
    ) -> dict[str, int]:
        """Delete records everywhere with their audit rows, and the short-term messages of
        `turns` (the window holds the same turns verbatim)."""
        ids = list(dict.fromkeys(ids))
        counts = {"vectors": 0, "records": 0, "audit": 0, "messages": 0}
        sql, args = shared.scope_sql(scope, by_id=True, hint=self.dialect.hint)
        with self._write() as db:
            for chunk in _chunks(ids, 500):
                rows = db.execute(
                    f"SELECT rid, id FROM records WHERE {sql} AND id IN ({_marks(chunk)}) "
                    "ORDER BY rid",
                    (*args, *chunk),
                ).fetchall()
                got = [r[1] for r in rows]
                if got:
                    counts["vectors"] += int(
                        db.execute(
                            f"SELECT COUNT(*) FROM vectors WHERE record_id IN ({_marks(got)})", got
                        ).fetchone()[0]
                    )
                counts["records"] += delete_rows(db, scope, rows)
                # audit reasons can quote the content ("forgotten on request: ...")
                counts["audit"] += db.execute(
                    f"DELETE FROM audit WHERE user_id = ? AND agent_id = ? "
                    f"AND record_id IN ({_marks(chunk)})",
                    (scope.user_id, scope.agent_id, *chunk),
                ).rowcount
            if turns:
                counts["messages"] = db.execute(
                    f"DELETE FROM messages WHERE user_id = ? AND agent_id = ? "
                    f"AND turn_id IN ({_marks(turns)})",
                    (scope.user_id, scope.agent_id, *sorted(turns)),
                ).rowcount
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
            _audit_purge(db, user_id, agent_id, at, reason, writer)

    def counts_by_scope(self) -> list[dict[str, Any]]:
        # from the counts the store keeps by trigger
        with self._read() as db:
            rows = db.execute(
                "SELECT user_id, agent_id, status, type, n FROM record_counts WHERE n > 0 "
                "ORDER BY user_id, agent_id, status, type"
            ).fetchall()
        return [as_dict(r) for r in rows]

    def vacuum(self) -> None:
        try:
            self.db.vacuum()
        except self._driver_errors() as exc:
            raise StoreError(f"{self.db.path}: vacuum failed: {exc}") from exc

    def close(self) -> None:
        self.db.close()

    # ---- export and import of a user's rows (`store/sql.py`) ------------------------------

    def user_records(
        self, user_id: str, agent_id: str | None = None, *, newest_first: bool = False
    ) -> list[MemoryRecord]:
        with self._read() as db:
            return shared.user_records(
                db, self.dialect, user_id, agent_id, newest_first=newest_first
            )

    def user_rows(
        self, table: str, user_id: str, agent_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        with self._read() as db:
            rows = shared.user_rows(
                db, self.dialect, table, user_id, agent_id, self._written_order(table)
            )
        yield from rows

    def _written_order(self, table: str) -> str:
        """The order rows of a user table were written in (SQLite: its rowid)."""
        return _WRITTEN.get(table, "")

    def record_owner(self, record_id: str) -> tuple[str, str] | None:
        with self._read() as db:
            return shared.record_owner(db, self.dialect, record_id)

    def holds(self, scope: Scope, record: MemoryRecord) -> bool:
        with self._read() as db:
            return shared.holds(db, self.dialect, scope, record)

    def import_row(self, table: str, item: dict[str, Any]) -> int:
        with self._write() as db:
            return shared.import_row(db, self.dialect, table, item)

    # ---- the console's memory list: keyset pages served by the list indexes ---------------

    def list_page(self, scope: Scope, q: ListQuery) -> ListPage:
        """Each status is one range of a list index (status, sort value, rid, then every
        filter column), so a page reads index entries up to the cursor and its rows, never the
        rows the filters reject; a text filter reads its keyword matches (at most
        `ListQuery.text_cap`) once, by rid."""
        if q.column not in _LIST_COLUMNS:
            raise ValueError(f"column: expected one of {sorted(_LIST_COLUMNS)}, found {q.column!r}")
        where, args, text_filter = self._conditions(scope, q)
        with self._read() as db:
            if text_filter:
                total, keys = _text_keys(db, where, args, q)
            else:
                total, keys = self._index_keys(db, where, args, q)
            keys.sort(reverse=q.order == "desc")
            more = len(keys) > q.size
            keys = keys[: q.size]
            found = (
                {
                    r["rid"]: r
                    for r in db.execute(
                        f"SELECT * FROM records WHERE rid IN ({_marks(keys)})",
                        [rid for _, rid in keys],
                    ).fetchall()
                }
                if keys
                else {}
            )
        rows = [row_to_record(found[rid]) for _, rid in keys if rid in found]
        return ListPage(rows, keys[-1] if more and keys else None, total, text_filter)

    def _conditions(self, scope: Scope, q: ListQuery) -> tuple[list[str], list[Any], bool]:
        """The filters as SQL, without the status (a page asks one status at a time). With a
        text filter the rows are found by their keyword matches: the hint keeps SQLite from
        walking a (user, agent) index past every row of the user instead."""
        capped = bool(q.text.strip())
        c = self.dialect.hint if capped else ""
        where = [f"{c}user_id = ?", f"{c}agent_id = ?"]
        args: list[Any] = [scope.user_id, scope.agent_id]
        if q.type:
            where.append(f"{c}type = ?")
            args.append(q.type)
        if q.types:
            where.append(f"{c}type IN ({_marks(q.types)})")
            args += list(q.types)
        if q.subject:
            where.append("subject LIKE ? ESCAPE '\\'")
            args.append(_like_prefix(q.subject))
        if q.created_from is not None:
            where.append(f"{c}created_at >= ?")
            args.append(q.created_from)
        if q.created_to is not None:
            where.append(f"{c}created_at < ?")
            args.append(q.created_to)
        if capped:
            cond, cond_args = self.dialect.text_filter(scope, q.text, q.text_cap)
            where.append(cond)
            args += cond_args
        return where, args, capped

    def _index_keys(
        self, db: Any, where: list[str], args: list[Any], q: ListQuery
    ) -> tuple[int, list[tuple[float, int]]]:
        """The count (capped) and each status's next `size + 1` (sort value, rid) from its range
        of the list index on the column (none when nothing matches: a filter matching nothing
        reads the index once, not once per status)."""
        col, statuses = q.column, list(q.statuses)
        counted, count_args = (
            (where, args) if len(statuses) > 1 else ([*where, "status = ?"], [*args, *statuses])
        )
        total = db.execute(
            f"SELECT COUNT(*) FROM (SELECT 1 FROM records WHERE {' AND '.join(counted)} "
            f"LIMIT {q.count_cap + 1}) n",
            count_args,
        ).fetchone()[0]
        keys: list[tuple[float, int]] = []
        for status in statuses if total else ():
            part, part_args = [*where, "status = ?"], [*args, status]
            if q.after is not None:
                value, rid = q.after
                part, part_args = (
                    [*part, f"({col}, rid) {'<' if q.order == 'desc' else '>'} (?, ?)"],
                    [*part_args, value, rid],
                )
            direction = q.order.upper()
            keys += [
                (r[0], r[1])
                for r in db.execute(
                    f"SELECT {col}, rid FROM records {self.dialect.list_index(col)} "
                    f"WHERE {' AND '.join(part)} ORDER BY {col} {direction}, rid {direction} "
                    "LIMIT ?",
                    (*part_args, q.size + 1),
                ).fetchall()
            ]
        return int(total), keys


_LIST_COLUMNS = {"updated_at", "created_at"}


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _text_keys(
    db: Any, where: list[str], args: list[Any], q: ListQuery
) -> tuple[int, list[tuple[float, int]]]:
    """The count and the (sort value, rid) after the cursor among the text filter's matches,
    read once by rid (the count and the page from the same read)."""
    rows = db.execute(
        f"SELECT {q.column}, rid, status FROM records WHERE {' AND '.join(where)}", args
    ).fetchall()
    matched = [(r[0], r[1]) for r in rows if r[2] in q.statuses]
    if q.after is None:
        return len(matched), matched
    cursor = tuple(q.after)
    return len(matched), [k for k in matched if (k < cursor if q.order == "desc" else k > cursor)]


def _audit_purge(
    db: Any, user_id: str, agent_id: str | None, at: float, reason: str, writer: str
) -> None:
    # the row must not carry the user id, and "*" (every agent) is no valid Scope
    db.execute(
        "INSERT INTO audit(at, user_id, agent_id, record_id, action, channel, reason, writer) "
        "VALUES (?, ?, ?, NULL, 'purge', 'admin', ?, ?)",
        (at, hashed_user(user_id), agent_id or "*", reason, writer),
    )
