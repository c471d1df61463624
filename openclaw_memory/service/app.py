"""The HTTP bridge: a versioned JSON API over one MemoryMiddleware.

OpenClaw's JavaScript plugin (service/plugin/) calls these routes from its hooks. Endpoints are
plain `def` functions on purpose: FastAPI runs them in its threadpool, so the synchronous
middleware serves many agents at once without blocking the event loop.

    GET  /health                 no auth; {"status": "ok", "version"}
    POST /v1/recall              before_prompt_build -> the memory block to inject
    POST /v1/capture             agent_end -> 202, turns queued for the write path
    POST /v1/tool-event          after_tool_call -> 202, an event memory
    POST /v1/session/start       session_start -> profile + recent summaries block
    POST /v1/session/end         session_end -> 202, session summary
    POST /v1/session/compact     before_compaction -> 202, summary before context is dropped
    POST /v1/memory/search|get|remember|forget|restore   the agent's memory tools (search: `deep` for the archive)
    POST /v1/process-event       a deterministic process node (a task's status changed), written now
    POST /service/cleanup        gateway_stop -> queued writes flushed, the index brought up to date
                                 (outside /v1: it serves the whole process, not one scope)

Every request first meets `RequestGuard`, a plain ASGI layer that runs before any body is read
or parsed: a Host header outside the allow-list gets 421 (a DNS-rebinding page in a browser sends
its own host name), a missing or wrong token 401 (also for /openapi.json; only /health is open),
and a body over its route's byte cap 413, read no further. Errors are JSON, never plain text.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Iterable
from importlib import metadata
from typing import Any, Protocol

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from ..errors import ConfigError, NotFoundError, OpenClawMemoryError, ValidationError
from . import models as m
from .hosts import (
    allowed_hosts,
    host_allowed,
    host_name,
)  # the allow-list the MCP server and console share

log = logging.getLogger(__name__)

#: Paths served without a token: the liveness probe only.
OPEN_PATHS = frozenset({"/health"})
#: the web console authenticates itself (the token traded once for a SameSite=Strict session
#: cookie, a CSRF token in every form, same-origin checks: console/security.py); the Host check
#: and the body cap still apply to it here
CONSOLE_PREFIX = "/ui"
#: Body caps in bytes, one table: transcripts may be long (80 messages of a few thousand
#: characters, Chinese at 3 bytes a character, plus JSON escapes); everything else is small.
BODY_CAPS = {
    "/v1/capture": 4 * 1024 * 1024,
    "/v1/session/compact": 4 * 1024 * 1024,
    "/v1/memory/import": 32 * 1024 * 1024,  # a whole export or OpenClaw workspace
    "/ui/import": 32 * 1024 * 1024,
}
DEFAULT_BODY_CAP = 1024 * 1024


class _Middleware(Protocol):
    """The part of MemoryMiddleware the service uses (see middleware.py)."""

    def recall(
        self, scope: Any, session_id: str, prompt: str, recent: Any = (), *, live_turns: Any = ()
    ) -> Any: ...
    def capture_messages(
        self, scope: Any, session_id: str, messages: Any, *, stored_turns: Any = ()
    ) -> int: ...
    def on_session_start(self, scope: Any, session_id: str) -> Any: ...
    def on_tool_event(self, scope: Any, session_id: str, event: Any) -> None: ...
    def on_session_end(self, scope: Any, session_id: str, reason: str = "end") -> None: ...
    def on_compaction(self, scope: Any, session_id: str, messages: Any = ()) -> None: ...
    def on_session_compaction(self, agent_id: str, session_id: str, messages: Any = ()) -> list: ...
    def on_session_ended(self, agent_id: str, session_id: str, reason: str = "end") -> list: ...
    def search(self, scope: Any, query: str, limit: int = 10, *, deep: bool = False) -> list: ...
    def get(self, scope: Any, memory_id: str) -> Any: ...
    def remember(self, scope: Any, text: str, **kwargs: Any) -> Any: ...
    def forget(self, scope: Any, **kwargs: Any) -> list: ...
    def record_process_event(
        self, scope: Any, subject: str, status: str, summary: str = "", **kw: Any
    ) -> list: ...
    def cleanup(self, timeout: float = 2.0) -> dict: ...

    def restore(self, scope: Any, memory_id: str) -> Any: ...


def package_version() -> str:
    """The installed package version, or "0+unknown" when run from a source tree."""
    try:
        return metadata.version("openclaw-memory")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _field_name(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p != "body"]
    return ".".join(parts) or "body"


def _message(error: dict[str, Any]) -> str:
    if error.get("type") == "string_pattern_mismatch":
        return f"expected {m.ID_HINT}, found {error.get('input')!r}"
    if error.get("type") == "extra_forbidden":
        return "unknown field (not part of this request)"
    return str(error.get("msg", "invalid"))


def _validation_body(errors: list[dict[str, Any]]) -> dict[str, Any]:
    fields = [
        {"field": _field_name(tuple(e.get("loc", ()))), "message": _message(e)} for e in errors
    ]
    message = "; ".join(f"{f['field']}: {f['message']}" for f in fields)
    return {"error": "validation_error", "message": message, "fields": fields}


def _error(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse(status_code=status, content={"error": kind, "message": message})


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _on_request_invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(status_code=422, content=_validation_body(list(exc.errors())))

    @app.exception_handler(ValidationError)
    async def _on_invalid(_: Request, exc: ValidationError) -> JSONResponse:
        return _error(422, "validation_error", str(exc))

    @app.exception_handler(NotFoundError)
    async def _on_not_found(_: Request, exc: NotFoundError) -> JSONResponse:
        return _error(404, "not_found", str(exc))

    @app.exception_handler(OpenClawMemoryError)
    async def _on_memory_error(_: Request, exc: OpenClawMemoryError) -> JSONResponse:
        return _error(500, type(exc).__name__, str(exc))

    @app.exception_handler(Exception)
    async def _on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        # a failure of a component (a vector index changed under the service, a disk error):
        # JSON like every other answer, and logged with its traceback
        log.exception("%s %s failed", request.method, request.url.path)
        return _error(500, "internal_error", f"{type(exc).__name__}: {exc}")


class _Purged(Exception):
    """A spooled write of a user purged after it was spooled."""


def _refuse_if_purged(mw: Any, scope: Any, spooled_at: float | None) -> None:
    """A replayed write spooled before the user's last purge must not bring the data back."""
    if spooled_at is None or not hasattr(mw, "engine"):
        return
    from ..maintain.purge import purged_at

    when = purged_at(mw.engine, scope.user_id, scope.agent_id)
    if when is not None and spooled_at <= when:
        raise _Purged()


def _json_bytes(kind: str, message: str) -> bytes:
    return json.dumps({"error": kind, "message": message}).encode("utf-8")


class RequestGuard:
    """ASGI layer in front of the app: Host allow-list, bearer token, body cap, before parsing.

    The body is read here, up to the route's cap, and handed on whole; a request over the cap is
    answered 413 as soon as the cap is passed (or at once, from Content-Length), so an
    unauthenticated or oversized body never reaches JSON parsing or validation.
    """

    def __init__(
        self,
        app: Any,
        *,
        token: str,
        hosts: Iterable[str],
        caps: dict[str, int] | None = None,
        default_cap: int = DEFAULT_BODY_CAP,
    ) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()
        self._hosts = frozenset(h.lower() for h in hosts)
        self._caps = dict(BODY_CAPS if caps is None else caps)
        self._default_cap = default_cap

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", [])}
        refusal = self._refuse(scope, headers)
        if refusal is not None:
            await _send_json(send, *refusal)
            return
        cap = self._caps.get(scope.get("path", ""), self._default_cap)
        declared = headers.get("content-length", b"").decode("latin-1").strip()
        if declared.isdigit() and int(declared) > cap:
            await _send_json(
                send, 413, "body_too_large", f"request body over {cap} bytes for this route"
            )
            return
        body = await _read_body(receive, cap)
        if body is None:
            await _send_json(
                send, 413, "body_too_large", f"request body over {cap} bytes for this route"
            )
            return
        await self.app(scope, _replay(body, receive), send)

    def _refuse(self, scope: dict, headers: dict[str, bytes]) -> tuple[int, str, str, dict] | None:
        header = headers.get("host", b"").decode("latin-1")
        if not host_allowed(header, self._hosts):
            host = host_name(header)
            return (
                421,
                "misdirected_request",
                f"Host {host!r} is not served here; expected one of {', '.join(sorted(self._hosts))}",
                {},
            )
        path = scope.get("path", "")
        if path in OPEN_PATHS or path == CONSOLE_PREFIX or path.startswith(CONSOLE_PREFIX + "/"):
            return None
        if not hmac.compare_digest(headers.get("authorization", b""), self._expected):
            return (
                401,
                "unauthorized",
                "expected header 'Authorization: Bearer <token>'",
                {"www-authenticate": "Bearer"},
            )
        return None


async def _send_json(
    send: Any, status: int, kind: str, message: str, extra: dict | None = None
) -> None:
    body = _json_bytes(kind, message)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _read_body(receive: Any, cap: int) -> bytes | None:
    """The whole body, or None as soon as it passes cap bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > cap:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Any) -> Any:
    sent = False

    async def replay() -> dict:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # after the body: disconnect notices, as the server sends them

    return replay


def create_app(middleware: _Middleware, *, token: str, hosts: Iterable[str] = ()) -> FastAPI:
    """Build the API over `middleware`: every route but /health needs `Bearer <token>`.

    token: required (a tokenless service is refused: any web page could reach it). hosts: Host
    names served besides the loopback ones (the bound host, when it is not loopback).
    """
    if not isinstance(token, str) or not token.strip():
        raise ConfigError(
            "service.token: expected a non-empty token; the service never runs without one"
        )
    app = FastAPI(title="openclaw-memory", version=package_version(), docs_url=None, redoc_url=None)
    _install_error_handlers(app)

    @app.exception_handler(_Purged)
    async def _on_purged(_: Request, __: _Purged) -> JSONResponse:
        return _error(
            410, "purged", "the user was purged after this write was spooled; it is dropped"
        )

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok", "version": package_version()}

    router = APIRouter(prefix="/v1")
    _add_hook_routes(router, middleware)
    _add_memory_routes(router, middleware)
    from ..console.api import add_routes as add_console_routes

    add_console_routes(router, middleware)
    app.include_router(router)
    # One allow-list for the API and the console: loopback names and `hosts` (ports dropped, an
    # IPv6 literal also in brackets, as Host headers carry it).
    allowed = allowed_hosts(extra=[host_name(h) for h in hosts if h])
    from ..console.views import mount_console

    mount_console(app, middleware, token=token, hosts=allowed)
    service = APIRouter(prefix="/service")  # behind RequestGuard like /v1 (token, Host, body cap)
    _add_service_routes(service, middleware)
    app.include_router(service)
    app.state.middleware = middleware
    app.add_middleware(RequestGuard, token=token.strip(), hosts=allowed)
    return app


def _add_hook_routes(router: APIRouter, mw: _Middleware) -> None:
    from ..middleware import ToolEvent  # the lead's module; imported late to keep this one light

    @router.post("/recall")
    def recall(body: m.RecallIn) -> dict[str, Any]:
        recent = m.messages_to_dicts(body.messages)
        plan = mw.recall(
            body.scope.to_scope(), body.session_id, body.prompt, recent, live_turns=body.live_turns
        )
        return m.plan_to_json(plan)

    @router.post("/capture", status_code=202)
    def capture(body: m.CaptureIn) -> dict[str, Any]:
        scope = body.scope.to_scope()
        _refuse_if_purged(mw, scope, body.spooled_at)
        queued = mw.capture_messages(
            scope,
            body.session_id,
            m.messages_to_dicts(body.messages),
            stored_turns=body.stored_turns,
        )
        return {"queued": int(queued)}

    @router.post("/tool-event", status_code=202)
    def tool_event(body: m.ToolEventIn) -> dict[str, Any]:
        event = ToolEvent(
            tool=body.tool,
            arguments=body.arguments,
            outcome=body.outcome,
            ok=body.ok,
            files=tuple(body.files),
            duration_ms=body.duration_ms,
        )
        scope = body.scope.to_scope()
        _refuse_if_purged(mw, scope, body.spooled_at)
        mw.on_tool_event(scope, body.session_id, event)
        return {"accepted": True}

    @router.post("/session/start")
    def session_start(body: m.SessionStartIn) -> dict[str, Any]:
        return m.plan_to_json(mw.on_session_start(body.scope.to_scope(), body.session_id))

    @router.post("/session/end", status_code=202)
    def session_end(body: m.SessionEndIn) -> dict[str, Any]:
        scope = body.scope.to_scope()
        if scope is None:
            scopes = mw.on_session_ended(body.scope.agent_id, body.session_id, body.reason)
            return {"accepted": True, "users": len(scopes)}
        _refuse_if_purged(mw, scope, body.spooled_at)
        mw.on_session_end(scope, body.session_id, body.reason)
        return {"accepted": True}

    @router.post("/session/compact", status_code=202)
    def session_compact(body: m.CompactIn) -> dict[str, Any]:
        messages = m.messages_to_dicts(body.messages)
        scope = body.scope.to_scope()
        if scope is None:
            scopes = mw.on_session_compaction(body.scope.agent_id, body.session_id, messages)
            return {"accepted": True, "users": len(scopes)}
        _refuse_if_purged(mw, scope, body.spooled_at)
        mw.on_compaction(scope, body.session_id, messages)
        return {"accepted": True}


def _add_memory_routes(router: APIRouter, mw: _Middleware) -> None:
    @router.post("/memory/search")
    def search(body: m.SearchIn) -> dict[str, Any]:
        found = mw.search(
            body.scope.to_scope(), body.query, body.limit, **({"deep": True} if body.deep else {})
        )
        return m.search_to_json(found)

    @router.post("/memory/get")
    def get(body: m.GetIn) -> dict[str, Any]:
        return m.get_to_json(mw.get(body.scope.to_scope(), body.id))

    @router.post("/memory/remember")
    def remember(body: m.RememberIn) -> dict[str, Any]:
        result = mw.remember(
            body.scope.to_scope(),
            body.text,
            type=body.type,
            subject=body.subject,
            session_id=body.session_id,
        )
        return m.write_to_json(result)

    @router.post("/memory/restore")
    def restore(body: m.RestoreIn) -> dict[str, Any]:
        r = mw.restore(body.scope.to_scope(), body.id)
        return {"restored": r.id, "status": r.status.value}

    @router.post("/memory/forget")
    def forget(body: m.ForgetIn) -> dict[str, Any]:
        ids = mw.forget(body.scope.to_scope(), memory_id=body.id, query=body.query)
        return {"forgotten": list(ids)}

    @router.post("/process-event")
    def process_event(body: m.ProcessEventIn) -> dict[str, Any]:
        results = mw.record_process_event(
            body.scope.to_scope(),
            body.subject,
            body.status,
            body.summary,
            reason=body.reason,
            session_id=body.session_id,
        )
        return {"results": [m.write_to_json(r) for r in results]}


def _add_service_routes(router: APIRouter, mw: _Middleware) -> None:
    @router.post("/cleanup")
    def cleanup(body: m.CleanupIn, request: Request) -> dict[str, Any]:
        done = mw.cleanup(body.wait_ms / 1000)
        scheduler = getattr(request.app.state, "maintenance", None)
        # the gateway is stopping: a good moment for a maintenance run that is due, in the
        # background (the hook has a few seconds; a run may take longer)
        done["maintenance"] = scheduler.nudge() if scheduler is not None else "off"
        return done
