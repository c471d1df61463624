"""Records and entities in SQL, written once for SQLite and PostgreSQL (`sql.Dialect`).

The statements of records, versions, the keyword index, the outbox, the audit log and entity
memory's rows, as functions of an open connection (its dialect found from it), and `SqlRecords`,
the record store's record-facing methods over them. Over 600 lines: every statement of a record's
rows, scoped, in one place.
"""

from __future__ import annotations

import contextlib
import json
import numpy as np
from typing import Any, Callable, ContextManager, Iterable, Iterator, Sequence
from ..errors import StoreError
from ..types import AuditEntry, MemoryRecord, MemoryType, Scope, Status
from .sql import (  # re-exported: the rows and the scope condition, where tests reach them
    COLUMN_NAMES,
    Dialect,
    _COLUMNS as _COLUMNS,
    _json_tuple as _json_tuple,
    _row_values as _row_values,
    as_dict,
    dialect_of,
    neighbours_of as neighbours_of,
    row_to_record as row_to_record,
    scope_sql,
)
from ..lang.entities import Entity, Mentions
from .entity_linking import BATCH, Named, Owner, backfill, backlog, idf, link as link_rows
from ..core.policy import sql_list, types_where
from .ports import (  # re-exported: the key the rows carry
    TierVector,
    content_hash as content_hash,
    text_hash as text_hash,
)
from .tiered_index import (
    put_parts as put_parts,
    put_vector as put_vector,
    vectors_with_parts as vectors_with_parts,
    tier_vectors as tier_vectors,
)


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


def _chunks(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _scope_sql(
    scope: Scope, alias: str = "", *, by_id: bool = False, d: Dialect | None = None
) -> tuple[str, list]:
    """`sql.scope_sql` with the dialect's planner hint (SQLite's, unless given)."""
    return scope_sql(scope, alias, by_id=by_id, hint="+" if d is None else d.hint)


# Entity memory's rows: who and what the memories name, and which memories name them.
#
# Tables (SQLite's migration 10, PostgreSQL's 6): `entities` (one row per normalised name of a
# (user, agent), first and last seen), `entity_aliases` (another name for an entity: "Mel" for
# Melanie, 小王 for 王伟, with the record that said so) and `entity_links` (entity, record).
# `link` runs in the write transaction of every stored or rewritten record; triggers remove a
# record's links when it is deleted or forgotten, an entity with its last link and an alias with
# its entity or its record. Every statement is scoped by (user_id, agent_id).


class SqlEntityRows:
    """`entity_linking.EntityRows` on one connection in its write transaction."""

    def __init__(self, conn: Any) -> None:
        self.conn, self.d = conn, dialect_of(conn)

    def resolve(self, owner: Owner, key: str) -> int | None:
        row = self.conn.execute(
            "SELECT entity_id FROM entity_aliases WHERE user_id = ? AND agent_id = ? AND alias = ?",
            (*owner, key),
        ).fetchone()
        return int(row[0]) if row else self.by_key(owner, key)

    def by_key(self, owner: Owner, key: str) -> int | None:
        row = self.conn.execute(
            "SELECT id FROM entities WHERE user_id = ? AND agent_id = ? AND key = ?", (*owner, key)
        ).fetchone()
        return int(row[0]) if row else None

    def create(self, owner: Owner, e: Entity, at: float) -> int | None:
        rows = self.conn.execute(
            "INSERT INTO entities(user_id, agent_id, key, name, kind, first_seen, last_seen) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, agent_id, key) DO NOTHING "
            "RETURNING id",
            (*owner, e.key, e.name, e.kind, at, at),
        ).fetchall()
        return int(rows[0][0]) if rows else None

    def seen(self, eid: int, at: float) -> None:
        d = self.d
        self.conn.execute(
            f"UPDATE entities SET first_seen = {d.least}(first_seen, ?), "
            f"last_seen = {d.greatest}(last_seen, ?) WHERE id = ?",
            (at, at, eid),
        )

    def keys_extending(self, owner: Owner, key: str, limit: int) -> list[tuple[int, str]]:
        cond, args = self.d.extending("key", key)
        rows = self.conn.execute(
            f"SELECT id, key FROM entities WHERE user_id = ? AND agent_id = ? AND {cond} "
            f"ORDER BY key{self.d.binary} LIMIT ?",
            (*owner, *args, limit),
        ).fetchall()
        return [(int(r[0]), r[1]) for r in rows if r[1].startswith(key)]

    def keys_among(self, owner: Owner, keys: Sequence[str]) -> list[tuple[int, str]]:
        if not keys:
            return []
        rows = self.conn.execute(
            f"SELECT id, key FROM entities WHERE user_id = ? AND agent_id = ? "
            f"AND key IN ({_marks(keys)}) ORDER BY key{self.d.binary}",
            (*owner, *keys),
        ).fetchall()
        return [(int(r[0]), r[1]) for r in rows]

    def put_alias(self, owner: Owner, alias: str, eid: int, rid: int) -> None:
        self.conn.execute(
            "INSERT INTO entity_aliases(user_id, agent_id, alias, entity_id, rid) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, agent_id, alias) "
            "DO UPDATE SET entity_id = excluded.entity_id, rid = excluded.rid",
            (*owner, alias, eid, rid),
        )

    def merge(self, source: int, target: int) -> None:
        run = self.conn.execute
        run(
            "INSERT INTO entity_links(entity_id, rid, user_id, agent_id, seen_at) "
            "SELECT ?, rid, user_id, agent_id, seen_at FROM entity_links WHERE entity_id = ? "
            "ON CONFLICT DO NOTHING",
            (target, source),
        )
        run("UPDATE entity_aliases SET entity_id = ? WHERE entity_id = ?", (target, source))
        run(
            f"UPDATE entities SET first_seen = {self.d.least}(first_seen, (SELECT first_seen "
            "FROM entities WHERE id = ?)) WHERE id = ?",
            (source, target),
        )
        run("DELETE FROM entity_links WHERE entity_id = ?", (source,))
        run("DELETE FROM entities WHERE id = ?", (source,))

    def unlink(self, rid: int) -> None:
        self.conn.execute("DELETE FROM entity_links WHERE rid = ?", (rid,))

    def add_links(self, owner: Owner, rid: int, ids: Sequence[int], at: float) -> None:
        if ids:
            self.conn.executemany(
                "INSERT INTO entity_links(entity_id, rid, user_id, agent_id, seen_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [(eid, rid, *owner, at) for eid in ids],
            )


def link(db: Any, rid: int, r: MemoryRecord, mentions: Mentions) -> None:
    """(Re)link record `rid` to what it names (store/entity_linking.py), in db's
    transaction; a forgotten record keeps no links."""
    link_rows(SqlEntityRows(db), rid, r, mentions)


# ---- entity reads -----------------------------------------------------------------------------


def lookup(db: Any, scope: Scope, keys: Iterable[str]) -> dict[int, str]:
    """entity id -> name of the entities (or aliases) filed under any of `keys`."""
    keys = sorted({k for k in keys if k})
    out: dict[int, str] = {}
    for chunk in _chunks(keys, 400):
        marks = _marks(chunk)
        args = (scope.user_id, scope.agent_id, *chunk)
        for row in db.execute(  # names, then aliases: one statement
            f"SELECT e.id, e.name FROM entities e WHERE e.user_id = ? AND e.agent_id = ? "
            f"AND e.key IN ({marks}) UNION ALL "
            f"SELECT e.id, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id "
            f"WHERE a.user_id = ? AND a.agent_id = ? AND a.alias IN ({marks})",
            (*args, *args),
        ).fetchall():
            out[int(row[0])] = row[1]
    return out


def weights(db: Any, scope: Scope, ids: Sequence[int]) -> dict[int, float]:
    """How much naming each entity tells (inverse document frequency over the scope's live
    memories, in [0, 1]): a name in every memory (the user's own, a chat partner's) tells little."""
    if not ids:
        return {}
    total = db.execute(
        "SELECT COALESCE(SUM(n), 0) FROM record_counts WHERE user_id = ? AND agent_id = ? "
        "AND status IN ('active', 'archived')",
        (scope.user_id, scope.agent_id),
    ).fetchone()[0]
    out = {}
    for eid, df in db.execute(
        f"SELECT entity_id, COUNT(*) FROM entity_links WHERE entity_id IN ({_marks(ids)}) "
        f"AND user_id = ? AND agent_id = ? GROUP BY entity_id",
        (*ids, scope.user_id, scope.agent_id),
    ).fetchall():
        out[int(eid)] = idf(int(df), int(total))
    return out


def linked(
    db: Any,
    scope: Scope,
    ids: Sequence[int],
    *,
    statuses: Sequence[str] = ("active",),
    limit: int = 200,
) -> list[tuple[str, int]]:
    """(record id, entity id) of the scope's records linked to the entities, newest first.

    One index search an entity (`ent_links_scope`, in the order of its links), each stopped at
    `limit` live records and merged by the database, as `newest_of_each` reads: with the entities
    in one IN list the planner reads every link of each and sorts them (a name in most of one
    user's 100,000 memories: tens of thousands of links for 200)."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return []
    where, args = scope_sql(scope, "r")
    parts = " UNION ALL ".join(
        f"SELECT * FROM (SELECT r.id AS id, l.entity_id AS entity_id, l.seen_at AS seen_at, "
        f"l.rid AS rid FROM entity_links l JOIN records r ON r.rid = l.rid "
        f"WHERE l.user_id = ? AND l.agent_id = ? AND l.entity_id = ? AND {where} "
        f"AND r.status IN ({_marks(statuses)}) "
        f"ORDER BY l.seen_at DESC, l.rid DESC LIMIT ?) AS p{n}"
        for n in range(len(ids))
    )
    bound = [
        a for eid in ids for a in (scope.user_id, scope.agent_id, eid, *args, *statuses, int(limit))
    ]
    rows = db.execute(
        f"SELECT id, entity_id FROM ({parts}) AS u "
        f"ORDER BY seen_at DESC, rid DESC, entity_id LIMIT ?",
        (*bound, int(limit)),
    ).fetchall()
    return [(row[0], int(row[1])) for row in rows]


def of_records(db: Any, scope: Scope, record_ids: Sequence[str]) -> dict[str, set[int]]:
    """record id -> the ids of the entities it is linked to."""
    out: dict[str, set[int]] = {}
    where, args = scope_sql(scope, "r")
    for chunk in _chunks(list(record_ids), 400):
        for row in db.execute(
            f"SELECT r.id, l.entity_id FROM records r JOIN entity_links l ON l.rid = r.rid "
            f"WHERE r.id IN ({_marks(chunk)}) AND {where}",
            (*chunk, *args),
        ).fetchall():
            out.setdefault(row[0], set()).add(int(row[1]))
    return out


def names(db: Any, scope: Scope, ids: Iterable[int]) -> dict[int, str]:
    """entity id -> name, of the scope's entities among `ids`."""
    out: dict[int, str] = {}
    for chunk in _chunks(sorted(set(ids)), 400):
        out.update(
            (int(r[0]), r[1])
            for r in db.execute(
                f"SELECT id, name FROM entities WHERE user_id = ? AND agent_id = ? "
                f"AND id IN ({_marks(chunk)})",
                (scope.user_id, scope.agent_id, *chunk),
            ).fetchall()
        )
    return out


def of_scope(db: Any, scope: Scope, limit: int = 1000) -> list[dict]:
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


# Records, versions, the keyword index, the outbox and the audit log.
#
# Every statement here is scoped: functions take a Scope (or a record fetched within one); there is
# no unscoped read. Callers group calls in a write transaction so a record, its keyword row, its
# vector and its outbox entry commit together.

# ---- writes ---------------------------------------------------------------------------------


def insert(
    db: Any,
    r: MemoryRecord,
    vec: np.ndarray | None,
    model: str,
    *,
    mentions: Mentions,
) -> None:
    rid = db.execute(
        f"INSERT INTO records ({_COLUMNS}) VALUES ({_marks(COLUMN_NAMES)}) RETURNING rid",
        _row_values(r),
    ).fetchall()[0][0]
    dialect_of(db).index_text(db, rid, r)
    link(db, rid, r, mentions)
    if vec is not None:
        put_vector(db, r, vec, model)
    if r.status is not Status.INACTIVE:
        enqueue(db, r, "upsert", r.created_at)


def update(
    db: Any,
    r: MemoryRecord,
    vec: np.ndarray | None,
    model: str,
    *,
    reindex: bool,
    mentions: Mentions,
) -> None:
    """Rewrite a record's row and its entity links (`mentions`: what it names); refresh its
    keyword row and vector when its text changed."""
    d = dialect_of(db)
    sets = ", ".join(f"{c} = ?" for c in COLUMN_NAMES[1:])
    found = db.execute(
        f"UPDATE records SET {sets} WHERE id = ? RETURNING rid", (*_row_values(r)[1:], r.id)
    ).fetchall()
    if found:
        rid = found[0][0]
        # a forgotten record loses its links, a restored one regains them
        link(db, rid, r, mentions)
        if reindex:
            d.unindex(db, [rid])
            d.index_text(db, rid, r)
            if vec is not None:
                put_vector(db, r, vec, model)
    op = "delete" if r.status is Status.INACTIVE else "upsert"
    enqueue(db, r, op, r.updated_at)


def enqueue(db: Any, r: MemoryRecord, op: str, at: float) -> None:
    db.execute(
        "INSERT INTO outbox(record_id, user_id, agent_id, op, created_at) VALUES (?, ?, ?, ?, ?)",
        (r.id, r.scope.user_id, r.scope.agent_id, op, at),
    )


_VERSION_COLUMNS = (
    "record_id, version, user_id, agent_id, summary, detail, channel, confidence, turn_ids, "
    "valid_from, superseded_at"
).split(", ")


def save_version(db: Any, old: MemoryRecord, superseded_at: float) -> None:
    db.execute(
        dialect_of(db).upsert("versions", _VERSION_COLUMNS, ("record_id", "version")),
        (
            old.id,
            old.version,
            old.scope.user_id,
            old.scope.agent_id,
            old.summary,
            old.detail,
            old.source.channel.value,
            old.confidence,
            json.dumps(list(old.source.turn_ids)),
            old.updated_at,
            superseded_at,
        ),
    )


def touch(db: Any, scope: Scope, ids: Sequence[str], at: float) -> None:
    """Reinforcement by access: bump access_count and last_accessed_at."""
    sql, args = _scope_sql(scope, by_id=True, d=dialect_of(db))
    for chunk in _chunks(list(ids), 500):
        db.execute(
            f"UPDATE records SET access_count = access_count + 1, last_accessed_at = ? "
            f"WHERE {sql} AND id IN ({_marks(chunk)})",
            (at, *args, *chunk),
        )


def delete_records(db: Any, scope: Scope, ids: Sequence[str]) -> int:
    """Remove rows everywhere (records, keyword rows, vectors, versions); queue vector deletes."""
    sql, args = _scope_sql(scope, by_id=True, d=dialect_of(db))
    n = 0
    for chunk in _chunks(list(dict.fromkeys(ids)), 500):
        rows = db.execute(
            f"SELECT rid, id FROM records WHERE {sql} AND id IN ({_marks(chunk)}) ORDER BY rid",
            (*args, *chunk),
        ).fetchall()
        n += delete_rows(db, scope, rows)
    return n


def delete_rows(db: Any, scope: Scope, rows: Sequence[Any]) -> int:
    """Delete these (rid, id) rows with their keyword rows, vectors and versions; queue deletes."""
    if not rows:
        return 0
    rids, got = [r[0] for r in rows], [r[1] for r in rows]
    dialect_of(db).unindex(db, rids)
    db.execute(f"DELETE FROM vectors WHERE record_id IN ({_marks(got)})", got)
    db.execute(f"DELETE FROM versions WHERE record_id IN ({_marks(got)})", got)
    db.execute(f"DELETE FROM records WHERE id IN ({_marks(got)})", got)
    db.executemany(
        "INSERT INTO outbox(record_id, user_id, agent_id, op, created_at) "
        "VALUES (?, ?, ?, 'delete', 0)",
        [(i, scope.user_id, scope.agent_id) for i in got],
    )
    return len(got)


# ---- reads ----------------------------------------------------------------------------------


def get(db: Any, scope: Scope, record_id: str) -> MemoryRecord | None:
    sql, args = _scope_sql(scope)
    row = db.execute(f"SELECT * FROM records WHERE {sql} AND id = ?", (*args, record_id)).fetchone()
    return row_to_record(row) if row else None


def get_many(db: Any, scope: Scope, ids: Iterable[str]) -> dict[str, MemoryRecord]:
    sql, args = _scope_sql(scope, by_id=True, d=dialect_of(db))
    out: dict[str, MemoryRecord] = {}
    for chunk in _chunks(list(dict.fromkeys(ids)), 500):
        for row in db.execute(
            f"SELECT * FROM records WHERE {sql} AND id IN ({_marks(chunk)})", (*args, *chunk)
        ).fetchall():
            out[row["id"]] = row_to_record(row)
    return out


def query(
    db: Any,
    scope: Scope,
    *,
    where: str = "1 = 1",
    args: Sequence = (),
    order: str = "updated_at DESC",
    limit: int = 100,
) -> list[MemoryRecord]:
    """Records of a scope matching an extra SQL condition (written by this package, never user
    text), in `order` (ties broken by the dialect)."""
    sql, sargs = _scope_sql(scope)
    rows = db.execute(
        f"SELECT * FROM records WHERE {sql} AND ({where}) "
        f"ORDER BY {dialect_of(db).order(order)} LIMIT ?",
        (*sargs, *args, int(limit)),
    ).fetchall()
    return [row_to_record(r) for r in rows]


def newest_of_each(
    db: Any,
    scope: Scope,
    column: str,
    values: Sequence[str],
    *,
    where: str,
    args: Sequence = (),
    limit: int,
) -> list[MemoryRecord]:
    """The `limit` most recently updated records of scope matching `where` whose `column` is one
    of `values` (a column of this package's statements, never user text), newest first.

    One index search a value, each read in the order of an index ending in (column, updated_at)
    and stopped at `limit`, merged by the database: with the values in one IN list the planner
    reads every matching row of the scope and sorts them (a common type or subject at one user's
    100,000 memories: tens of thousands of rows for 20), or walks the scope newest first until
    `limit` rows of a rare value are found (all of it, when there are fewer)."""
    values = list(dict.fromkeys(values))
    if not values:
        return []
    if len(values) == 1:
        one = f"({where}) AND {column} = ?"
        return query(db, scope, where=one, args=(*args, values[0]), limit=limit)
    sql, sargs = _scope_sql(scope)
    parts = " UNION ALL ".join(
        f"SELECT * FROM (SELECT * FROM records WHERE {sql} AND ({where}) AND {column} = ? "
        f"ORDER BY updated_at DESC LIMIT ?) AS p{n}"
        for n in range(len(values))
    )
    bound = [a for v in values for a in (*sargs, *args, v, int(limit))]
    rows = db.execute(
        f"SELECT * FROM ({parts}) AS u ORDER BY updated_at DESC LIMIT ?", (*bound, int(limit))
    ).fetchall()
    return [row_to_record(r) for r in rows]


def keyword_search(
    db: Any,
    scope: Scope,
    text: str,
    *,
    statuses: Sequence[str] = ("active",),
    limit: int = 30,
) -> list[tuple[str, float]]:
    """(record id, BM25 > 0) for records of scope whose tokens match text, best first (the
    dialect's keyword index)."""
    return dialect_of(db).keyword_search(db, scope, text, statuses=statuses, limit=limit)


#: the curated types distilled from turns (the policy table): a retired one marks its turns outdated
_DISTILLED = sql_list(types_where(distilled=True))


def retired_turns(db: Any, scope: Scope, turn_ids: Sequence[str]) -> dict[str, str]:
    """turn id -> an inactive curated record distilled from it (superseded or forgotten).

    Looked up by turn in `record_turns` (SQLite's migration 9); of several such records, the
    first by (type, rid), the order the scan over (user, agent, status, type) used to find them in."""
    out: dict[str, str] = {}
    d = dialect_of(db)
    h = d.hint
    # the records are found by rid; scope checked on them
    sql, args = _scope_sql(scope, "r", by_id=True, d=d)
    for chunk in _chunks(list(dict.fromkeys(turn_ids)), 500):
        rows = db.execute(
            f"SELECT r.id AS id, t.turn_id AS turn FROM record_turns t "
            f"JOIN records r ON r.rid = t.rid "
            f"WHERE t.user_id = ? AND t.agent_id = ? AND t.turn_id IN ({_marks(chunk)}) "
            f"AND {sql} AND {h}r.status = 'inactive' AND {h}r.type IN ({_DISTILLED}) "
            f"ORDER BY r.type, r.rid",
            (scope.user_id, scope.agent_id, *chunk, *args),
        ).fetchall()
        for row in rows:
            out.setdefault(row["turn"], row["id"])
    return out


def history(db: Any, scope: Scope, record_id: str) -> list[dict]:
    rows = db.execute(
        "SELECT * FROM versions WHERE user_id = ? AND agent_id = ? AND record_id = ? "
        "ORDER BY version",
        (scope.user_id, scope.agent_id, record_id),
    ).fetchall()
    return [as_dict(r) for r in rows]


# The record store's records, audit log, outbox and entity reads, over any dialect: each method
# is one intention of the ports (store/ports.py). Every driver error leaves as a `StoreError`.

#: rec_profile's types in the order of its WHERE (store/schema.py, migration 9). SQLite reads a
#: partial index only for a query whose WHERE repeats the index's terms as literals in the same
#: order: bound parameters, or another order, sort every profile and preference of the user
#: instead (45-90 ms a recall at 100k memories).
_PROFILE_INDEX_TYPES = ("profile", "preference")


def _type_literals(types: Sequence[str]) -> str:
    """Memory types as SQL literals, rec_profile's first and in its order; only the package's
    own type names are ever written into a statement."""
    known = {t.value for t in MemoryType}
    unknown = sorted(set(types) - known)
    if unknown:
        raise StoreError(f"profile types: {unknown} are not memory types; expected {sorted(known)}")
    rank = {name: i for i, name in enumerate(_PROFILE_INDEX_TYPES)}
    ordered = sorted(set(types), key=lambda t: (rank.get(t, len(rank)), t))
    return ", ".join(f"'{t}'" for t in ordered)


def _outbox_of(scope: Scope | None) -> tuple[str, tuple[str, ...]]:
    """The outbox entries of a (user, agent), or of every one (scope None)."""
    if scope is None:
        return "", ()
    return " WHERE user_id = ? AND agent_id = ?", (scope.user_id, scope.agent_id)


class SqlRecords:
    """The record-facing methods of the SQL record store, over `db` (a connection with read()
    and write()) and its dialect."""

    def __init__(self, db: Any, dialect: Dialect) -> None:
        self.db = db
        self.dialect = dialect

    @property
    def path(self) -> str:
        return str(self.db.path)

    def _error(self, exc: Exception) -> StoreError:
        """The package's error for a driver error (the dialect's driver)."""
        return StoreError(f"{self.db.path}: {exc}")

    #: the driver errors `_read` and `_write` turn into `StoreError` (none: the connection maps)
    def _driver_errors(self) -> tuple[type[Exception], ...]:
        return ()

    def _read(self) -> ContextManager[Any]:
        return self._guarded(self.db.read)

    def _write(self) -> ContextManager[Any]:
        return self._guarded(self.db.write)

    @contextlib.contextmanager
    def _guarded(self, open_: Callable[[], ContextManager[Any]]) -> Iterator[Any]:
        """A connection of the database (`read` or `write`), its driver errors as StoreError."""
        try:
            with open_() as conn:
                yield conn
        except self._driver_errors() as exc:
            raise self._error(exc) from exc

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic write; nested calls join the outer transaction."""
        with self._write():
            yield

    def in_transaction(self) -> bool:
        return self.db.nested()

    # ---- writes ---------------------------------------------------------------------------

    def insert(
        self, record: MemoryRecord, vector: np.ndarray | None, model: str, *, mentions: Mentions
    ) -> None:
        with self._write() as db:
            insert(db, record, vector, model, mentions=mentions)

    def update(
        self,
        record: MemoryRecord,
        vector: np.ndarray | None,
        model: str,
        *,
        reindex: bool,
        mentions: Mentions,
    ) -> None:
        with self._write() as db:
            update(db, record, vector, model, reindex=reindex, mentions=mentions)

    def put_parts(self, record: MemoryRecord, parts: np.ndarray | None) -> None:
        with self._write() as db:
            put_parts(db, record, parts)

    def save_version(self, old: MemoryRecord, superseded_at: float) -> None:
        with self._write() as db:
            save_version(db, old, superseded_at)

    def touch(self, scope: Scope, ids: Sequence[str], at: float) -> None:
        if ids:
            with self._write() as db:
                touch(db, scope, ids, at)

    def delete_records(self, scope: Scope, ids: Sequence[str]) -> int:
        with self._write() as db:
            return delete_records(db, scope, ids)

    # ---- reads ----------------------------------------------------------------------------

    def _query(
        self,
        scope: Scope,
        where: str,
        args: Sequence[Any] = (),
        order: str = "updated_at DESC",
        limit: int = 100,
    ) -> list[MemoryRecord]:
        with self._read() as db:
            return query(db, scope, where=where, args=args, order=order, limit=limit)

    def get(self, scope: Scope, record_id: str) -> MemoryRecord | None:
        with self._read() as db:
            return get(db, scope, record_id)

    def get_many(self, scope: Scope, ids: Iterable[str]) -> dict[str, MemoryRecord]:
        with self._read() as db:
            return get_many(db, scope, ids)

    def in_written_order(self, scope: Scope, ids: Sequence[str]) -> list[MemoryRecord]:
        ids = list(dict.fromkeys(ids))
        if not ids:
            return []
        return self._query(scope, f"id IN ({_marks(ids)})", ids, order="rid", limit=len(ids))

    def live_subjects(self, scope: Scope, limit: int = 2000) -> list[str]:
        # a skip scan of rec_subject_recent: one index search per distinct subject, where
        # DISTINCT reads an entry per live record (100,000 for a few hundred subjects)
        where, args = _scope_sql(scope)
        live = f"{where} AND status = 'active'"
        with self._read() as db:
            return [
                row[0]
                for row in db.execute(
                    f"WITH RECURSIVE s(v) AS ("
                    f"SELECT MIN(subject) FROM records WHERE {live} AND subject IS NOT NULL "
                    f"UNION ALL SELECT (SELECT MIN(subject) FROM records WHERE {live} "
                    f"AND subject > s.v) FROM s WHERE s.v IS NOT NULL) "
                    f"SELECT v FROM s WHERE v IS NOT NULL LIMIT {int(limit)}",
                    (*args, *args),
                ).fetchall()
            ]

    def live_by_subject(
        self,
        scope: Scope,
        subjects: Sequence[str],
        *,
        types: Sequence[str] | None = None,
        limit: int = 20,
    ) -> list[MemoryRecord]:
        where, args = "status = 'active'", []
        if types is not None:
            where += f" AND type IN ({_marks(types)})"
            args += list(types)
        with self._read() as db:
            return newest_of_each(
                db, scope, "subject", subjects, where=where, args=args, limit=limit
            )

    def recent_important(
        self, scope: Scope, since: float, min_importance: float, limit: int
    ) -> list[MemoryRecord]:
        return self._query(
            scope,
            "status = 'active' AND updated_at >= ? AND importance >= ? "
            "AND type NOT IN ('episode', 'summary')",
            (since, min_importance),
            limit=limit,
        )

    def profile(
        self, scope: Scope, types: Sequence[str], whitelist: Sequence[str], limit: int = 20
    ) -> list[MemoryRecord]:
        where = f"status = 'active' AND type IN ({_type_literals(types)}) AND doubt_of IS NULL"
        args: list[Any] = []
        if whitelist:
            where += f" AND subject IN ({_marks(whitelist)})"
            args += list(whitelist)
        return self._query(
            scope, where, args, order="importance DESC, updated_at DESC", limit=limit
        )

    def latest_summaries(self, scope: Scope, count: int) -> list[MemoryRecord]:
        if count <= 0:
            return []
        return self._query(
            scope, "status = 'active' AND type = 'summary'", order="created_at DESC", limit=count
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
        where = "status = 'active' AND doubt_of IS NULL"
        args: list[Any] = []
        if created_before is not None:
            where += " AND created_at <= ?"
            args.append(created_before)
        if subject is not None:
            where += f" AND subject = ? AND type IN ({_marks(types)})"
            return self._query(scope, where, [*args, subject, *types], limit=limit)
        with self._read() as db:
            return newest_of_each(db, scope, "type", types, where=where, args=args, limit=limit)

    def copies_of_text(
        self, scope: Scope, type_: str, content_hash: str, limit: int = 20
    ) -> list[MemoryRecord]:
        return self._query(
            scope, "type = ? AND content_hash = ?", (type_, content_hash), limit=limit
        )

    def live_episodes_before(
        self, scope: Scope, at: float, limit: int, *, exclude: str | None = None
    ) -> list[MemoryRecord]:
        where = "status = 'active' AND type = 'episode' AND created_at <= ?"
        args: list[Any] = [at]
        if exclude is not None:
            where += " AND id <> ?"
            args.append(exclude)
        return self._query(scope, where, args, order="created_at DESC", limit=limit)

    def live_episodes_saying(
        self, scope: Scope, summary: str, *, exclude: str, limit: int = 50
    ) -> list[MemoryRecord]:
        return self._query(
            scope,
            "status = 'active' AND type = 'episode' AND summary = ? AND id <> ?",
            (summary, exclude),
            limit=limit,
        )

    def session_episodes(
        self, scope: Scope, session_id: str, limit: int = 2000
    ) -> list[MemoryRecord]:
        # `+type`: by the (user, agent, session) index; SQLite otherwise picked (user, agent,
        # type) and walked every episode of the user
        return self._query(
            scope,
            f"session_id = ? AND {self.dialect.hint}type = 'episode'",
            (session_id,),
            order="created_at",
            limit=limit,
        )

    def session_neighbours(
        self, scope: Scope, record_id: str, *, before: int, after: int, now: float
    ) -> tuple[list[MemoryRecord], list[MemoryRecord]]:
        """The live episodes logged just before and just after an episode in the same session
        (nearest first), for delivering a turn with the exchange around it."""
        return self.neighbours_of(scope, [record_id], before=before, after=after, now=now)[
            record_id
        ]

    def neighbours_of(
        self, scope: Scope, record_ids: Sequence[str], *, before: int, after: int, now: float
    ) -> dict[str, tuple[list[MemoryRecord], list[MemoryRecord]]]:
        with self._read() as db:
            return neighbours_of(db, scope, record_ids, before=before, after=after, now=now)

    def successors(self, scope: Scope, record_id: str, limit: int = 100) -> list[MemoryRecord]:
        return self._query(scope, "prev_id = ?", (record_id,), limit=limit)

    def latest_successor(self, scope: Scope, record_id: str) -> MemoryRecord | None:
        # by the prev_id index: the scope is checked on the row found (`+`), or SQLite would
        # walk the user's whole (user, agent) index instead
        h = self.dialect.hint
        with self._read() as db:
            row = db.execute(
                f"SELECT * FROM records WHERE prev_id = ? AND {h}user_id = ? AND {h}agent_id = ? "
                f"ORDER BY version DESC{self.dialect.tie and ', rid DESC'} LIMIT 1",
                (record_id, scope.user_id, scope.agent_id),
            ).fetchone()
        return row_to_record(row) if row else None

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
            conds.append("status = ?")
            args.append(status)
        if type_ is not None:
            conds.append("type = ?")
            args.append(type_)
        if curated_only:
            conds.append("type <> 'episode'")
        order = "created_at" if oldest_first else "updated_at DESC"
        return self._query(scope, " AND ".join(conds) or "1 = 1", args, order=order, limit=limit)

    def retired_turns(self, scope: Scope, turn_ids: Sequence[str]) -> dict[str, str]:
        if not turn_ids:
            return {}
        with self._read() as db:
            return retired_turns(db, scope, turn_ids)

    def keyword_search(
        self, scope: Scope, text: str, *, statuses: Sequence[str] = ("active",), limit: int = 30
    ) -> list[tuple[str, float]]:
        with self._read() as db:
            hits = keyword_search(db, scope, text, statuses=statuses, limit=limit)
        best = max((s for _, s in hits), default=0.0)
        return [(i, s / best) for i, s in hits] if best > 0 else hits

    def search_tokens(self, ids: Sequence[str]) -> dict[str, frozenset[str]]:
        with self._read() as db:
            return self.dialect.search_tokens(db, ids)

    def vectors_with_parts(
        self, ids: Sequence[str]
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        with self._read() as db:
            return vectors_with_parts(db, ids)

    def tier_vectors(
        self, scope: Scope, tier: str, at_most: int | None = None
    ) -> list[TierVector] | None:
        with self._read() as db:
            return tier_vectors(db, scope, tier, at_most)

    def versions(self, scope: Scope, record_id: str) -> list[dict[str, Any]]:
        with self._read() as db:
            return history(db, scope, record_id)

    def versions_in_scope(self, scope: Scope, record_id: str) -> list[dict[str, Any]]:
        """`versions` by the record id's index, the scope checked on the rows found."""
        return self._by_record_ids("versions", scope, [record_id], "version")

    def _by_record_ids(
        self, table: str, scope: Scope, ids: Sequence[str], order: str
    ) -> list[dict[str, Any]]:
        """Rows of `table` about these records, looked up by record id first (`hint` keeps
        SQLite off the (user, agent) indexes, which would walk every row of the user), then
        checked against the scope."""
        h = self.dialect.hint
        with self._read() as db:
            rows = db.execute(
                f"SELECT * FROM {table} WHERE record_id IN ({_marks(ids)}) AND {h}user_id = ? "
                f"AND {h}agent_id = ? ORDER BY {order}",
                (*ids, scope.user_id, scope.agent_id),
            ).fetchall()
        return [as_dict(r) for r in rows]

    # ---- audit ----------------------------------------------------------------------------

    def audit(self, entry: AuditEntry) -> None:
        e, scope = entry, entry.scope
        with self._write() as db:
            db.execute(
                "INSERT INTO audit(at, user_id, agent_id, record_id, action, channel, reason, "
                "writer) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (e.at, scope.user_id, scope.agent_id, e.record_id, e.action, e.channel, e.reason)
                + (e.writer,),
            )

    def audit_log(
        self, scope: Scope, record_id: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        where, args = "user_id = ? AND agent_id = ?", [scope.user_id, scope.agent_id]
        if record_id:
            where += " AND record_id = ?"
            args.append(record_id)
        with self._read() as db:
            rows = db.execute(
                f"SELECT * FROM audit WHERE {where} ORDER BY seq DESC LIMIT ?", (*args, int(limit))
            ).fetchall()
        return [as_dict(r) for r in rows]

    def audit_of(self, scope: Scope, ids: Sequence[str], limit: int = 500) -> list[dict[str, Any]]:
        if not ids:
            return []
        return self._by_record_ids("audit", scope, ids, f"at DESC, seq DESC LIMIT {int(limit)}")

    # ---- outbox ---------------------------------------------------------------------------

    def pending(self, scope: Scope | None = None) -> int:
        where, args = _outbox_of(scope)
        with self._read() as db:
            return int(db.execute(f"SELECT COUNT(*) FROM outbox{where}", args).fetchone()[0])

    def next_entries(self, scope: Scope | None, limit: int) -> list[dict[str, Any]]:
        where, args = _outbox_of(scope)
        with self._read() as db:
            rows = db.execute(
                f"SELECT * FROM outbox{where} ORDER BY seq LIMIT ?", (*args, int(limit))
            ).fetchall()
        return [as_dict(r) for r in rows]

    def done(self, seqs: Sequence[int]) -> None:
        if seqs:
            with self._write() as db:
                db.execute(
                    f"DELETE FROM outbox WHERE seq IN ({_marks(seqs)})", [int(s) for s in seqs]
                )

    # ---- entity memory's reads (the writes run inside `insert` and `update`) --------------

    def entities_named(self, scope: Scope, keys: Iterable[str]) -> dict[int, str]:
        with self._read() as db:
            return lookup(db, scope, keys)

    def entity_weights(self, scope: Scope, ids: Sequence[int]) -> dict[int, float]:
        with self._read() as db:
            return weights(db, scope, ids)

    def records_naming(
        self,
        scope: Scope,
        ids: Sequence[int],
        *,
        statuses: Sequence[str] = ("active",),
        limit: int = 200,
    ) -> list[tuple[str, int]]:
        with self._read() as db:
            return linked(db, scope, ids, statuses=statuses, limit=limit)

    def entities_of(self, scope: Scope, record_ids: Sequence[str]) -> dict[str, set[int]]:
        if not record_ids:
            return {}
        with self._read() as db:
            return of_records(db, scope, record_ids)

    def entity_names(self, scope: Scope, ids: Iterable[int]) -> dict[int, str]:
        with self._read() as db:
            return names(db, scope, ids)

    def entity_list(self, scope: Scope, limit: int = 1000) -> list[dict[str, Any]]:
        with self._read() as db:
            return of_scope(db, scope, limit)

    def entity_backlog(self, limit: int = BATCH) -> list[MemoryRecord]:
        with self._read() as db:
            return backlog(db, self.dialect, limit)

    def backfill_entity_links(self, named: Sequence[Named], limit: int = BATCH) -> tuple[int, int]:
        with self._write() as db:
            return backfill(db, self.dialect, SqlEntityRows(db), named, limit)
