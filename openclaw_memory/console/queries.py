"""The console's reads: users with counts, a filtered and sorted memory list paged by keyset,
and everything one memory's page shows. Every query is scoped or aggregates by scope; filter
values are bound parameters, and sort columns come from a fixed table, never from the request.

Keyset paging (`after` = the last row's sort value and rid) keeps a page as cheap at row 90,000
as at row 1: the rows are found by index, not skipped one by one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ..errors import ValidationError
from ..store import records as rec
from ..store.schema import scope_token
from ..text import fts_query
from ..types import MemoryRecord, MemoryType, Scope, Status

if TYPE_CHECKING:
    from ..engine import MemoryEngine

#: sort key -> the column (rid breaks ties, so the keyset order is total). Each is served by a
#: list index (schema migration 9): (user, agent, status, column, rid, type, subject, ...).
SORTS = {"updated": "updated_at", "created": "created_at"}
PAGE_SIZE = 50
#: a text filter looks at the newest this many keyword matches (the page says so when it is cut)
TEXT_MATCH_CAP = 2_000
#: the count shown above the list stops here ("10000+"), so counting never walks 100k rows
COUNT_CAP = 10_000


@dataclass(frozen=True)
class Filters:
    """What the memory list shows: validated from query parameters."""

    type: str = ""
    status: str = "active"
    subject: str = ""
    text: str = ""
    date_from: str = ""
    date_to: str = ""
    sort: str = "updated"
    order: str = "desc"

    def __post_init__(self) -> None:
        if self.type and self.type not in {t.value for t in MemoryType}:
            raise ValidationError(
                f"type: expected one of {', '.join(t.value for t in MemoryType)}, found {self.type!r}"
            )
        if self.status not in {"all", *(s.value for s in Status)}:
            raise ValidationError(
                f"status: expected active, inactive, archived or all, found {self.status!r}"
            )
        if self.sort not in SORTS:
            raise ValidationError(f"sort: expected one of {', '.join(SORTS)}, found {self.sort!r}")
        if self.order not in ("asc", "desc"):
            raise ValidationError(f"order: expected asc or desc, found {self.order!r}")
        for name in ("date_from", "date_to"):
            _day_start(getattr(self, name), name)

    def params(self) -> dict[str, str]:
        """The non-default filters, for links that keep them."""
        return {
            k: v
            for k, v in self.__dict__.items()
            if v and v != Filters.__dataclass_fields__[k].default
        }


def _day_start(value: str, name: str) -> float | None:
    if not value:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=timezone.utc).timestamp()
    except ValueError:
        raise ValidationError(f"{name}: expected a date as YYYY-MM-DD, found {value!r}") from None


@dataclass
class Page:
    """One page of the list: rows, the cursor of the next page, the total matching."""

    rows: list[MemoryRecord]
    next_after: str | None
    total: int  # at most COUNT_CAP + 1
    capped: bool = False  # the text filter's matches were cut at TEXT_MATCH_CAP

    @property
    def total_text(self) -> str:
        """The count as shown: "10000+" past the cap."""
        return f"{COUNT_CAP}+" if self.total > COUNT_CAP else str(self.total)


def users(engine: MemoryEngine) -> list[dict[str, Any]]:
    """Every (user, agent) with its counts by type and by status, most memories first.

    From the counts the store keeps by trigger (schema migration 8): one row per (user, agent,
    status, type) group, so the page costs the same at 100k memories as at 100."""
    with engine.db.read() as db:
        rows = db.execute(
            "SELECT user_id, agent_id, status, type, n FROM record_counts WHERE n > 0"
        ).fetchall()
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        item = out.setdefault(
            (r["user_id"], r["agent_id"]),
            {
                "user_id": r["user_id"],
                "agent_id": r["agent_id"],
                "total": 0,
                "types": {},
                "statuses": {},
            },
        )
        item["total"] += r["n"]
        item["statuses"][r["status"]] = item["statuses"].get(r["status"], 0) + r["n"]
        if r["status"] == "active":
            item["types"][r["type"]] = item["types"].get(r["type"], 0) + r["n"]
    return sorted(out.values(), key=lambda u: (-u["total"], u["user_id"], u["agent_id"]))


def _conditions(scope: Scope, f: Filters) -> tuple[list[str], list[Any], bool]:
    """The filters as SQL, without the status (a page asks one status at a time). With a text
    filter the rows are found by their keyword matches (at most TEXT_MATCH_CAP rids): the `+`
    keeps SQLite from walking a (user, agent) index past every row of the user instead."""
    capped = bool(f.text.strip())
    c = "+" if capped else ""
    where = [f"{c}user_id = ?", f"{c}agent_id = ?"]
    args: list[Any] = [scope.user_id, scope.agent_id]
    if f.type:
        where.append(f"{c}type = ?")
        args.append(f.type)
    if f.subject:
        where.append("subject LIKE ? ESCAPE '\\'")
        args.append(_like_prefix(f.subject))
    for name, op, extra in (("date_from", ">=", 0), ("date_to", "<", 86400)):
        day = _day_start(getattr(f, name), name)
        if day is not None:
            where.append(f"{c}created_at {op} ?")
            args.append(day + extra)
    if capped:
        match = fts_query(f.text)
        if not match:
            where.append("0")
        else:
            where.append(
                "rid IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid DESC LIMIT ?)"
            )
            args += [
                f"scope : {scope_token(scope.user_id, scope.agent_id)} AND tokens : ({match})",
                TEXT_MATCH_CAP,
            ]
    return where, args, capped


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def memory_page(
    engine: MemoryEngine, scope: Scope, f: Filters, after: str = "", size: int = PAGE_SIZE
) -> Page:
    """The page of scope's memories after the cursor `after` ("<sort value>:<rid>").

    Each status is one range of a list index (`rec_list_updated` / `rec_list_created`: status,
    sort value, rid, then every filter column), so a page reads index entries up to the cursor
    and its rows, never the rows the filters reject; "every status" merges one range per
    status. A text filter reads its keyword matches (at most TEXT_MATCH_CAP) once, by rid. A
    date range lists by creation time (the range is on it)."""
    col = "created_at" if f.date_from or f.date_to else SORTS[f.sort]
    where, args, text_filter = _conditions(scope, f)
    statuses = [f.status] if f.status != "all" else [s.value for s in Status]
    with engine.db.read() as db:
        if text_filter:
            total, keys = _text_keys(db, where, args, statuses, col, f.order, after)
        else:
            total, keys = _index_keys(db, where, args, statuses, col, f.order, after, size + 1)
        keys.sort(reverse=f.order == "desc")
        more = len(keys) > size
        keys = keys[:size]
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
    rows = [found[rid] for _, rid in keys if rid in found]
    nxt = f"{keys[-1][0]!r}:{keys[-1][1]}" if more and keys else None
    return Page(
        [rec.row_to_record(r) for r in rows], nxt, total, text_filter and total >= TEXT_MATCH_CAP
    )


def _index_keys(
    db: Any,
    where: list[str],
    args: list[Any],
    statuses: list[str],
    col: str,
    order: str,
    after: str,
    limit: int,
) -> tuple[int, list[tuple[float, int]]]:
    """The count (capped, by whichever covering index SQLite picks) and each status's next
    `limit` (sort value, rid) from its range of the list index on `col` (none when nothing
    matches: a filter matching nothing reads the index once, not once more per status)."""
    counted, count_args = (
        (where, args) if len(statuses) > 1 else ([*where, "status = ?"], [*args, *statuses])
    )
    total = db.execute(
        f"SELECT COUNT(*) FROM (SELECT 1 FROM records WHERE {' AND '.join(counted)} "
        f"LIMIT {COUNT_CAP + 1})",
        count_args,
    ).fetchone()[0]
    keys: list[tuple[float, int]] = []
    for status in statuses if total else ():
        part, part_args = [*where, "status = ?"], [*args, status]
        if after:
            value, rid = _cursor(after)
            part, part_args = (
                [*part, f"({col}, rid) {'<' if order == 'desc' else '>'} (?, ?)"],
                [*part_args, value, rid],
            )
        direction = order.upper()
        keys += [
            (r[0], r[1])
            for r in db.execute(
                f"SELECT {col}, rid FROM records INDEXED BY rec_list_{col.split('_')[0]} WHERE {' AND '.join(part)} "
                f"ORDER BY {col} {direction}, rid {direction} LIMIT ?",
                (*part_args, limit),
            )
        ]
    return total, keys


def _text_keys(
    db: Any,
    where: list[str],
    args: list[Any],
    statuses: list[str],
    col: str,
    order: str,
    after: str,
) -> tuple[int, list[tuple[float, int]]]:
    """The count and the (sort value, rid) after the cursor among the text filter's matches: at
    most TEXT_MATCH_CAP rows, read once by rid (the count and the page from the same read)."""
    rows = db.execute(
        f"SELECT {col}, rid, status FROM records WHERE {' AND '.join(where)}", args
    ).fetchall()
    matched = [(r[0], r[1]) for r in rows if r[2] in statuses]
    if not after:
        return len(matched), matched
    cursor = _cursor(after)
    return len(matched), [k for k in matched if (k < cursor if order == "desc" else k > cursor)]


def successor(engine: MemoryEngine, scope: Scope, record_id: str) -> MemoryRecord | None:
    """The version that replaced record_id, if any. By the prev_id index: the scope is checked on
    the row found (`+`), or SQLite would walk the user's whole (user, agent) index instead."""
    with engine.db.read() as db:
        row = db.execute(
            "SELECT * FROM records WHERE prev_id = ? AND +user_id = ? AND +agent_id = ? "
            "ORDER BY version DESC LIMIT 1",
            (record_id, scope.user_id, scope.agent_id),
        ).fetchone()
    return rec.row_to_record(row) if row else None


def _cursor(after: str) -> tuple[float, int]:
    try:
        value, rid = after.rsplit(":", 1)
        return float(value), int(rid)
    except ValueError:
        raise ValidationError(
            f"after: expected a page cursor '<value>:<row>', found {after!r}"
        ) from None


@dataclass
class MemoryView:
    """Everything a memory's page shows."""

    record: MemoryRecord
    chain: list[MemoryRecord]  # newest first: successors, the record, what it replaced
    versions: list[dict[str, Any]]
    audit: list[dict[str, Any]]
    turns: list[dict[str, str]] = field(default_factory=list)
    turns_of: str = ""  # the version whose turns these are


def memory_view(engine: MemoryEngine, scope: Scope, record_id: str) -> MemoryView:
    """A memory, its whole version chain (both directions), versions, audit and source turns."""
    record = engine.get(scope, record_id)
    older = engine.chain(scope, record_id)[1:]
    newer: list[MemoryRecord] = []
    nxt = successor(engine, scope, record.id)
    while nxt is not None and len(newer) < 100:
        newer.insert(0, nxt)
        nxt = successor(engine, scope, nxt.id)
    chain = [*newer, record, *older]
    # By record id first (`+` keeps SQLite off the (user, agent) indexes, which would walk every
    # audit or version row of the user), then checked against the scope.
    with engine.db.read() as db:
        marks = ",".join("?" * len(chain))
        audit = [
            dict(a)
            for a in db.execute(
                f"SELECT * FROM audit WHERE record_id IN ({marks}) AND +user_id = ? AND +agent_id = ? "
                "ORDER BY at DESC, seq DESC LIMIT 500",
                (*(r.id for r in chain), scope.user_id, scope.agent_id),
            )
        ]
        versions = [
            dict(v)
            for v in db.execute(
                "SELECT * FROM versions WHERE record_id = ? AND +user_id = ? AND +agent_id = ? ORDER BY version",
                (record_id, scope.user_id, scope.agent_id),
            )
        ]
    # An edited version has no turns of its own: show those of the version it corrects.
    origin = next((r for r in [record, *older] if r.source.turn_ids), record)
    return MemoryView(
        record, chain, versions, audit, source_turns(engine, scope, origin), origin.id
    )


def source_turns(engine: MemoryEngine, scope: Scope, record: MemoryRecord) -> list[dict[str, str]]:
    """The text of the turns a memory came from: the session's logged episodes and short-term
    messages carrying those turn ids (what is still kept), in order."""
    ids = list(record.source.turn_ids)
    sid = record.source.session_id or record.session_id
    if not ids or not sid:
        return [{"turn": t, "role": "", "text": ""} for t in ids]
    wanted = set(ids)
    found: dict[str, list[dict[str, str]]] = {}
    with engine.db.read() as db:
        # `+type`: by the (user, agent, session) index; SQLite otherwise picked (user, agent, type)
        # and walked every episode of the user
        for r in rec.query(
            db,
            scope,
            where="session_id = ? AND +type = 'episode'",
            args=(sid,),
            order="created_at",
            limit=2000,
        ):
            for t in set(r.source.turn_ids) & wanted:
                speaker = (
                    r.tags[0] if r.tags else "episode"
                )  # an episode's first tag is its speaker
                found.setdefault(t, []).append({"turn": t, "role": speaker, "text": r.summary})
        for m in db.execute(
            "SELECT turn_id, role, content FROM messages WHERE user_id = ? AND agent_id = ? "
            "AND session_id = ? AND turn_id IS NOT NULL AND content != '' ORDER BY seq LIMIT 5000",
            (scope.user_id, scope.agent_id, sid),
        ):
            if m["turn_id"] in wanted and not any(
                x["text"] == m["content"] for x in found.get(m["turn_id"], [])
            ):
                found.setdefault(m["turn_id"], []).append(
                    {"turn": m["turn_id"], "role": m["role"], "text": m["content"]}
                )
    return [item for t in ids for item in (found.get(t) or [{"turn": t, "role": "", "text": ""}])]


def as_json(value: Any) -> str:
    """Pretty JSON for the page's raw views."""
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, default=str)
