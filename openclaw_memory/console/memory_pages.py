"""The console's memory pages: users and agents, a scope's memories (filtered, sorted, paged),
one memory with its version chain, audit trail and provenance, and its actions (edit, forget,
restore, purge), each audited with the console as the writer."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from ..errors import NotFoundError, ValidationError
from ..types import Scope
from . import queries as q
from .base import WRITER, ConsoleBase, scope_from, secured


class MemoryPages(ConsoleBase):
    """Users, memory lists, one memory and its actions."""

    def users_page(self, request: Request) -> Response:
        """Users and agents with their counts by type and status."""
        return self._guard(
            request,
            lambda: self._render(
                request, "users.html", users=q.users(self.mw.engine), title="Users"
            ),
        )

    def list_page(self, request: Request) -> Response:
        """A scope's memories: filtered, sorted, paged."""

        def page() -> Response:
            scope = scope_from(request.query_params)
            p = request.query_params
            f = q.Filters(
                type=p.get("type", "known"),
                status=p.get("status", "active"),
                subject=p.get("subject", ""),
                text=p.get("q", ""),
                date_from=p.get("from", ""),
                date_to=p.get("to", ""),
                sort=p.get("sort", "updated"),
                order=p.get("order", "desc"),
            )
            result = q.memory_page(self.mw.engine, scope, f, p.get("after", ""))
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
            view = q.memory_view(self.mw.engine, scope, memory_id)
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
            engine.forget(scope, memory_id, "forgotten in the console", writer=WRITER)
            return memory_id, "forgotten"
        if action == "restore":
            self.mw.restore(scope, memory_id)
            return memory_id, "restored"
        if action == "purge":
            if form.get("confirm", "").strip() != "purge":
                raise ValidationError(
                    "confirm: type the word purge to delete this memory and its version chain"
                )
            from ..maintain.purge import purge_record

            purge_record(engine, scope, memory_id)
            engine.store.audit(
                scope,
                memory_id,
                "purge",
                "purge requested in the console",
                engine.clock.now(),
                "admin",
                WRITER,
            )
            return None, "purged"
        raise NotFoundError(f"action: expected edit, forget, restore or purge, found {action!r}")


def _form_params(f: q.Filters) -> dict[str, str]:
    names = {"text": "q", "date_from": "from", "date_to": "to"}
    return {names.get(k, k): v for k, v in f.params().items()}
