"""The console's pages and actions, under /ui, server-rendered from Jinja2 templates.

Reads go through `queries.py`; actions call the same library functions as the CLI (edit_memory,
the engine's forget, the middleware's restore and purge_user, purge_record, import/export), each
audited with the console as the writer. Every route first passes the doors of `security.py`
(Host, session or bearer token, and for POST the CSRF token and same-origin checks).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.concurrency import run_in_threadpool

from ..clock import iso_time
from ..errors import NotFoundError, OpenClawMemoryError, ValidationError
from ..types import MemoryType, Scope, Status
from . import queries as q
from ..service.hosts import allowed_hosts
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
    "forgotten": "Forgotten: the memory is inactive and no longer recalled (kept for audit).",
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
    return env


class Console:
    """The /ui router over one middleware, with its sessions and Host allow-list."""

    def __init__(self, middleware: Any, *, token: str, hosts: frozenset[str] | None = None) -> None:
        self.mw = middleware
        self.sessions = Sessions(token)
        # The service's allow-list (create_app passes the set its request guard checks).
        self.hosts = hosts if hosts is not None else allowed_hosts()
        self.env = _env()
        self.router = APIRouter(prefix="/ui", include_in_schema=False)
        self._routes()

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
        return _secured(HTMLResponse(html, status_code=status))

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

    # ---- routes -----------------------------------------------------------------------------

    def _routes(self) -> None:
        r = self.router
        r.add_api_route("/static/{name}", self.static, methods=["GET"])
        r.add_api_route("/login", self.login_page, methods=["GET"])
        r.add_api_route("/login", self.login, methods=["POST"])
        r.add_api_route("/logout", self.logout, methods=["POST"])
        r.add_api_route("/", self.users_page, methods=["GET"])
        r.add_api_route("/memories", self.list_page, methods=["GET"])
        r.add_api_route("/memory/{memory_id}", self.memory_page, methods=["GET"])
        r.add_api_route("/memory/{memory_id}/{action}", self.memory_action, methods=["POST"])
        r.add_api_route("/why", self.why_page, methods=["GET"])
        r.add_api_route("/purge-user", self.purge_user_page, methods=["GET"])
        r.add_api_route("/purge-user", self.purge_user, methods=["POST"])
        r.add_api_route("/export", self.export, methods=["GET"])
        r.add_api_route("/import", self.import_page, methods=["GET"])
        r.add_api_route("/import", self.import_, methods=["POST"])

    def static(self, name: str, request: Request) -> Response:
        """The console's CSS and JavaScript (shipped in the package; nothing fetched elsewhere)."""
        path = HERE / "static" / name
        if "/" in name or name.startswith(".") or not path.is_file():
            return PlainTextResponse("not found", status_code=404)
        return _secured(FileResponse(path))

    def login_page(self, request: Request, token: str = "") -> Response:
        """`/ui/login?token=...` signs in and redirects to a clean address; without a token, the form."""
        try:
            check_host(request.headers.get("host"), self.hosts)
        except RefusedError as exc:
            return self._render(request, "error.html", exc.status, message=exc.message)
        if not token:
            return self._render(request, "login.html", message="")
        if not self.sessions.token_ok(token):
            return self._render(
                request, "login.html", 401, message="that token is not this service's token"
            )
        return self._signed_in()

    async def login(self, request: Request) -> Response:
        """The sign-in form's POST."""
        try:
            check_host(request.headers.get("host"), self.hosts)
            check_same_origin(
                {k.lower(): v for k, v in request.headers.items()}, request.url.scheme
            )
        except RefusedError as exc:
            return self._render(request, "error.html", exc.status, message=exc.message)
        form = {
            k: v[0] for k, v in parse_qs((await request.body()).decode("utf-8", "replace")).items()
        }
        if not self.sessions.token_ok(form.get("token", "").strip()):
            return self._render(
                request, "login.html", 401, message="that token is not this service's token"
            )
        return self._signed_in()

    def _signed_in(self) -> Response:
        sid, _ = self.sessions.open()
        resp = RedirectResponse("/ui/", status_code=303)
        resp.set_cookie(COOKIE, sid, httponly=True, samesite="strict", path="/ui", secure=False)
        return _secured(resp)

    async def logout(self, request: Request) -> Response:
        """Sign this browser out."""
        try:
            await self._form(request)
        except RefusedError as exc:
            return self._refusal(request, exc)
        self.sessions.close(request.cookies.get(COOKIE))
        resp = RedirectResponse("/ui/login", status_code=303)
        resp.delete_cookie(COOKIE, path="/ui")
        return _secured(resp)

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
            scope = _scope(request.query_params)
            p = request.query_params
            f = q.Filters(
                type=p.get("type", ""),
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
            scope = _scope(request.query_params)
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
            scope = _scope(form)
            target, done = self._memory_action(scope, memory_id, action, form)
            where = "/ui/memories?" if target is None else f"/ui/memory/{target}?"
            return _secured(
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
            from ..edit import edit_memory

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

    def why_page(self, request: Request) -> Response:
        """The injection plan for a request typed as a user (what `search --explain` prints)."""

        def page() -> Response:
            from ..recall.explain import explain_table

            scope = _scope(request.query_params)
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

    def purge_user_page(self, request: Request) -> Response:
        """The typed confirmation before a user's purge."""
        return self._guard(
            request,
            lambda: self._render(
                request,
                "purge_user.html",
                scope=_scope(request.query_params),
                all_agents=request.query_params.get("all") == "1",
                title="Purge user",
            ),
        )

    async def purge_user(self, request: Request) -> Response:
        """Delete every memory of a user (or of one agent) after the user id was typed."""

        def run(form: dict[str, str]) -> Response:
            scope = _scope(form)
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
            return _secured(RedirectResponse("/ui/?done=user-purged", status_code=303))

        return await self._act(request, run)

    def export(self, request: Request) -> Response:
        """Download a user's export (jsonl or markdown)."""

        def run() -> Response:
            from ..portability import export_text

            p = request.query_params
            scope = _scope(p)
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
            return _secured(resp)

        return self._guard(request, run)

    def import_page(self, request: Request) -> Response:
        """The import form (a JSON Lines export or an OpenClaw memory file)."""
        return self._guard(
            request,
            lambda: self._render(
                request,
                "import.html",
                scope=_scope(request.query_params),
                report=None,
                title="Import",
            ),
        )

    async def import_(self, request: Request) -> Response:
        """Import the pasted or chosen file into the scope."""

        def run(form: dict[str, str]) -> Response:
            from ..portability import import_text

            scope = _scope(form)
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
            )
            self.mw.engine.sync_index(scope)
            return self._render(request, "import.html", scope=scope, report=report, title="Import")

        return await self._act(request, run)


def why_plan(mw: Any, scope: Scope, text: str) -> Any:
    """The plan `before_request` would inject for a request of one user message `text`: the same
    recall (the message as the recent turns), the same request tokens, the same prefix template.
    Read-only, unlike a real request: no session is opened and nothing is reinforced."""
    from ..text import valid_unicode

    recent = [{"role": "user", "content": text}]
    result = mw.working.recaller.recall(scope, valid_unicode(text), recent)
    return mw._wrap(mw.working.assemble(scope, result, request_tokens=len(text) // 3))


def _scope(params: Any) -> Scope:
    user = params.get("user", "")
    if not user:
        raise ValidationError("user: expected a user id (choose one on the Users page)")
    return Scope(user, params.get("agent") or "default")


def _form_params(f: q.Filters) -> dict[str, str]:
    names = {"text": "q", "date_from": "from", "date_to": "to"}
    return {names.get(k, k): v for k, v in f.params().items()}


_R = TypeVar("_R", bound=Response)


def _secured(resp: _R) -> _R:
    for k, v in SECURITY_HEADERS.items():
        resp.headers.setdefault(k, v)
    return resp


def mount_console(
    app: Any, middleware: Any, *, token: str, hosts: frozenset[str] | None = None
) -> Console:
    """Add the console's routes under /ui to a FastAPI app; hosts: the app's Host allow-list
    (service/hosts.py `allowed_hosts`; loopback names only when not given)."""
    console = Console(middleware, token=token, hosts=hosts)
    app.include_router(console.router)
    return console
