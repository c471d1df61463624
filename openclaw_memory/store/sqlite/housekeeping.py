"""Whole-store work in SQLite: scopes, the forgetting jobs' look-ups, reindex, doctor."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...lang.text import sentence_parts
from ...types import MemoryRecord, Scope, memory_text
from .. import records as rec
from .base import SQLiteBase


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
