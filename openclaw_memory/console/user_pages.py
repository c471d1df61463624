"""The console's pages over a user's whole memory: purge (after the user id is typed), export
(JSON Lines or Markdown) and import (an export or an OpenClaw memory file)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from ..errors import ValidationError
from .base import WRITER, ConsoleBase, scope_from, secured


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
            self.mw.engine.store.audit_purge_request(
                scope.user_id,
                agent,
                self.mw.engine.clock.now(),
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
            from ..portability.limits import log_progress

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
