"""The service's metrics: GET /metrics in Prometheus's text exposition format (version 0.0.4),
built on `prometheus_client`.

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
the label set stays small whatever clients send. The counters and the histogram are the library's
own (their `_created` series included); the gauges come from a collector that reads the
middleware at scrape time. Every app has its own registry, never the library's global one, so two
apps in one process (tests, an embedding host) count apart. /metrics sits behind the same token as
every other route.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client import Counter as RequestCounter
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

log = logging.getLogger(__name__)

#: latency buckets in seconds: a recall is tens of milliseconds, a capture a few, an import minutes
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: the label of a path no route serves
OTHER = "other"
#: maintenance runs read from the store's log per scrape
RECENT_RUNS = 1000
#: the classic text format, which every Prometheus reads (the library's newest default may differ)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

_FAIL_OPEN_HELP = "Plugin calls that went on without memory (service away or refusing), as reported"


class ServiceMetrics:
    """One app's registry: request counts and latencies (the library's thread-safe metrics), the
    plugin's reports, and the gauges read from `middleware` at scrape time."""

    def __init__(self, middleware: Any = None) -> None:
        self.registry = CollectorRegistry()
        self._requests = RequestCounter(
            "openclaw_memory_http_requests",
            "HTTP requests by route, method and status",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self._latency = Histogram(
            "openclaw_memory_http_request_duration_seconds",
            "HTTP request latency by route",
            ["route"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self._lock = threading.Lock()
        self._fail_open = 0
        self._spool_bytes: int | None = None
        self.middleware = middleware
        self.registry.register(_ScrapeTime(self))

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        """One finished request."""
        self._requests.labels(route=route, method=method, status=str(status)).inc()
        self._latency.labels(route=route).observe(max(0.0, seconds))

    def report(self, fail_open: int = 0, spool_bytes: int | None = None) -> None:
        """What the plugin reports: calls that went on without memory since its last report,
        and its spool's size now."""
        with self._lock:
            self._fail_open += max(0, int(fail_open))
            if spool_bytes is not None:
                self._spool_bytes = max(0, int(spool_bytes))

    def plugin(self) -> tuple[int, int | None]:
        with self._lock:
            return self._fail_open, self._spool_bytes

    def render(self, middleware: Any = None) -> str:
        """The exposition text; `middleware`, when given, is the one the gauges read."""
        if middleware is not None:
            self.middleware = middleware
        return generate_latest(self.registry).decode("utf-8")


class _ScrapeTime:
    """The collector of everything read when scraped: the plugin's reports, the queue, the store,
    the maintenance log and the version."""

    def __init__(self, metrics: ServiceMetrics) -> None:
        self.metrics = metrics

    def describe(self) -> list[Metric]:
        return []  # names are not reserved up front: the gauges exist only when readable

    def collect(self) -> Iterator[Metric]:
        fail_open, spool = self.metrics.plugin()
        counter = CounterMetricFamily(
            "openclaw_memory_plugin_fail_open", _FAIL_OPEN_HELP, value=fail_open
        )
        yield counter
        if spool is not None:
            yield _gauge("openclaw_memory_plugin_spool_bytes", "The plugin's spool size", spool)
        yield from _store_gauges(self.metrics.middleware)
        info = GaugeMetricFamily("openclaw_memory_info", "The running version", labels=["version"])
        info.add_metric([_version()], 1)
        yield info


def _gauge(name: str, help_text: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, help_text, value=value)


def _store_gauges(mw: Any) -> Iterator[Metric]:
    """The gauges read from the middleware and its store; one that cannot be read is left out."""
    worker = getattr(mw, "worker", None)
    if worker is not None:
        yield _gauge(
            "openclaw_memory_capture_queue_depth", "Captures queued, not written", worker.pending()
        )
    store = getattr(mw, "store", None)
    if store is None:
        return
    try:
        pending = store.pending()
        records = {"all": store.record_count(), "live": store.live_count()}
        recent = _runs(store)
    except Exception:  # a scrape must answer even when the store does not
        log.exception("metrics: the store could not be read")
        return
    yield _gauge("openclaw_memory_index_pending", "Writes not yet in the vector index", pending)
    family = GaugeMetricFamily(
        "openclaw_memory_store_records",
        "Records in the store: all, and live (not forgotten or superseded)",
        labels=["state"],
    )
    for state, n in records.items():
        family.add_metric([state], n)
    yield family
    family = GaugeMetricFamily(
        "openclaw_memory_maintenance_runs",
        f"Maintenance runs among the latest {RECENT_RUNS}, by outcome",
        labels=["trigger", "status"],
    )
    outcomes = Counter((str(r["trigger"]), str(r["status"])) for r in recent)
    for (trigger, status), n in sorted(outcomes.items()):
        family.add_metric([trigger, status], n)
    yield family
    finished = [r for r in recent if r["status"] in ("ok", "failed")]
    if finished:
        family = GaugeMetricFamily(
            "openclaw_memory_maintenance_last_run_changes",
            "What the latest finished maintenance run changed, by job",
            labels=["job"],
        )
        for job, n in sorted(finished[0]["counts"].items()):
            family.add_metric([str(job)], n)
        yield family


def _runs(store: Any) -> list[dict[str, Any]]:
    from ..maintain import runner as runs

    return runs.recent(store, RECENT_RUNS)


def _version() -> str:
    from .app import package_version

    return package_version()


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
