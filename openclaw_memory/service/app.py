"""The HTTP bridge: a versioned JSON API over one MemoryMiddleware, one handler per route.

With the glue between the routes and the capture journal.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any, Callable, Protocol
from pydantic import BaseModel, ValidationError as PydanticValidationError
from ..store.capture_journal import new_capture_id, CaptureJournal
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import PlainTextResponse, JSONResponse
from . import models as m
from collections.abc import Iterable
from importlib import metadata
from fastapi.exceptions import RequestValidationError
from ..errors import ConfigError, NotFoundError, OpenClawMemoryError, ValidationError
from .guard import (  # the allow-list the MCP server and console share
    RequestGuard,
    bearer_check,
    allowed_hosts,
    host_name,
)
from .metrics import MetricsLayer

# The glue between the service's routes and the capture journal (`store/capture_journal.py`):
# a queued write is journaled, redacted, before its 202, marked done once its jobs have run, and
# replayed at the next start when it was not.

log = logging.getLogger(__name__)


# ---- the glue between the routes and the journal ------------------------------------------------

#: the scope the done-marks run under: a purge drops a user's queued jobs, never these
_MARK_SCOPE_USER = "openclaw-memory-journal"

Handler = Callable[[Any, Any], dict[str, Any]]


def redacted_body(secrets: Any, body: BaseModel) -> dict[str, Any]:
    """The request as JSON with secrets redacted in every text it carries (message contents, a
    tool's name, arguments, outcome and files); ids, times and flags as they came."""
    data = body.model_dump(mode="json", exclude_none=True)
    if secrets is None:
        return data
    for message in data.get("messages", ()):
        message["content"] = secrets.redact(message.get("content", ""))
    for key in ("tool", "outcome"):
        if isinstance(data.get(key), str):
            data[key] = secrets.redact(data[key])
    if "arguments" in data:
        data["arguments"] = secrets.redact_value(data["arguments"])
    if "files" in data:
        data["files"] = [secrets.redact(f) for f in data["files"]]
    return data


def queue_write(
    journal: CaptureJournal | None,
    mw: Any,
    route: str,
    body: BaseModel,
    handler: Handler,
    duplicate: dict[str, Any],
) -> dict[str, Any]:
    """Journal the write, queue it through handler(mw, body), and mark it done once the jobs it
    queued have run. A capture id journaled before answers `duplicate` and queues nothing."""
    if journal is None:
        return handler(mw, body)
    data = redacted_body(getattr(mw, "secrets", None), body)
    capture_id = data.pop("capture_id", None) or new_capture_id()
    scope = body.scope.to_scope()  # type: ignore[attr-defined]
    if not journal.add(capture_id, route, scope, data):
        return {**duplicate, "duplicate": True}
    try:  # the redacted request, as a replay would see it, with its id: the records' stable key
        request = type(body).model_validate({**data, "capture_id": capture_id})
    except (
        PydanticValidationError
    ):  # a redaction longer than a capped field: the write path redacts too
        request = body.model_copy(update={"capture_id": capture_id})
    return _run(journal, mw, capture_id, lambda: handler(mw, request))


def replay(journal: CaptureJournal, mw: Any, routes: dict[str, tuple[Any, ...]]) -> int:
    """Queue again what was journaled and not done (the process died first); returns how many.
    A write spooled before its user's purge is refused by its handler and dropped."""
    count = 0
    for entry in journal.pending():
        model, handler = routes.get(entry.route, (None, None))[:2]
        if model is None or handler is None:
            log.warning(
                "journal: capture %s names an unknown route %s; dropped", entry.id, entry.route
            )
            journal.done(entry.id)
            continue
        data = {
            **entry.body,
            "spooled_at": entry.body.get("spooled_at", entry.at),
            "capture_id": entry.id,  # the key the first run gave its records: a replay adds none
        }
        try:
            queue = partial(_validated_call, handler, mw, model, data)  # run at once, in order
            _run(journal, mw, entry.id, queue)
            count += 1
        except Exception as exc:  # noqa: BLE001 - one bad entry must not stop the others
            log.warning("journal: capture %s (%s) not replayed: %s", entry.id, entry.route, exc)
    return count


def _validated_call(handler: Handler, mw: Any, model: Any, data: dict[str, Any]) -> dict:
    return handler(mw, model.model_validate(data))


def _run(
    journal: CaptureJournal, mw: Any, capture_id: str, queue: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    try:
        out = queue()
    except BaseException:
        journal.done(capture_id)  # refused (a purge, bad input): the client is told, nothing queued
        raise
    _mark_when_done(journal, mw, capture_id)
    return out


def _mark_when_done(journal: CaptureJournal, mw: Any, capture_id: str) -> None:
    """Queue the done-mark behind the jobs the write queued: the worker runs its queue in order
    (one thread), so the mark runs after them."""
    worker = getattr(mw, "worker", None)
    if worker is None:  # no background worker: the handler wrote synchronously
        journal.done(capture_id)
        return
    from ..types import Scope
    from ..core.worker import Job

    scope = Scope(_MARK_SCOPE_USER, "journal")
    worker.submit(Job(scope, lambda: journal.done(capture_id), "journal", barrier=False))


# The service's routes: the versioned JSON API over one MemoryMiddleware, one handler each.
#
# Endpoints are plain `def` functions on purpose: FastAPI runs them in its threadpool, so the
# synchronous middleware serves many agents at once without blocking the event loop. A replayed
# write spooled before the user's last purge is refused (410), so a purge stays a purge. The
# writes answered 202 (`QUEUED_WRITES`) are journaled before the answer when the app has a
# journal (service/app.py), so a crash does not lose them.


class Middleware(Protocol):
    """The part of MemoryMiddleware the service uses (see middleware.py)."""

    def recall(
        self, scope: Any, session_id: str, prompt: str, recent: Any = (), *, live_turns: Any = ()
    ) -> Any: ...
    def capture_messages(
        self, scope: Any, session_id: str, messages: Any, *, stored_turns: Any = ()
    ) -> int: ...
    def on_session_start(self, scope: Any, session_id: str) -> Any: ...
    def on_tool_event(self, scope: Any, session_id: str, event: Any) -> None: ...
    def on_session_end(
        self, scope: Any, session_id: str, reason: str = "end", *, key: str | None = None
    ) -> None: ...
    def on_compaction(
        self, scope: Any, session_id: str, messages: Any = (), *, key: str | None = None
    ) -> None: ...
    def on_session_compaction(
        self, agent_id: str, session_id: str, messages: Any = (), *, key: str | None = None
    ) -> list: ...
    def on_session_ended(
        self, agent_id: str, session_id: str, reason: str = "end", *, key: str | None = None
    ) -> list: ...
    def search(self, scope: Any, query: str, limit: int = 10, *, deep: bool = False) -> list: ...
    def get(self, scope: Any, memory_id: str) -> Any: ...
    def remember(self, scope: Any, text: str, **kwargs: Any) -> Any: ...
    def forget(self, scope: Any, **kwargs: Any) -> list: ...
    def record_process_event(
        self, scope: Any, subject: str, status: str, summary: str = "", **kw: Any
    ) -> list: ...
    def cleanup(self, timeout: float = 2.0) -> dict: ...

    def restore(self, scope: Any, memory_id: str) -> Any: ...


class PurgedWriteError(Exception):
    """A spooled write of a user purged after it was spooled."""


def _refuse_if_purged(mw: Any, scope: Any, spooled_at: float | None) -> None:
    """A replayed write spooled before the user's last purge must not bring the data back."""
    if spooled_at is None or not hasattr(mw, "maintenance"):
        return
    from ..maintain.doctor import purged_at

    when = purged_at(mw.maintenance, scope.user_id, scope.agent_id)
    if when is not None and spooled_at <= when:
        raise PurgedWriteError()


def _capture(mw: Any, body: m.CaptureIn) -> dict[str, Any]:
    scope = body.scope.to_scope()
    _refuse_if_purged(mw, scope, body.spooled_at)
    queued = mw.capture_messages(
        scope, body.session_id, m.messages_to_dicts(body.messages), stored_turns=body.stored_turns
    )
    return {"queued": int(queued)}


def _tool_event(mw: Any, body: m.ToolEventIn) -> dict[str, Any]:
    from ..middleware import ToolEvent  # the lead's module; imported late to keep this one light

    event = ToolEvent(
        tool=body.tool,
        arguments=body.arguments,
        outcome=body.outcome,
        ok=body.ok,
        files=tuple(body.files),
        duration_ms=body.duration_ms,
        key=body.capture_id,
    )
    scope = body.scope.to_scope()
    _refuse_if_purged(mw, scope, body.spooled_at)
    mw.on_tool_event(scope, body.session_id, event)
    return {"accepted": True}


def _session_end(mw: Any, body: m.SessionEndIn) -> dict[str, Any]:
    scope = body.scope.to_scope()
    if scope is None:
        scopes = mw.on_session_ended(
            body.scope.agent_id, body.session_id, body.reason, key=body.capture_id
        )
        return {"accepted": True, "users": len(scopes)}
    _refuse_if_purged(mw, scope, body.spooled_at)
    mw.on_session_end(scope, body.session_id, body.reason, key=body.capture_id)
    return {"accepted": True}


def _session_compact(mw: Any, body: m.CompactIn) -> dict[str, Any]:
    messages = m.messages_to_dicts(body.messages)
    scope = body.scope.to_scope()
    if scope is None:
        scopes = mw.on_session_compaction(
            body.scope.agent_id, body.session_id, messages, key=body.capture_id
        )
        return {"accepted": True, "users": len(scopes)}
    _refuse_if_purged(mw, scope, body.spooled_at)
    mw.on_compaction(scope, body.session_id, messages, key=body.capture_id)
    return {"accepted": True}


#: The writes answered 202 before they are done: journaled first (service/app.py), replayed
#: by route after a crash. Each: (request model, handler, the answer to a resent capture id).
QUEUED_WRITES: dict[str, tuple[Any, Any, dict[str, Any]]] = {
    "/v1/capture": (m.CaptureIn, _capture, {"queued": 0}),
    "/v1/tool-event": (m.ToolEventIn, _tool_event, {"accepted": True}),
    "/v1/session/end": (m.SessionEndIn, _session_end, {"accepted": True}),
    "/v1/session/compact": (m.CompactIn, _session_compact, {"accepted": True}),
}


def _queued(request: Request, mw: Any, route: str, body: Any) -> dict[str, Any]:
    _, handler, duplicate = QUEUED_WRITES[route]
    journal = getattr(request.app.state, "journal", None)
    return queue_write(journal, mw, route, body, handler, duplicate)


def _await_other_processes(request: Request, scope: Any) -> None:
    """Read-your-writes across service processes on one PostgreSQL store: wait (bounded) for
    the scope's captures queued on any of them (service/app.py, SharedPending)."""
    journal = getattr(request.app.state, "journal", None)
    if journal is not None:
        journal.wait_for_scope(scope)


def add_hook_routes(router: APIRouter, mw: Middleware) -> None:
    @router.post("/recall")
    def recall(body: m.RecallIn, request: Request) -> dict[str, Any]:
        recent = m.messages_to_dicts(body.messages)
        scope = body.scope.to_scope()
        _await_other_processes(request, scope)
        plan = mw.recall(scope, body.session_id, body.prompt, recent, live_turns=body.live_turns)
        return m.plan_to_json(plan)

    @router.post("/capture", status_code=202)
    def capture(body: m.CaptureIn, request: Request) -> dict[str, Any]:
        return _queued(request, mw, "/v1/capture", body)

    @router.post("/tool-event", status_code=202)
    def tool_event(body: m.ToolEventIn, request: Request) -> dict[str, Any]:
        return _queued(request, mw, "/v1/tool-event", body)

    @router.post("/session/start")
    def session_start(body: m.SessionStartIn, request: Request) -> dict[str, Any]:
        scope = body.scope.to_scope()
        _await_other_processes(request, scope)
        return m.plan_to_json(mw.on_session_start(scope, body.session_id))

    @router.post("/session/end", status_code=202)
    def session_end(body: m.SessionEndIn, request: Request) -> dict[str, Any]:
        return _queued(request, mw, "/v1/session/end", body)

    @router.post("/session/compact", status_code=202)
    def session_compact(body: m.CompactIn, request: Request) -> dict[str, Any]:
        return _queued(request, mw, "/v1/session/compact", body)


def add_memory_routes(router: APIRouter, mw: Middleware) -> None:
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


def add_metrics_routes(app: FastAPI, service: APIRouter, mw: Middleware) -> None:
    """GET /metrics (Prometheus text, behind the token like the rest) and POST /service/report
    (the plugin's fail-open count and spool size); the counters live in `app.state.metrics`."""
    from .metrics import CONTENT_TYPE
    from .metrics import ServiceMetrics

    metrics = app.state.metrics = ServiceMetrics(mw)  # a registry of this app's own

    @app.get("/metrics", response_class=PlainTextResponse)
    def scrape() -> PlainTextResponse:
        return PlainTextResponse(metrics.render(), media_type=CONTENT_TYPE)

    @service.post("/report")
    def report(body: m.ReportIn) -> dict[str, Any]:
        metrics.report(body.fail_open, body.spool_bytes)
        return {"accepted": True}


def add_service_routes(router: APIRouter, mw: Middleware) -> None:
    @router.post("/cleanup")
    def cleanup(body: m.CleanupIn, request: Request) -> dict[str, Any]:
        done = mw.cleanup(body.wait_ms / 1000)
        scheduler = getattr(request.app.state, "maintenance", None)
        # the gateway is stopping: a good moment for a maintenance run that is due, in the
        # background (the hook has a few seconds; a run may take longer)
        done["maintenance"] = scheduler.nudge() if scheduler is not None else "off"
        return done


# The HTTP bridge: a versioned JSON API over one MemoryMiddleware.
#
# OpenClaw's JavaScript plugin (service/plugin/) calls these routes from its hooks. This module
# assembles the app: the routes (`routes.py`), the console, the JSON error answers, and the
# guard in front of it all (`guard.py`).
#
#     GET  /health                 no auth; {"status": "ok", "ready": true, "version"}
#     POST /v1/recall              before_prompt_build -> the memory block to inject
#     POST /v1/capture             agent_end -> 202, turns queued for the write path
#     POST /v1/tool-event          after_tool_call -> 202, an event memory
#     POST /v1/session/start       session_start -> profile + recent summaries block
#     POST /v1/session/end         session_end -> 202, session summary
#     POST /v1/session/compact     before_compaction -> 202, summary before context is dropped
#     POST /v1/memory/search|get|remember|forget|restore   the agent's memory tools (search: `deep` for the archive)
#     POST /v1/process-event       a deterministic process node (a task's status changed), written now
#     POST /service/cleanup        gateway_stop -> queued writes flushed, the index brought up to date
#                                  (outside /v1: it serves the whole process, not one scope)
#     POST /service/report         the plugin's fail-open count and spool size, for /metrics
#     GET  /metrics                Prometheus text: requests, latency, queues, maintenance (metrics.py)
#
# Every request first meets `RequestGuard` (Host allow-list, token, body cap, before parsing).
# Errors are JSON, never plain text.


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


def create_app(
    middleware: Middleware, *, token: str, hosts: Iterable[str] = (), journal: Any = None
) -> FastAPI:
    """Build the API over `middleware`: every route but /health needs `Bearer <token>`.

    token: required (a tokenless service is refused: any web page could reach it). hosts: Host
    names served besides the loopback ones (the bound host, when it is not loopback). journal: a
    `CaptureJournal`; the writes answered 202 are journaled in it before the answer.
    """
    if not isinstance(token, str) or not token.strip():
        raise ConfigError(
            "service.token: expected a non-empty token; the service never runs without one"
        )
    app = FastAPI(title="openclaw-memory", version=package_version(), docs_url=None, redoc_url=None)
    _install_error_handlers(app)

    @app.exception_handler(PurgedWriteError)
    async def _on_purged(_: Request, __: PurgedWriteError) -> JSONResponse:
        return _error(
            410, "purged", "the user was purged after this write was spooled; it is dropped"
        )

    @app.get("/health")
    def health() -> dict[str, Any]:
        # `serve` opens its port only after its warm-up (server.warm_up): an answer means ready;
        # the plugin waits for this at a gateway start (bounded) before its first recall
        return {"status": "ok", "ready": True, "version": package_version()}

    router = APIRouter(prefix="/v1")
    add_hook_routes(router, middleware)
    add_memory_routes(router, middleware)
    from ..console.pages import add_routes as add_console_routes

    add_console_routes(router, middleware)
    app.include_router(router)
    # One allow-list for the API and the console: loopback names and `hosts` (ports dropped, an
    # IPv6 literal also in brackets, as Host headers carry it).
    allowed = allowed_hosts(extra=[host_name(h) for h in hosts if h])
    from ..console import mount_console

    mount_console(app, middleware, token=token, hosts=allowed)
    service = APIRouter(prefix="/service")  # behind RequestGuard like /v1 (token, Host, body cap)
    add_service_routes(service, middleware)
    add_metrics_routes(app, service, middleware)
    app.include_router(service)
    app.state.middleware = middleware
    app.state.journal = journal
    # the connection layer (limits.py) closes idle connections that never sent this first
    app.state.authorized = bearer_check(token)
    app.add_middleware(RequestGuard, token=token.strip(), hosts=allowed, state=app.state)
    # outside the guard, so refused requests are counted too
    known = {getattr(r, "path", "") for rs in (app.router, router, service) for r in rs.routes}
    app.add_middleware(MetricsLayer, metrics=app.state.metrics, known=known)
    return app
