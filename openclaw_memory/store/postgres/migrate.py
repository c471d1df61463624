"""`openclaw-memory migrate --to postgresql://...`: copy a SQLite store into PostgreSQL.

Records (with their version chains), versions, stored vectors, the outbox, audit, sessions,
short-term messages, meta and the maintenance log are copied in one PostgreSQL transaction;
the keyword index is built from each record's text as a write would build it. The vectors in
Chroma stay where they are: the same collections serve both backends. Afterwards every table's
row count is compared with the source's; a difference rolls the copy back. The target must
hold no records (a copy never merges two stores).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Callable

from ...errors import StoreError
from ...types import MemoryRecord
from ..db import Database
from ..records import row_to_record
from . import keywords
from .db import Connection, PostgresDatabase
from .entities import link_record
from .sql import COLUMNS, PLACEHOLDERS, row_values

#: tables copied column for column, with their key (the copy keeps the source's order)
_TABLES = {
    "versions": "record_id, version",
    "vectors": "record_id",
    "outbox": "seq",
    "audit": "seq",
    "sessions": "user_id, agent_id, id",
    "messages": "seq",
    "meta": "key",
    "maintenance_runs": "id",
}
#: tables whose serial key is copied as is, then the sequence moved past it
_SERIALS = {"outbox": "seq", "audit": "seq", "messages": "seq", "maintenance_runs": "id"}
BATCH = 1000

#: progress(table, rows copied so far)
Progress = Callable[[str, int], None]


def copy_store(
    source: Path, target: PostgresDatabase, progress: Progress | None = None
) -> dict[str, int]:
    """Copy the SQLite store at source into target; returns rows copied per table (checked)."""
    if not source.is_file():
        raise StoreError(f"{source}: no SQLite store to copy (storage.sqlite_path)")
    store = Database(source)  # brings an older store's schema up to date first
    try:
        with store.read() as src, target.write() as dst:
            if dst.execute("SELECT EXISTS (SELECT 1 FROM records)").fetchone()[0]:
                raise StoreError(
                    f"{target.where}: the target already holds records; migrate copies into an "
                    "empty database only"
                )
            counts = {"records": _copy_records(src, dst, progress)}
            for table in _TABLES:
                counts[table] = _copy_table(src, dst, table, progress)
            for table, key in _SERIALS.items():
                dst.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', '{key}'), "
                    f"COALESCE((SELECT MAX({key}) FROM {table}), 0) + 1, false)"
                )
            _check(src, dst, counts)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{source}: cannot read the SQLite store: {exc}") from exc
    finally:
        store.close()
    return counts


def _copy_records(src: sqlite3.Connection, dst: Connection, progress: Progress | None) -> int:
    n = 0
    rows = src.execute("SELECT * FROM records ORDER BY rid")
    while batch := rows.fetchmany(BATCH):
        for row in batch:
            r: MemoryRecord = row_to_record(row)
            rid = dst.execute(
                f"INSERT INTO records ({COLUMNS}) VALUES ({PLACEHOLDERS}) RETURNING rid",
                row_values(r),
            ).fetchone()[0]
            keywords.index(dst, rid, r.scope, r.text)
            link_record(dst, rid, r)  # entity links rebuilt in write order, as on write
        n += len(batch)
        if progress is not None:
            progress("records", n)
    return n


def _copy_table(
    src: sqlite3.Connection, dst: Connection, table: str, progress: Progress | None
) -> int:
    target_cols = {
        r[0]
        for r in dst.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s", (table,)
        )
    }
    cols = [r[1] for r in src.execute(f"PRAGMA table_info({table})") if r[1] in target_cols]
    marks = ", ".join(["%s"] * len(cols))
    insert = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks})"
    rows = src.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY {_TABLES[table]}")
    n = 0
    while batch := rows.fetchmany(BATCH):
        dst.executemany(insert, [tuple(_value(v) for v in row) for row in batch])
        n += len(batch)
        if progress is not None:
            progress(table, n)
    return n


def _value(v: Any) -> Any:
    return bytes(v) if isinstance(v, memoryview) else v


def _check(src: sqlite3.Connection, dst: Connection, counts: dict[str, int]) -> None:
    """Every table holds as many rows as the source's; the keyword index one row per record."""
    for table, copied in counts.items():
        want = src.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        have = dst.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        if not want == have == copied:
            raise StoreError(
                f"migrate: table {table}: {want} row(s) in SQLite, {have} in PostgreSQL after "
                f"copying {copied}; nothing was kept"
            )
    docs = dst.execute("SELECT COUNT(*) FROM keyword_docs").fetchone()[0]
    if docs != counts["records"]:
        raise StoreError(f"migrate: {docs} keyword document(s) for {counts['records']} records")


def add_parser(subparsers: Any) -> Any:
    """Add `migrate --to DSN`."""
    p = subparsers.add_parser(
        "migrate",
        help="copy the SQLite store into an empty PostgreSQL database",
        description="Copy records, version chains, vectors, audit, sessions and messages from the "
        "configured SQLite store into PostgreSQL and check the counts. The Chroma index is "
        "shared, not copied. Then set storage.backend: postgres.",
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

    dsn = resolve_dsn(args.dsn or config.storage.postgres.dsn)
    target = PostgresDatabase(dsn)
    try:
        counts = copy_store(config.sqlite_file, target)
    finally:
        target.close()
    print(f"copied {config.sqlite_file} -> {target.where}")
    for table, n in counts.items():
        print(f"  {table:<17} {n:>9}  (counts match)")
    return 0
