"""Reading records in PostgreSQL: every query scoped, each one an intention of the port.

Lists come best first (or in the order the docstring of the port names); ties break by
insertion order (`rid`), so results are deterministic.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from ...write.policy import types_where
from ...types import MemoryRecord, Scope
from .. import vector_rows
from ..port_values import TierVector
from . import keywords
from .db import PostgresDatabase
from .sql import scope_sql, to_record, to_records

#: the curated types distilled from turns (the policy table): a retired one marks its turns outdated
_DISTILLED = sorted(types_where(distilled=True))


class Reads:
    """The record reads of the PostgreSQL record store."""

    db: PostgresDatabase

    def _records(self, scope: Scope, where: str, args: Sequence[Any], order: str, limit: int):
        sql, sargs = scope_sql(scope)
        with self.db.read() as c:
            rows = c.execute(
                f"SELECT * FROM records WHERE {sql} AND ({where}) ORDER BY {order} LIMIT %s",
                (*sargs, *args, int(limit)),
            ).fetchall()
        return to_records(rows)

    def get(self, scope: Scope, record_id: str) -> MemoryRecord | None:
        found = self._records(scope, "id = %s", (record_id,), "rid", 1)
        return found[0] if found else None

    def get_many(self, scope: Scope, ids: Iterable[str]) -> dict[str, MemoryRecord]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        return {
            r.id: r for r in self._records(scope, "id = ANY(%s)", (wanted,), "rid", len(wanted))
        }

    def in_written_order(self, scope: Scope, ids: Sequence[str]) -> list[MemoryRecord]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        return self._records(scope, "id = ANY(%s)", (wanted,), "rid", len(wanted))

    def live_subjects(self, scope: Scope, limit: int = 2000) -> list[str]:
        sql, args = scope_sql(scope)
        with self.db.read() as c:
            rows = c.execute(
                f"SELECT DISTINCT subject FROM records WHERE {sql} AND status = 'active' "
                "AND subject IS NOT NULL ORDER BY subject LIMIT %s",
                (*args, int(limit)),
            ).fetchall()
        return [row[0] for row in rows]

    def live_by_subject(
        self,
        scope: Scope,
        subjects: Sequence[str],
        *,
        types: Sequence[str] | None = None,
        limit: int = 20,
    ) -> list[MemoryRecord]:
        if not subjects:
            return []
        where, args = "status = 'active' AND subject = ANY(%s)", [list(subjects)]
        if types is not None:
            where += " AND type = ANY(%s)"
            args.append(list(types))
        return self._records(scope, where, args, "updated_at DESC, rid", limit)

    def recent_important(
        self, scope: Scope, since: float, min_importance: float, limit: int
    ) -> list[MemoryRecord]:
        return self._records(
            scope,
            "status = 'active' AND updated_at >= %s AND importance >= %s "
            "AND type NOT IN ('episode', 'summary')",
            (since, min_importance),
            "updated_at DESC, rid",
            limit,
        )

    def profile(
        self, scope: Scope, types: Sequence[str], whitelist: Sequence[str], limit: int = 20
    ) -> list[MemoryRecord]:
        where, args = "status = 'active' AND type = ANY(%s) AND doubt_of IS NULL", [list(types)]
        if whitelist:
            where += " AND subject = ANY(%s)"
            args.append(list(whitelist))
        return self._records(
            scope, where, args, "importance DESC, updated_at DESC, type, rid", limit
        )

    def latest_summaries(self, scope: Scope, count: int) -> list[MemoryRecord]:
        if count <= 0:
            return []
        return self._records(
            scope, "status = 'active' AND type = 'summary'", (), "created_at DESC, rid", count
        )

    def live_claims(
        self,
        scope: Scope,
        types: Sequence[str],
        *,
        subject: str | None = None,
        created_before: float | None = None,
        limit: int = 500,
    ) -> list[MemoryRecord]:
        where = "status = 'active' AND type = ANY(%s) AND doubt_of IS NULL"
        args: list[Any] = [list(types)]
        if subject is not None:
            where += " AND subject = %s"
            args.append(subject)
        if created_before is not None:
            where += " AND created_at <= %s"
            args.append(created_before)
        return self._records(scope, where, args, "updated_at DESC, rid", limit)

    def copies_of_text(
        self, scope: Scope, type_: str, content_hash: str, limit: int = 20
    ) -> list[MemoryRecord]:
        return self._records(
            scope,
            "type = %s AND content_hash = %s",
            (type_, content_hash),
            "updated_at DESC, rid",
            limit,
        )

    def live_episodes_before(
        self, scope: Scope, at: float, limit: int, *, exclude: str | None = None
    ) -> list[MemoryRecord]:
        where = "status = 'active' AND type = 'episode' AND created_at <= %s"
        args: list[Any] = [at]
        if exclude is not None:
            where += " AND id <> %s"
            args.append(exclude)
        return self._records(scope, where, args, "created_at DESC, rid", limit)

    def live_episodes_saying(
        self, scope: Scope, summary: str, *, exclude: str, limit: int = 50
    ) -> list[MemoryRecord]:
        return self._records(
            scope,
            "status = 'active' AND type = 'episode' AND summary = %s AND id <> %s",
            (summary, exclude),
            "updated_at DESC, rid",
            limit,
        )

    def session_episodes(
        self, scope: Scope, session_id: str, limit: int = 2000
    ) -> list[MemoryRecord]:
        return self._records(
            scope, "type = 'episode' AND session_id = %s", (session_id,), "created_at, rid", limit
        )

    def session_neighbours(
        self, scope: Scope, record_id: str, *, before: int, after: int, now: float
    ) -> tuple[list[MemoryRecord], list[MemoryRecord]]:
        sql, args = scope_sql(scope)
        with self.db.read() as c:
            row = c.execute(
                f"SELECT rid, session_id, created_at FROM records WHERE id = %s AND {sql}",
                (record_id, *args),
            ).fetchone()
        if row is None or row[1] is None:
            return [], []
        live = (
            "session_id = %s AND type = 'episode' AND status = 'active' "
            "AND (expires_at IS NULL OR expires_at > %s)"
        )
        base = (row[1], now, row[2], row[2], row[0])
        earlier = (
            self._records(
                scope,
                f"{live} AND created_at <= %s AND (created_at < %s OR rid < %s)",
                base,
                "created_at DESC, rid DESC",
                before,
            )
            if before > 0
            else []
        )
        later = (
            self._records(
                scope,
                f"{live} AND created_at >= %s AND (created_at > %s OR rid > %s)",
                base,
                "created_at, rid",
                after,
            )
            if after > 0
            else []
        )
        return earlier, later

    def neighbours_of(
        self, scope: Scope, record_ids: Sequence[str], *, before: int, after: int, now: float
    ) -> dict[str, tuple[list[MemoryRecord], list[MemoryRecord]]]:
        return {
            rid: self.session_neighbours(scope, rid, before=before, after=after, now=now)
            for rid in record_ids
        }

    def successors(self, scope: Scope, record_id: str, limit: int = 100) -> list[MemoryRecord]:
        return self._records(scope, "prev_id = %s", (record_id,), "updated_at DESC, rid", limit)

    def latest_successor(self, scope: Scope, record_id: str) -> MemoryRecord | None:
        found = self._records(scope, "prev_id = %s", (record_id,), "version DESC, rid DESC", 1)
        return found[0] if found else None

    def expired(self, scope: Scope, now: float, limit: int) -> list[MemoryRecord]:
        return self._records(
            scope,
            "status = 'active' AND expires_at IS NOT NULL AND expires_at <= %s",
            (now,),
            "expires_at, rid",
            limit,
        )

    def listing(
        self,
        scope: Scope,
        *,
        status: str | None = None,
        type_: str | None = None,
        curated_only: bool = False,
        oldest_first: bool = False,
        limit: int = 100,
    ) -> list[MemoryRecord]:
        conds: list[str] = []
        args: list[Any] = []
        if status is not None:
            conds.append("status = %s")
            args.append(status)
        if type_ is not None:
            conds.append("type = %s")
            args.append(type_)
        if curated_only:
            conds.append("type <> 'episode'")
        order = "created_at, rid" if oldest_first else "updated_at DESC, rid"
        return self._records(scope, " AND ".join(conds) or "TRUE", args, order, limit)

    def retired_turns(self, scope: Scope, turn_ids: Sequence[str]) -> dict[str, str]:
        wanted = list(dict.fromkeys(turn_ids))
        if not wanted:
            return {}
        sql, args = scope_sql(scope, "r")
        with self.db.read() as c:
            rows = c.execute(
                "SELECT r.id, t.turn_id FROM record_turns t JOIN records r ON r.rid = t.rid "
                f"WHERE t.user_id = %s AND t.agent_id = %s AND t.turn_id = ANY(%s) AND {sql} "
                "AND r.status = 'inactive' AND r.type = ANY(%s) ORDER BY r.type, r.rid",
                (scope.user_id, scope.agent_id, wanted, *args, _DISTILLED),
            ).fetchall()
        out: dict[str, str] = {}
        for rid, turn in rows:
            out.setdefault(turn, rid)
        return out

    def keyword_search(
        self, scope: Scope, text: str, *, statuses: Sequence[str] = ("active",), limit: int = 30
    ) -> list[tuple[str, float]]:
        with self.db.read() as c:
            return keywords.search(c, scope, text, statuses=statuses, limit=limit)

    def search_tokens(self, ids: Sequence[str]) -> dict[str, frozenset[str]]:
        if not ids:
            return {}
        with self.db.read() as c:
            return keywords.tokens_for(c, ids)

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        return self.vectors_with_parts(ids)[0]

    def vectors_with_parts(
        self, ids: Sequence[str]
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        vecs: dict[str, np.ndarray] = {}
        parts: dict[str, np.ndarray] = {}
        if not ids:
            return vecs, parts
        with self.db.read() as c:
            rows = c.execute(
                "SELECT record_id, vec, dim, parts FROM vectors WHERE record_id = ANY(%s)",
                (list(ids),),
            ).fetchall()
        for record_id, vec, dim, blob in rows:
            vecs[record_id] = np.frombuffer(vec, dtype=np.float32)
            if blob is not None:
                parts[record_id] = np.frombuffer(blob, dtype=np.float32).reshape(-1, dim)
        return vecs, parts

    def tier_vectors(
        self, scope: Scope, tier: str, at_most: int | None = None
    ) -> list[TierVector] | None:
        with self.db.read() as c:
            return vector_rows.tier_vectors(c, scope, tier, at_most, mark="%s")

    def versions(self, scope: Scope, record_id: str) -> list[dict[str, Any]]:
        with self.db.read() as c:
            rows = c.execute(
                "SELECT * FROM versions WHERE user_id = %s AND agent_id = %s AND record_id = %s "
                "ORDER BY version",
                (scope.user_id, scope.agent_id, record_id),
            ).fetchall()
        return [dict(zip(row.keys(), row)) for row in rows]

    def versions_in_scope(self, scope: Scope, record_id: str) -> list[dict[str, Any]]:
        """`versions`: the same rows (PostgreSQL picks the record id's index itself)."""
        return self.versions(scope, record_id)

    def records_by_id(self, ids: Sequence[str]) -> list[MemoryRecord]:
        if not ids:
            return []
        with self.db.read() as c:
            rows = c.execute(
                "SELECT * FROM records WHERE id = ANY(%s) ORDER BY rid", (list(ids),)
            ).fetchall()
        return [to_record(r) for r in rows]
