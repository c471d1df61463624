"""Entity memory in SQLite: who and what the memories name, and which memories name them.

Tables (migration 10): `entities` (one row per normalised name of a (user, agent), first and last
seen), `entity_aliases` (another name for an entity: "Mel" for Melanie, 小王 for 王伟, with the
record that said so) and `entity_links` (entity, record). `link` runs in the write transaction of
every stored or rewritten record; triggers remove a record's links when it is deleted or
forgotten, an entity with its last link and an alias with its entity or its record.

Every statement is scoped by (user_id, agent_id).
"""

from __future__ import annotations

import sqlite3
from typing import Iterable, Sequence

from ..extract.entities import Entity
from ..types import MemoryRecord, Scope
from .dialect import SQLITE
from .entity_linking import Owner, idf
from .entity_linking import link as link_rows
from .entity_rows import EntityRowsSQL
from .scope_sql import scope_sql


def link(db: sqlite3.Connection, rid: int, r: MemoryRecord) -> None:
    """(Re)link record `rid` to the entities it names (store/entity_linking.py), in db's
    transaction; a forgotten record keeps no links."""
    link_rows(SQLiteEntityRows(db), rid, r)


class SQLiteEntityRows(EntityRowsSQL):
    """`entity_linking.EntityRows` on one SQLite connection (store/entity_rows.py; the triggers of
    migration 10 drop an entity with its last link and its aliases with it)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        super().__init__(db, SQLITE)

    def create(self, owner: Owner, e: Entity, at: float) -> int | None:
        cur = self.conn.execute(
            "INSERT INTO entities(user_id, agent_id, key, name, kind, first_seen, last_seen) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(user_id, agent_id, key) DO NOTHING",
            (*owner, e.key, e.name, e.kind, at, at),
        )
        return int(cur.lastrowid) if cur.rowcount and cur.lastrowid is not None else None

    def keys_extending(self, owner: Owner, key: str, limit: int) -> list[tuple[int, str]]:
        rows = self.conn.execute(
            "SELECT id, key FROM entities WHERE user_id = ? AND agent_id = ? AND key > ? "
            "AND key < ? ORDER BY key LIMIT ?",
            (*owner, key, key + "\U0010ffff", limit),
        ).fetchall()
        return [(int(r[0]), r[1]) for r in rows if r[1].startswith(key)]

    def keys_among(self, owner: Owner, keys: Sequence[str]) -> list[tuple[int, str]]:
        if not keys:
            return []
        rows = self.conn.execute(
            f"SELECT id, key FROM entities WHERE user_id = ? AND agent_id = ? "
            f"AND key IN ({_marks(keys)}) ORDER BY key",
            (*owner, *keys),
        ).fetchall()
        return [(int(r[0]), r[1]) for r in rows]


def _marks(values: Sequence[object]) -> str:
    return ",".join("?" * len(values))


# ---- reads ----------------------------------------------------------------------------------


def lookup(db: sqlite3.Connection, scope: Scope, keys: Iterable[str]) -> dict[int, str]:
    """entity id -> name of the entities (or aliases) filed under any of `keys`."""
    keys = sorted({k for k in keys if k})
    out: dict[int, str] = {}
    for chunk in _chunks(keys, 400):
        marks = ",".join("?" * len(chunk))
        args = (scope.user_id, scope.agent_id, *chunk)
        for row in db.execute(  # names, then aliases: one statement
            f"SELECT e.id, e.name FROM entities e WHERE e.user_id = ? AND e.agent_id = ? "
            f"AND e.key IN ({marks}) UNION ALL "
            f"SELECT e.id, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id "
            f"WHERE a.user_id = ? AND a.agent_id = ? AND a.alias IN ({marks})",
            (*args, *args),
        ):
            out[int(row[0])] = row[1]
    return out


def weights(db: sqlite3.Connection, scope: Scope, ids: Sequence[int]) -> dict[int, float]:
    """How much naming each entity tells (inverse document frequency over the scope's live
    memories, in [0, 1]): a name in every memory (the user's own, a chat partner's) tells little."""
    if not ids:
        return {}
    total = db.execute(
        "SELECT COALESCE(SUM(n), 0) FROM record_counts WHERE user_id = ? AND agent_id = ? "
        "AND status IN ('active', 'archived')",
        (scope.user_id, scope.agent_id),
    ).fetchone()[0]
    marks = ",".join("?" * len(ids))
    out = {}
    for eid, df in db.execute(
        f"SELECT entity_id, COUNT(*) FROM entity_links WHERE entity_id IN ({marks}) "
        f"AND user_id = ? AND agent_id = ? GROUP BY entity_id",
        (*ids, scope.user_id, scope.agent_id),
    ):
        out[int(eid)] = idf(df, total)
    return out


def linked(
    db: sqlite3.Connection,
    scope: Scope,
    ids: Sequence[int],
    *,
    statuses: Sequence[str] = ("active",),
    limit: int = 200,
) -> list[tuple[str, int]]:
    """(record id, entity id) of the scope's records linked to the entities, newest first."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    smarks = ",".join("?" * len(statuses))
    where, args = scope_sql(scope, "r")
    rows = db.execute(
        f"SELECT r.id, l.entity_id FROM entity_links l JOIN records r ON r.rid = l.rid "
        f"WHERE l.entity_id IN ({marks}) AND l.user_id = ? AND l.agent_id = ? AND {where} "
        f"AND r.status IN ({smarks}) ORDER BY l.seen_at DESC, l.rid DESC, l.entity_id LIMIT ?",
        (*ids, scope.user_id, scope.agent_id, *args, *statuses, limit),
    )
    return [(row[0], int(row[1])) for row in rows]


def of_records(
    db: sqlite3.Connection, scope: Scope, record_ids: Sequence[str]
) -> dict[str, set[int]]:
    """record id -> the ids of the entities it is linked to."""
    out: dict[str, set[int]] = {}
    where, args = scope_sql(scope, "r")
    for chunk in _chunks(list(record_ids), 400):
        marks = ",".join("?" * len(chunk))
        for row in db.execute(
            f"SELECT r.id, l.entity_id FROM records r JOIN entity_links l ON l.rid = r.rid "
            f"WHERE r.id IN ({marks}) AND {where}",
            (*chunk, *args),
        ):
            out.setdefault(row[0], set()).add(int(row[1]))
    return out


def names(db: sqlite3.Connection, scope: Scope, ids: Iterable[int]) -> dict[int, str]:
    """entity id -> name, of the scope's entities among `ids`."""
    out: dict[int, str] = {}
    for chunk in _chunks(sorted(set(ids)), 400):
        marks = ",".join("?" * len(chunk))
        out.update(
            (int(r[0]), r[1])
            for r in db.execute(
                f"SELECT id, name FROM entities WHERE user_id = ? AND agent_id = ? "
                f"AND id IN ({marks})",
                (scope.user_id, scope.agent_id, *chunk),
            )
        )
    return out


def of_scope(db: sqlite3.Connection, scope: Scope, limit: int = 1000) -> list[dict]:
    """The scope's entities, most mentioned first: name, kind, aliases, first/last seen, links."""
    rows = db.execute(
        "SELECT e.id, e.name, e.kind, e.first_seen, e.last_seen, "
        "(SELECT COUNT(*) FROM entity_links l WHERE l.entity_id = e.id) AS n "
        "FROM entities e WHERE e.user_id = ? AND e.agent_id = ? ORDER BY n DESC, e.id LIMIT ?",
        (scope.user_id, scope.agent_id, limit),
    ).fetchall()
    alias: dict[int, list[str]] = {}
    for a in db.execute(
        "SELECT entity_id, alias FROM entity_aliases WHERE user_id = ? AND agent_id = ?",
        (scope.user_id, scope.agent_id),
    ):
        alias.setdefault(int(a[0]), []).append(a[1])
    return [
        {
            "name": r[1],
            "kind": r[2],
            "aliases": sorted(alias.get(int(r[0]), [])),
            "first_seen": r[3],
            "last_seen": r[4],
            "links": r[5],
        }
        for r in rows
    ]


def _chunks(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]
