"""Records and entities in SQLite: the statements of the SQLite store.

Records, versions, the FTS index, the outbox and the audit log, and entity memory's rows (who and
what the memories name, and which memories name them).
"""

from __future__ import annotations

import sqlite3
import json
import numpy as np
from typing import Iterable, Sequence
from ..extract.entities import Entity
from ..types import MemoryRecord, Scope, Status
from .sql import (  # re-exported: store/postgres builds on these; re-exported: store/sqlite reads it here
    SQLITE,
    scope_sql,
    _COLUMNS as _COLUMNS,
    _json_tuple as _json_tuple,
    _row_values as _row_values,
    neighbours_of as neighbours_of,
    row_to_record as row_to_record,
    scope_sql as _scope_sql,
)
from .entity_linking import Owner, idf, link as link_rows, EntityRowsSQL
from ..write.policy import sql_list, types_where
from ..lang.text import fts_document, fts_query
from .ports import (  # re-exported: the key the rows carry
    content_hash as content_hash,
    text_hash as text_hash,
)
from .schema import scope_token
from .tiered_index import (
    put_parts as put_parts,
    put_vector as put_vector,
    vectors_for as vectors_for,
    vectors_with_parts as vectors_with_parts,
    tier_vectors as tier_vectors,
)

# Entity memory in SQLite: who and what the memories name, and which memories name them.
#
# Tables (migration 10): `entities` (one row per normalised name of a (user, agent), first and last
# seen), `entity_aliases` (another name for an entity: "Mel" for Melanie, 小王 for 王伟, with the
# record that said so) and `entity_links` (entity, record). `link` runs in the write transaction of
# every stored or rewritten record; triggers remove a record's links when it is deleted or
# forgotten, an entity with its last link and an alias with its entity or its record.
#
# Every statement is scoped by (user_id, agent_id).


def link(db: sqlite3.Connection, rid: int, r: MemoryRecord) -> None:
    """(Re)link record `rid` to the entities it names (store/entity_linking.py), in db's
    transaction; a forgotten record keeps no links."""
    link_rows(SQLiteEntityRows(db), rid, r)


class SQLiteEntityRows(EntityRowsSQL):
    """`entity_linking.EntityRows` on one SQLite connection (store/entity_linking.py; the triggers of
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


# Records, versions, the FTS index, the outbox and the audit log, in SQLite.
#
# Every statement here is scoped: functions take a Scope (or a record fetched within one); there is
# no unscoped read. Callers group calls in `Database.write()` so a record, its FTS row, its vector
# and its outbox entry commit together. A record's row (its columns, the fast read) is in
# record_rows.py, its vectors in vector_rows.py; both are re-exported here, where the SQLite
# store and the tests reach them.

# ---- writes ---------------------------------------------------------------------------------


def insert(db: sqlite3.Connection, r: MemoryRecord, vec: np.ndarray | None, model: str) -> None:
    placeholders = ", ".join("?" * len(_COLUMNS.split(",")))
    cur = db.execute(f"INSERT INTO records ({_COLUMNS}) VALUES ({placeholders})", _row_values(r))
    assert cur.lastrowid is not None  # an INSERT always sets it
    index_text(db, cur.lastrowid, r)
    link(db, cur.lastrowid, r)
    if vec is not None:
        put_vector(db, r, vec, model)
    if r.status is not Status.INACTIVE:
        enqueue(db, r, "upsert", r.created_at)


def index_text(db: sqlite3.Connection, rid: int, r: MemoryRecord) -> None:
    """The record's keyword-index row: its search tokens and its scope's token."""
    db.execute(
        "INSERT INTO records_fts(rowid, tokens, scope) VALUES (?, ?, ?)",
        (rid, fts_document(r.text), scope_token(r.scope.user_id, r.scope.agent_id)),
    )


def update(
    db: sqlite3.Connection, r: MemoryRecord, vec: np.ndarray | None, model: str, *, reindex: bool
) -> None:
    """Rewrite a record's row; refresh FTS and the vector when its text changed."""
    cols = [c.strip() for c in _COLUMNS.split(",")]
    sets = ", ".join(f"{c} = ?" for c in cols[1:])
    values = _row_values(r)
    db.execute(f"UPDATE records SET {sets} WHERE id = ?", (*values[1:], r.id))
    rid = db.execute("SELECT rid FROM records WHERE id = ?", (r.id,)).fetchone()[0]
    link(db, rid, r)  # a forgotten record loses its links, a restored one regains them
    if reindex:
        db.execute("DELETE FROM records_fts WHERE rowid = ?", (rid,))
        index_text(db, rid, r)
        if vec is not None:
            put_vector(db, r, vec, model)
    op = "delete" if r.status is Status.INACTIVE else "upsert"
    enqueue(db, r, op, r.updated_at)


def enqueue(db: sqlite3.Connection, r: MemoryRecord, op: str, at: float) -> None:
    db.execute(
        "INSERT INTO outbox(record_id, user_id, agent_id, op, created_at) VALUES (?, ?, ?, ?, ?)",
        (r.id, r.scope.user_id, r.scope.agent_id, op, at),
    )


def save_version(db: sqlite3.Connection, old: MemoryRecord, superseded_at: float) -> None:
    db.execute(
        "INSERT OR REPLACE INTO versions(record_id, version, user_id, agent_id, summary, detail, channel, "
        "confidence, turn_ids, valid_from, superseded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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


def audit(
    db: sqlite3.Connection,
    scope: Scope,
    record_id: str | None,
    action: str,
    reason: str,
    at: float,
    channel: str | None = None,
    writer: str | None = None,
) -> None:
    db.execute(
        "INSERT INTO audit(at, user_id, agent_id, record_id, action, channel, reason, writer) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (at, scope.user_id, scope.agent_id, record_id, action, channel, reason, writer),
    )


def touch(db: sqlite3.Connection, scope: Scope, ids: Sequence[str], at: float) -> None:
    """Reinforcement by access: bump access_count and last_accessed_at."""
    sql, args = _scope_sql(scope, by_id=True)
    for chunk in _chunks_records(list(ids), 500):
        marks = ",".join("?" * len(chunk))
        db.execute(
            f"UPDATE records SET access_count = access_count + 1, last_accessed_at = ? "
            f"WHERE {sql} AND id IN ({marks})",
            (at, *args, *chunk),
        )


def delete_records(db: sqlite3.Connection, scope: Scope, ids: Sequence[str]) -> int:
    """Remove rows everywhere in SQLite (records, FTS, vectors, versions); queue vector deletes."""
    n = 0
    sql, args = _scope_sql(scope, by_id=True)
    for chunk in _chunks_records(list(ids), 500):
        marks = ",".join("?" * len(chunk))
        rows = db.execute(
            f"SELECT rid, id FROM records WHERE {sql} AND id IN ({marks})", (*args, *chunk)
        ).fetchall()
        for row in rows:
            db.execute("DELETE FROM records_fts WHERE rowid = ?", (row["rid"],))
        got = [row["id"] for row in rows]
        if not got:
            continue
        gm = ",".join("?" * len(got))
        db.execute(f"DELETE FROM vectors WHERE record_id IN ({gm})", got)
        db.execute(f"DELETE FROM versions WHERE record_id IN ({gm})", got)
        db.execute(f"DELETE FROM records WHERE id IN ({gm})", got)
        for rid in got:
            db.execute(
                "INSERT INTO outbox(record_id, user_id, agent_id, op, created_at) VALUES (?, ?, ?, 'delete', 0)",
                (rid, scope.user_id, scope.agent_id),
            )
        n += len(got)
    return n


# ---- reads ----------------------------------------------------------------------------------


def get(db: sqlite3.Connection, scope: Scope, record_id: str) -> MemoryRecord | None:
    sql, args = _scope_sql(scope)
    row = db.execute(f"SELECT * FROM records WHERE {sql} AND id = ?", (*args, record_id)).fetchone()
    return row_to_record(row) if row else None


def get_many(db: sqlite3.Connection, scope: Scope, ids: Iterable[str]) -> dict[str, MemoryRecord]:
    sql, args = _scope_sql(scope, by_id=True)
    out: dict[str, MemoryRecord] = {}
    for chunk in _chunks_records(list(dict.fromkeys(ids)), 500):
        marks = ",".join("?" * len(chunk))
        for row in db.execute(
            f"SELECT * FROM records WHERE {sql} AND id IN ({marks})", (*args, *chunk)
        ):
            out[row["id"]] = row_to_record(row)
    return out


def query(
    db: sqlite3.Connection,
    scope: Scope,
    *,
    where: str = "1",
    args: Sequence = (),
    order: str = "updated_at DESC",
    limit: int = 100,
) -> list[MemoryRecord]:
    """Records of a scope matching an extra SQL condition (written by this package, never user text)."""
    sql, sargs = _scope_sql(scope)
    rows = db.execute(
        f"SELECT * FROM records WHERE {sql} AND ({where}) ORDER BY {order} LIMIT ?",
        (*sargs, *args, int(limit)),
    ).fetchall()
    return [row_to_record(r) for r in rows]


#: matches of one term scored at most: a term in more of a scope's memories (a word in a quarter
#: of 100,000) is scored in its newest KEYWORD_SCORED matches only, so the channel's cost follows
#: what it returns, not how common a word is (docs/benchmark-history.md, "The keyword channel's cost")
KEYWORD_SCORED = 2000


def keyword_search(
    db: sqlite3.Connection,
    scope: Scope,
    text: str,
    *,
    statuses: Sequence[str] = ("active",),
    limit: int = 30,
) -> list[tuple[str, float]]:
    """(record id, bm25 relevance > 0) for records of scope whose tokens match text, best first.

    FTS5 computes BM25 for every match before it can sort; when the request's terms match more
    than KEYWORD_SCORED memories of the scope, only each term's newest KEYWORD_SCORED matches are
    scored (with the same BM25, whole-table statistics included); otherwise every match is. The
    matches are counted only in a scope of more than KEYWORD_SCORED records (`_scope_rows`)."""
    match = fts_query(text)
    if not match:
        return []
    sql, args = _scope_sql(scope, "r")
    marks = ",".join("?" * len(statuses))
    # FTS5 itself keeps to the scope's rows; the scope token's column has weight 0 in BM25.
    token = scope_token(scope.user_id, scope.agent_id)
    scoped = f"scope : {token} AND tokens : ({match})"
    within, bounds = "", ()  # type: tuple[str, tuple]
    if (
        _scope_rows(db, scope) > KEYWORD_SCORED
        and len(_newest_matches(db, scoped)) > KEYWORD_SCORED
    ):
        scored = _scored_rows(db, token, match)
        within = (
            "AND records_fts.rowid BETWEEN ? AND ? "
            "AND +records_fts.rowid IN (SELECT value FROM json_each(?)) "
        )
        bounds = (min(scored), max(scored), json.dumps(sorted(scored)))
    # CROSS JOIN keeps the keyword index as the outer loop in every SQLite version: SQLite 3.51
    # (SQLCipher's) otherwise walks the user's active records and probes FTS5 once for each
    # (about 70x the CPU of this plan on 600 records; RELIABILITY.md, encryption at rest).
    rows = db.execute(
        f"SELECT r.id AS id, -bm25(records_fts, 1.0, 0.0) AS score FROM records_fts "
        f"CROSS JOIN records r ON r.rid = records_fts.rowid "
        f"WHERE records_fts MATCH ? {within}AND {sql} AND r.status IN ({marks}) "
        f"ORDER BY bm25(records_fts, 1.0, 0.0) LIMIT ?",
        (scoped, *bounds, *args, *statuses, int(limit)),
    ).fetchall()
    return [(row["id"], float(row["score"])) for row in rows]


def _scope_rows(db: sqlite3.Connection, scope: Scope) -> int:
    """How many records the scope's user and agent hold, any status: the keyword index holds a
    row for each at most, so a scope of KEYWORD_SCORED records or fewer cannot match more (the
    count is kept by triggers, `record_counts`: one row a status and type)."""
    return int(
        db.execute(
            "SELECT COALESCE(SUM(n), 0) FROM record_counts WHERE user_id = ? AND agent_id = ?",
            (scope.user_id, scope.agent_id),
        ).fetchone()[0]
    )


def _newest_matches(db: sqlite3.Connection, expression: str) -> list[int]:
    """The row ids of the newest KEYWORD_SCORED + 1 matches of an FTS5 expression (FTS5 walks its
    doclists newest first and stops there: no BM25 is computed)."""
    return [
        row[0]
        for row in db.execute(
            "SELECT rowid FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
            (expression, KEYWORD_SCORED + 1),
        )
    ]


def _scored_rows(db: sqlite3.Connection, token: str, match: str) -> set[int]:
    """The rows a request's BM25 is computed for: each term's newest KEYWORD_SCORED matches."""
    rows: set[int] = set()
    for term in match.split(" OR "):  # fts_query: quoted terms (no spaces inside) joined by OR
        rows.update(_newest_matches(db, f"scope : {token} AND tokens : {term}")[:KEYWORD_SCORED])
    return rows


def session_neighbours(
    db: sqlite3.Connection, scope: Scope, record_id: str, *, before: int, after: int, now: float
) -> tuple[list[MemoryRecord], list[MemoryRecord]]:
    """The live episodes logged just before and just after an episode in the same session
    (nearest first), for delivering a turn with the exchange around it."""
    return neighbours_of(db, scope, [record_id], before=before, after=after, now=now)[record_id]


#: the curated types distilled from turns (the policy table): a retired one marks its turns outdated
_DISTILLED = sql_list(types_where(distilled=True))


def retired_turns(db: sqlite3.Connection, scope: Scope, turn_ids: Sequence[str]) -> dict[str, str]:
    """turn id -> an inactive curated record distilled from it (superseded or forgotten).

    Looked up by turn in `record_turns` (schema migration 9); of several such records, the first
    by (type, rid), the order the scan over (user, agent, status, type) used to find them in."""
    out: dict[str, str] = {}
    sql, args = _scope_sql(
        scope, "r", by_id=True
    )  # the records are found by rid; scope checked on them
    for chunk in _chunks_records(list(dict.fromkeys(turn_ids)), 500):
        marks = ",".join("?" * len(chunk))
        rows = db.execute(
            f"SELECT r.id AS id, t.turn_id AS turn FROM record_turns t JOIN records r ON r.rid = t.rid "
            f"WHERE t.user_id = ? AND t.agent_id = ? AND t.turn_id IN ({marks}) AND {sql} "
            f"AND +r.status = 'inactive' AND +r.type IN ({_DISTILLED}) "
            f"ORDER BY r.type, r.rid",
            (scope.user_id, scope.agent_id, *chunk, *args),
        )
        for row in rows:
            out.setdefault(row["turn"], row["id"])
    return out


def search_tokens_for(db: sqlite3.Connection, ids: Sequence[str]) -> dict[str, frozenset[str]]:
    """record id -> its search tokens as the keyword index holds them (segmented once, on write)."""
    out: dict[str, frozenset[str]] = {}
    for chunk in _chunks_records(list(ids), 500):
        marks = ",".join("?" * len(chunk))
        rows = db.execute(
            f"SELECT r.id, f.tokens FROM records r JOIN records_fts f ON f.rowid = r.rid "
            f"WHERE r.id IN ({marks})",
            chunk,
        )
        out.update((row[0], frozenset(row[1].split())) for row in rows)
    return out


def history(db: sqlite3.Connection, scope: Scope, record_id: str) -> list[dict]:
    sql, args = _scope_sql(scope)
    rows = db.execute(
        f"SELECT * FROM versions WHERE {sql.replace(' AND (workspace = ? OR workspace IS NULL)', '')} "
        f"AND record_id = ? ORDER BY version",
        (*args[:2], record_id),
    ).fetchall()
    return [dict(r) for r in rows]


def _chunks_records(items: list, size: int) -> Iterable[list]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
