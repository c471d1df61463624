"""`openclaw-memory migrate --to postgresql://...`: copy a SQLite store into PostgreSQL.

Everything the store holds is copied in one PostgreSQL transaction, table by table with
`COPY ... FROM STDIN` (rows streamed in batches, never one statement per row): records with
their row ids (so entity links and keyword rows keep pointing at them), versions, stored
vectors, the outbox, audit, sessions, short-term messages, meta, the maintenance log, and the
entities with their aliases and links (and the cursor of the records still to link to theirs,
store/entity_linking.py). The keyword index takes each record's tokens as SQLite's
FTS5 table holds them. During the load the secondary indexes are dropped and the row triggers
of `records` and `keyword_docs` are off; afterwards the indexes are rebuilt and the rows those
triggers keep (counts per scope and type, turn ids, BM25 statistics per scope) are computed in
one statement each. The vectors in Chroma stay where they are: the same collections serve both
backends.

Afterwards every copied table's row count is compared with the source's, and the derived rows
with the records they come from; a difference rolls the whole copy back. The target must hold
no records (a copy never merges two stores).
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator

from ...errors import StoreError
from ...lang.text import fts_document
from ..sqlite import Database
from ..keys import StoreKey, resolve_key
from ..records import row_to_record
from . import Connection
from . import PostgresDatabase
from .dialect import document_terms

#: tables copied column for column, in this order, with the key that orders the copy
_TABLES = {
    "records": "rid",
    "versions": "record_id, version",
    "vectors": "record_id",
    "outbox": "seq",
    "audit": "seq",
    "sessions": "user_id, agent_id, id",
    "messages": "seq",
    "meta": "key",
    "maintenance_runs": "id",
    "entities": "id",
    "entity_aliases": "user_id, agent_id, alias",
    "entity_links": "entity_id, rid",
}
#: tables whose serial key is copied as is, then the sequence moved past it
_SERIALS = {
    "records": "rid",
    "outbox": "seq",
    "audit": "seq",
    "messages": "seq",
    "maintenance_runs": "id",
    "entities": "id",
}
#: tables whose row triggers keep derived rows; off during the load, the rows computed after
_TRIGGERED = ("records", "keyword_docs")
#: the derived tables, each filled by one statement from the loaded rows
_DERIVED = {
    "record_counts": "INSERT INTO record_counts(user_id, agent_id, status, type, n) "
    "SELECT user_id, agent_id, status, type, COUNT(*) FROM records GROUP BY 1, 2, 3, 4",
    "record_turns": "INSERT INTO record_turns(user_id, agent_id, turn_id, rid) "
    "SELECT DISTINCT r.user_id, r.agent_id, j.value, r.rid FROM records r, "
    "jsonb_array_elements_text(r.turn_ids::jsonb) AS j(value)",
    "keyword_stats": "INSERT INTO keyword_stats(user_id, agent_id, docs, length) "
    "SELECT user_id, agent_id, COUNT(*), SUM(length) FROM keyword_docs GROUP BY 1, 2",
}
#: rows read from SQLite at a time
BATCH = 5000

#: progress(table, rows copied so far)
Progress = Callable[[str, int], None]


def copy_store(
    source: Path,
    target: PostgresDatabase,
    progress: Progress | None = None,
    *,
    key: StoreKey | None = None,
) -> dict[str, int]:
    """Copy the SQLite store at source (encrypted with key, when given) into target; returns
    rows copied per table (checked)."""
    if not source.is_file():
        raise StoreError(f"{source}: no SQLite store to copy (storage.sqlite_path)")
    store = Database(source, key=key)  # brings an older store's schema up to date first
    try:
        with store.read() as src, target.write() as dst:
            if dst.execute("SELECT EXISTS (SELECT 1 FROM records)").fetchone()[0]:
                raise StoreError(
                    f"{target.where}: the target already holds records; migrate copies into an "
                    "empty database only"
                )
            indexes = _drop_secondary_indexes(dst)
            for table in _TRIGGERED:
                dst.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
            counts = {table: _copy_table(src, dst, table, progress) for table in _TABLES}
            counts["keyword_docs"] = _copy_keywords(src, dst, progress)
            for table in _TRIGGERED:
                dst.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
            for sql in _DERIVED.values():
                dst.execute(sql)
            _copy_entity_backlog(src, dst)
            for sql in indexes:
                dst.execute(sql)
            for table, column in _SERIALS.items():
                dst.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                    f"COALESCE((SELECT MAX({column}) FROM {table}), 0) + 1, false)"
                )
            _check(src, dst, counts)
    except store.driver.DatabaseError as exc:
        raise StoreError(f"{source}: cannot read the SQLite store: {exc}") from exc
    finally:
        store.close()
    with target.read() as dst:
        dst.execute("ANALYZE")  # the planner's statistics, before the first query needs them
    return counts


def _copy_entity_backlog(src: sqlite3.Connection, dst: Connection) -> None:
    """The records the SQLite store had still to link to their entities stay to be linked
    (store/entity_linking.py): the backlog's cursor comes along with the rids it counts."""
    row = src.execute("SELECT next_rid, upto FROM entity_backfill").fetchone()
    if row is not None:
        dst.execute("UPDATE entity_backfill SET next_rid = %s, upto = %s", (row[0], row[1]))


def _drop_secondary_indexes(dst: Connection) -> list[str]:
    """Drop the indexes the load would otherwise update row by row (not those of a primary key
    or unique constraint); returns the statements that rebuild them."""
    rows = dst.execute(
        "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.schemaname = current_schema() "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname "
        "AND c.connamespace = to_regnamespace(current_schema())::oid)"
    ).fetchall()
    for name, _ in rows:
        dst.execute(f'DROP INDEX "{name}"')
    return [definition for _, definition in rows]


def _columns(src: sqlite3.Connection, dst: Connection, table: str) -> list[str]:
    """The source's columns the target's table has too, in the source's order."""
    target_cols = {
        r[0]
        for r in dst.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
            "AND table_schema = current_schema()",
            (table,),
        )
    }
    return [r[1] for r in src.execute(f"PRAGMA table_info({table})") if r[1] in target_cols]


def _copy_table(
    src: sqlite3.Connection, dst: Connection, table: str, progress: Progress | None
) -> int:
    cols = ", ".join(_columns(src, dst, table))
    rows = src.execute(f"SELECT {cols} FROM {table} ORDER BY {_TABLES[table]}")
    return dst.copy_rows(
        f"COPY {table} ({cols}) FROM STDIN", _batches(rows, table, progress, _bytes)
    )


def _copy_keywords(src: sqlite3.Connection, dst: Connection, progress: Progress | None) -> int:
    """keyword_docs, then keyword_terms, from each record's FTS5 tokens (a record without
    them, which a write never leaves, gets its tokens made again). Two passes over the source:
    a connection runs one COPY at a time, and holding every term until the second would cost
    more memory than reading the tokens again."""

    def documents() -> Iterator[tuple[int, str, str, str]]:
        rows = src.execute(
            "SELECT r.*, f.tokens AS fts_tokens FROM records r "
            "LEFT JOIN records_fts f ON f.rowid = r.rid ORDER BY r.rid"
        )
        while batch := rows.fetchmany(BATCH):
            for row in batch:
                tokens = row["fts_tokens"]
                if tokens is None:
                    tokens = fts_document(row_to_record(row).text)
                yield row["rid"], row["user_id"], row["agent_id"], tokens

    def doc_rows() -> Iterator[tuple[Any, ...]]:
        n = 0
        for rid, user, agent, tokens in documents():
            yield rid, user, agent, len(document_terms(tokens)) + 1, tokens
            n += 1
            if progress is not None and n % BATCH == 0:
                progress("keyword_docs", n)

    def term_rows() -> Iterator[tuple[Any, ...]]:
        for rid, user, agent, tokens in documents():
            for term, tf in Counter(document_terms(tokens)).items():
                yield user, agent, term, rid, tf

    n = dst.copy_rows(
        "COPY keyword_docs (rid, user_id, agent_id, length, tokens) FROM STDIN", doc_rows()
    )
    dst.copy_rows("COPY keyword_terms (user_id, agent_id, term, rid, tf) FROM STDIN", term_rows())
    return n


def _batches(
    rows: sqlite3.Cursor, table: str, progress: Progress | None, convert: Callable[[Any], Any]
) -> Iterator[tuple[Any, ...]]:
    n = 0
    while batch := rows.fetchmany(BATCH):
        for row in batch:
            yield tuple(convert(v) for v in row)
        n += len(batch)
        if progress is not None:
            progress(table, n)


def _bytes(v: Any) -> Any:
    return bytes(v) if isinstance(v, memoryview) else v


def _check(src: sqlite3.Connection, dst: Connection, counts: dict[str, int]) -> None:
    """Every copied table holds as many rows as the source's, the keyword index one document
    per record, and the derived rows account for every record and document."""
    for table, copied in counts.items():
        source = "records" if table == "keyword_docs" else table
        want = src.execute(f"SELECT COUNT(*) FROM {source}").fetchone()[0]
        have = dst.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        if not want == have == copied:
            raise StoreError(
                f"migrate: table {table}: {want} row(s) in SQLite, {have} in PostgreSQL after "
                f"copying {copied}; nothing was kept"
            )
    derived = {
        "record_counts": dst.execute("SELECT COALESCE(SUM(n), 0) FROM record_counts").fetchone()[0],
        "keyword_stats": dst.execute("SELECT COALESCE(SUM(docs), 0) FROM keyword_stats").fetchone()[
            0
        ],
    }
    for table, total in derived.items():
        if total != counts["records"]:
            raise StoreError(
                f"migrate: {table} counts {total} for {counts['records']} records; nothing was kept"
            )


def add_parser(subparsers: Any) -> Any:
    """Add `migrate --to DSN`."""
    p = subparsers.add_parser(
        "migrate",
        help="copy the SQLite store into an empty PostgreSQL database",
        description="Copy records, version chains, vectors, audit, sessions, messages and "
        "entities from the configured SQLite store into PostgreSQL and check the counts. The "
        "Chroma index is shared, not copied. Then set storage.backend: postgres.",
    )
    p.add_argument(
        "--to",
        dest="dsn",
        default="",
        metavar="DSN",
        help="postgresql://user@host:5432/db (default: storage.postgres.dsn, then "
        "$OPENCLAW_MEMORY_PG_DSN; prefer those for a password)",
    )
    p.set_defaults(func=run)
    return p


def run(args: Any, config: Any) -> int:
    """Entry for `openclaw-memory migrate`."""
    from . import resolve_dsn

    from ...core.progress import TerminalProgress

    dsn = resolve_dsn(args.dsn or config.storage.postgres.dsn)
    target = PostgresDatabase(dsn)
    try:
        with TerminalProgress("migrate") as bars:  # rows copied per table, on a terminal only
            counts = copy_store(
                config.sqlite_file, target, progress=bars.count, key=resolve_key(config)
            )
    finally:
        target.close()
    print(f"copied {config.sqlite_file} -> {target.where}")
    for table, n in counts.items():
        print(f"  {table:<17} {n:>9}  (counts match)")
    return 0
