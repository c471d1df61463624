"""The console's pages and actions, and the reads they make.

Memory pages (users and agents, a scope's memories filtered, sorted and paged by keyset), pages
over a user's whole memory (purge, export), the why page, the JSON actions under /v1 (edit,
export, import), and the console's reads (users with counts, the memory list). Over 600 lines:
each page and the query it shows sit together.
"""

from __future__ import annotations

import json
from fastapi import Request, APIRouter
from fastapi.responses import RedirectResponse, Response, PlainTextResponse
from ..errors import ValidationError, NotFoundError
from .base import WRITER, ConsoleBase, scope_from, secured
from typing import Any, Literal, TYPE_CHECKING
from ..types import AuditEntry, MemoryRecord, MemoryType, Scope, Status
from pydantic import Field
from ..service import models as models
from dataclasses import dataclass, field
from datetime import datetime, timezone
from ..store.ports import ListQuery
from urllib.parse import urlencode

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine

# The console's pages over a user's whole memory: purge (after the user id is typed), export
# (JSON Lines or Markdown) and import (an export or an OpenClaw memory file).


class UserPages(ConsoleBase):
    """A user's purge, export and import."""

    def purge_user_page(self, request: Request) -> Response:
        """The typed confirmation before a user's purge."""
        return self._guard(
            request,
            lambda: self._render(
                request,
                "purge_user.html",
                scope=scope_from(request.query_params),
                all_agents=request.query_params.get("all") == "1",
                title="Purge user",
            ),
        )

    async def purge_user(self, request: Request) -> Response:
        """Delete every memory of a user (or of one agent) after the user id was typed."""

        def run(form: dict[str, str]) -> Response:
            scope = scope_from(form)
            if form.get("confirm", "").strip() != scope.user_id:
                raise ValidationError("confirm: type the user id exactly to purge this user")
            agent = None if form.get("all_agents") == "1" else scope.agent_id
            self.mw.purge_user(scope.user_id, agent)
            self.mw.store.audit_purge_request(
                scope.user_id,
                agent,
                self.mw.clock.now(),
                "purge of the user requested in the console",
                WRITER,
            )
            return secured(RedirectResponse("/ui/?done=user-purged", status_code=303))

        return await self._act(request, run)

    def export(self, request: Request) -> Response:
        """Download a user's export (jsonl or markdown)."""

        def run() -> Response:
            from ..portability import export_text

            p = request.query_params
            scope = scope_from(p)
            fmt = p.get("format", "jsonl")
            agent = None if p.get("all") == "1" else scope.agent_id
            text = export_text(self.mw.engine, scope.user_id, fmt, agent)
            ext, kind = (
                ("jsonl", "application/x-ndjson") if fmt == "jsonl" else ("md", "text/markdown")
            )
            resp = Response(text, media_type=f"{kind}; charset=utf-8")
            resp.headers["Content-Disposition"] = (
                f'attachment; filename="{scope.user_id}-memories.{ext}"'
            )
            return secured(resp)

        return self._guard(request, run)

    def import_page(self, request: Request) -> Response:
        """The import form (a JSON Lines export or an OpenClaw memory file)."""
        return self._guard(
            request,
            lambda: self._render(
                request,
                "import.html",
                scope=scope_from(request.query_params),
                report=None,
                title="Import",
            ),
        )

    async def import_(self, request: Request) -> Response:
        """Import the pasted or chosen file into the scope."""

        def run(form: dict[str, str]) -> Response:
            import logging

            from ..portability import import_text
            from ..portability.jsonl import log_progress

            scope = scope_from(form)
            content = form.get("content", "")
            if not content.strip():
                raise ValidationError(
                    "content: expected the file's text (choose a file or paste it)"
                )
            self.mw.flush()
            report = import_text(
                self.mw.engine,
                content,
                scope,
                extractor=self.mw.extractor,
                secrets=self.mw.secrets,
                name=form.get("name") or "MEMORY.md",
                writer=WRITER,
                progress=log_progress(logging.getLogger(__name__), f"for {scope.user_id}"),
            )
            self.mw.engine.sync_index(scope)
            return self._render(request, "import.html", scope=scope, report=report, title="Import")

        return await self._act(request, run)


# The console's why page: the injection plan for a request typed as a user, what
# `search --explain` prints.


class WhyPage(ConsoleBase):
    """What a request would inject, and why."""

    def why_page(self, request: Request) -> Response:
        """The injection plan for a request typed as a user (what `search --explain` prints)."""

        def page() -> Response:
            from ..recall.rank import explain_table

            scope = scope_from(request.query_params)
            text = request.query_params.get("q", "")
            plan = why_plan(self.mw, scope, text) if text.strip() else None
            keys = sorted({k for c in plan.candidates for k in c.components}) if plan else []
            return self._render(
                request,
                "why.html",
                scope=scope,
                query=text,
                plan=plan,
                keys=keys,
                table=explain_table(plan) if plan else "",
                title="Why",
            )

        return self._guard(request, page)


def why_plan(mw: Any, scope: Scope, text: str) -> Any:
    """The plan `before_request` would inject for a request of one user message `text`: the same
    recall (the message as the recent turns), the same request tokens, the same prefix template.
    Read-only, unlike a real request: no session is opened and nothing is reinforced."""
    from ..inject.assemble import wrap
    from ..lang.text import valid_unicode

    recent = [{"role": "user", "content": text}]
    result = mw.recaller.recall(scope, valid_unicode(text), recent)
    plan = mw.assembler.assemble(scope, result, request_tokens=len(text) // 3)
    return wrap(plan, mw.cfg.injection)


# JSON routes under /v1 for the console's actions: edit, export, import.
#
#     POST /v1/memory/edit     {scope, id, text, detail?}         -> {"memory": <new version>}
#     POST /v1/memory/export   {scope, all_agents?, format}       -> the document (jsonl or markdown)
#     POST /v1/memory/import   {scope, content, name?}            -> the import report
#
# Import takes the document's content, never a server path: a client of the API cannot make the
# service read its files. Mounted on the authenticated /v1 router by `service.app.create_app`.

#: the writer named in the audit trail for changes made through the API
API_WRITER = "api"


class EditIn(models._Scoped):
    """Body of POST /v1/memory/edit."""

    id: str = Field(min_length=1, max_length=200)
    text: str = Field(min_length=1, max_length=20_000)
    detail: str | None = Field(default=None, max_length=20_000)


class ExportIn(models._Scoped):
    """Body of POST /v1/memory/export: a scope (with all_agents, every agent of its user) and a format."""

    all_agents: bool = False
    format: Literal["jsonl", "markdown"] = "jsonl"


class ImportIn(models._Scoped):
    """Body of POST /v1/memory/import: a JSON Lines export or an OpenClaw memory file's text."""

    content: str = Field(min_length=1, max_length=50_000_000)
    name: str = Field(default="MEMORY.md", max_length=200)


def add_routes(router: APIRouter, mw: Any) -> None:
    """Add edit, export and import to the /v1 router."""

    @router.post("/memory/edit")
    def edit(body: EditIn) -> dict[str, Any]:
        from ..write.edit import _KEEP
        from ..write.edit import edit_memory

        new = edit_memory(
            mw.engine,
            body.scope.to_scope(),
            body.id,
            body.text,
            writer=API_WRITER,
            detail=_KEEP if body.detail is None else body.detail,
            secrets=mw.secrets,
        )
        return {"memory": models.record_to_json(new)}

    @router.post("/memory/export")
    def export(body: ExportIn) -> PlainTextResponse:
        from ..portability import export_text

        scope = body.scope.to_scope()
        text = export_text(
            mw.engine, scope.user_id, body.format, None if body.all_agents else scope.agent_id
        )
        kind = "application/x-ndjson" if body.format == "jsonl" else "text/markdown"
        return PlainTextResponse(text, media_type=f"{kind}; charset=utf-8")

    @router.post("/memory/import")
    def import_(body: ImportIn) -> dict[str, Any]:
        import logging

        from ..portability import import_text
        from ..portability.jsonl import log_progress

        scope = body.scope.to_scope()
        mw.flush()
        return import_text(
            mw.engine,
            body.content,
            scope,
            extractor=mw.extractor,
            secrets=mw.secrets,
            name=body.name,
            writer=API_WRITER,
            progress=log_progress(logging.getLogger(__name__), f"for {scope.user_id}"),
        )


# The console's reads: users with counts, a filtered and sorted memory list paged by keyset,
# and everything one memory's page shows. Every query is scoped or aggregates by scope; filter
# values are bound parameters, and sort columns come from a fixed table, never from the request.
#
# Keyset paging (`after` = the last row's sort value and rid) keeps a page as cheap at row 90,000
# as at row 1: the rows are found by index, not skipped one by one.

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
        from .base import KNOWN_TYPES
        from .base import RAW_TYPES

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
    store's keyset listing (`ConsoleStore.list_page`). A date range lists by creation time (the
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


# The console's memory pages: users and agents, a scope's memories (filtered, sorted, paged),
# one memory with its version chain, audit trail and provenance, and its actions (edit, forget,
# restore, purge), each audited with the console as the writer.


class MemoryPages(ConsoleBase):
    """Users, memory lists, one memory and its actions."""

    def users_page(self, request: Request) -> Response:
        """Users and agents with their counts by type and status."""
        return self._guard(
            request,
            lambda: self._render(request, "users.html", users=users(self.mw.engine), title="Users"),
        )

    def list_page(self, request: Request) -> Response:
        """A scope's memories: filtered, sorted, paged."""

        def page() -> Response:
            scope = scope_from(request.query_params)
            p = request.query_params
            f = Filters(
                type=p.get("type", "known"),
                status=p.get("status", "active"),
                subject=p.get("subject", ""),
                text=p.get("q", ""),
                date_from=p.get("from", ""),
                date_to=p.get("to", ""),
                sort=p.get("sort", "updated"),
                order=p.get("order", "desc"),
            )
            result = memory_page(self.mw.engine, scope, f, p.get("after", ""))
            base = {"user": scope.user_id, "agent": scope.agent_id, **_form_params(f)}
            return self._render(
                request,
                "memories.html",
                scope=scope,
                f=f,
                page=result,
                base=base,
                link=lambda **kw: "/ui/memories?" + urlencode({**base, **kw}),
                title="Memories",
            )

        return self._guard(request, page)

    def memory_page(self, memory_id: str, request: Request) -> Response:
        """One memory: fields, version chain, audit trail, provenance, actions."""

        def page() -> Response:
            scope = scope_from(request.query_params)
            view = memory_view(self.mw.engine, scope, memory_id)
            return self._render(
                request,
                "memory.html",
                scope=scope,
                v=view,
                r=view.record,
                title=f"Memory {memory_id}",
            )

        return self._guard(request, page)

    async def memory_action(self, memory_id: str, action: str, request: Request) -> Response:
        """edit / forget / restore / purge one memory."""

        def run(form: dict[str, str]) -> Response:
            scope = scope_from(form)
            target, done = self._memory_action(scope, memory_id, action, form)
            where = "/ui/memories?" if target is None else f"/ui/memory/{target}?"
            return secured(
                RedirectResponse(
                    where
                    + urlencode({"user": scope.user_id, "agent": scope.agent_id, "done": done}),
                    status_code=303,
                )
            )

        return await self._act(request, run)

    def _memory_action(
        self, scope: Scope, memory_id: str, action: str, form: dict[str, str]
    ) -> tuple[str | None, str]:
        engine = self.mw.engine
        if action == "edit":
            from ..write.edit import edit_memory

            new = edit_memory(
                engine,
                scope,
                memory_id,
                form.get("text", ""),
                writer=WRITER,
                detail=form.get("detail") or None,
                secrets=self.mw.secrets,
            )
            return new.id, "edited"
        if action == "forget":
            from ..write.forget import forget_record

            mw = self.mw
            forget_record(
                mw.store, mw.clock, scope, memory_id, "forgotten in the console", writer=WRITER
            )
            mw.indexer.notify()
            return memory_id, "forgotten"
        if action == "restore":
            self.mw.restore(scope, memory_id)
            return memory_id, "restored"
        if action == "purge":
            if form.get("confirm", "").strip() != "purge":
                raise ValidationError(
                    "confirm: type the word purge to delete this memory and its version chain"
                )
            from ..maintain.doctor import purge_record

            purge_record(self.mw.maintenance, scope, memory_id)
            self.mw.store.audit(
                AuditEntry(
                    scope,
                    memory_id,
                    "purge",
                    "purge requested in the console",
                    engine.clock.now(),
                    "admin",
                    WRITER,
                ),
            )
            return None, "purged"
        raise NotFoundError(f"action: expected edit, forget, restore or purge, found {action!r}")


def _form_params(f: Filters) -> dict[str, str]:
    names = {"text": "q", "date_from": "from", "date_to": "to"}
    return {names.get(k, k): v for k, v in f.params().items()}
