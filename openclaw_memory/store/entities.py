"""Entity memory in SQLite: who and what the memories name, and which memories name them.

Tables (migration 10): `entities` (one row per normalised name of a (user, agent), first and last
seen), `entity_aliases` (another name for an entity: "Mel" for Melanie, 小王 for 王伟, with the
record that said so) and `entity_links` (entity, record). `link` runs in the write transaction of
every stored or rewritten record; triggers remove a record's links when it is deleted or
forgotten, an entity with its last link and an alias with its entity or its record.

Every statement is scoped by (user_id, agent_id).
"""

from __future__ import annotations

import math
import sqlite3
from typing import Iterable, Sequence

from ..extract.entities import NAME, Entity, aliases, extract, nickname_of, normalise
from ..types import MemoryRecord, Scope, Status

#: a given name longer than this is a path or a sentence, not a name
_MAX_NAME = 60


def link(db: sqlite3.Connection, rid: int, r: MemoryRecord) -> None:
    """(Re)link record `rid` to the entities its text and its `entities` field name; a
    forgotten record keeps no links."""
    db.execute("DELETE FROM entity_links WHERE rid = ?", (rid,))
    if r.status is Status.INACTIVE:
        return
    scope = (r.scope.user_id, r.scope.agent_id)
    given = tuple(e for e in r.entities if 0 < len(e) <= _MAX_NAME)
    ids: set[int] = set()
    for alias, name in aliases(r.text):
        eid = _entity(db, scope, Entity(name, NAME), r.created_at, rid)
        _add_alias(db, scope, alias, eid, rid)
        ids.add(eid)
    for e in extract(r.text, given):
        if e.weak and resolve(db, scope, e.key) is None:
            continue  # a sentence's first word: a name only when known from elsewhere
        ids.add(_entity(db, scope, e, r.created_at, rid))
    db.executemany(
        "INSERT OR IGNORE INTO entity_links(entity_id, rid, user_id, agent_id, seen_at) "
        "VALUES (?, ?, ?, ?, ?)",
        [(eid, rid, *scope, r.created_at) for eid in ids],
    )


def _entity(
    db: sqlite3.Connection, scope: tuple[str, str], e: Entity, at: float, rid: int = 0
) -> int:
    """The id of e's entity (by alias, then key, then nickname), created if new; seen at `at`."""
    key = e.key
    eid = resolve(db, scope, key)
    if eid is None and e.kind == NAME:
        eid = _by_nickname(db, scope, e, rid)
    if eid is None:
        cur = db.execute(
            "INSERT INTO entities(user_id, agent_id, key, name, kind, first_seen, last_seen) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(user_id, agent_id, key) DO NOTHING",
            (*scope, key, e.name, e.kind, at, at),
        )
        if cur.rowcount:
            assert cur.lastrowid is not None
            _absorb_nicknames(db, scope, cur.lastrowid, e, rid)
            return cur.lastrowid
        eid = resolve(db, scope, key)
        assert eid is not None
    db.execute(
        "UPDATE entities SET first_seen = MIN(first_seen, ?), last_seen = MAX(last_seen, ?) "
        "WHERE id = ?",
        (at, at, eid),
    )
    return eid


def resolve(db: sqlite3.Connection, scope: tuple[str, str], key: str) -> int | None:
    row = (
        db.execute(
            "SELECT entity_id FROM entity_aliases WHERE user_id = ? AND agent_id = ? AND alias = ?",
            (*scope, key),
        ).fetchone()
        or db.execute(
            "SELECT id FROM entities WHERE user_id = ? AND agent_id = ? AND key = ?", (*scope, key)
        ).fetchone()
    )
    return int(row[0]) if row else None


def _add_alias(
    db: sqlite3.Connection, scope: tuple[str, str], alias: str, eid: int, rid: int
) -> None:
    """`alias` names entity eid from now on; an entity filed under the alias merges into it."""
    key = normalise(alias)
    old = db.execute(
        "SELECT id FROM entities WHERE user_id = ? AND agent_id = ? AND key = ?", (*scope, key)
    ).fetchone()
    if old is not None and old[0] != eid:
        _merge(db, int(old[0]), eid)
    db.execute(
        "INSERT OR REPLACE INTO entity_aliases(user_id, agent_id, alias, entity_id, rid) "
        "VALUES (?, ?, ?, ?, ?)",
        (*scope, key, eid, rid),
    )


def _merge(db: sqlite3.Connection, source: int, target: int) -> None:
    """Entity `source` is `target` under another name: its links and aliases move over."""
    db.execute(
        "INSERT OR IGNORE INTO entity_links(entity_id, rid, user_id, agent_id, seen_at) "
        "SELECT ?, rid, user_id, agent_id, seen_at FROM entity_links WHERE entity_id = ?",
        (target, source),
    )
    db.execute("UPDATE entity_aliases SET entity_id = ? WHERE entity_id = ?", (target, source))
    db.execute(
        "UPDATE entities SET first_seen = MIN(first_seen, (SELECT first_seen FROM entities "
        "WHERE id = ?)) WHERE id = ?",
        (source, target),
    )
    db.execute("DELETE FROM entity_links WHERE entity_id = ?", (source,))
    db.execute("DELETE FROM entities WHERE id = ?", (source,))


def _by_nickname(db: sqlite3.Connection, scope: tuple[str, str], e: Entity, rid: int) -> int | None:
    """A short name that begins exactly one longer known name (Mel, Melanie) is its alias."""
    key = e.key
    if len(key) < 3 or not key.isascii():
        return None
    rows = db.execute(
        "SELECT id, key FROM entities WHERE user_id = ? AND agent_id = ? AND key > ? AND key < ? "
        "LIMIT 20",
        (*scope, key, key + "\U0010ffff"),
    ).fetchall()
    longer = nickname_of(e.name, [row[1] for row in rows])
    if longer is None:
        return None
    eid = next(int(row[0]) for row in rows if row[1] == longer)
    _add_alias(db, scope, key, eid, rid)
    return eid


def _absorb_nicknames(
    db: sqlite3.Connection, scope: tuple[str, str], eid: int, e: Entity, rid: int
) -> None:
    """A new long name takes over a known short one that begins it (Melanie after Mel)."""
    key = e.key
    if e.kind != NAME or not key.isascii() or " " in key or len(key) < 4:
        return
    prefixes = [key[:n] for n in range(3, len(key))]
    marks = ",".join("?" * len(prefixes))
    for row in db.execute(
        f"SELECT id, key FROM entities WHERE user_id = ? AND agent_id = ? AND key IN ({marks})",
        (*scope, *prefixes),
    ).fetchall():
        if nickname_of(row[1], [key]) == key:
            _add_alias(db, scope, row[1], eid, rid)


# ---- reads ----------------------------------------------------------------------------------


def lookup(db: sqlite3.Connection, scope: Scope, keys: Iterable[str]) -> dict[int, str]:
    """entity id -> name of the entities (or aliases) filed under any of `keys`."""
    keys = sorted({k for k in keys if k})
    out: dict[int, str] = {}
    for chunk in _chunks(keys, 400):
        marks = ",".join("?" * len(chunk))
        args = (scope.user_id, scope.agent_id, *chunk)
        for row in db.execute(
            f"SELECT e.id, e.name FROM entities e WHERE e.user_id = ? AND e.agent_id = ? "
            f"AND e.key IN ({marks})",
            args,
        ):
            out[int(row[0])] = row[1]
        for row in db.execute(
            f"SELECT e.id, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id "
            f"WHERE a.user_id = ? AND a.agent_id = ? AND a.alias IN ({marks})",
            args,
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
        f"GROUP BY entity_id",
        list(ids),
    ):
        out[int(eid)] = idf(df, total)
    return out


def idf(df: int, total: int) -> float:
    """log(total / df) / log(total): 1 for a name in one memory, 0 for a name in all of them."""
    if total <= 1 or df <= 0:
        return 1.0 if df > 0 else 0.0
    return max(0.0, min(1.0, math.log(total / df) / math.log(total)))


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
    rows = db.execute(
        f"SELECT r.id, l.entity_id FROM entity_links l JOIN records r ON r.rid = l.rid "
        f"WHERE l.entity_id IN ({marks}) AND l.user_id = ? AND l.agent_id = ? "
        f"AND r.status IN ({smarks}) ORDER BY l.seen_at DESC LIMIT ?",
        (*ids, scope.user_id, scope.agent_id, *statuses, limit),
    )
    return [(row[0], int(row[1])) for row in rows]


def of_records(
    db: sqlite3.Connection, scope: Scope, record_ids: Sequence[str]
) -> dict[str, set[int]]:
    """record id -> the ids of the entities it is linked to."""
    out: dict[str, set[int]] = {}
    for chunk in _chunks(list(record_ids), 400):
        marks = ",".join("?" * len(chunk))
        for row in db.execute(
            f"SELECT r.id, l.entity_id FROM records r JOIN entity_links l ON l.rid = r.rid "
            f"WHERE r.id IN ({marks}) AND r.user_id = ? AND r.agent_id = ?",
            (*chunk, scope.user_id, scope.agent_id),
        ):
            out.setdefault(row[0], set()).add(int(row[1]))
    return out


def names(db: sqlite3.Connection, ids: Iterable[int]) -> dict[int, str]:
    ids = list(ids)
    out: dict[int, str] = {}
    for chunk in _chunks(ids, 400):
        marks = ",".join("?" * len(chunk))
        out.update(
            (int(r[0]), r[1])
            for r in db.execute(f"SELECT id, name FROM entities WHERE id IN ({marks})", chunk)
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
