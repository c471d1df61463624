"""The service's routes: the versioned JSON API over one MemoryMiddleware, one handler each.

Endpoints are plain `def` functions on purpose: FastAPI runs them in its threadpool, so the
synchronous middleware serves many agents at once without blocking the event loop. A replayed
write spooled before the user's last purge is refused (410), so a purge stays a purge. The
writes answered 202 (`QUEUED_WRITES`) are journaled before the answer when the app has a
journal (service/journal.py), so a crash does not lose them.
"""

from __future__ import annotations

from typing import Any, Protocol

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import PlainTextResponse

from . import models as m
from .journal import queue_write


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
    if spooled_at is None or not hasattr(mw, "engine"):
        return
    from ..maintain.purge import purged_at

    when = purged_at(mw.engine, scope.user_id, scope.agent_id)
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


#: The writes answered 202 before they are done: journaled first (service/journal.py), replayed
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
    the scope's captures queued on any of them (service/journal.py, SharedPending)."""
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
    from .metrics import CONTENT_TYPE, ServiceMetrics

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
