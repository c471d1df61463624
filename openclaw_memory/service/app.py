"""The HTTP bridge: a versioned JSON API over one MemoryMiddleware.

OpenClaw's JavaScript plugin (service/plugin/) calls these routes from its hooks. This module
assembles the app: the routes (`routes.py`), the console, the JSON error answers, and the
guard in front of it all (`guard.py`).

    GET  /health                 no auth; {"status": "ok", "ready": true, "version"}
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
    POST /service/report         the plugin's fail-open count and spool size, for /metrics
    GET  /metrics                Prometheus text: requests, latency, queues, maintenance (metrics.py)

Every request first meets `RequestGuard` (Host allow-list, token, body cap, before parsing).
Errors are JSON, never plain text.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from importlib import metadata
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from ..errors import ConfigError, NotFoundError, OpenClawMemoryError, ValidationError
from . import models as m
from .guard import RequestGuard, bearer_check
from .hosts import allowed_hosts, host_name  # the allow-list the MCP server and console share
from .routes import (
    Middleware,
    PurgedWriteError,
    add_hook_routes,
    add_memory_routes,
    add_metrics_routes,
    add_service_routes,
)
from .metrics import MetricsLayer

log = logging.getLogger(__name__)


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
    from ..console.api import add_routes as add_console_routes

    add_console_routes(router, middleware)
    app.include_router(router)
    # One allow-list for the API and the console: loopback names and `hosts` (ports dropped, an
    # IPv6 literal also in brackets, as Host headers carry it).
    allowed = allowed_hosts(extra=[host_name(h) for h in hosts if h])
    from ..console.views import mount_console

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
