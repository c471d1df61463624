"""Scheduled maintenance: the forgetting jobs and message pruning, run by themselves.

A long-running process that owns a store (`serve`, `mcp`) starts a `MaintenanceScheduler`. Every
`check_seconds` it asks whether a run is due: the latest run logged by any process on the store
(maintain/runs.py) is `interval_hours` old by the injected clock, or there is none. A due run
takes the store's lease first, so with several processes on one store one of them runs it and the
others see the fresh log entry and wait for the next interval. Each run is logged with its totals
(or its error), and every change it makes has its own audit row, written by the jobs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import runs
from .runner import MaintenanceReport, run_maintenance

if TYPE_CHECKING:
    from ..config import MaintenanceConfig
    from ..runtime.engine import MemoryEngine

log = logging.getLogger(__name__)
HOUR = 3600.0


class MaintenanceBusyError(Exception):
    """Another process holds the maintenance lease."""


class MaintenanceScheduler:
    """Runs `run` (default: run_maintenance over every partition) when due, one runner per store."""

    def __init__(
        self,
        engine: MemoryEngine,
        cfg: MaintenanceConfig,
        *,
        holder: str | None = None,
        run: Callable[[MemoryEngine], MaintenanceReport] = run_maintenance,
    ) -> None:
        self.engine = engine
        self.cfg = cfg
        self.holder = holder or runs.holder_id()
        self._run = run
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._running = threading.Lock()

    def next_due(self) -> float | None:
        """When the next run is due (None: at once, no run was ever logged)."""
        last = runs.last_started(self.engine.store)
        return None if last is None else last + self.cfg.interval_hours * HOUR

    def due(self) -> bool:
        due = self.next_due()
        return due is None or self.engine.clock.now() >= due

    def tick(self) -> MaintenanceReport | None:
        """One check: run if enabled and due and the lease is free; the report, else None."""
        if not self.cfg.enabled:
            return None
        try:
            return self._under_lease("schedule", force=False)
        except MaintenanceBusyError:
            return None

    def run_now(self, trigger: str = "manual") -> MaintenanceReport:
        """Run now, due or not, under the lease; MaintenanceBusyError when another runner holds
        it. A failing run is logged with its error and re-raised."""
        report = self._under_lease(trigger, force=True)
        assert report is not None  # forced: never skipped
        return report

    def _under_lease(self, trigger: str, *, force: bool) -> MaintenanceReport | None:
        with self._running:  # one run at a time in this process too
            now = self.engine.clock.now()
            if not runs.acquire(self.engine.store, self.holder, now, self.cfg.lease_seconds):
                held = runs.lease(self.engine.store, now) or {}
                raise MaintenanceBusyError(
                    f"maintenance is running in another process ({held.get('holder', '?')})"
                )
            try:
                if not force and not self.due():
                    return None
                return self._logged(trigger, now)
            finally:
                runs.release(self.engine.store, self.holder)

    def _logged(self, trigger: str, now: float) -> MaintenanceReport:
        run_id = runs.begin(self.engine.store, trigger, self.holder, now)
        try:
            report = self._run(self.engine)
        except Exception as exc:
            runs.finish(
                self.engine.store,
                run_id,
                self.engine.clock.now(),
                None,
                f"{type(exc).__name__}: {exc}",
            )
            raise
        runs.finish(self.engine.store, run_id, self.engine.clock.now(), report.totals())
        if report.changed:
            log.info(
                "maintenance (%s): %d change(s) in %d partition(s)",
                trigger,
                report.changed,
                report.scopes,
            )
        return report

    def nudge(self) -> str:
        """Run in the background now if a run is due: "started", "not_due", "running" or "off"."""
        if not self.cfg.enabled:
            return "off"
        if self._running.locked():
            return "running"
        if not self.due():
            return "not_due"
        threading.Thread(
            target=self._checked_tick, name="ocm-maintenance-nudge", daemon=True
        ).start()
        return "started"

    def start(self) -> MaintenanceScheduler:
        """Check in a background thread every `check_seconds` until stop()."""
        if self._thread is None and self.cfg.enabled:
            self._thread = threading.Thread(target=self._loop, name="ocm-maintenance", daemon=True)
            self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(max(self.cfg.check_seconds, 0.05)):
            self._checked_tick()

    def _checked_tick(self) -> None:
        try:
            self.tick()
        except Exception:  # logged in the run log too; the next interval tries again
            log.exception("scheduled maintenance failed")

    def stop(self, timeout: float = 60.0) -> None:
        """Stop checking; a run in progress finishes first (up to timeout)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None


def start_scheduler(engine: MemoryEngine, cfg: MaintenanceConfig) -> MaintenanceScheduler | None:
    """A started scheduler for engine's store, or None when maintenance.enabled is false."""
    return MaintenanceScheduler(engine, cfg).start() if cfg.enabled else None
