"""The console's why page: the injection plan for a request typed as a user, what
`search --explain` prints."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import Response

from ..types import Scope
from .base import ConsoleBase, scope_from


class WhyPage(ConsoleBase):
    """What a request would inject, and why."""

    def why_page(self, request: Request) -> Response:
        """The injection plan for a request typed as a user (what `search --explain` prints)."""

        def page() -> Response:
            from ..recall.explain import explain_table

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
    from ..lang.text import valid_unicode

    recent = [{"role": "user", "content": text}]
    result = mw.working.recaller.recall(scope, valid_unicode(text), recent)
    return mw._wrap(mw.working.assemble(scope, result, request_tokens=len(text) // 3))
