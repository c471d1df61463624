"""The SQL condition of a scope, shared by the SQLite statements of `records` and `entities`."""

from __future__ import annotations

from ..types import Scope


def scope_sql(scope: Scope, alias: str = "", *, by_id: bool = False) -> tuple[str, list]:
    """The scope's condition. `by_id`: for a lookup by a list of ids, which should use the id's
    unique index; SQLite otherwise picked a (user, agent) index and scanned every row of the
    user (3 ms at 1,000 records a user)."""
    a = ("+" if by_id else "") + (f"{alias}." if alias else "")
    sql = f"{a}user_id = ? AND {a}agent_id = ?"
    args: list = [scope.user_id, scope.agent_id]
    if scope.workspace is not None:
        sql += f" AND ({a}workspace = ? OR {a}workspace IS NULL)"
        args.append(scope.workspace)
    return sql, args
