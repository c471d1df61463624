"""Records, versions, the FTS index, the outbox and the audit log, in SQLite.

Every statement here is scoped: functions take a Scope (or a record fetched within one); there is
no unscoped read. Callers group calls in `Database.write()` so a record, its FTS row, its vector
and its outbox entry commit together. A record's row (its columns, the fast read) is in
record_rows.py, its vectors in vector_rows.py; both are re-exported here, where the SQLite
store and the tests reach them.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Iterable, Sequence

import numpy as np

from ..write.policy import sql_list, types_where
from ..lang.text import fts_document, fts_query
from ..types import MemoryRecord, Scope, Status
from . import entities
from .port_values import content_hash as content_hash  # re-exported: the key the rows carry
from .port_values import text_hash as text_hash
from .record_rows import _COLUMNS as _COLUMNS  # re-exported: store/postgres builds on these
from .record_rows import _json_tuple as _json_tuple
from .record_rows import _row_values as _row_values
from .neighbour_rows import neighbours_of as neighbours_of
from .record_rows import row_to_record as row_to_record
from .schema import scope_token
from .scope_sql import scope_sql as _scope_sql  # re-exported: store/sqlite reads it here
from .vector_rows import put_parts as put_parts
from .vector_rows import put_vector as put_vector
from .vector_rows import vectors_for as vectors_for
from .vector_rows import vectors_with_parts as vectors_with_parts
from .vector_rows import tier_vectors as tier_vectors


# ---- writes ---------------------------------------------------------------------------------


def insert(db: sqlite3.Connection, r: MemoryRecord, vec: np.ndarray | None, model: str) -> None:
    placeholders = ", ".join("?" * len(_COLUMNS.split(",")))
    cur = db.execute(f"INSERT INTO records ({_COLUMNS}) VALUES ({placeholders})", _row_values(r))
    assert cur.lastrowid is not None  # an INSERT always sets it
    index_text(db, cur.lastrowid, r)
    entities.link(db, cur.lastrowid, r)
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
    entities.link(db, rid, r)  # a forgotten record loses its links, a restored one regains them
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
    for chunk in _chunks(list(ids), 500):
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
    for chunk in _chunks(list(ids), 500):
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
    for chunk in _chunks(list(dict.fromkeys(ids)), 500):
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
    for chunk in _chunks(list(dict.fromkeys(turn_ids)), 500):
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
    for chunk in _chunks(list(ids), 500):
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


def _chunks(items: list, size: int) -> Iterable[list]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
