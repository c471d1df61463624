"""Looking inside a record store from outside the ports: what tests and audits ask that no
stage asks (how many rows a table holds for a user, every byte a store holds), and the few
ways a test damages a store on purpose (a corrupted keyword index, an older schema).

Stages never import this module; they speak to the ports (`ports.py`). The questions by table
and column (`count`, `select`) answer on SQLite, PostgreSQL and the in-memory store alike;
`rows` and `execute` take a statement in SQLite's spelling (`?` marks), for the tests of the
SQL layer itself (migrations, schema, damage and repair), on SQLite and PostgreSQL only.
"""

from __future__ import annotations

import dataclasses
import enum
import sqlite3
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from ..errors import StoreError
from .ports import RecordStore

__all__ = [
    "count",
    "delete",
    "execute",
    "file_rows",
    "insert",
    "keyword_hits",
    "rows",
    "select",
    "stored_bytes",
    "tables",
]

#: the characters of a table or column name as the schema spells them (never user text)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
#: the in-memory store's tables, as it holds them (see `memory/base.py`'s State)
_MEMORY_TABLES = (
    "records",
    "vectors",
    "versions",
    "audit",
    "outbox",
    "sessions",
    "messages",
    "entities",
    "entity_aliases",
    "entity_links",
)
#: the column that orders a table's rows as they were written (others: SQLite's rowid)
_WRITTEN_ORDER = {
    "records": "rid",
    "audit": "seq",
    "outbox": "seq",
    "messages": "seq",
    "entity_links": "entity_id, rid",
}


def _is_postgres(store: RecordStore) -> bool:
    return type(store).__name__ == "PostgresRecordStore"


def _is_memory(store: RecordStore) -> bool:
    return hasattr(store, "s") and not hasattr(store, "db")


def _name(kind: str, name: str) -> str:
    if not name or name[0].isdigit() or not set(name) <= _NAME_CHARS:
        raise ValueError(
            f"{kind}: expected a lowercase SQL name (letters, digits, _), found {name!r}"
        )
    return name


def _spelled(store: RecordStore, sql: str) -> str:
    """A statement in SQLite's spelling, in the store's own (PostgreSQL takes `%s` marks)."""
    return sql.replace("?", "%s") if _is_postgres(store) else sql


def _sql_store(store: RecordStore, what: str) -> Any:
    if _is_memory(store):
        raise TypeError(
            f"{what}: expected a store over SQL (SQLite or PostgreSQL), found the in-memory "
            "store: ask through count() or select(), or keep the test on a real backend"
        )
    return store.db  # type: ignore[attr-defined]


def rows(store: RecordStore, sql: str, args: Sequence[Any] = ()) -> list[Any]:
    """The rows of one read-only statement written with SQLite's `?` marks (rows answer
    `row[0]` and `row["name"]`), on SQLite or PostgreSQL."""
    with _sql_store(store, "rows").read() as db:
        return list(db.execute(_spelled(store, sql), tuple(args)).fetchall())


def file_rows(path: str | Path, sql: str, args: Sequence[Any] = ()) -> list[Any]:
    """The rows of one read-only statement on a SQLite store file, opened read-only and not as
    a store (nothing is migrated or created): a file another process wrote, as it left it."""
    try:
        conn = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open read-only: {exc}") from exc
    try:
        conn.row_factory = sqlite3.Row
        return list(conn.execute(sql, tuple(args)).fetchall())
    finally:
        conn.close()


def execute(store: RecordStore, sql: str | Sequence[str], args: Sequence[Any] = ()) -> None:
    """Run one statement (or several, in a list) that changes the store, in one committed
    write transaction: how a test damages a store or rolls its schema back on purpose."""
    statements = [sql] if isinstance(sql, str) else list(sql)
    with _sql_store(store, "execute").write() as db:
        for statement in statements:
            db.execute(_spelled(store, statement), tuple(args))


def _where(where: Mapping[str, Any]) -> tuple[str, list[Any]]:
    """`column = ?` for a value, `IN (...)` for a list or tuple, `IS NULL` for None."""
    parts, args = [], []
    for column, value in where.items():
        _name("column", column)
        if value is None:
            parts.append(f"{column} IS NULL")
        elif isinstance(value, (list, tuple, set, frozenset)):
            values = list(value)
            parts.append(f"{column} IN ({', '.join('?' * len(values))})" if values else "0 = 1")
            args += values
        else:
            parts.append(f"{column} = ?")
            args.append(value.value if isinstance(value, enum.Enum) else value)
    return (" AND ".join(parts) or "1 = 1"), args


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def _record_row(record: Any, rid: int) -> dict[str, Any]:
    row = {f.name: _plain(getattr(record, f.name)) for f in dataclasses.fields(record)}
    scope, source = row.pop("scope"), row.pop("source")
    row.update(
        rid=rid,
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        workspace=scope.workspace,
        channel=source.channel.value,
    )
    return row


def _memory_rows(store: Any, table: str) -> Iterable[dict[str, Any]]:
    state = store.s
    if table == "records":
        return [_record_row(r, state.rids[r.id]) for r in state.records.values()]
    if table == "vectors":
        return [{"record_id": i, **row} for i, row in state.vectors.items()]
    if table in ("versions", "sessions"):
        return list(getattr(state, table).values())
    if table in ("audit", "outbox", "messages"):
        return list(getattr(state, table))
    return _memory_entity_rows(state.entities, table)


def _memory_entity_rows(held: Any, table: str) -> list[dict[str, Any]]:
    if table == "entities":
        return [{"id": i, **row} for i, row in held.entities.items()]
    if table == "entity_aliases":
        return [
            {"user_id": u, "agent_id": a, "alias": alias, "entity_id": e, "rid": rid}
            for (u, a, alias), (e, rid) in held.aliases.items()
        ]
    if table == "entity_links":
        return [
            {"entity_id": e, "rid": rid, "user_id": u, "agent_id": a, "seen_at": at}
            for (e, rid), (u, a, at) in held.links.items()
        ]
    raise ValueError(f"table: expected one of {', '.join(_MEMORY_TABLES)}, found {table!r}")


def _matches(row: Mapping[str, Any], where: Mapping[str, Any]) -> bool:
    for column, value in where.items():
        held = _plain(row.get(column))
        if isinstance(value, (list, tuple, set, frozenset)):
            if held not in {_plain(v) for v in value}:
                return False
        elif held != _plain(value):
            return False
    return True


def select(
    store: RecordStore, table: str, columns: Sequence[str] = (), **where: Any
) -> list[dict[str, Any]]:
    """The rows of a table whose columns equal the given values (a list or tuple: any of
    them; None: no value), as column -> value, in written order; `columns` keeps those only."""
    _name("table", table)
    wanted = [_name("column", c) for c in columns]
    if _is_memory(store):
        found = [row for row in _memory_rows(store, table) if _matches(row, where)]
        return [{c: row.get(c) for c in wanted} if wanted else dict(row) for row in found]
    cond, args = _where(where)
    order = _WRITTEN_ORDER.get(table) or ("" if _is_postgres(store) else "rowid")
    listed = ", ".join(wanted) or "*"
    sql = f"SELECT {listed} FROM {table} WHERE {cond}" + (f" ORDER BY {order}" if order else "")
    found = rows(store, sql, args)
    return [dict(zip(row.keys(), tuple(row))) for row in found]


def count(store: RecordStore, table: str, **where: Any) -> int:
    """How many rows of a table have these column values (as `select` matches them)."""
    _name("table", table)
    if _is_memory(store):
        return sum(1 for row in _memory_rows(store, table) if _matches(row, where))
    cond, args = _where(where)
    return int(rows(store, f"SELECT COUNT(*) FROM {table} WHERE {cond}", args)[0][0])


def delete(store: RecordStore, table: str, **where: Any) -> None:
    """Remove the rows of a table with these column values (as `select` matches them), on
    SQLite or PostgreSQL: a test damaging a store on purpose."""
    cond, args = _where(where)
    execute(store, f"DELETE FROM {_name('table', table)} WHERE {cond}", args)


def insert(store: RecordStore, table: str, **values: Any) -> None:
    """Add one row with these column values, on SQLite or PostgreSQL: a stray row a test
    plants (an orphan vector, a stale keyword entry)."""
    columns = ", ".join(_name("column", c) for c in values)
    marks = ", ".join("?" * len(values))
    execute(
        store,
        f"INSERT INTO {_name('table', table)}({columns}) VALUES ({marks})",
        [*values.values()],
    )


def keyword_hits(store: RecordStore, token: str) -> int:
    """How many entries of the keyword index, in every scope, hold this search token (as the
    index stores it: lowercased, segmented): SQLite's FTS5 table or the in-memory store's."""
    if _is_memory(store):
        held = store.s.tokens.values()  # type: ignore[attr-defined]
        return sum(1 for tokens in held if token in tokens)
    if _is_postgres(store):
        return count(store, "keyword_terms", term=token)
    found = rows(
        store, "SELECT COUNT(*) FROM records_fts WHERE records_fts MATCH ?", [f'"{token}"']
    )
    return int(found[0][0])


def tables(store: RecordStore) -> list[str]:
    """The names of the store's tables (the in-memory store: the ones it holds)."""
    if _is_memory(store):
        return list(_MEMORY_TABLES)
    if _is_postgres(store):
        found = rows(
            store,
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' "
            "ORDER BY table_name",
        )
    else:
        found = rows(store, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    return [r[0] for r in found]


def stored_bytes(store: RecordStore) -> bytes:
    """Everything the store holds, as bytes to search for a text: the SQLite file, every row
    of every table of the PostgreSQL database as text, or the in-memory store's state written
    out."""
    if _is_memory(store):
        return repr(store.s).encode("utf-8")  # type: ignore[attr-defined]
    if _is_postgres(store):
        out: list[str] = []
        for table in tables(store):
            out += [r[0] for r in rows(store, f'SELECT t::text FROM "{table}" t')]
        return "\n".join(out).encode("utf-8")
    return bytes(store.db.path.read_bytes())  # type: ignore[attr-defined]
