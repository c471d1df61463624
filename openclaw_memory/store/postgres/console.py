"""The console's memory list in PostgreSQL: keyset pages over (sort value, rid).

Without a text filter a page is one index range per request (`rec_list_updated` /
`rec_list_created`: scope, status, sort value, rid); with one, the filter's newest
`ListQuery.text_cap` keyword matches are read once, by rid, as on SQLite.
"""

from __future__ import annotations

from typing import Any

from ...types import Scope
from ..ports import ListPage, ListQuery
from . import keywords
from .db import Connection, PostgresDatabase
from .sql import to_record

_COLUMNS = {"updated_at", "created_at"}


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _conditions(scope: Scope, q: ListQuery) -> tuple[list[str], list[Any], bool]:
    """The filters as SQL, without the status."""
    where = ["user_id = %s", "agent_id = %s"]
    args: list[Any] = [scope.user_id, scope.agent_id]
    if q.type:
        where.append("type = %s")
        args.append(q.type)
    if q.types:
        where.append("type = ANY(%s)")
        args.append(list(q.types))
    if q.subject:
        where.append("subject LIKE %s ESCAPE '\\'")
        args.append(_like_prefix(q.subject))
    if q.created_from is not None:
        where.append("created_at >= %s")
        args.append(q.created_from)
    if q.created_to is not None:
        where.append("created_at < %s")
        args.append(q.created_to)
    text_filter = bool(q.text.strip())
    if text_filter:
        where.append(
            "rid IN (SELECT rid FROM (SELECT DISTINCT rid FROM keyword_terms WHERE user_id = %s "
            "AND agent_id = %s AND term = ANY(%s)) m ORDER BY rid DESC LIMIT %s)"
        )
        args += [scope.user_id, scope.agent_id, keywords.query_terms(q.text), q.text_cap]
    return where, args, text_filter


class Console:
    db: PostgresDatabase

    def list_page(self, scope: Scope, q: ListQuery) -> ListPage:
        if q.column not in _COLUMNS:
            raise ValueError(f"column: expected one of {sorted(_COLUMNS)}, found {q.column!r}")
        where, args, text_filter = _conditions(scope, q)
        with self.db.read() as c:
            total, keys = (_text_keys if text_filter else _index_keys)(c, where, args, q)
            keys.sort(reverse=q.order == "desc")
            more = len(keys) > q.size
            keys = keys[: q.size]
            found = {
                row["rid"]: row
                for row in c.execute(
                    "SELECT * FROM records WHERE rid = ANY(%s)", ([rid for _, rid in keys],)
                ).fetchall()
            }
        rows = [to_record(found[rid]) for _, rid in keys if rid in found]
        return ListPage(rows, keys[-1] if more and keys else None, total, text_filter)


def _index_keys(
    c: Connection, where: list[str], args: list[Any], q: ListQuery
) -> tuple[int, list[tuple[float, int]]]:
    statuses = list(q.statuses)
    scoped = [*where, "status = ANY(%s)"]
    total = c.execute(
        f"SELECT COUNT(*) FROM (SELECT 1 FROM records WHERE {' AND '.join(scoped)} LIMIT %s) n",
        (*args, statuses, q.count_cap + 1),
    ).fetchone()[0]
    if not total:
        return 0, []
    part, part_args = scoped, [*args, statuses]
    if q.after is not None:
        part = [*part, f"({q.column}, rid) {'<' if q.order == 'desc' else '>'} (%s, %s)"]
        part_args = [*part_args, *q.after]
    direction = "DESC" if q.order == "desc" else "ASC"
    rows = c.execute(
        f"SELECT {q.column}, rid FROM records WHERE {' AND '.join(part)} "
        f"ORDER BY {q.column} {direction}, rid {direction} LIMIT %s",
        (*part_args, q.size + 1),
    ).fetchall()
    return int(total), [(r[0], r[1]) for r in rows]


def _text_keys(
    c: Connection, where: list[str], args: list[Any], q: ListQuery
) -> tuple[int, list[tuple[float, int]]]:
    rows = c.execute(
        f"SELECT {q.column}, rid, status FROM records WHERE {' AND '.join(where)}", args
    ).fetchall()
    matched = [(r[0], r[1]) for r in rows if r[2] in q.statuses]
    if q.after is None:
        return len(matched), matched
    cursor = tuple(q.after)
    return len(matched), [k for k in matched if (k < cursor if q.order == "desc" else k > cursor)]
