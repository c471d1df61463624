"""The maintenance run log and the lease that lets one process at a time run maintenance.

Both live in SQLite, so every process on a store (the service, MCP servers, the CLI) sees the
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

from ..store.db import Database

LEASE = "maintenance"


def holder_id() -> str:
    """A lease holder name for one runner: host, process id and a random tag (host:pid:tag)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def acquire(database: Database, holder: str, now: float, seconds: float, name: str = LEASE) -> bool:
    """Take the lease for `seconds` unless another holder has it unexpired; True when taken."""
    with database.write() as db:
        db.execute(
            "INSERT INTO leases(name, holder, expires_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE "
            "SET holder = excluded.holder, expires_at = excluded.expires_at "
            "WHERE leases.expires_at <= ? OR leases.holder = excluded.holder",
            (name, holder, now + seconds, now),
        )
        row = db.execute("SELECT holder FROM leases WHERE name = ?", (name,)).fetchone()
    return row is not None and row[0] == holder


def release(database: Database, holder: str, name: str = LEASE) -> None:
    """Give the lease back (only if this holder still has it)."""
    with database.write() as db:
        db.execute("DELETE FROM leases WHERE name = ? AND holder = ?", (name, holder))


def lease(database: Database, now: float, name: str = LEASE) -> dict[str, Any] | None:
    """The unexpired lease, if any: {"holder", "expires_at"}."""
    with database.read() as db:
        row = db.execute(
            "SELECT holder, expires_at FROM leases WHERE name = ? AND expires_at > ?", (name, now)
        ).fetchone()
    return dict(row) if row else None


def begin(database: Database, trigger: str, holder: str, now: float) -> int:
    """Log the start of a run; returns its id. Called with the lease held, so a run still marked
    running was left by a runner that died: it is marked abandoned."""
    with database.write() as db:
        db.execute("UPDATE maintenance_runs SET status = 'abandoned' WHERE status = 'running'")
        cur = db.execute(
            "INSERT INTO maintenance_runs(trigger, holder, started_at, status) "
            "VALUES (?, ?, ?, 'running')",
            (trigger, holder, now),
        )
        return int(cur.lastrowid or 0)  # an INSERT always sets it


def finish(
    database: Database,
    run_id: int,
    now: float,
    counts: dict[str, int] | None,
    error: str | None = None,
) -> None:
    """Log how a run ended: its totals, or the error that stopped it."""
    status = "failed" if error else "ok"
    with database.write() as db:
        db.execute(
            "UPDATE maintenance_runs SET finished_at = ?, status = ?, counts = ?, error = ? WHERE id = ?",
            (now, status, json.dumps(counts or {}, sort_keys=True), error, run_id),
        )


def recent(database: Database, limit: int = 5) -> list[dict[str, Any]]:
    """The latest runs, newest first, with their counts decoded."""
    with database.read() as db:
        rows = db.execute(
            "SELECT * FROM maintenance_runs ORDER BY started_at DESC, id DESC LIMIT ?",
            (int(limit),),
        ).fetchall()
    return [{**dict(r), "counts": json.loads(r["counts"] or "{}")} for r in rows]


def last_started(database: Database) -> float | None:
    """When the latest run began, whatever its outcome (a failing run is not retried in a loop)."""
    with database.read() as db:
        row = db.execute("SELECT MAX(started_at) FROM maintenance_runs").fetchone()
    return None if row[0] is None else float(row[0])
