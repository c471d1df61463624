"""The console's memory list in SQLite: keyset pages served by the list indexes.

Each status is one range of a list index (`rec_list_updated` / `rec_list_created`: status, sort
value, rid, then every filter column), so a page reads index entries up to the cursor and its
rows, never the rows the filters reject; "every status" merges one range per status. A text
filter reads its keyword matches (at most `ListQuery.text_cap`) once, by rid.
"""

from __future__ import annotations

from typing import Any

from ...lang.text import fts_query
from ...types import Scope
from .. import records as rec
from ..ports import ListPage, ListQuery
from ..schema import scope_token
from .base import SQLiteBase

_COLUMNS = {"updated_at", "created_at"}


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _conditions(scope: Scope, q: ListQuery) -> tuple[list[str], list[Any], bool]:
    """The filters as SQL, without the status (a page asks one status at a time). With a text
    filter the rows are found by their keyword matches: the `+` keeps SQLite from walking a
    (user, agent) index past every row of the user instead."""
    capped = bool(q.text.strip())
    c = "+" if capped else ""
    where = [f"{c}user_id = ?", f"{c}agent_id = ?"]
    args: list[Any] = [scope.user_id, scope.agent_id]
    if q.type:
        where.append(f"{c}type = ?")
        args.append(q.type)
    if q.types:
        where.append(f"{c}type IN ({','.join('?' * len(q.types))})")
        args += list(q.types)
    if q.subject:
        where.append("subject LIKE ? ESCAPE '\\'")
        args.append(_like_prefix(q.subject))
    if q.created_from is not None:
        where.append(f"{c}created_at >= ?")
        args.append(q.created_from)
    if q.created_to is not None:
        where.append(f"{c}created_at < ?")
        args.append(q.created_to)
    if capped:
        match = fts_query(q.text)
        if not match:
            where.append("0")
        else:
            where.append(
                "rid IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ? "
                "ORDER BY rowid DESC LIMIT ?)"
            )
            args += [
                f"scope : {scope_token(scope.user_id, scope.agent_id)} AND tokens : ({match})",
                q.text_cap,
            ]
    return where, args, capped


class ConsoleMixin(SQLiteBase):
    def counts_by_scope(self) -> list[dict[str, Any]]:
        # from the counts the store keeps by trigger (schema migration 8)
        with self._read() as db:
            rows = db.execute(
                "SELECT user_id, agent_id, status, type, n FROM record_counts WHERE n > 0"
            ).fetchall()
        return [dict(r) for r in rows]

    def list_page(self, scope: Scope, q: ListQuery) -> ListPage:
        if q.column not in _COLUMNS:
            raise ValueError(f"column: expected one of {sorted(_COLUMNS)}, found {q.column!r}")
        where, args, text_filter = _conditions(scope, q)
        with self._read() as db:
            if text_filter:
                total, keys = _text_keys(db, where, args, q)
            else:
                total, keys = _index_keys(db, where, args, q)
            keys.sort(reverse=q.order == "desc")
            more = len(keys) > q.size
            keys = keys[: q.size]
            marks = ",".join("?" * len(keys))
            found = (
                {
                    r["rid"]: r
                    for r in db.execute(
                        f"SELECT * FROM records WHERE rid IN ({marks})", [rid for _, rid in keys]
                    )
                }
                if keys
                else {}
            )
        rows = [rec.row_to_record(found[rid]) for _, rid in keys if rid in found]
        return ListPage(rows, keys[-1] if more and keys else None, total, text_filter)


def _index_keys(
    db: Any, where: list[str], args: list[Any], q: ListQuery
) -> tuple[int, list[tuple[float, int]]]:
    """The count (capped, by whichever covering index SQLite picks) and each status's next
    `size + 1` (sort value, rid) from its range of the list index on the column (none when
    nothing matches: a filter matching nothing reads the index once, not once per status)."""
    col, statuses = q.column, list(q.statuses)
    counted, count_args = (
        (where, args) if len(statuses) > 1 else ([*where, "status = ?"], [*args, *statuses])
    )
    total = db.execute(
        f"SELECT COUNT(*) FROM (SELECT 1 FROM records WHERE {' AND '.join(counted)} "
        f"LIMIT {q.count_cap + 1})",
        count_args,
    ).fetchone()[0]
    keys: list[tuple[float, int]] = []
    for status in statuses if total else ():
        part, part_args = [*where, "status = ?"], [*args, status]
        if q.after is not None:
            value, rid = q.after
            part, part_args = (
                [*part, f"({col}, rid) {'<' if q.order == 'desc' else '>'} (?, ?)"],
                [*part_args, value, rid],
            )
        direction = q.order.upper()
        keys += [
            (r[0], r[1])
            for r in db.execute(
                f"SELECT {col}, rid FROM records INDEXED BY rec_list_{col.split('_')[0]} "
                f"WHERE {' AND '.join(part)} ORDER BY {col} {direction}, rid {direction} LIMIT ?",
                (*part_args, q.size + 1),
            )
        ]
    return total, keys


def _text_keys(
    db: Any, where: list[str], args: list[Any], q: ListQuery
) -> tuple[int, list[tuple[float, int]]]:
    """The count and the (sort value, rid) after the cursor among the text filter's matches,
    read once by rid (the count and the page from the same read)."""
    rows = db.execute(
        f"SELECT {q.column}, rid, status FROM records WHERE {' AND '.join(where)}", args
    ).fetchall()
    matched = [(r[0], r[1]) for r in rows if r[2] in q.statuses]
    if q.after is None:
        return len(matched), matched
    cursor = q.after
    return len(matched), [k for k in matched if (k < cursor if q.order == "desc" else k > cursor)]
