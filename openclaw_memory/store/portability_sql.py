"""Export and import of a user's rows (the JSONL format, Markdown, OpenClaw files): the
statements SQLite and PostgreSQL share, written once with their `Dialect`.

Each function takes an open connection of its backend (inside the backend's own read or write
transaction) and returns plain values.
"""

from __future__ import annotations

from typing import Any

from ..types import MemoryRecord, MemoryType, Scope
from .dialect import Dialect
from .records import content_hash, row_to_record

#: the user tables an export carries beside the records, and the columns that identify a row
USER_ROWS: dict[str, tuple[str, ...]] = {
    "versions": ("record_id", "version"),
    "audit": ("at", "agent_id", "record_id", "action", "reason"),
    "sessions": ("agent_id", "id"),
    "messages": ("agent_id", "session_id", "created_at", "role", "content"),
}


def user_where(d: Dialect, user_id: str, agent_id: str | None) -> tuple[str, list[str]]:
    """The condition selecting a user's rows (of one agent, when given)."""
    if agent_id is None:
        return f"user_id = {d.mark}", [user_id]
    return f"user_id = {d.mark} AND agent_id = {d.mark}", [user_id, agent_id]


def user_records(
    conn: Any, d: Dialect, user_id: str, agent_id: str | None, *, newest_first: bool
) -> list[MemoryRecord]:
    where, args = user_where(d, user_id, agent_id)
    order = "created_at DESC, rid DESC" if newest_first else "rid"
    rows = conn.execute(f"SELECT * FROM records WHERE {where} ORDER BY {order}", args).fetchall()
    return [row_to_record(r) for r in rows]


def user_rows(
    conn: Any, d: Dialect, table: str, user_id: str, agent_id: str | None, order: str
) -> list[dict[str, Any]]:
    """A user's rows of one USER_ROWS table in `order` (the written order), without `seq`."""
    if table not in USER_ROWS:
        raise ValueError(f"table: expected one of {sorted(USER_ROWS)}, found {table!r}")
    where, args = user_where(d, user_id, agent_id)
    rows = conn.execute(f"SELECT * FROM {table} WHERE {where} ORDER BY {order}", args).fetchall()
    return [{k: row[k] for k in row.keys() if k != "seq"} for row in rows]


def record_owner(conn: Any, d: Dialect, record_id: str) -> tuple[str, str] | None:
    row = conn.execute(
        f"SELECT user_id, agent_id FROM records WHERE id = {d.mark}", (record_id,)
    ).fetchone()
    return None if row is None else (row[0], row[1])


def holds(conn: Any, d: Dialect, scope: Scope, record: MemoryRecord) -> bool:
    """The store holds this record: its id, its text (any type, any status: the type list
    lets the (scope, type, hash) index answer), or its summary under the same type and
    subject."""
    m = d.mark
    types = tuple(t.value for t in MemoryType)
    row = conn.execute(
        f"SELECT EXISTS (SELECT 1 FROM records WHERE id = {m}) "
        f"OR EXISTS (SELECT 1 FROM records WHERE user_id = {m} AND agent_id = {m} "
        f"AND type IN ({d.marks(len(types))}) AND content_hash = {m}) "
        f"OR EXISTS (SELECT 1 FROM records WHERE user_id = {m} AND agent_id = {m} "
        f"AND type = {m} AND subject {d.same} {m} AND summary = {m})",
        (
            record.id,
            scope.user_id,
            scope.agent_id,
            *types,
            content_hash(record),
            scope.user_id,
            scope.agent_id,
            record.type.value,
            record.subject,
            record.summary,
        ),
    ).fetchone()
    return bool(row[0])


def import_row(conn: Any, d: Dialect, table: str, item: dict[str, Any]) -> int:
    """Add one exported row of a user table unless a row with its identity is there; returns 1
    when added. Unknown keys are ignored. conn: a write transaction."""
    key = USER_ROWS[table]
    columns = d.columns(conn, table) - {"seq"}
    values = {k: v for k, v in item.items() if k in columns}
    if table == "versions":
        values["turn_ids"] = values.get("turn_ids") or "[]"
    ident = ("user_id", *key)
    cond = " AND ".join(f"{k} {d.same} {d.mark}" for k in ident)
    if conn.execute(
        f"SELECT 1 FROM {table} WHERE {cond} LIMIT 1", [values.get(k) for k in ident]
    ).fetchone():
        return 0
    names = sorted(values)
    conn.execute(
        f"INSERT INTO {table} ({', '.join(names)}) VALUES ({d.marks(len(names))})",
        [values[n] for n in names],
    )
    return 1
