"""The SQLite dialect: its spellings, and the FTS5 keyword index (BM25 over jieba and Snowball
tokens, one table row a record, with its scope's token in a column of weight 0)."""

from __future__ import annotations

import json
from typing import Any, Sequence

from ...lang.text import fts_document, fts_query
from ...types import MemoryRecord, Scope
from ..ports import Scored
from ..schema import scope_token
from ..sql import MAX_CHAR, Dialect, scope_sql


class SQLiteDialect(Dialect):
    name = "sqlite"
    hint = "+"

    def columns(self, conn: Any, table: str) -> set[str]:
        return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}

    def upsert(self, table: str, columns: Sequence[str], key: Sequence[str]) -> str:
        return (
            f"INSERT OR REPLACE INTO {table}({', '.join(columns)}) "
            f"VALUES ({', '.join('?' * len(columns))})"
        )

    def json_values(self) -> str:
        return "SELECT value FROM json_each(?)"

    def extending(self, column: str, prefix: str) -> tuple[str, list[str]]:
        return f"{column} > ? AND {column} < ?", [prefix, prefix + MAX_CHAR]

    # ---- the FTS5 keyword index ---------------------------------------------------------

    def index_text(self, conn: Any, rid: int, record: MemoryRecord) -> None:
        conn.execute(
            "INSERT INTO records_fts(rowid, tokens, scope) VALUES (?, ?, ?)",
            (
                rid,
                fts_document(record.text),
                scope_token(record.scope.user_id, record.scope.agent_id),
            ),
        )

    def unindex(self, conn: Any, rids: Sequence[int]) -> int:
        n = 0
        for i in range(0, len(rids), 500):
            chunk = list(rids[i : i + 500])
            n += conn.execute(
                f"DELETE FROM records_fts WHERE rowid IN ({','.join('?' * len(chunk))})", chunk
            ).rowcount
        return n

    def keyword_search(
        self, conn: Any, scope: Scope, text: str, *, statuses: Sequence[str], limit: int
    ) -> list[tuple[str, float]]:
        return fts5_search(conn, scope, text, statuses, limit)

    def search_tokens(self, conn: Any, ids: Sequence[str]) -> dict[str, frozenset[str]]:
        out: dict[str, frozenset[str]] = {}
        for i in range(0, len(ids), 500):
            chunk = list(ids[i : i + 500])
            rows = conn.execute(
                f"SELECT r.id, f.tokens FROM records r JOIN records_fts f ON f.rowid = r.rid "
                f"WHERE r.id IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            out.update((row[0], frozenset(row[1].split())) for row in rows)
        return out

    def keyword_gaps(self, conn: Any) -> tuple[list[int], list[str]]:
        orphan = [
            r[0]
            for r in conn.execute(
                "SELECT rowid FROM records_fts WHERE rowid NOT IN (SELECT rid FROM records)"
            ).fetchall()
        ]
        missing = [
            r[0]
            for r in conn.execute(
                "SELECT id FROM records WHERE rid NOT IN (SELECT rowid FROM records_fts)"
            ).fetchall()
        ]
        return orphan, missing

    def optimize_keyword_index(self, conn: Any) -> None:
        """Merge the FTS5 index into one segment, so deleted rows' tokens leave its pages (the
        freed pages are zeroed by secure_delete and dropped by the VACUUM that follows)."""
        conn.execute("INSERT INTO records_fts(records_fts) VALUES ('optimize')")

    def text_filter(self, scope: Scope, text: str, cap: int) -> tuple[str, list[Any]]:
        match = fts_query(text)
        if not match:
            return "0", []
        return (
            "rid IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ? "
            "ORDER BY rowid DESC LIMIT ?)",
            [f"scope : {scope_token(scope.user_id, scope.agent_id)} AND tokens : ({match})", cap],
        )

    def list_index(self, column: str) -> str:
        # the list index of the sort column (store/schema.py, migration 13): a page reads its
        # index entries up to the cursor, never the rows the filters reject
        return f"INDEXED BY rec_list_{column.split('_')[0]}"


SQLITE = SQLiteDialect()


# Keyword search over FTS5.
#
# FTS5 computes BM25 for every match before it can sort; when the request's terms match more
# than KEYWORD_SCORED memories of the scope, only KEYWORD_SCORED of them are scored (with the
# same BM25, whole-table statistics included), shared among the terms rarest first: a term with
# fewer matches than its share gives all of them, and the commoner terms share what is left,
# each its newest matches. Otherwise every match is scored.

#: matches scored at most for one request: a word in a quarter of 100,000 memories is scored in
#: its newest matches only, so the channel's cost follows what it returns, not how common a
#: word is (docs/benchmark-history.md, "The keyword channel's cost"), while a rare term's matches
#: are all scored, however old
KEYWORD_SCORED = 2000


def fts5_search(db: Any, scope: Scope, text: str, statuses: Sequence[str], limit: int) -> Scored:
    """(record id, bm25 relevance > 0) for records of scope whose tokens match text, best first.
    The matches are counted only in a scope of more than KEYWORD_SCORED records (`_scope_rows`)."""
    match = fts_query(text)
    if not match:
        return []
    sql, args = scope_sql(scope, "r")
    marks = ",".join("?" * len(statuses))
    # FTS5 itself keeps to the scope's rows; the scope token's column has weight 0 in BM25.
    token = scope_token(scope.user_id, scope.agent_id)
    scoped = f"scope : {token} AND tokens : ({match})"
    within, bounds = "", ()  # type: tuple[str, tuple]
    scored = _scored_rows(db, token, match) if _scope_rows(db, scope) > KEYWORD_SCORED else None
    if scored is not None:
        # the rows are the scope's already: without the scope's phrase FTS5 does not walk its
        # postings (every row of the user) to count its rows for BM25, a phrase that adds 0 to
        # each score (weight 0), so the scores are the same
        scoped = f"tokens : ({match})"
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


def _scope_rows(db: Any, scope: Scope) -> int:
    """How many records the scope's user and agent hold, any status: the keyword index holds a
    row for each at most, so a scope of KEYWORD_SCORED records or fewer cannot match more (the
    count is kept by triggers, `record_counts`: one row a status and type)."""
    return int(
        db.execute(
            "SELECT COALESCE(SUM(n), 0) FROM record_counts WHERE user_id = ? AND agent_id = ?",
            (scope.user_id, scope.agent_id),
        ).fetchone()[0]
    )


def _newest_matches(db: Any, expression: str) -> list[int]:
    """The row ids of the newest KEYWORD_SCORED + 1 matches of an FTS5 expression (FTS5 walks its
    doclists newest first and stops there: no BM25 is computed)."""
    return [
        row[0]
        for row in db.execute(
            "SELECT rowid FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
            (expression, KEYWORD_SCORED + 1),
        )
    ]


def _scored_rows(db: Any, token: str, match: str) -> set[int] | None:
    """The rows a request's BM25 is computed for when its terms match more than KEYWORD_SCORED
    rows of the scope: KEYWORD_SCORED, shared among the terms rarest first (each term's share is
    what is left over the terms not yet given); None when they match fewer (every match is
    scored). A term read to its cap matches more on its own; otherwise every term's matches are
    read, and their union is every match."""
    found = sorted(  # fts_query: quoted terms (no spaces inside) joined by OR
        (
            _newest_matches(db, f"scope : {token} AND tokens : {term}")
            for term in match.split(" OR ")
        ),
        key=len,
    )
    if len(found[-1]) <= KEYWORD_SCORED and len(set().union(*found)) <= KEYWORD_SCORED:
        return None
    rows: set[int] = set()
    left = KEYWORD_SCORED
    for given, newest in enumerate(found):
        taken = newest[: left // (len(found) - given)]
        rows.update(taken)
        left -= len(taken)
    return rows
