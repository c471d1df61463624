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
from ..store.ports import ListQuery
from ..types import MemoryRecord, MemoryType, Scope, Status

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine

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

    #: a memory type, "known" (what the agent knows: labels.KNOWN_TYPES, the default), "raw"
    #: (conversation turns and tool calls) or "" (every type)
    type: str = "known"
    status: str = "active"
    subject: str = ""
    text: str = ""
    date_from: str = ""
    date_to: str = ""
    sort: str = "updated"
    order: str = "desc"

    def __post_init__(self) -> None:
        if self.type and self.type not in {"known", "raw", *(t.value for t in MemoryType)}:
            raise ValidationError(
                "type: expected known, raw, nothing (every type) or one of "
                f"{', '.join(t.value for t in MemoryType)}, found {self.type!r}"
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
        """The non-default filters, for links that keep them ("" for every type is kept: it is
        not the default)."""
        return {
            k: v
            for k, v in self.__dict__.items()
            if (v or k == "type") and v != Filters.__dataclass_fields__[k].default
        }

    def types(self) -> tuple[str, ...]:
        """The types the list shows (empty: every type)."""
        from .labels import KNOWN_TYPES, RAW_TYPES

        return {"known": KNOWN_TYPES, "raw": RAW_TYPES}.get(self.type) or (
            (self.type,) if self.type else ()
        )


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

    From the counts the store keeps per (user, agent, status, type) group, so the page costs
    the same at 100k memories as at 100."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in engine.store.counts_by_scope():
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


def memory_page(
    engine: MemoryEngine, scope: Scope, f: Filters, after: str = "", size: int = PAGE_SIZE
) -> Page:
    """The page of scope's memories after the cursor `after` ("<sort value>:<rid>"), from the
    store's keyset listing (`RecordStore.list_page`). A date range lists by creation time (the
    range is on it)."""
    start, end = _day_start(f.date_from, "date_from"), _day_start(f.date_to, "date_to")
    q = ListQuery(
        statuses=(f.status,) if f.status != "all" else tuple(s.value for s in Status),
        column="created_at" if f.date_from or f.date_to else SORTS[f.sort],
        order=f.order,
        types=f.types(),
        subject=f.subject,
        text=f.text,
        created_from=start,
        created_to=None if end is None else end + 86400,
        after=_cursor(after) if after else None,
        size=size,
        text_cap=TEXT_MATCH_CAP,
        count_cap=COUNT_CAP,
    )
    page = engine.store.list_page(scope, q)
    nxt = f"{page.next_after[0]!r}:{page.next_after[1]}" if page.next_after else None
    return Page(page.rows, nxt, page.total, page.text_filter and page.total >= TEXT_MATCH_CAP)


def successor(engine: MemoryEngine, scope: Scope, record_id: str) -> MemoryRecord | None:
    """The version that replaced record_id, if any."""
    return engine.store.latest_successor(scope, record_id)


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
    audit = engine.store.audit_of(scope, [r.id for r in chain], limit=500)
    versions = engine.store.versions_in_scope(scope, record_id)
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
    for r in engine.store.session_episodes(scope, sid, limit=2000):
        for t in set(r.source.turn_ids) & wanted:
            speaker = r.tags[0] if r.tags else "user"  # an episode's first tag is its speaker
            found.setdefault(t, []).append({"turn": t, "role": speaker, "text": r.summary})
    for m in engine.store.session_messages(scope, sid, limit=5000):
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
