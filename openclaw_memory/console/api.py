"""JSON routes under /v1 for the console's actions: edit, export, import.

    POST /v1/memory/edit     {scope, id, text, detail?}         -> {"memory": <new version>}
    POST /v1/memory/export   {scope, all_agents?, format}       -> the document (jsonl or markdown)
    POST /v1/memory/import   {scope, content, name?}            -> the import report

Import takes the document's content, never a server path: a client of the API cannot make the
service read its files. Mounted on the authenticated /v1 router by `service.app.create_app`.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse
from pydantic import Field

from ..service import models as m

#: the writer named in the audit trail for changes made through the API
API_WRITER = "api"


class EditIn(m._Scoped):
    """Body of POST /v1/memory/edit."""

    id: str = Field(min_length=1, max_length=200)
    text: str = Field(min_length=1, max_length=20_000)
    detail: str | None = Field(default=None, max_length=20_000)


class ExportIn(m._Scoped):
    """Body of POST /v1/memory/export: a scope (with all_agents, every agent of its user) and a format."""

    all_agents: bool = False
    format: Literal["jsonl", "markdown"] = "jsonl"


class ImportIn(m._Scoped):
    """Body of POST /v1/memory/import: a JSON Lines export or an OpenClaw memory file's text."""

    content: str = Field(min_length=1, max_length=50_000_000)
    name: str = Field(default="MEMORY.md", max_length=200)


def add_routes(router: APIRouter, mw: Any) -> None:
    """Add edit, export and import to the /v1 router."""

    @router.post("/memory/edit")
    def edit(body: EditIn) -> dict[str, Any]:
        from ..write.edit import _KEEP, edit_memory

        new = edit_memory(
            mw.engine,
            body.scope.to_scope(),
            body.id,
            body.text,
            writer=API_WRITER,
            detail=_KEEP if body.detail is None else body.detail,
            secrets=mw.secrets,
        )
        return {"memory": m.record_to_json(new)}

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
        from ..portability.limits import log_progress

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
