"""The service's metrics: GET /metrics in Prometheus's text exposition format (version 0.0.4).

    openclaw_memory_http_requests_total{route,method,status}      counter
    openclaw_memory_http_request_duration_seconds{route}          histogram
    openclaw_memory_capture_queue_depth                           captures queued, not yet written
    openclaw_memory_index_pending                                 writes not yet in the vector index
    openclaw_memory_store_records{state}                          records: all, and live ones
    openclaw_memory_plugin_fail_open_total                        plugin calls that went on without
                                                                  memory (as the plugin reports them)
    openclaw_memory_plugin_spool_bytes                            the plugin's spool, last reported
    openclaw_memory_maintenance_runs{trigger,status}              the latest runs in the store's log
    openclaw_memory_maintenance_last_run_changes{job}             what the latest finished run changed
    openclaw_memory_info{version}                                 always 1

Requests are counted by an ASGI layer outside the request guard, so refused requests (401, 413,
421) are counted too; a route is labelled by its template (`/v1/recall`), never by a raw path, so
the label set stays small whatever clients send. The gauges are read at scrape time. /metrics
sits behind the same token as every other route. Written by hand: the format is a few lines,
and the base install stays free of a metrics library.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

log = logging.getLogger(__name__)

#: latency buckets in seconds: a recall is tens of milliseconds, a capture a few, an import minutes
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: the label of a path no route serves
OTHER = "other"
#: maintenance runs read from the store's log per scrape
RECENT_RUNS = 1000
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class ServiceMetrics:
    """Request counts and latencies (thread-safe), the plugin's reports, and the text format."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: Counter[tuple[str, str, str]] = Counter()
        self._buckets: dict[str, list[int]] = {}
        self._sums: dict[str, float] = {}
        self._fail_open = 0
        self._spool_bytes: int | None = None

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        """One finished request."""
        with self._lock:
            self._requests[(route, method, str(status))] += 1
            counts = self._buckets.setdefault(route, [0] * (len(BUCKETS) + 1))
            counts[_bucket(seconds)] += 1
            self._sums[route] = self._sums.get(route, 0.0) + seconds

    def report(self, fail_open: int = 0, spool_bytes: int | None = None) -> None:
        """What the plugin reports: calls that went on without memory since its last report,
        and its spool's size now."""
        with self._lock:
            self._fail_open += max(0, int(fail_open))
            if spool_bytes is not None:
                self._spool_bytes = max(0, int(spool_bytes))

    def render(self, middleware: Any) -> str:
        """The exposition text: the counters, then the gauges read from `middleware` now."""
        out = _Text()
        self._render_requests(out)
        out.family("openclaw_memory_plugin_fail_open_total", "counter", _FAIL_OPEN_HELP)
        with self._lock:
            out.sample("openclaw_memory_plugin_fail_open_total", {}, self._fail_open)
            spool = self._spool_bytes
        if spool is not None:
            out.family("openclaw_memory_plugin_spool_bytes", "gauge", "The plugin's spool size")
            out.sample("openclaw_memory_plugin_spool_bytes", {}, spool)
        _render_store(out, middleware)
        out.family("openclaw_memory_info", "gauge", "The running version")
        out.sample("openclaw_memory_info", {"version": _version()}, 1)
        return out.text()

    def _render_requests(self, out: _Text) -> None:
        with self._lock:
            requests = sorted(self._requests.items())
            buckets = {k: list(v) for k, v in sorted(self._buckets.items())}
            sums = dict(self._sums)
        name = "openclaw_memory_http_requests_total"
        out.family(name, "counter", "HTTP requests by route, method and status")
        for (route, method, status), n in requests:
            out.sample(name, {"route": route, "method": method, "status": status}, n)
        name = "openclaw_memory_http_request_duration_seconds"
        out.family(name, "histogram", "HTTP request latency by route")
        for route, counts in buckets.items():
            seen = 0
            for bound, n in zip((*BUCKETS, math.inf), counts):
                seen += n
                out.sample(f"{name}_bucket", {"route": route, "le": _number(bound)}, seen)
            out.sample(f"{name}_sum", {"route": route}, sums.get(route, 0.0))
            out.sample(f"{name}_count", {"route": route}, seen)


_FAIL_OPEN_HELP = "Plugin calls that went on without memory (service away or refusing), as reported"


def _render_store(out: _Text, mw: Any) -> None:
    """The gauges read from the middleware and its store; one that cannot be read is left out."""
    worker = getattr(mw, "worker", None)
    if worker is not None:
        out.family("openclaw_memory_capture_queue_depth", "gauge", "Captures queued, not written")
        out.sample("openclaw_memory_capture_queue_depth", {}, worker.pending())
    engine = getattr(mw, "engine", None)
    if engine is None:
        return
    try:
        pending = engine.store.pending()
        records = {"all": engine.store.record_count(), "live": engine.store.live_count()}
        recent = _runs(engine.store)
    except Exception:  # a scrape must answer even when the store does not
        log.exception("metrics: the store could not be read")
        return
    out.family("openclaw_memory_index_pending", "gauge", "Writes not yet in the vector index")
    out.sample("openclaw_memory_index_pending", {}, pending)
    name = "openclaw_memory_store_records"
    out.family(name, "gauge", "Records in the store: all, and live (not forgotten or superseded)")
    for state, n in records.items():
        out.sample(name, {"state": state}, n)
    name = "openclaw_memory_maintenance_runs"
    out.family(name, "gauge", f"Maintenance runs among the latest {RECENT_RUNS}, by outcome")
    for (trigger, status), n in sorted(
        Counter((r["trigger"], r["status"]) for r in recent).items()
    ):
        out.sample(name, {"trigger": str(trigger), "status": str(status)}, n)
    finished = [r for r in recent if r["status"] in ("ok", "failed")]
    if finished:
        name = "openclaw_memory_maintenance_last_run_changes"
        out.family(name, "gauge", "What the latest finished maintenance run changed, by job")
        for job, n in sorted(finished[0]["counts"].items()):
            out.sample(name, {"job": str(job)}, n)


def _runs(store: Any) -> list[dict[str, Any]]:
    from ..maintain import runs

    return runs.recent(store, RECENT_RUNS)


def _version() -> str:
    from .app import package_version

    return package_version()


def _bucket(seconds: float) -> int:
    for i, bound in enumerate(BUCKETS):
        if seconds <= bound:
            return i
    return len(BUCKETS)


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf"
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


class _Text:
    """Lines of the exposition format."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def family(self, name: str, kind: str, help_text: str) -> None:
        self.lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]

    def sample(self, name: str, labels: dict[str, str], value: float) -> None:
        inner = ",".join(f'{k}="{_escape(v)}"' for k, v in labels.items())
        self.lines.append(
            f"{name}{{{inner}}} {_number(value)}" if inner else f"{name} {_number(value)}"
        )

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


class MetricsLayer:
    """ASGI layer that times every HTTP request and counts it by route template and status.

    known: the app's route templates; a request refused before routing (401, 413, 421) is
    labelled by its path when that is one of them, else "other"."""

    def __init__(self, app: Any, *, metrics: ServiceMetrics, known: Iterable[str]) -> None:
        self.app = app
        self.metrics = metrics
        self.known = frozenset(known)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500  # what the client sees when the app fails before answering

        async def sending(message: dict) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            elapsed = time.perf_counter() - start
            self.metrics.observe(self.route(scope), scope.get("method", ""), status, elapsed)

    def route(self, scope: dict) -> str:
        """The template of the route that served the request (the router leaves it in the
        scope), or of the one it was meant for, else "other"."""
        routed = getattr(scope.get("route"), "path", None)
        if isinstance(routed, str):
            return routed
        path = scope.get("path", "")
        return path if path in self.known else OTHER
