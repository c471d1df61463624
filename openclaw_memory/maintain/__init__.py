"""Maintenance jobs: forgetting (TTL, cap, compaction, cleanup), purge, doctor, reindex.

Each job is handed the maintenance ports it reads (`MaintenancePorts`: the record store, the
managed vector index, the embedder, the clock, the config, the indexer's drain and wake-up),
never the engine that opened them; the factory builds them (`runtime.factory.maintenance_ports`).
The CLI commands over them (reindex, doctor, maintain, purge) are here too; they open the
storage in `_open` only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import contextmanager
from .runner import (
    enforce_cap,
    cleanup,
    Compaction,
    compact_events,
    digest,
    MaintenancePorts,
    MaintenanceReport,
    run_maintenance,
    expire,
)
from .doctor import DoctorReport, doctor, purge_record, purge_user, reindex
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO
from ..config import MemoryConfig
from ..errors import OpenClawMemoryError
from ..types import Scope

# Maintenance jobs: forgetting (TTL, cap, compaction, cleanup), purge, doctor, reindex.

__all__ = [
    "Compaction",
    "DoctorReport",
    "MaintenancePorts",
    "MaintenanceReport",
    "cleanup",
    "compact_events",
    "digest",
    "doctor",
    "enforce_cap",
    "expire",
    "purge_record",
    "purge_user",
    "reindex",
    "run_maintenance",
]


# CLI commands for maintenance: reindex, doctor, maintain, purge.
#
# A thin shell: each handler opens what it needs, calls the library function and prints the result
# (readable text, or JSON with --json). `add_parsers(subparsers)` registers them; each handler is
# `func(args, config) -> exit code`, stored with set_defaults(func=...).

Handler = Callable[[argparse.Namespace, MemoryConfig], int]


def add_parsers(subparsers: Any) -> None:
    """Register reindex, doctor, maintain and purge on an argparse subparsers object."""
    _add_reindex(subparsers)
    _add_doctor(subparsers)
    _add_maintain(subparsers)
    _add_purge(subparsers)


def _add_reindex(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "reindex",
        help="re-embed with the configured embedder and rebuild the vector index",
        description="Rebuild every Chroma collection from SQLite with the configured "
        "embedder (needed after changing storage.embedding_model).",
    )
    _json_flag(p)
    p.set_defaults(func=cmd_reindex)


def _add_doctor(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "doctor",
        help="check the vector and keyword indexes against SQLite and repair them",
        description="Find orphan vectors and collections, records without vectors or "
        "keyword rows; repair them unless --no-repair.",
    )
    p.add_argument(
        "--repair",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="fix what is found (default: --repair)",
    )
    _json_flag(p)
    p.set_defaults(func=cmd_doctor)


def _add_maintain(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "maintain",
        help="run TTL expiry, the per-user cap, compaction and cleanup",
        description="Run the forgetting jobs for every user, or for one with --user.",
    )
    p.add_argument("--user", help="only this user id (every agent of the user)")
    _json_flag(p)
    p.set_defaults(func=cmd_maintain)


def _add_purge(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "purge",
        help="delete every trace of a user, or of one memory",
        description="Remove a user's (or one memory's) records, versions, vectors, keyword "
        "rows, sessions, messages and audit rows. Cannot be undone.",
    )
    p.add_argument("--user", required=True, help="the user id to purge")
    p.add_argument(
        "--agent",
        help="only this agent of the user (with --record: the record's agent, default 'default')",
    )
    p.add_argument("--record", help="purge only this memory id and its version chain")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    _json_flag(p)
    p.set_defaults(func=cmd_purge)


def _json_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def _guard(fn: Callable[..., int]) -> Handler:
    def run(args: argparse.Namespace, config: MemoryConfig) -> int:
        try:
            return fn(args, config)
        except OpenClawMemoryError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2

    run.__doc__ = fn.__doc__
    return run


@contextmanager
def _open(config: MemoryConfig) -> Iterator[MaintenancePorts]:
    """The maintenance ports of the storage config names, open for the block (indexing in the
    foreground: a command drains what it queued before it returns)."""
    from ..runtime.engine import MemoryEngine
    from ..runtime.factory import maintenance_ports

    engine = MemoryEngine.open(config, background=False)
    try:
        yield maintenance_ports(engine)
    finally:
        engine.close()


def _print(data: dict, as_json: bool, title: str, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    if as_json:
        print(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True), file=out)
        return
    print(title, file=out)
    for key, value in data.items():
        if isinstance(value, dict):
            inner = ", ".join(f"{k} {v}" for k, v in value.items()) or "none"
            print(f"  {key}: {inner}", file=out)
        else:
            print(f"  {key}: {value}", file=out)


@_guard
def cmd_reindex(args: argparse.Namespace, config: MemoryConfig) -> int:
    """Rebuild the vector index with the configured embedder."""
    from ..core.progress import TerminalProgress
    from .doctor import reindex

    with TerminalProgress("reindex") as bar:  # drawn only when stderr is a terminal
        result = reindex(config, progress=bar)
    _print(result, args.json, "reindex done")
    return 0


@_guard
def cmd_doctor(args: argparse.Namespace, config: MemoryConfig) -> int:
    """Check (and repair) the indexes; exit 1 when problems remain."""
    from ..core.progress import TerminalProgress
    from .doctor import doctor

    with _open(config) as ports, TerminalProgress("doctor") as bar:  # a bar on a terminal only
        report = doctor(ports, repair=args.repair, progress=bar)
        unusable = ports.index.unusable
    if args.repair and unusable:  # derived data: rebuild it from SQLite, then check again
        from .doctor import reindex

        print(f"doctor: {unusable.split(';')[0]}; rebuilding it from SQLite", file=sys.stderr)
        with TerminalProgress("reindex") as bar:
            reindex(config, progress=bar)
        with _open(config) as ports:
            report = doctor(ports, repair=True)
        report.found["unusable_vector_index"] = report.fixed["unusable_vector_index"] = 1
    for note in report.refused:
        print(f"doctor: refused: {note}", file=sys.stderr)
    data = report.to_dict()
    data["plugin_fail_open"] = plugin_fail_open()
    if args.json:
        _print(data, True, "")
    else:
        verdict = (
            "healthy"
            if report.problems == 0
            else ("repaired" if report.healthy else "problems found")
        )
        # Only the problems that occurred, so a healthy store prints "found: none".
        text = {k: data[k] for k in ("scopes", "drained", "outbox_pending")}
        for key in ("found", "fixed"):
            text[key] = {k: n for k, n in data[key].items() if n}
        text["maintenance"] = _maintenance_line(data["maintenance"])
        text["plugin_fail_open"] = _fail_open_line(data["plugin_fail_open"])
        _print(text, False, f"doctor: {verdict}")
    return 0 if report.healthy else 1


def plugin_fail_open(env: Mapping[str, str] | None = None) -> dict | None:
    """What the OpenClaw plugin counted of the calls it made without the service (its
    failopen.json, beside its spool: <$OPENCLAW_STATE_DIR or ~/.openclaw>/openclaw-memory/spool),
    or None when it has counted none."""
    env = os.environ if env is None else env
    state = env.get("OPENCLAW_STATE_DIR") or str(Path(env.get("HOME") or Path.home()) / ".openclaw")
    path = Path(state) / "openclaw-memory" / "spool" / "failopen.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return {**data, "file": str(path)} if isinstance(data, dict) else None


def _fail_open_line(status: dict | None) -> str:
    """The plugin's fail-open count in one line ("none counted" when it never ran without us)."""
    if not status or not status.get("count"):
        return "none counted"
    return (
        f"{status['count']} call(s) ran without memory in {status.get('outages', 1)} outage(s) "
        f"({status.get('spooled', 0)} write(s) spooled for replay), "
        f"first {status.get('first_at', '?')}, last {status.get('last_at', '?')}: "
        f"{status.get('last_error', '')} ({status['file']})"
    )


def _maintenance_line(status: dict) -> str:
    """The latest maintenance run in one line ("never run" when there is none)."""
    from ..core.clock import iso_time

    latest = (status.get("runs") or [None])[0]
    if latest is None:
        return "never run"
    changed = latest["counts"].get("changed", 0)
    outcome = (
        f"{changed} change(s)"
        if latest["status"] == "ok"
        else (latest.get("error") or latest["status"])
    )
    line = f"last run {iso_time(latest['started_at'])} UTC ({latest['trigger']}): {latest['status']}, {outcome}"
    lease = status.get("lease")
    return line + (f"; running now in {lease['holder']}" if lease else "")


@_guard
def cmd_maintain(args: argparse.Namespace, config: MemoryConfig) -> int:
    """Run the forgetting jobs."""
    from .runner import run_maintenance
    from .runner import MaintenanceBusyError
    from .runner import MaintenanceScheduler

    if args.user is not None:
        Scope(args.user)  # validates the id before anything opens
    with _open(config) as ports:
        # Under the store's lease and logged like a scheduled run, so a running service and this
        # command never run the jobs at the same time.
        scheduler = MaintenanceScheduler(
            ports, config.maintenance, run=lambda p: run_maintenance(p, user_id=args.user)
        )
        try:
            report = scheduler.run_now("cli")
        except MaintenanceBusyError as exc:
            print(f"error: {exc}; try again when it is done", file=sys.stderr)
            return 1
    data = report.to_dict()
    if not args.json:
        # One line per partition that changed, instead of a nested mapping.
        by_scope = data.pop("by_scope")
        data.update({s: c for s, c in by_scope.items() if any(c.values())})
    title = f"maintenance: {report.changed} change(s) in {report.scopes} scope(s)"
    _print(data, args.json, title)
    return 0


@_guard
def cmd_purge(args: argparse.Namespace, config: MemoryConfig) -> int:
    """Purge a user or one record, after confirmation."""
    from .doctor import purge_record
    from .doctor import purge_user

    what = (
        f"memory {args.record} of user {args.user}"
        if args.record
        else f"every memory of user {args.user}"
    )
    if args.agent and not args.record:
        what += f" (agent {args.agent})"
    if not args.yes and not _confirm(f"Permanently delete {what}? [y/N] "):
        print("purge cancelled", file=sys.stderr)
        return 1
    with _open(config) as ports:
        if args.record:
            counts = purge_record(ports, Scope(args.user, args.agent or "default"), args.record)
        else:
            counts = purge_user(ports, args.user, args.agent)
    _print(counts, args.json, f"purged {what}")
    return 0


def _confirm(prompt: str) -> bool:
    if not sys.stdin.isatty():
        print("refusing to purge without --yes when stdin is not a terminal", file=sys.stderr)
        return False
    return input(prompt).strip().lower() in ("y", "yes")
