"""The maintenance run log and the lease that lets one process at a time run maintenance.

Both live in the record store, so every process on a store (the service, MCP servers, the CLI) sees the
same state: a run is due when the last run recorded by any of them is old enough, and the lease
row says who runs now. A lease carries an expiry, so a runner that died frees it by itself.
Counts are kept as totals only: the log names no user, so a purge leaves nothing of one here.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
from typing import Any

from ..store.ports import MaintenanceLog

LEASE = "maintenance"


def holder_id() -> str:
    """A lease holder name for one runner: host, process id and a random tag (host:pid:tag)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def acquire(
    store: MaintenanceLog, holder: str, now: float, seconds: float, name: str = LEASE
) -> bool:
    """Take the lease for `seconds` unless another holder has it unexpired; True when taken."""
    return store.acquire_lease(name, holder, now, seconds)


def release(store: MaintenanceLog, holder: str, name: str = LEASE) -> None:
    """Give the lease back (only if this holder still has it)."""
    store.release_lease(name, holder)


def lease(store: MaintenanceLog, now: float, name: str = LEASE) -> dict[str, Any] | None:
    """The unexpired lease, if any: {"holder", "expires_at"}."""
    return store.lease(name, now)


def begin(store: MaintenanceLog, trigger: str, holder: str, now: float) -> int:
    """Log the start of a run; returns its id. Called with the lease held, so a run still marked
    running was left by a runner that died: it is marked abandoned."""
    return store.begin_run(trigger, holder, now)


def finish(
    store: MaintenanceLog,
    run_id: int,
    now: float,
    counts: dict[str, int] | None,
    error: str | None = None,
) -> None:
    """Log how a run ended: its totals, or the error that stopped it."""
    status = "failed" if error else "ok"
    store.finish_run(run_id, now, status, json.dumps(counts or {}, sort_keys=True), error)


def recent(store: MaintenanceLog, limit: int = 5) -> list[dict[str, Any]]:
    """The latest runs, newest first, with their counts decoded."""
    return [{**r, "counts": json.loads(r["counts"] or "{}")} for r in store.recent_runs(limit)]


def last_started(store: MaintenanceLog) -> float | None:
    """When the latest run began, whatever its outcome (a failing run is not retried in a loop)."""
    return store.last_run_started()
