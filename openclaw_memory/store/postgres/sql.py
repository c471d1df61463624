"""Shared pieces of the PostgreSQL statements: the scope's condition and the record row."""

from __future__ import annotations

from typing import Any

from ...types import MemoryRecord, Scope
from ..records import _COLUMNS, _row_values, row_to_record

COLUMNS = _COLUMNS
COLUMN_NAMES = tuple(c.strip() for c in _COLUMNS.split(","))
PLACEHOLDERS = ", ".join(["%s"] * len(COLUMN_NAMES))


def scope_sql(scope: Scope, alias: str = "", *, named: bool = False) -> tuple[str, Any]:
    """The scope's condition and its arguments (a list, or a dict when `named`). A workspace
    scope also sees the records with no workspace."""
    a = f"{alias}." if alias else ""
    if named:
        sql = f"{a}user_id = %(s_user)s AND {a}agent_id = %(s_agent)s"
        args: dict[str, Any] = {"s_user": scope.user_id, "s_agent": scope.agent_id}
        if scope.workspace is not None:
            sql += f" AND ({a}workspace = %(s_ws)s OR {a}workspace IS NULL)"
            args["s_ws"] = scope.workspace
        return sql, args
    sql = f"{a}user_id = %s AND {a}agent_id = %s"
    values: list[Any] = [scope.user_id, scope.agent_id]
    if scope.workspace is not None:
        sql += f" AND ({a}workspace = %s OR {a}workspace IS NULL)"
        values.append(scope.workspace)
    return sql, values


def row_values(record: MemoryRecord) -> tuple:
    """The record's column values, in COLUMNS' order."""
    return _row_values(record)


def to_record(row: Any) -> MemoryRecord:
    """A `records` row (any row answering keys()) as a MemoryRecord."""
    return row_to_record(row)


def to_records(rows: Any) -> list[MemoryRecord]:
    return [row_to_record(r) for r in rows]
