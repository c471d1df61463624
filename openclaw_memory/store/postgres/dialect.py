"""The PostgreSQL dialect: its spellings, and the keyword index (BM25 over the FTS5 tokens).

A record's document is `text.fts_document` (jieba search-mode words, Snowball stems), split the
way FTS5's unicode61 tokenizer splits it (on anything but letters and digits, diacritics
removed), so both backends match the same terms. The score is FTS5's bm25() (k1 = 1.2,
b = 0.75, idf = ln((N - n + 0.5) / (n + 0.5)), at least 1e-6), but N, n and the average length
count the documents of the searching scope only: on SQLite they count every user's.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from typing import Any, Sequence

from ...lang.text import fts_document, search_tokens
from ...types import MemoryRecord, Scope
from ..sql import Dialect


class PostgresDialect(Dialect):
    lateral = True
    name = "postgres"
    mark = "%s"
    same = "IS NOT DISTINCT FROM"
    least = "LEAST"
    greatest = "GREATEST"
    tie = ", rid"
    binary = ' COLLATE "C"'

    def columns(self, conn: Any, table: str) -> set[str]:
        return {
            row[0]
            for row in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
                "AND table_schema = current_schema()",
                (table,),
            ).fetchall()
        }

    def upsert(self, table: str, columns: Sequence[str], key: Sequence[str]) -> str:
        rest = [c for c in columns if c not in key]
        return (
            f"INSERT INTO {table}({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))}) "
            f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET "
            + ", ".join(f"{c} = EXCLUDED.{c}" for c in rest)
        )

    def json_values(self) -> str:
        return "SELECT json_array_elements_text(?::json)"

    def extending(self, column: str, prefix: str) -> tuple[str, list[str]]:
        return f"starts_with({column}, ?) AND {column} <> ?", [prefix, prefix]

    # ---- the keyword index: keyword_docs (a record's tokens), keyword_terms (its terms) ----

    def index_text(self, conn: Any, rid: int, record: MemoryRecord) -> None:
        scope = record.scope
        tokens = fts_document(record.text)
        terms = Counter(document_terms(tokens))
        conn.execute(
            "INSERT INTO keyword_docs(rid, user_id, agent_id, length, tokens) "
            "VALUES (%s, %s, %s, %s, %s)",
            (rid, scope.user_id, scope.agent_id, sum(terms.values()) + 1, tokens),
        )
        if terms:  # one statement, whatever the number of terms
            conn.execute(
                "INSERT INTO keyword_terms(user_id, agent_id, term, rid, tf) "
                "SELECT %s, %s, t, %s, n FROM unnest(%s::text[], %s::int[]) AS u(t, n)",
                (scope.user_id, scope.agent_id, rid, list(terms), list(terms.values())),
            )

    def unindex(self, conn: Any, rids: Sequence[int]) -> int:
        if not rids:
            return 0
        conn.execute("DELETE FROM keyword_terms WHERE rid = ANY(%s)", (list(rids),))
        cur = conn.execute("DELETE FROM keyword_docs WHERE rid = ANY(%s)", (list(rids),))
        return int(cur.rowcount or 0)

    def keyword_search(
        self, conn: Any, scope: Scope, text: str, *, statuses: Sequence[str], limit: int
    ) -> list[tuple[str, float]]:
        terms = query_terms(text)
        if not terms:
            return []
        where, args = _named_scope(scope, "r")
        rows = conn.execute(
            _SEARCH.format(scope=where),
            {
                **args,
                "user": scope.user_id,
                "agent": scope.agent_id,
                "terms": terms,
                "statuses": list(statuses),
                "limit": int(limit),
            },
        ).fetchall()
        return [(row[0], float(row[1])) for row in rows]

    def search_tokens(self, conn: Any, ids: Sequence[str]) -> dict[str, frozenset[str]]:
        if not ids:
            return {}
        rows = conn.execute(
            "SELECT r.id, d.tokens FROM records r JOIN keyword_docs d ON d.rid = r.rid "
            "WHERE r.id = ANY(%s)",
            (list(ids),),
        )
        return {row[0]: frozenset(row[1].split()) for row in rows}

    def keyword_gaps(self, conn: Any) -> tuple[list[int], list[str]]:
        orphan = [
            r[0]
            for r in conn.execute(
                "SELECT d.rid FROM keyword_docs d "
                "WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.rid = d.rid) ORDER BY d.rid"
            ).fetchall()
        ]
        missing = [
            r[0]
            for r in conn.execute(
                "SELECT r.id FROM records r "
                "WHERE NOT EXISTS (SELECT 1 FROM keyword_docs d WHERE d.rid = r.rid) "
                "ORDER BY r.rid"
            ).fetchall()
        ]
        return orphan, missing

    def optimize_keyword_index(self, conn: Any) -> None:
        """Nothing to merge: deleted keyword rows are gone from the tables at once (`vacuum`
        then makes their space reusable)."""

    def text_filter(self, scope: Scope, text: str, cap: int) -> tuple[str, list[Any]]:
        # `?` marks: the condition joins a statement written with them
        return (
            "rid IN (SELECT rid FROM (SELECT DISTINCT rid FROM keyword_terms WHERE user_id = ? "
            "AND agent_id = ? AND term = ANY(?)) m ORDER BY rid DESC LIMIT ?)",
            [scope.user_id, scope.agent_id, query_terms(text), cap],
        )


POSTGRES = PostgresDialect()

#: FTS5's unicode61 tokenizer's separators (a format shape, not a language's): anything but
#: letters and digits
_SEPARATORS = re.compile(r"[\W_]+", re.UNICODE)
K1, B = 1.2, 0.75


@functools.lru_cache(maxsize=1 << 16)
def _fold(token: str) -> tuple[str, ...]:
    """A token as unicode61 (remove_diacritics) indexes it: marks dropped, split on separators.
    Cached: a store's vocabulary is small next to its token count (a copy folds every token)."""
    bare = "".join(
        c for c in unicodedata.normalize("NFD", token) if unicodedata.category(c) != "Mn"
    )
    return tuple(t for t in _SEPARATORS.split(unicodedata.normalize("NFC", bare)) if t)


def document_terms(tokens: str) -> list[str]:
    """The terms of a stored document (`fts_document`'s space-joined tokens), repeats kept."""
    return [t for tok in tokens.split() for t in _fold(tok)]


def query_terms(text: str, *, max_terms: int = 32) -> list[str]:
    """The distinct content terms of a query (`fts_query`'s tokens, stopwords dropped)."""
    seen: list[str] = []
    for tok in search_tokens(text, drop_stopwords=True):
        if tok not in seen:
            seen.append(tok)
    return list(dict.fromkeys(t for tok in seen[:max_terms] for t in _fold(tok)))


def _named_scope(scope: Scope, alias: str) -> tuple[str, dict[str, Any]]:
    """The scope's condition with named parameters (the search statement names its own)."""
    a = f"{alias}."
    sql = f"{a}user_id = %(s_user)s AND {a}agent_id = %(s_agent)s"
    args: dict[str, Any] = {"s_user": scope.user_id, "s_agent": scope.agent_id}
    if scope.workspace is not None:
        sql += f" AND ({a}workspace = %(s_ws)s OR {a}workspace IS NULL)"
        args["s_ws"] = scope.workspace
    return sql, args


_SEARCH = f"""
    WITH st AS (
        SELECT docs::float8 AS n, length::float8 / docs AS avgdl FROM keyword_stats
        WHERE user_id = %(user)s AND agent_id = %(agent)s
    ), df AS (
        SELECT term, count(*)::float8 AS n FROM keyword_terms
        WHERE user_id = %(user)s AND agent_id = %(agent)s AND term = ANY(%(terms)s)
        GROUP BY term
    ), idf AS (
        SELECT df.term, CASE WHEN x <= 0 THEN 1e-6 ELSE x END AS w
        FROM df, st, LATERAL (SELECT ln((st.n - df.n + 0.5) / (df.n + 0.5)) AS x) l
    )
    SELECT r.id AS id,
           SUM(idf.w * (t.tf * {K1 + 1}) / (t.tf + {K1} * ({1 - B} + {B} * d.length / st.avgdl)))
               AS score
    FROM keyword_terms t
    JOIN idf ON idf.term = t.term
    JOIN keyword_docs d ON d.rid = t.rid
    JOIN records r ON r.rid = t.rid
    CROSS JOIN st
    WHERE t.user_id = %(user)s AND t.agent_id = %(agent)s AND t.term = ANY(%(terms)s)
      AND r.status = ANY(%(statuses)s) AND {{scope}}
    GROUP BY r.id, r.rid
    ORDER BY score DESC, r.rid
    LIMIT %(limit)s
"""
