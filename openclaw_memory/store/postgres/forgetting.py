"""The forgetting jobs' and reindex's look-ups in PostgreSQL (TTL, cleanup, compaction, the
cap on curated memories, pages of live records)."""

from __future__ import annotations

from typing import Any, Sequence

from ...types import MemoryRecord, Scope
from .db import PostgresDatabase
from .sql import scope_sql, to_records

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
