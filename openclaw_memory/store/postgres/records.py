"""Records in PostgreSQL: reads, writes and the keyword search (BM25 over the FTS5 tokens).

Over 600 lines: every statement of a record's rows, scoped, in one place.
"""

from __future__ import annotations

import functools
import re
import unicodedata
import numpy as np
import contextlib
import json
from collections import Counter
from typing import Any, Sequence, Iterable, Iterator
from ...lang.text import fts_document, search_tokens
from ...types import Scope, MemoryRecord, Status
from .db import (
    scope_sql,
    PostgresDatabase,
    to_record,
    to_records,
    Connection,
    COLUMN_NAMES,
    COLUMNS,
    PLACEHOLDERS,
    row_values,
)
from ...write.policy import types_where
from .. import tiered_index as vector_rows
from ..ports import TierVector
from ..records import content_hash
from .entities import link_record

# Keyword search in PostgreSQL: BM25 over the same tokens SQLite's FTS5 table holds, with the
# statistics of one (user, agent) scope.
#
# A record's document is `text.fts_document` (jieba search-mode words, Snowball stems), split the
# way FTS5's unicode61 tokenizer splits it (on anything but letters and digits, diacritics
# removed), so both backends match the same terms. The score is FTS5's bm25() (k1 = 1.2,
# b = 0.75, idf = ln((N - n + 0.5) / (n + 0.5)), at least 1e-6), but N, n and the average length
# count the documents of the searching scope only: on SQLite they count every user's.

_SPLIT = re.compile(r"[\W_]+", re.UNICODE)
K1, B = 1.2, 0.75


@functools.lru_cache(maxsize=1 << 16)
def _fold(token: str) -> tuple[str, ...]:
    """A token as unicode61 (remove_diacritics) indexes it: marks dropped, split on separators.
    Cached: a store's vocabulary is small next to its token count (a copy folds every token)."""
    bare = "".join(
        c for c in unicodedata.normalize("NFD", token) if unicodedata.category(c) != "Mn"
    )
    return tuple(t for t in _SPLIT.split(unicodedata.normalize("NFC", bare)) if t)


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


def index(conn: Any, rid: int, scope: Scope, text: str) -> None:
    """The record's keyword rows: its document and one row per distinct term."""
    tokens = fts_document(text)
    terms = Counter(document_terms(tokens))
    conn.execute(
        "INSERT INTO keyword_docs(rid, user_id, agent_id, length, tokens) VALUES (%s, %s, %s, %s, %s)",
        (rid, scope.user_id, scope.agent_id, sum(terms.values()) + 1, tokens),
    )
    if terms:  # one statement, whatever the number of terms
        conn.execute(
            "INSERT INTO keyword_terms(user_id, agent_id, term, rid, tf) "
            "SELECT %s, %s, t, %s, n FROM unnest(%s::text[], %s::int[]) AS u(t, n)",
            (scope.user_id, scope.agent_id, rid, list(terms), list(terms.values())),
        )


def unindex(conn: Any, rids: Sequence[int]) -> int:
    """Drop the keyword rows of these records; how many documents went."""
    if not rids:
        return 0
    conn.execute("DELETE FROM keyword_terms WHERE rid = ANY(%s)", (list(rids),))
    cur = conn.execute("DELETE FROM keyword_docs WHERE rid = ANY(%s)", (list(rids),))
    return int(cur.rowcount or 0)


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


def search(
    conn: Any, scope: Scope, text: str, *, statuses: Sequence[str], limit: int
) -> list[tuple[str, float]]:
    """(record id, relevance in (0, 1]) best first: BM25 divided by the best hit's."""
    terms = query_terms(text)
    if not terms:
        return []
    where, args = scope_sql(scope, "r", named=True)
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
    best = max((float(row[1]) for row in rows), default=0.0)
    if best <= 0:
        return [(row[0], 1.0) for row in rows]
    return [(row[0], float(row[1]) / best) for row in rows]


def tokens_for(conn: Any, ids: Sequence[str]) -> dict[str, frozenset[str]]:
    """record id -> its search tokens as the keyword index holds them."""
    rows = conn.execute(
        "SELECT r.id, d.tokens FROM records r JOIN keyword_docs d ON d.rid = r.rid "
        "WHERE r.id = ANY(%s)",
        (list(ids),),
    )
    return {row[0]: frozenset(row[1].split()) for row in rows}


# Reading records in PostgreSQL: every query scoped, each one an intention of the port.
#
# Lists come best first (or in the order the docstring of the port names); ties break by
# insertion order (`rid`), so results are deterministic.

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
            return search(c, scope, text, statuses=statuses, limit=limit)

    def search_tokens(self, ids: Sequence[str]) -> dict[str, frozenset[str]]:
        if not ids:
            return {}
        with self.db.read() as c:
            return tokens_for(c, ids)

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


# Writing records in PostgreSQL: rows, keyword rows, vectors, versions and the outbox.
#
# Each method runs inside `transaction()` (joining the caller's), so a record, its keyword rows,
# its vector and its outbox entry commit together.


class Writes:
    """Transactions and the record writes of the PostgreSQL record store."""

    db: PostgresDatabase

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Group the calls inside into one atomic write; nested transactions join the outer."""
        with self.db.write():
            yield

    def in_transaction(self) -> bool:
        return self.db.nested()

    def insert(self, record: MemoryRecord, vector: np.ndarray | None, model: str) -> None:
        with self.db.write() as c:
            rid = c.execute(
                f"INSERT INTO records ({COLUMNS}) VALUES ({PLACEHOLDERS}) RETURNING rid",
                row_values(record),
            ).fetchone()[0]
            index(c, rid, record.scope, record.text)
            link_record(c, rid, record)
            if vector is not None:
                _put_vector(c, record, vector, model)
            if record.status is not Status.INACTIVE:
                _enqueue(c, record, "upsert", record.created_at)

    def update(
        self, record: MemoryRecord, vector: np.ndarray | None, model: str, *, reindex: bool
    ) -> None:
        sets = ", ".join(f"{name} = %s" for name in COLUMN_NAMES[1:])
        with self.db.write() as c:
            row = c.execute(
                f"UPDATE records SET {sets} WHERE id = %s RETURNING rid",
                (*row_values(record)[1:], record.id),
            ).fetchone()
            if row is not None:  # a forgotten record loses its links, a restored one regains them
                link_record(c, row[0], record)
            if reindex and row is not None:
                unindex(c, [row[0]])
                index(c, row[0], record.scope, record.text)
                if vector is not None:
                    _put_vector(c, record, vector, model)
            op = "delete" if record.status is Status.INACTIVE else "upsert"
            _enqueue(c, record, op, record.updated_at)

    def put_parts(self, record: MemoryRecord, parts: np.ndarray | None) -> None:
        blob = None if parts is None or not len(parts) else _blob(parts)
        with self.db.write() as c:
            c.execute(
                "UPDATE vectors SET parts = %s WHERE record_id = %s AND content_hash = %s",
                (blob, record.id, content_hash(record)),
            )

    def save_version(self, old: MemoryRecord, superseded_at: float) -> None:
        with self.db.write() as c:
            c.execute(
                "INSERT INTO versions(record_id, version, user_id, agent_id, summary, detail, "
                "channel, confidence, turn_ids, valid_from, superseded_at) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (record_id, version) DO UPDATE SET user_id = EXCLUDED.user_id, "
                "agent_id = EXCLUDED.agent_id, summary = EXCLUDED.summary, "
                "detail = EXCLUDED.detail, channel = EXCLUDED.channel, "
                "confidence = EXCLUDED.confidence, turn_ids = EXCLUDED.turn_ids, "
                "valid_from = EXCLUDED.valid_from, superseded_at = EXCLUDED.superseded_at",
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

    def touch(self, scope: Scope, ids: Sequence[str], at: float) -> None:
        if not ids:
            return
        where, args = scope_sql(scope)
        with self.db.write() as c:
            c.execute(
                "UPDATE records SET access_count = access_count + 1, last_accessed_at = %s "
                f"WHERE {where} AND id = ANY(%s)",
                (at, *args, list(ids)),
            )

    def delete_records(self, scope: Scope, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        where, args = scope_sql(scope)
        with self.db.write() as c:
            rows = c.execute(
                f"SELECT rid, id FROM records WHERE {where} AND id = ANY(%s) ORDER BY rid",
                (*args, list(dict.fromkeys(ids))),
            ).fetchall()
            return _delete_rows(c, scope, rows)


def _delete_rows(c: Connection, scope: Scope, rows: Sequence[Any]) -> int:
    """Delete these (rid, id) rows with their keyword rows, vectors and versions; queue deletes."""
    if not rows:
        return 0
    rids, got = [r[0] for r in rows], [r[1] for r in rows]
    unindex(c, rids)
    c.execute("DELETE FROM vectors WHERE record_id = ANY(%s)", (got,))
    c.execute("DELETE FROM versions WHERE record_id = ANY(%s)", (got,))
    c.execute("DELETE FROM records WHERE rid = ANY(%s)", (rids,))
    c.executemany(
        "INSERT INTO outbox(record_id, user_id, agent_id, op, created_at) "
        "VALUES (%s, %s, %s, 'delete', 0)",
        [(i, scope.user_id, scope.agent_id) for i in got],
    )
    return len(got)


def _blob(arr: np.ndarray) -> bytes:
    return np.asarray(arr, dtype=np.float32).tobytes()


def _put_vector(c: Connection, r: MemoryRecord, vec: np.ndarray, model: str) -> None:
    arr = np.asarray(vec, dtype=np.float32)
    c.execute(
        "INSERT INTO vectors(record_id, model, content_hash, dim, vec) VALUES (%s, %s, %s, %s, %s) "
        "ON CONFLICT (record_id) DO UPDATE SET model = EXCLUDED.model, "
        "content_hash = EXCLUDED.content_hash, dim = EXCLUDED.dim, vec = EXCLUDED.vec, parts = NULL",
        (r.id, model, content_hash(r), int(arr.shape[0]), arr.tobytes()),
    )


def _enqueue(c: Connection, r: MemoryRecord, op: str, at: float) -> None:
    c.execute(
        "INSERT INTO outbox(record_id, user_id, agent_id, op, created_at) "
        "VALUES (%s, %s, %s, %s, %s)",
        (r.id, r.scope.user_id, r.scope.agent_id, op, at),
    )
