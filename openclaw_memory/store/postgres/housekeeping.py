"""Whole-store work in PostgreSQL: scopes, forgetting look-ups, reindex, doctor, export, import, the console's list."""

from __future__ import annotations

import hashlib
import numpy as np
from typing import Any, Sequence, Iterator
from ...types import Scope, MemoryRecord, memory_text
from . import records as keywords
from .db import Connection, PostgresDatabase, scope_sql, to_records, to_record
from .records import _delete_rows, _put_vector
from ...lang.text import sentence_parts
from .. import sql as shared
from ..sql import POSTGRES
from ..ports import ListPage, ListQuery

# Whole-store work in PostgreSQL: scopes, the embedder stamp, purges and the console's counts.

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


# The forgetting jobs' and reindex's look-ups in PostgreSQL (TTL, cleanup, compaction, the
# cap on curated memories, pages of live records).

_EVENTS = "status = 'active' AND type = 'event' AND subject IS NOT DISTINCT FROM %s"


class Forgetting:
    db: PostgresDatabase

    def _partition(
        self, scope: Scope, where: str, args: Sequence[Any], order: str, limit: int
    ) -> list[MemoryRecord]:
        sql, sargs = scope_sql(scope)
        with self.db.read() as c:
            rows = c.execute(
                f"SELECT * FROM records WHERE {sql} AND ({where}) ORDER BY {order} LIMIT %s",
                (*sargs, *args, int(limit)),
            ).fetchall()
        return to_records(rows)

    def live_statuses(self, scope: Scope) -> dict[str, str]:
        """record id -> status of the partition's records that are not inactive."""
        with self.db.read() as c:
            rows = c.execute(
                "SELECT id, status FROM records "
                "WHERE user_id = %s AND agent_id = %s AND status <> 'inactive'",
                (scope.user_id, scope.agent_id),
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    def record_count(self) -> int:
        """Records of every scope and status."""
        with self.db.read() as c:
            return int(c.execute("SELECT COUNT(*) FROM records").fetchone()[0])

    def live_count(self) -> int:
        with self.db.read() as c:
            row = c.execute("SELECT COUNT(*) FROM records WHERE status <> 'inactive'").fetchone()
        return int(row[0])

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
        return self._partition(
            scope,
            "status IN ('active', 'archived') AND NOT (type = ANY(%s)) "
            "AND channel <> 'explicit' AND importance <= %s "
            "AND COALESCE(last_accessed_at, updated_at) <= %s",
            (list(kept_types), max_importance, cutoff),
            "rid",
            limit,
        )

    def crowded_event_subjects(self, scope: Scope, more_than: int) -> list[str | None]:
        """Subjects with more than `more_than` live events, sorted."""
        with self.db.read() as c:
            rows = c.execute(
                "SELECT subject FROM records WHERE user_id = %s AND agent_id = %s "
                "AND status = 'active' AND type = 'event' GROUP BY subject "
                "HAVING COUNT(*) > %s ORDER BY subject NULLS FIRST",
                (scope.user_id, scope.agent_id, more_than),
            ).fetchall()
        return [r[0] for r in rows]

    def live_event_count(self, scope: Scope, subject: str | None) -> int:
        with self.db.read() as c:
            row = c.execute(
                f"SELECT COUNT(*) FROM records WHERE user_id = %s AND agent_id = %s AND {_EVENTS}",
                (scope.user_id, scope.agent_id, subject),
            ).fetchone()
        return int(row[0])

    def oldest_live_events(
        self, scope: Scope, subject: str | None, limit: int
    ) -> list[MemoryRecord]:
        return self._partition(scope, _EVENTS, (subject,), "created_at, rid", limit)

    def curated_count(self, scope: Scope, uncapped: Sequence[str]) -> int:
        """Live records of the partition not of the `uncapped` types."""
        with self.db.read() as c:
            row = c.execute(
                "SELECT COUNT(*) FROM records WHERE user_id = %s AND agent_id = %s "
                "AND status = 'active' AND NOT (type = ANY(%s))",
                (scope.user_id, scope.agent_id, list(uncapped)),
            ).fetchone()
        return int(row[0])

    def lowest_value(self, scope: Scope, uncapped: Sequence[str], limit: int) -> list[MemoryRecord]:
        """Live records not of the `uncapped` types, lowest value first: profile and explicit
        last, then by importance, disuse, access count and age."""
        return self._partition(
            scope,
            "status = 'active' AND NOT (type = ANY(%s))",
            (list(uncapped),),
            "(type = 'profile' OR channel = 'explicit'), importance, "
            "COALESCE(last_accessed_at, updated_at), access_count, created_at, rid",
            limit,
        )


# Reindex's and doctor's work in PostgreSQL: stored vectors, the outbox as a whole and the
# keyword index's gaps.


class Upkeep:
    db: PostgresDatabase

    def put_vector(self, record: MemoryRecord, vector: np.ndarray, model: str) -> None:
        with self.db.write() as c:
            _put_vector(c, record, vector, model)

    def part_stale_ids(self, max_parts: int, scope: Scope | None = None) -> list[str]:
        """Live records whose stored sentence-part vectors are not the ones `max_parts` asks
        for (a store written before sentence vectors, or under another setting)."""
        sql = (
            "SELECT r.id, r.subject, r.summary, r.detail, v.dim, octet_length(v.parts) "
            "FROM records r JOIN vectors v ON v.record_id = r.id WHERE r.status <> 'inactive'"
        )
        args: list = []
        if scope is not None:
            sql += " AND r.user_id = %s AND r.agent_id = %s"
            args += [scope.user_id, scope.agent_id]
        out = []
        with self.db.read() as c:
            rows = c.execute(sql + " ORDER BY r.rid", args).fetchall()
        for rid, subject, summary, detail, dim, size in rows:
            have = (size or 0) // (4 * dim)
            if have != len(sentence_parts(memory_text(subject, summary, detail), max_parts)):
                out.append(rid)
        return out

    def retire_vectors(self, model: str, dim: int) -> int:
        """Drop stored vectors of another model or dimension, or of no record; record `model`
        as the store's embedder. Returns how many were dropped."""
        with self.db.write() as c:
            dropped = c.execute(
                "DELETE FROM vectors v WHERE v.model <> %s OR v.dim <> %s "
                "OR NOT EXISTS (SELECT 1 FROM records r WHERE r.id = v.record_id)",
                (model, dim),
            ).rowcount
            c.execute(
                "INSERT INTO meta(key, value) VALUES ('embedder', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (model,),
            )
        return int(dropped or 0)

    def orphan_vector_rows(self, *, delete: bool = False) -> int:
        """Stored vectors of no record (deleted when `delete`); returns how many."""
        orphan = (
            "FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.id = v.record_id)"
        )
        with self.db.read() as c:
            n = int(c.execute(f"SELECT COUNT(*) {orphan}").fetchone()[0])
        if delete and n:
            with self.db.write() as c:
                c.execute(f"DELETE {orphan}")
        return n

    def last_outbox_seq(self) -> int:
        with self.db.read() as c:
            return int(c.execute("SELECT COALESCE(MAX(seq), 0) FROM outbox").fetchone()[0])

    def clear_outbox(self, upto: int) -> int:
        """Drop the entries queued up to `upto` (a full rebuild covered them)."""
        with self.db.write() as c:
            return int(c.execute("DELETE FROM outbox WHERE seq <= %s", (upto,)).rowcount or 0)

    def pending_by_scope(self) -> dict[tuple[str, str], set[str]]:
        """Records with outbox entries still to apply, by (user, agent)."""
        out: dict[tuple[str, str], set[str]] = {}
        with self.db.read() as c:
            for user_id, agent_id, record_id in c.execute(
                "SELECT user_id, agent_id, record_id FROM outbox"
            ).fetchall():
                out.setdefault((user_id, agent_id), set()).add(record_id)
        return out

    def keyword_index_gaps(self) -> tuple[list[int], list[str]]:
        """Keyword rows of no record, and records with no keyword row."""
        with self.db.read() as c:
            orphan = [
                r[0]
                for r in c.execute(
                    "SELECT d.rid FROM keyword_docs d "
                    "WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.rid = d.rid) ORDER BY d.rid"
                ).fetchall()
            ]
            missing = [
                r[0]
                for r in c.execute(
                    "SELECT r.id FROM records r "
                    "WHERE NOT EXISTS (SELECT 1 FROM keyword_docs d WHERE d.rid = r.rid) "
                    "ORDER BY r.rid"
                ).fetchall()
            ]
        return orphan, missing

    def repair_keyword_index(self, orphan: Sequence[int], missing: Sequence[str]) -> None:
        with self.db.write() as c:
            keywords.unindex(c, list(orphan))
            rows = c.execute(
                "SELECT * FROM records WHERE id = ANY(%s) ORDER BY rid", (list(missing),)
            ).fetchall()
            for row in rows:
                r = to_record(row)
                keywords.index(c, row["rid"], r.scope, r.text)

    def optimize_keyword_index(self) -> None:
        """Nothing to merge: deleted keyword rows are gone from the tables at once (`vacuum`
        then makes their space reusable)."""


# Export and import of a user's rows in PostgreSQL: `store/sql.py` with
# PostgreSQL's dialect. Versions and sessions have no serial key of their own, so their written
# order is spelled out.

USER_ROWS = shared.USER_ROWS
_ORDER = {
    "versions": "superseded_at, record_id, version",
    "audit": "seq",
    "sessions": "started_at, agent_id, id",
    "messages": "seq",
}


class Portability:
    db: PostgresDatabase

    def user_records(
        self, user_id: str, agent_id: str | None = None, *, newest_first: bool = False
    ) -> list[MemoryRecord]:
        with self.db.read() as c:
            return shared.user_records(c, POSTGRES, user_id, agent_id, newest_first=newest_first)

    def user_rows(
        self, table: str, user_id: str, agent_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        with self.db.read() as c:
            rows = shared.user_rows(c, POSTGRES, table, user_id, agent_id, _ORDER.get(table, ""))
        yield from rows

    def record_owner(self, record_id: str) -> tuple[str, str] | None:
        with self.db.read() as c:
            return shared.record_owner(c, POSTGRES, record_id)

    def holds(self, scope: Scope, record: MemoryRecord) -> bool:
        with self.db.read() as c:
            return shared.holds(c, POSTGRES, scope, record)

    def import_row(self, table: str, item: dict[str, Any]) -> int:
        with self.db.write() as c:
            return shared.import_row(c, POSTGRES, table, item)


# The console's memory list in PostgreSQL: keyset pages over (sort value, rid).
#
# Without a text filter a page is one index range per request (`rec_list_updated` /
# `rec_list_created`: scope, status, sort value, rid); with one, the filter's newest
# `ListQuery.text_cap` keyword matches are read once, by rid, as on SQLite.

_COLUMNS = {"updated_at", "created_at"}


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _conditions(scope: Scope, q: ListQuery) -> tuple[list[str], list[Any], bool]:
    """The filters as SQL, without the status."""
    where = ["user_id = %s", "agent_id = %s"]
    args: list[Any] = [scope.user_id, scope.agent_id]
    if q.type:
        where.append("type = %s")
        args.append(q.type)
    if q.types:
        where.append("type = ANY(%s)")
        args.append(list(q.types))
    if q.subject:
        where.append("subject LIKE %s ESCAPE '\\'")
        args.append(_like_prefix(q.subject))
    if q.created_from is not None:
        where.append("created_at >= %s")
        args.append(q.created_from)
    if q.created_to is not None:
        where.append("created_at < %s")
        args.append(q.created_to)
    text_filter = bool(q.text.strip())
    if text_filter:
        where.append(
            "rid IN (SELECT rid FROM (SELECT DISTINCT rid FROM keyword_terms WHERE user_id = %s "
            "AND agent_id = %s AND term = ANY(%s)) m ORDER BY rid DESC LIMIT %s)"
        )
        args += [scope.user_id, scope.agent_id, keywords.query_terms(q.text), q.text_cap]
    return where, args, text_filter


class Console:
    db: PostgresDatabase

    def list_page(self, scope: Scope, q: ListQuery) -> ListPage:
        if q.column not in _COLUMNS:
            raise ValueError(f"column: expected one of {sorted(_COLUMNS)}, found {q.column!r}")
        where, args, text_filter = _conditions(scope, q)
        with self.db.read() as c:
            total, keys = (_text_keys if text_filter else _index_keys)(c, where, args, q)
            keys.sort(reverse=q.order == "desc")
            more = len(keys) > q.size
            keys = keys[: q.size]
            found = {
                row["rid"]: row
                for row in c.execute(
                    "SELECT * FROM records WHERE rid = ANY(%s)", ([rid for _, rid in keys],)
                ).fetchall()
            }
        rows = [to_record(found[rid]) for _, rid in keys if rid in found]
        return ListPage(rows, keys[-1] if more and keys else None, total, text_filter)


def _index_keys(
    c: Connection, where: list[str], args: list[Any], q: ListQuery
) -> tuple[int, list[tuple[float, int]]]:
    statuses = list(q.statuses)
    scoped = [*where, "status = ANY(%s)"]
    total = c.execute(
        f"SELECT COUNT(*) FROM (SELECT 1 FROM records WHERE {' AND '.join(scoped)} LIMIT %s) n",
        (*args, statuses, q.count_cap + 1),
    ).fetchone()[0]
    if not total:
        return 0, []
    part, part_args = scoped, [*args, statuses]
    if q.after is not None:
        part = [*part, f"({q.column}, rid) {'<' if q.order == 'desc' else '>'} (%s, %s)"]
        part_args = [*part_args, *q.after]
    direction = "DESC" if q.order == "desc" else "ASC"
    rows = c.execute(
        f"SELECT {q.column}, rid FROM records WHERE {' AND '.join(part)} "
        f"ORDER BY {q.column} {direction}, rid {direction} LIMIT %s",
        (*part_args, q.size + 1),
    ).fetchall()
    return int(total), [(r[0], r[1]) for r in rows]


def _text_keys(
    c: Connection, where: list[str], args: list[Any], q: ListQuery
) -> tuple[int, list[tuple[float, int]]]:
    rows = c.execute(
        f"SELECT {q.column}, rid, status FROM records WHERE {' AND '.join(where)}", args
    ).fetchall()
    matched = [(r[0], r[1]) for r in rows if r[2] in q.statuses]
    if q.after is None:
        return len(matched), matched
    cursor = tuple(q.after)
    return len(matched), [k for k in matched if (k < cursor if q.order == "desc" else k > cursor)]
