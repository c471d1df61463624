"""The episodes around episodes, read in two statements for any number of them: the read path
delivers a recalled turn with the turns just before and after it in its session
(`recall/context.py`), for a dozen turns a request (three statements each before)."""

from __future__ import annotations

import sqlite3
from typing import Iterable, Sequence

from ..types import MemoryRecord, Scope
from .record_rows import row_to_record
from .scope_sql import scope_sql as _scope_sql

#: (earlier, later) of an episode: nearest first
Around = tuple[list[MemoryRecord], list[MemoryRecord]]


def neighbours_of(
    db: sqlite3.Connection,
    scope: Scope,
    record_ids: Sequence[str],
    *,
    before: int,
    after: int,
    now: float,
) -> dict[str, Around]:
    """`session_neighbours` of several episodes in two statements (one finds them, one reads
    every window as a subquery of a UNION ALL: 3 statements an episode before); a record met in
    several windows is converted once. Every id is a key (([], []) for no episode of scope's)."""
    sql, args = _scope_sql(scope, by_id=True)
    out: dict[str, Around] = {rid: ([], []) for rid in record_ids}
    for chunk in _chunks(list(dict.fromkeys(record_ids)), 100):
        marks = ",".join("?" * len(chunk))
        found = db.execute(
            f"SELECT id, rid, session_id, created_at FROM records WHERE id IN ({marks}) AND {sql}",
            (*chunk, *args),
        ).fetchall()
        windows = [row for row in found if row["session_id"] is not None]
        if windows and (before > 0 or after > 0):
            _read_windows(db, scope, windows, before, after, now, out)
    return out


def _read_windows(
    db: sqlite3.Connection,
    scope: Scope,
    found: list,
    before: int,
    after: int,
    now: float,
    out: dict[str, Around],
) -> None:
    sql, args = _scope_sql(scope)
    # `+type`: walk the session's index (rec_session_scope) from the episode's time on; on
    # (user, agent, type, created_at) SQLite walked the user's whole history to reach the session.
    live = (
        f"{sql} AND session_id = ? AND +type = 'episode' AND status = 'active' "
        f"AND (expires_at IS NULL OR expires_at > ?)"
    )
    sides = [
        (0, before, "created_at <= ? AND (created_at < ? OR rid < ?)", "DESC"),
        (1, after, "created_at >= ? AND (created_at > ? OR rid > ?)", "ASC"),
    ]
    parts, params = [], []  # type: tuple[list[str], list]
    for i, row in enumerate(found):
        base = (*args, row["session_id"], now, row["created_at"], row["created_at"], row["rid"])
        for side, limit, where, order in sides:
            if limit > 0:
                parts.append(
                    f"SELECT * FROM (SELECT {i} AS _w, {side} AS _s, * FROM records "
                    f"WHERE {live} AND {where} ORDER BY created_at {order}, rid {order} LIMIT ?)"
                )
                params.extend((*base, int(limit)))
    made: dict[str, MemoryRecord] = {}
    windows: list[tuple[list, list]] = [([], []) for _ in found]
    for row in db.execute(" UNION ALL ".join(parts), params):
        windows[row["_w"]][row["_s"]].append((row["created_at"], row["rid"], row))
    for row, (earlier, later) in zip(found, windows):
        # nearest first, as each subquery ordered them (a UNION ALL need not keep that order)
        earlier.sort(key=lambda t: (t[0], t[1]), reverse=True)
        later.sort(key=lambda t: (t[0], t[1]))
        out[row["id"]] = (
            [_made(made, t[2]) for t in earlier],
            [_made(made, t[2]) for t in later],
        )


def _made(made: dict[str, MemoryRecord], row: sqlite3.Row) -> MemoryRecord:
    r = made.get(row["id"])
    if r is None:
        r = made[row["id"]] = row_to_record(row)
    return r


def _chunks(items: list, size: int) -> Iterable[list]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
