"""Run the HTTP bridge with uvicorn, and the CLI glue for `serve` and `openclaw install|uninstall`.

The service binds to loopback by default: it holds every user's memory, so listening on another
interface needs an explicit `allow_remote` (and then a token is strongly advised). On SIGTERM or
SIGINT uvicorn stops accepting requests, finishes the ones in flight, and we then close the
middleware, which flushes queued writes before the process exits.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Callable

from ..errors import ConfigError

TOKEN_ENV = "OPENCLAW_MEMORY_TOKEN"


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, allow_remote: bool) -> None:
    """Refuse a non-loopback host unless remote access was asked for explicitly."""
    if not is_loopback(host) and not allow_remote:
        raise ConfigError(
            f"service.host: refusing to listen on {host!r}, which is not a loopback address; "
            "expected 127.0.0.1, ::1 or localhost, or pass --allow-remote "
            "(service.allow_remote: true) and set a token"
        )


def build_server(app: Any, *, host: str, port: int, log_level: str = "warning") -> Any:
    """A uvicorn Server for app; its run() handles SIGTERM/SIGINT with a graceful shutdown."""
    import uvicorn

    config = uvicorn.Config(
        app, host=host, port=port, log_level=log_level, access_log=False,
        timeout_graceful_shutdown=10, lifespan="off",
    )
    return uvicorn.Server(config)


def serve(
    config: Any = None,
    *,
    host: str | None = None,
    port: int | None = None,
    token: str | None = None,
    allow_remote: bool | None = None,
    middleware: Any = None,
) -> None:
    """Serve the API until SIGTERM/SIGINT, then close the middleware so queued writes are flushed.

    config: a MemoryConfig, a YAML path or None (defaults); host/port/token/allow_remote override
    its `service` section. middleware: an already built MemoryMiddleware (tests), else one is
    built from config.
    """
    from ..config import MemoryConfig, load_config
    from .app import create_app

    cfg = config if isinstance(config, MemoryConfig) else load_config(config)
    host = host if host is not None else cfg.service.host
    port = port if port is not None else cfg.service.port
    token = token if token is not None else cfg.service.token
    remote = allow_remote if allow_remote is not None else cfg.service.allow_remote
    check_bind(host, remote)
    if middleware is None:
        from ..middleware import MemoryMiddleware

        middleware = MemoryMiddleware.from_config(cfg)
    restore = _exit_on_sigterm()
    scheduler = None
    try:
        app = create_app(middleware, token=token)
        server = build_server(app, host=host, port=port)
        warm_up(middleware)
        scheduler = app.state.maintenance = start_maintenance(middleware, cfg)
        _announce(host, port, bool(token))
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        restore()
        if scheduler is not None:
            scheduler.stop()
        middleware.close()
        print("openclaw-memory: stopped, queued writes flushed", file=sys.stderr, flush=True)


def start_maintenance(middleware: Any, cfg: Any) -> Any:
    """The scheduled maintenance of the middleware's store (None when maintenance.enabled is false)."""
    from ..maintain.schedule import start_scheduler

    return start_scheduler(middleware.engine, cfg.maintenance)


def warm_up(middleware: Any) -> None:
    """Load the embedder and the CJK tokenizer now, so the first recall fits the plugin's budget.

    Without this the first query after a start pays for both (seconds), and the plugin's
    1.5 s recall timeout would drop memory from that turn. A read-only search in a scope of its
    own; failures are reported and ignored (the service still starts).
    """
    from ..types import Scope

    try:
        middleware.search(Scope("openclaw-memory-warmup", "warmup"), "warm up 预热", 1)
    except Exception as exc:  # noqa: BLE001 - a failed warm-up must not stop the service
        print(f"openclaw-memory: warm-up failed ({exc}); first requests may be slow",
              file=sys.stderr, flush=True)


def _exit_on_sigterm() -> Callable[[], None]:
    """Make SIGTERM unwind the stack like SIGINT does.

    uvicorn shuts down gracefully, restores the previous handlers and then re-raises the signal
    it caught; with the default SIGTERM action the process would die before `finally` closes
    the middleware. Returns a function that puts the previous handler back.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def _raise_exit(signum: int, frame: Any) -> None:
        raise SystemExit(0)

    previous = signal.signal(signal.SIGTERM, _raise_exit)
    return lambda: signal.signal(signal.SIGTERM, previous)


def _announce(host: str, port: int, has_token: bool) -> None:
    auth = "token required" if has_token else "no token (loopback only is advised)"
    if not has_token and not is_loopback(host):
        print(f"openclaw-memory: WARNING: {host} is reachable from other machines and no token is set; "
              "anyone who can connect can read every user's memory", file=sys.stderr, flush=True)
    shown = f"[{host}]" if ":" in host else host
    print(f"openclaw-memory: serving on http://{shown}:{port} ({auth})", file=sys.stderr, flush=True)


def add_serve_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `serve [--config FILE] [--host] [--port] [--token] [--allow-remote]`."""
    p = subparsers.add_parser(
        "serve", help="run the HTTP service the OpenClaw plugin talks to",
        description="Run the memory service for the OpenClaw plugin (default 127.0.0.1:8765).",
    )
    p.add_argument(
        "--config", dest="serve_config", type=Path, default=None, metavar="FILE",
        help="project YAML config file (same as the global --config)",
    )
    p.add_argument("--host", default=None, help="address to bind (default from config: 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default from config: 8765)")
    p.add_argument(
        "--token", default=None,
        help=f"bearer token clients must send (default: ${TOKEN_ENV}, then config)",
    )
    p.add_argument(
        "--allow-remote", action="store_true", default=None,
        help="allow a non-loopback --host (set a token too)",
    )
    p.set_defaults(func=run_serve)
    return p


def run_serve(args: argparse.Namespace, config: Any = None) -> int:
    """Entry for `openclaw-memory serve`; config is the CLI's loaded MemoryConfig, if any."""
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV)
    chosen = getattr(args, "serve_config", None) or config
    try:
        serve(
            chosen, host=args.host, port=args.port, token=token, allow_remote=args.allow_remote,
        )
    except ConfigError as exc:
        print(f"openclaw-memory serve: {exc}", file=sys.stderr)
        return 2
    return 0


def add_openclaw_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `openclaw install|uninstall [--service-url URL] [--token T] [--inject MODE]`."""
    p = subparsers.add_parser(
        "openclaw", help="install or remove the plugin in a local OpenClaw",
        description="Link the openclaw-memory plugin into OpenClaw and point it at the service.",
    )
    sub = p.add_subparsers(dest="openclaw_command", required=True, metavar="{install,uninstall}")
    inst = sub.add_parser("install", help="install the plugin and configure it")
    inst.add_argument("--service-url", default="http://127.0.0.1:8765", help="memory service URL")
    inst.add_argument(
        "--token", default=None, help=f"bearer token for the service (default: ${TOKEN_ENV})"
    )
    inst.add_argument(
        "--inject", choices=["append_system", "prepend_context"], default="append_system",
        help="where recalled memory goes: end of the system prompt, or before the user message",
    )
    uninst = sub.add_parser("uninstall", help="remove the plugin and its configuration")
    for q in (inst, uninst):
        q.add_argument("--openclaw-bin", default=None, help="path to the openclaw executable")
    p.set_defaults(func=run_openclaw)
    return p


def run_openclaw(args: argparse.Namespace, config: Any = None) -> int:
    """Entry for `openclaw-memory openclaw install|uninstall`; returns the exit code."""
    from .installer import InstallError, install, uninstall

    try:
        if args.openclaw_command == "install":
            token = args.token if args.token is not None else os.environ.get(TOKEN_ENV, "")
            report = install(
                args.openclaw_bin, service_url=args.service_url, token=token, inject=args.inject
            )
        else:
            report = uninstall(args.openclaw_bin)
    except InstallError as exc:
        print(f"openclaw-memory openclaw {args.openclaw_command}: {exc}", file=sys.stderr)
        return 2
    print(report.describe())
    return 0
