"""Entity memory in PostgreSQL: the rows linking writes (`store/entity_linking.py` decides what
to link) and the entity channel's reads. Tables and triggers: migration 6 (`schema.py`)."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ...extract.entities import Entity
from ...types import MemoryRecord, Scope
from ..sql import POSTGRES
from ..entity_linking import BATCH
from ..entity_linking import backfill
from ..entity_linking import Owner, idf, link
from ..entity_linking import EntityRowsSQL
from .db import Connection, PostgresDatabase
from .db import scope_sql


def link_record(c: Connection, rid: int, record: MemoryRecord) -> None:
    """(Re)link record rid to the entities it names, in c's write transaction."""
    link(PostgresEntityRows(c), rid, record)


class PostgresEntityRows(EntityRowsSQL):
    """`entity_linking.EntityRows` on one write connection (store/entity_linking.py; migration 6's
    triggers drop an entity with its last link and its aliases with it)."""

    def __init__(self, c: Connection) -> None:
        super().__init__(c, POSTGRES)

    def create(self, owner: Owner, e: Entity, at: float) -> int | None:
        row = self.conn.execute(
            "INSERT INTO entities(user_id, agent_id, key, name, kind, first_seen, last_seen) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (user_id, agent_id, key) DO NOTHING RETURNING id",
            (*owner, e.key, e.name, e.kind, at, at),
        ).fetchone()
        return int(row[0]) if row else None

    def keys_extending(self, owner: Owner, key: str, limit: int) -> list[tuple[int, str]]:
        rows = self.conn.execute(
            "SELECT id, key FROM entities WHERE user_id = %s AND agent_id = %s "
            'AND starts_with(key, %s) AND key <> %s ORDER BY key COLLATE "C" LIMIT %s',
            (*owner, key, key, limit),
        ).fetchall()
        return [(int(r[0]), r[1]) for r in rows]

    def keys_among(self, owner: Owner, keys: Sequence[str]) -> list[tuple[int, str]]:
        if not keys:
            return []
        rows = self.conn.execute(
            "SELECT id, key FROM entities WHERE user_id = %s AND agent_id = %s "
            'AND key = ANY(%s) ORDER BY key COLLATE "C"',
            (*owner, list(keys)),
        ).fetchall()
        return [(int(r[0]), r[1]) for r in rows]


class Entities:
    """The entity reads of the PostgreSQL record store (`ports.EntityMemory`)."""

    db: PostgresDatabase

    def backfill_entity_links(self, limit: int = BATCH) -> tuple[int, int]:
        with self.db.write() as c:
            return backfill(c, POSTGRES, PostgresEntityRows(c), limit)

    def entities_named(self, scope: Scope, keys: Iterable[str]) -> dict[int, str]:
        wanted = sorted({k for k in keys if k})
        if not wanted:
            return {}
        owner = (scope.user_id, scope.agent_id)
        with self.db.read() as c:
            rows = c.execute(
                "SELECT id, name FROM entities WHERE user_id = %s AND agent_id = %s "
                "AND key = ANY(%s) "
                "UNION SELECT e.id, e.name FROM entity_aliases a JOIN entities e "
                "ON e.id = a.entity_id WHERE a.user_id = %s AND a.agent_id = %s "
                "AND a.alias = ANY(%s) ORDER BY 1",
                (*owner, wanted, *owner, wanted),
            ).fetchall()
        return {int(r[0]): r[1] for r in rows}

    def entity_weights(self, scope: Scope, ids: Sequence[int]) -> dict[int, float]:
        if not ids:
            return {}
        owner = (scope.user_id, scope.agent_id)
        with self.db.read() as c:
            total = c.execute(
                "SELECT COALESCE(SUM(n), 0) FROM record_counts WHERE user_id = %s "
                "AND agent_id = %s AND status IN ('active', 'archived')",
                owner,
            ).fetchone()[0]
            rows = c.execute(
                "SELECT entity_id, COUNT(*) FROM entity_links WHERE entity_id = ANY(%s) "
                "AND user_id = %s AND agent_id = %s GROUP BY entity_id",
                (list(ids), *owner),
            ).fetchall()
        return {int(r[0]): idf(int(r[1]), int(total)) for r in rows}

    def records_naming(
        self,
        scope: Scope,
        ids: Sequence[int],
        *,
        statuses: Sequence[str] = ("active",),
        limit: int = 200,
    ) -> list[tuple[str, int]]:
        if not ids:
            return []
        where, args = scope_sql(scope, "r")
        with self.db.read() as c:
            rows = c.execute(
                "SELECT r.id, l.entity_id FROM entity_links l JOIN records r ON r.rid = l.rid "
                f"WHERE l.entity_id = ANY(%s) AND l.user_id = %s AND l.agent_id = %s AND {where} "
                "AND r.status = ANY(%s) ORDER BY l.seen_at DESC, l.rid DESC, l.entity_id LIMIT %s",
                (list(ids), scope.user_id, scope.agent_id, *args, list(statuses), limit),
            ).fetchall()
        return [(r[0], int(r[1])) for r in rows]

    def entities_of(self, scope: Scope, record_ids: Sequence[str]) -> dict[str, set[int]]:
        if not record_ids:
            return {}
        where, args = scope_sql(scope, "r")
        out: dict[str, set[int]] = {}
        with self.db.read() as c:
            for r in c.execute(
                "SELECT r.id, l.entity_id FROM records r JOIN entity_links l ON l.rid = r.rid "
                f"WHERE r.id = ANY(%s) AND {where}",
                (list(record_ids), *args),
            ).fetchall():
                out.setdefault(r[0], set()).add(int(r[1]))
        return out

    def entity_names(self, scope: Scope, ids: Iterable[int]) -> dict[int, str]:
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        with self.db.read() as c:
            rows = c.execute(
                "SELECT id, name FROM entities WHERE user_id = %s AND agent_id = %s "
                "AND id = ANY(%s)",
                (scope.user_id, scope.agent_id, wanted),
            ).fetchall()
        return {int(r[0]): r[1] for r in rows}

    def entity_list(self, scope: Scope, limit: int = 1000) -> list[dict[str, Any]]:
        owner = (scope.user_id, scope.agent_id)
        with self.db.read() as c:
            rows = c.execute(
                "SELECT e.id, e.name, e.kind, e.first_seen, e.last_seen, "
                "(SELECT COUNT(*) FROM entity_links l WHERE l.entity_id = e.id) AS n "
                "FROM entities e WHERE e.user_id = %s AND e.agent_id = %s "
                "ORDER BY n DESC, e.id LIMIT %s",
                (*owner, limit),
            ).fetchall()
            alias: dict[int, list[str]] = {}
            for a in c.execute(
                "SELECT entity_id, alias FROM entity_aliases WHERE user_id = %s AND agent_id = %s",
                owner,
            ).fetchall():
                alias.setdefault(int(a[0]), []).append(a[1])
        return [
            {
                "name": r[1],
                "kind": r[2],
                "aliases": sorted(alias.get(int(r[0]), [])),
                "first_seen": r[3],
                "last_seen": r[4],
                "links": int(r[5]),
            }
            for r in rows
        ]
