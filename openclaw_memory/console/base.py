"""What every console page stands on: the doors each request passes (Host, session or bearer
token, and for a POST the same-origin and CSRF checks), page rendering from the Jinja2
templates, refusals and failures as pages, and the security headers on every answer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.concurrency import run_in_threadpool

from ..core.clock import iso_time
from ..errors import NotFoundError, OpenClawMemoryError, ValidationError
from ..service.hosts import allowed_hosts
from ..types import MemoryType, Scope, Status
from .labels import VIEWS, explain, label
from .security import (
    COOKIE,
    SECURITY_HEADERS,
    RefusedError,
    Sessions,
    check_host,
    check_same_origin,
    csrf_ok,
)

HERE = Path(__file__).parent
WRITER = "console"
#: how the next page says what an action did (fixed texts, never echoed from the request)
NOTICES = {
    "edited": "Saved as a new version; the old text stays in the version chain.",
    "forgotten": "Forgotten: the memory is no longer recalled (kept for the audit trail; Restore undoes it).",
    "restored": "Restored: the memory is active again.",
    "purged": "Purged: the memory and its version chain are deleted.",
    "user-purged": "Purged: every memory of the user is deleted.",
    "imported": "Import finished.",
}
MAX_FORM_BYTES = 60_000_000


def _env() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(HERE / "templates")),
        autoescape=select_autoescape(["html"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["time"] = lambda t: iso_time(t) if t else "-"
    env.filters["num"] = lambda v: "-" if v is None else f"{v:.3f}"
    env.globals["types"] = [t.value for t in MemoryType]
    env.globals["statuses"] = [s.value for s in Status]
    env.globals["views"] = VIEWS
    env.filters["label"] = label
    env.filters["explain"] = explain
    return env


class ConsoleBase:
    """The /ui router over one middleware, with its sessions and Host allow-list; the page
    groups (`signin`, `memory_pages`, `why`, `user_pages`) build on it."""

    def __init__(self, middleware: Any, *, token: str, hosts: frozenset[str] | None = None) -> None:
        self.mw = middleware
        self.sessions = Sessions(token)
        # The service's allow-list (create_app passes the set its request guard checks).
        self.hosts = hosts if hosts is not None else allowed_hosts()
        self.env = _env()
        self.router = APIRouter(prefix="/ui", include_in_schema=False)

    # ---- doors ------------------------------------------------------------------------------

    def _csrf(self, request: Request) -> str:
        """The caller's CSRF token ("" for a bearer-token client); RefusedError when not signed in."""
        check_host(request.headers.get("host"), self.hosts)
        auth = request.headers.get("authorization", "")
        if auth.startswith("Bearer ") and self.sessions.token_ok(auth[7:]):
            return ""
        csrf = self.sessions.csrf_for(request.cookies.get(COOKIE))
        if csrf is None:
            raise RefusedError(
                401,
                "sign in first: open the address `openclaw-memory ui` prints, or enter the token",
            )
        return csrf

    async def _form(self, request: Request) -> dict[str, str]:
        """A POST's form, after the same-origin and CSRF checks."""
        csrf = self._csrf(request)
        check_same_origin({k.lower(): v for k, v in request.headers.items()}, request.url.scheme)
        body = await request.body()
        if len(body) > MAX_FORM_BYTES:
            raise RefusedError(413, "form too large")
        form = {
            k: v[0]
            for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()
        }
        if csrf and not csrf_ok(csrf, form.get("csrf")):
            raise RefusedError(403, "missing or wrong form token; reload the page and try again")
        return form

    def _render(
        self, request: Request, template: str, status: int = 200, **ctx: Any
    ) -> HTMLResponse:
        csrf = self.sessions.csrf_for(request.cookies.get(COOKIE)) or ""
        notice = NOTICES.get(request.query_params.get("done", ""))
        html = self.env.get_template(template).render(csrf=csrf, notice=notice, **ctx)
        return secured(HTMLResponse(html, status_code=status))

    def _refusal(self, request: Request, exc: RefusedError) -> HTMLResponse:
        login = exc.status == 401
        return self._render(
            request, "login.html" if login else "error.html", exc.status, message=exc.message
        )

    def _guard(self, request: Request, fn: Callable[[], Response]) -> Response:
        try:
            self._csrf(request)
            return fn()
        except (RefusedError, OpenClawMemoryError) as exc:
            return self._failure(request, exc)

    async def _act(self, request: Request, fn: Callable[[dict[str, str]], Response]) -> Response:
        try:
            form = await self._form(request)
            return await run_in_threadpool(fn, form)
        except (RefusedError, OpenClawMemoryError) as exc:
            return self._failure(request, exc)

    def _failure(self, request: Request, exc: Exception) -> Response:
        """A refused request, a missing memory (404) or bad input (422), as a page."""
        if isinstance(exc, RefusedError):
            return self._refusal(request, exc)
        return self._render(
            request, "error.html", 404 if isinstance(exc, NotFoundError) else 422, message=str(exc)
        )


def scope_from(params: Any) -> Scope:
    user = params.get("user", "")
    if not user:
        raise ValidationError("user: expected a user id (choose one on the Users page)")
    return Scope(user, params.get("agent") or "default")


_R = TypeVar("_R", bound=Response)


def secured(resp: _R) -> _R:
    for k, v in SECURITY_HEADERS.items():
        resp.headers.setdefault(k, v)
    return resp
