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

#: sort key -> the column (rid breaks ties, so the keyset order is total). Both are served by
#: existing indexes, whose entries end with the rid: (user, agent, status, updated_at) and
#: (user, agent, created_at); a list of every status by update time merges one range per status.
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
            raise ValidationError(f"type: expected one of {', '.join(t.value for t in MemoryType)}, found {self.type!r}")
        if self.status not in {"all", *(s.value for s in Status)}:
            raise ValidationError(f"status: expected active, inactive, archived or all, found {self.status!r}")
        if self.sort not in SORTS:
            raise ValidationError(f"sort: expected one of {', '.join(SORTS)}, found {self.sort!r}")
        if self.order not in ("asc", "desc"):
            raise ValidationError(f"order: expected asc or desc, found {self.order!r}")
        for name in ("date_from", "date_to"):
            _day_start(getattr(self, name), name)

    def params(self) -> dict[str, str]:
        """The non-default filters, for links that keep them."""
        return {k: v for k, v in self.__dict__.items() if v and v != Filters.__dataclass_fields__[k].default}


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
    """Every (user, agent) with its counts by type and by status, most memories first."""
    with engine.db.read() as db:
        rows = db.execute("SELECT user_id, agent_id, status, type, COUNT(*) AS n FROM records "
                          "GROUP BY user_id, agent_id, status, type").fetchall()
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        item = out.setdefault((r["user_id"], r["agent_id"]), {"user_id": r["user_id"], "agent_id": r["agent_id"],
                                                               "total": 0, "types": {}, "statuses": {}})
        item["total"] += r["n"]
        item["statuses"][r["status"]] = item["statuses"].get(r["status"], 0) + r["n"]
        if r["status"] == "active":
            item["types"][r["type"]] = item["types"].get(r["type"], 0) + r["n"]
    return sorted(out.values(), key=lambda u: (-u["total"], u["user_id"], u["agent_id"]))


def _conditions(scope: Scope, f: Filters) -> tuple[list[str], list[Any], bool]:
    where = ["user_id = ?", "agent_id = ?"]
    args: list[Any] = [scope.user_id, scope.agent_id]
    if f.status != "all":
        where.append("status = ?")
        args.append(f.status)
    if f.type:
        where.append("type = ?")
        args.append(f.type)
    if f.subject:
        where.append("subject LIKE ? ESCAPE '\\'")
        args.append(_like_prefix(f.subject))
    for name, op, extra in (("date_from", ">=", 0), ("date_to", "<", 86400)):
        day = _day_start(getattr(f, name), name)
        if day is not None:
            where.append(f"created_at {op} ?")
            args.append(day + extra)
    capped = False
    if f.text.strip():
        match = fts_query(f.text)
        if not match:
            where.append("0")
        else:
            where.append("rid IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid DESC LIMIT ?)")
            args += [f"scope : {scope_token(scope.user_id, scope.agent_id)} AND tokens : ({match})", TEXT_MATCH_CAP]
            capped = True
    return where, args, capped


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def memory_page(engine: MemoryEngine, scope: Scope, f: Filters, after: str = "",
                size: int = PAGE_SIZE) -> Page:
    """The page of scope's memories after the cursor `after` ("<sort value>:<rid>").

    A date range lists by creation time (the range is on it): one index range, where ordering
    by update time would walk every newer row before reaching the range."""
    col = "created_at" if f.date_from or f.date_to else SORTS[f.sort]
    where, args, text_filter = _conditions(scope, f)
    count_sql = f"SELECT COUNT(*) FROM (SELECT 1 FROM records WHERE {' AND '.join(where)} LIMIT {COUNT_CAP + 1})"
    # Every status by update time: one index range per status, merged (no sort of all rows).
    parts = ([(["status = ?"], [s.value]) for s in Status] if f.status == "all" and col == "updated_at"
             else [([], [])])
    rows: list[Any] = []
    with engine.db.read() as db:
        total = db.execute(count_sql, args).fetchone()[0]
        for extra_where, extra_args in parts:
            rows += _page_rows(db, [*where, *extra_where], [*args, *extra_args], col, f.order, after, size + 1)
    rows.sort(key=lambda r: (r[col], r["rid"]), reverse=f.order == "desc")
    more = len(rows) > size
    rows = rows[:size]
    nxt = f"{rows[-1][col]!r}:{rows[-1]['rid']}" if more and rows else None
    return Page([rec.row_to_record(r) for r in rows], nxt, total, text_filter and total >= TEXT_MATCH_CAP)


def _page_rows(db: Any, where: list[str], args: list[Any], col: str, order: str, after: str, limit: int) -> list:
    if after:
        value, rid = _cursor(after)
        where = [*where, f"({col}, rid) {'<' if order == 'desc' else '>'} (?, ?)"]
        args = [*args, value, rid]
    direction = order.upper()
    return db.execute(f"SELECT * FROM records WHERE {' AND '.join(where)} ORDER BY {col} {direction}, rid {direction} "
                      "LIMIT ?", (*args, limit)).fetchall()


def successor(engine: MemoryEngine, scope: Scope, record_id: str) -> MemoryRecord | None:
    """The version that replaced record_id, if any. By the prev_id index: the scope is checked on
    the row found (`+`), or SQLite would walk the user's whole (user, agent) index instead."""
    with engine.db.read() as db:
        row = db.execute("SELECT * FROM records WHERE prev_id = ? AND +user_id = ? AND +agent_id = ? "
                         "ORDER BY version DESC LIMIT 1", (record_id, scope.user_id, scope.agent_id)).fetchone()
    return rec.row_to_record(row) if row else None


def _cursor(after: str) -> tuple[float, int]:
    try:
        value, rid = after.rsplit(":", 1)
        return float(value), int(rid)
    except ValueError:
        raise ValidationError(f"after: expected a page cursor '<value>:<row>', found {after!r}") from None


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
        audit = [dict(a) for a in db.execute(
            f"SELECT * FROM audit WHERE record_id IN ({marks}) AND +user_id = ? AND +agent_id = ? "
            "ORDER BY at DESC, seq DESC LIMIT 500", (*(r.id for r in chain), scope.user_id, scope.agent_id))]
        versions = [dict(v) for v in db.execute(
            "SELECT * FROM versions WHERE record_id = ? AND +user_id = ? AND +agent_id = ? ORDER BY version",
            (record_id, scope.user_id, scope.agent_id))]
    # An edited version has no turns of its own: show those of the version it corrects.
    origin = next((r for r in [record, *older] if r.source.turn_ids), record)
    return MemoryView(record, chain, versions, audit, source_turns(engine, scope, origin),
                      origin.id)


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
        for r in rec.query(db, scope, where="session_id = ? AND type = 'episode'", args=(sid,),
                           order="created_at", limit=2000):
            for t in set(r.source.turn_ids) & wanted:
                speaker = r.tags[0] if r.tags else "episode"  # an episode's first tag is its speaker
                found.setdefault(t, []).append({"turn": t, "role": speaker, "text": r.summary})
        for m in db.execute("SELECT turn_id, role, content FROM messages WHERE user_id = ? AND agent_id = ? "
                            "AND session_id = ? AND turn_id IS NOT NULL AND content != '' ORDER BY seq LIMIT 5000",
                            (scope.user_id, scope.agent_id, sid)):
            if m["turn_id"] in wanted and not any(x["text"] == m["content"] for x in found.get(m["turn_id"], [])):
                found.setdefault(m["turn_id"], []).append({"turn": m["turn_id"], "role": m["role"],
                                                           "text": m["content"]})
    return [item for t in ids for item in (found.get(t) or [{"turn": t, "role": "", "text": ""}])]


def as_json(value: Any) -> str:
    """Pretty JSON for the page's raw views."""
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, default=str)
