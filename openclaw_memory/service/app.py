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
    POST /v1/memory/search|get|remember|forget   the agent's memory tools (search: `deep` for the archive)
    POST /v1/process-event       a deterministic process node (a task's status changed), written now
    POST /service/cleanup        gateway_stop -> queued writes flushed, the index brought up to date
                                 (outside /v1: it serves the whole process, not one scope)
"""

from __future__ import annotations

import hmac
from importlib import metadata
from typing import Any, Protocol

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from ..errors import NotFoundError, OpenClawMemoryError, ValidationError
from . import models as m


class _Middleware(Protocol):
    """The part of MemoryMiddleware the service uses (see middleware.py)."""

    def recall(self, scope: Any, session_id: str, prompt: str, recent: Any = ()) -> Any: ...
    def capture_messages(self, scope: Any, session_id: str, messages: Any) -> int: ...
    def on_session_start(self, scope: Any, session_id: str) -> Any: ...
    def on_tool_event(self, scope: Any, session_id: str, event: Any) -> None: ...
    def on_session_end(self, scope: Any, session_id: str, reason: str = "end") -> None: ...
    def on_compaction(self, scope: Any, session_id: str, messages: Any = ()) -> None: ...
    def search(self, scope: Any, query: str, limit: int = 10, *, deep: bool = False) -> list: ...
    def get(self, scope: Any, memory_id: str) -> Any: ...
    def remember(self, scope: Any, text: str, **kwargs: Any) -> Any: ...
    def forget(self, scope: Any, **kwargs: Any) -> list: ...
    def record_process_event(self, scope: Any, subject: str, status: str, summary: str = "", **kw: Any) -> list: ...
    def cleanup(self, timeout: float = 2.0) -> dict: ...


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
    fields = [{"field": _field_name(tuple(e.get("loc", ()))), "message": _message(e)} for e in errors]
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


def _auth_dependency(token: str) -> Any:
    expected = f"Bearer {token}".encode()

    def check(request: Request) -> None:
        if not token:
            return
        got = request.headers.get("authorization", "").encode()
        if not hmac.compare_digest(got, expected):
            raise _Unauthorized()

    return check


class _Unauthorized(Exception):
    pass


def create_app(middleware: _Middleware, *, token: str) -> FastAPI:
    """Build the API over `middleware`; when token is non-empty every /v1 call needs `Bearer <token>`."""
    app = FastAPI(title="openclaw-memory", version=package_version(), docs_url=None, redoc_url=None)
    _install_error_handlers(app)

    @app.exception_handler(_Unauthorized)
    async def _on_unauthorized(_: Request, __: _Unauthorized) -> JSONResponse:
        resp = _error(401, "unauthorized", "expected header 'Authorization: Bearer <token>'")
        resp.headers["WWW-Authenticate"] = "Bearer"
        return resp

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok", "version": package_version()}

    router = APIRouter(prefix="/v1", dependencies=[Depends(_auth_dependency(token))])
    _add_hook_routes(router, middleware)
    _add_memory_routes(router, middleware)
    app.include_router(router)
    service = APIRouter(prefix="/service", dependencies=[Depends(_auth_dependency(token))])
    _add_service_routes(service, middleware)
    app.include_router(service)
    app.state.middleware = middleware
    return app


def _add_hook_routes(router: APIRouter, mw: _Middleware) -> None:
    from ..middleware import ToolEvent  # the lead's module; imported late to keep this one light

    @router.post("/recall")
    def recall(body: m.RecallIn) -> dict[str, Any]:
        recent = m.messages_to_dicts(body.messages)
        plan = mw.recall(body.scope.to_scope(), body.session_id, body.prompt, recent)
        return m.plan_to_json(plan)

    @router.post("/capture", status_code=202)
    def capture(body: m.CaptureIn) -> dict[str, Any]:
        queued = mw.capture_messages(
            body.scope.to_scope(), body.session_id, m.messages_to_dicts(body.messages)
        )
        return {"queued": int(queued)}

    @router.post("/tool-event", status_code=202)
    def tool_event(body: m.ToolEventIn) -> dict[str, Any]:
        event = ToolEvent(
            tool=body.tool, arguments=body.arguments, outcome=body.outcome, ok=body.ok,
            files=tuple(body.files), duration_ms=body.duration_ms,
        )
        mw.on_tool_event(body.scope.to_scope(), body.session_id, event)
        return {"accepted": True}

    @router.post("/session/start")
    def session_start(body: m.SessionStartIn) -> dict[str, Any]:
        return m.plan_to_json(mw.on_session_start(body.scope.to_scope(), body.session_id))

    @router.post("/session/end", status_code=202)
    def session_end(body: m.SessionEndIn) -> dict[str, Any]:
        mw.on_session_end(body.scope.to_scope(), body.session_id, body.reason)
        return {"accepted": True}

    @router.post("/session/compact", status_code=202)
    def session_compact(body: m.CompactIn) -> dict[str, Any]:
        mw.on_compaction(body.scope.to_scope(), body.session_id, m.messages_to_dicts(body.messages))
        return {"accepted": True}


def _add_memory_routes(router: APIRouter, mw: _Middleware) -> None:
    @router.post("/memory/search")
    def search(body: m.SearchIn) -> dict[str, Any]:
        found = mw.search(body.scope.to_scope(), body.query, body.limit, deep=body.deep)
        return {"memories": [m.scored_to_json(s) for s in found]}

    @router.post("/memory/get")
    def get(body: m.GetIn) -> dict[str, Any]:
        return {"memory": m.record_to_json(mw.get(body.scope.to_scope(), body.id))}

    @router.post("/memory/remember")
    def remember(body: m.RememberIn) -> dict[str, Any]:
        result = mw.remember(
            body.scope.to_scope(), body.text, type=body.type, subject=body.subject,
            session_id=body.session_id,
        )
        return m.write_to_json(result)

    @router.post("/memory/forget")
    def forget(body: m.ForgetIn) -> dict[str, Any]:
        ids = mw.forget(body.scope.to_scope(), memory_id=body.id, query=body.query)
        return {"forgotten": list(ids)}

    @router.post("/process-event")
    def process_event(body: m.ProcessEventIn) -> dict[str, Any]:
        results = mw.record_process_event(
            body.scope.to_scope(), body.subject, body.status, body.summary, reason=body.reason,
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
