"""The episodes around episodes, read in one statement for any number of them: the read path
delivers a recalled turn with the turns just before and after it in its session
(`recall/context.py`), for a dozen turns a request (three statements each before).

The statement's text does not depend on how many episodes are asked for (their ids go in as
one JSON list), so SQLite's statement cache keeps it prepared: a text per count was planned
afresh on most requests, the other statements with lists of varying length evicting it, which
cost more than the statements it replaced.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Sequence

from ..types import MemoryRecord, Scope
from .record_rows import row_to_record
from .scope_sql import scope_sql

#: (earlier, later) of an episode: nearest first
Around = tuple[list[MemoryRecord], list[MemoryRecord]]

# `+type`, `+status`: seek the session in (user, agent, session, created_at) and walk it from
# the episode's time on; SQLite otherwise walked the user's history by (user, agent, type or
# status, created_at) through every other session's rows (2x the whole read at 10k memories)
_LIVE = (
    "{scope} AND e.session_id = ep.session_id AND +e.type = 'episode' AND +e.status = 'active' "
    "AND (e.expires_at IS NULL OR e.expires_at > ?)"
)
_SIDE = (
    "SELECT ep.id AS _w, {side} AS _s, r.* FROM ep JOIN records r ON r.rid IN ("
    "SELECT e.rid FROM records e WHERE {live} AND e.created_at {cmp}= ep.created_at "
    "AND (e.created_at {cmp} ep.created_at OR e.rid {cmp} ep.rid) "
    "ORDER BY e.created_at {order}, e.rid {order} LIMIT ?)"
)


def _statement(scope: Scope) -> tuple[str, list]:
    """The statement and its scope's arguments, in the order of its places: the episodes, the
    earlier side, the later side (each: scope, now, limit; the ids and limits are the caller's)."""
    found, found_args = scope_sql(scope, "r", by_id=True)
    within, within_args = scope_sql(scope, "e")
    live = _LIVE.format(scope=within)
    text = (
        f"WITH ep AS (SELECT r.id, r.rid, r.session_id, r.created_at FROM records r "
        f"WHERE r.id IN (SELECT value FROM json_each(?)) AND {found} "
        f"AND r.session_id IS NOT NULL) "
        + _SIDE.format(side=0, live=live, cmp="<", order="DESC")
        + " UNION ALL "
        + _SIDE.format(side=1, live=live, cmp=">", order="ASC")
    )
    return text, [found_args, within_args]


def neighbours_of(
    db: sqlite3.Connection,
    scope: Scope,
    record_ids: Sequence[str],
    *,
    before: int,
    after: int,
    now: float,
) -> dict[str, Around]:
    """`session_neighbours` of several episodes in one statement; a record met in several
    windows is converted once. Every id is a key (([], []) for no episode of scope's)."""
    out: dict[str, Around] = {rid: ([], []) for rid in record_ids}
    if not out or (before <= 0 and after <= 0):
        return out
    text, (found_args, within_args) = _statement(scope)
    params = [
        json.dumps(list(out)),
        *found_args,
        *within_args,
        now,
        max(int(before), 0),
        *within_args,
        now,
        max(int(after), 0),
    ]
    rows: dict[str, tuple[list, list]] = {}
    for row in db.execute(text, params):
        rows.setdefault(row["_w"], ([], []))[row["_s"]].append(row)
    made: dict[str, MemoryRecord] = {}
    for rid, (earlier, later) in rows.items():
        # nearest first, as each side's subquery ordered them (the join need not keep that order)
        earlier.sort(key=lambda r: (r["created_at"], r["rid"]), reverse=True)
        later.sort(key=lambda r: (r["created_at"], r["rid"]))
        out[rid] = ([_made(made, r) for r in earlier], [_made(made, r) for r in later])
    return out


def _made(made: dict[str, MemoryRecord], row: sqlite3.Row) -> MemoryRecord:
    r = made.get(row["id"])
    if r is None:
        r = made[row["id"]] = row_to_record(row)
    return r
