"""Run the HTTP bridge with uvicorn, and the CLI glue for `serve` and `openclaw install|uninstall`.

The service binds to loopback by default: it holds every user's memory, so listening on another
interface needs an explicit `allow_remote` and an explicit token. It never runs without a token:
one comes from $OPENCLAW_MEMORY_TOKEN, the config or `<data_dir>/service.token`, which is created
(mode 0600) on first start (service/installer.py). uvicorn is given a keep-alive
timeout, header and body deadlines and a connection budget (`LIMITS`) so idle or half-open
connections cannot pile up, nor crowd out a client that has the token. On
SIGTERM or SIGINT uvicorn stops accepting requests, finishes the ones in flight, and we then
close the middleware, which flushes queued writes before the process exits. A write answered
202 is journaled first (service/app.py); after a SIGKILL the next start replays it.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Callable

from ..errors import ConfigError
from ..lang.text import across

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


#: Connection limits, one table. A loopback service has a handful of clients (one gateway, the
#: CLI): past `concurrency` authenticated requests running at once a request gets 503 at once
#: (guard.py; unauthenticated ones never count); past `connections` open connections an idle
#: one is closed to make room, one that never sent the token first (limits.py); a connection
#: that has not sent a complete request head within `header_timeout_s` is closed, a body that
#: has not arrived `body_timeout_s` after its head gets 408, and a connection idle between
#: requests is closed after `keep_alive_s`; a request head is at most `max_header_bytes`.
LIMITS = {
    "concurrency": 64,
    "connections": 256,
    "backlog": 128,
    "header_timeout_s": 10.0,
    "body_timeout_s": 30.0,
    "keep_alive_s": 5,
    "max_header_bytes": 16 * 1024,
}


def build_server(
    app: Any,
    *,
    host: str,
    port: int,
    log_level: str = "warning",
    limits: dict[str, Any] | None = None,
) -> Any:
    """A uvicorn Server for app, with `LIMITS` (or `limits`); its run() handles SIGTERM/SIGINT
    with a graceful shutdown."""
    import uvicorn

    from .guard import guarded_http_protocol

    lim = {**LIMITS, **(limits or {})}
    state = getattr(app, "state", None)
    if state is not None:  # read by the guard (guard.py) on every request
        state.max_inflight = int(lim["concurrency"])
        state.body_timeout_s = float(lim["body_timeout_s"])
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,
        timeout_graceful_shutdown=10,
        lifespan="off",
        # no limit_concurrency: uvicorn's counts open connections, which anyone can open
        limit_concurrency=None,
        backlog=int(lim["backlog"]),
        timeout_keep_alive=int(lim["keep_alive_s"]),
        h11_max_incomplete_event_size=int(lim["max_header_bytes"]),
        http=guarded_http_protocol(
            float(lim["header_timeout_s"]),
            int(lim["connections"]),
            getattr(state, "authorized", None),
        ),
    )
    return uvicorn.Server(config)


HOSTS_ENV = "OPENCLAW_MEMORY_HOSTS"


def allowed_hosts(host: str) -> list[str]:
    """Host names served besides the loopback ones: the bound host (unless it is a wildcard
    address) and the comma-separated names of $OPENCLAW_MEMORY_HOSTS (a remote service's DNS
    name, as its clients write it in their URL)."""
    extra = [h.strip() for h in os.environ.get(HOSTS_ENV, "").split(",") if h.strip()]
    bound = [] if is_loopback(host) or host in ("0.0.0.0", "::", "[::]") else [host]
    return bound + extra


def choose_token(cfg: Any, token: str | None, remote: bool) -> str:
    """The token the service requires: `token` (the --token flag) if given, else the environment,
    the config, the token file, or a new token written to the file. A service reachable from
    other machines needs one given explicitly (flag, environment or config), not a generated one."""
    from .installer import TOKEN_ENV as ENV
    from .installer import load_or_create_token

    explicit = (
        (token or "").strip()
        or os.environ.get(ENV, "").strip()
        or (cfg.service.token or "").strip()
    )
    if remote and not explicit:
        raise ConfigError(
            "service.token: --allow-remote needs an explicit token; set $OPENCLAW_MEMORY_TOKEN or "
            "service.token (a token file generated on first start is for loopback use)"
        )
    if token and token.strip():
        return token.strip()
    return load_or_create_token(cfg.data_dir, cfg.service.token)


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
    log_to_stderr()
    host = host if host is not None else cfg.service.host
    port = port if port is not None else cfg.service.port
    remote = allow_remote if allow_remote is not None else cfg.service.allow_remote
    check_bind(host, remote)
    token = choose_token(cfg, token, remote)
    app_hosts = allowed_hosts(host)
    if middleware is None:
        from ..middleware import MemoryMiddleware

        middleware = MemoryMiddleware.from_config(cfg)
    restore = _exit_on_sigterm()
    scheduler = None
    journal = open_journal(cfg)
    try:
        app = create_app(middleware, token=token, hosts=app_hosts, journal=journal)
        server = build_server(app, host=host, port=port)
        replay_journal(journal, middleware)
        warm_up(middleware)
        scheduler = app.state.maintenance = start_maintenance(middleware, cfg)
        _announce(host, port, cfg)
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        restore()
        if scheduler is not None:
            scheduler.stop()
        middleware.close()
        journal.close()
        print("openclaw-memory: stopped, queued writes flushed", file=sys.stderr, flush=True)


def open_journal(cfg: Any) -> Any:
    """The capture journal beside the store (`<data_dir>/captures.journal`, 0600); on a
    PostgreSQL store, with pending marks there that every service process's recall waits for."""
    from ..store.capture_journal import FILE_NAME, CaptureJournal, SharedPending

    data_dir = Path(cfg.data_dir)
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    shared = None
    if cfg.storage.backend == "postgres":
        from ..store.postgres import resolve_dsn

        shared = SharedPending(resolve_dsn(cfg.storage.postgres.dsn))
    from ..store.keys import resolve_key

    return CaptureJournal(data_dir / FILE_NAME, shared=shared, key=resolve_key(cfg))


def replay_journal(journal: Any, middleware: Any) -> int:
    """Queue again the writes a previous process answered 202 and did not finish."""
    from .app import replay
    from .app import QUEUED_WRITES

    journal.prune()
    count = replay(journal, middleware, QUEUED_WRITES)
    if count:
        print(
            f"openclaw-memory: {count} queued write(s) of the last run replayed from the journal",
            file=sys.stderr,
            flush=True,
        )
    return count


def log_to_stderr(level: int = logging.INFO) -> None:
    """The package's log lines (each compaction and summary step, maintenance runs, warnings)
    on stderr, where the service's log goes; once, unless the host configured logging."""
    logger = logging.getLogger("openclaw_memory")
    if logger.handlers or logging.getLogger().handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("openclaw-memory: %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(level)


def start_maintenance(middleware: Any, cfg: Any) -> Any:
    """The scheduled maintenance of the middleware's store (None when maintenance.enabled is false)."""
    from ..maintain.runner import start_scheduler

    return start_scheduler(middleware.maintenance, cfg.maintenance)


#: one request a language (its warm-up table's `query`): each language has its own tokenizer and
#: its own background bank (background.py), loaded by the first request in that language
WARM_UP_QUERIES: tuple[str, ...] = across("warmup", "query", "text")


def warm_up(middleware: Any) -> None:
    """Load the embedder, each language's tokenizer and background bank now, before
    the port is opened, so the first recall in either language fits the plugin's budget.

    Without this the first query after a start pays for them (seconds: the English bank alone
    took 2.3 s on a 2-core machine), and the plugin's 1.5 s recall timeout would drop memory
    from that turn. A read-only recall in a scope of its own, once per language; failures are
    reported and ignored (the service still starts).
    """
    from ..types import Scope

    scope = Scope("openclaw-memory-warmup", "warmup")
    try:
        for query in WARM_UP_QUERIES:
            middleware.search(scope, query, 1)
    except Exception as exc:  # noqa: BLE001 - a failed warm-up must not stop the service
        print(
            f"openclaw-memory: warm-up failed ({exc}); first requests may be slow",
            file=sys.stderr,
            flush=True,
        )


def _exit_on_sigterm() -> Callable[[], object]:
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


def _announce(host: str, port: int, cfg: Any) -> None:
    from .installer import token_path

    if not is_loopback(host):
        print(
            f"openclaw-memory: WARNING: {host} is reachable from other machines; the token is the "
            "only thing between them and every user's memory (use TLS in front)",
            file=sys.stderr,
            flush=True,
        )
    shown = f"[{host}]" if ":" in host else host
    print(
        f"openclaw-memory: serving on http://{shown}:{port} (token required; token file "
        f"{token_path(cfg.data_dir)} unless $OPENCLAW_MEMORY_TOKEN or service.token is set)",
        file=sys.stderr,
        flush=True,
    )


def add_address_options(p: argparse.ArgumentParser, token_help: str) -> None:
    """The options `serve` and `ui` share: --config, --host, --port, --token."""
    p.add_argument(
        "--config",
        dest="serve_config",
        type=Path,
        default=None,
        metavar="FILE",
        help="project YAML config file (same as the global --config)",
    )
    p.add_argument("--host", default=None, help="address to bind (default from config: 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default from config: 8765)")
    p.add_argument("--token", default=None, help=token_help)


def add_serve_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `serve [--config FILE] [--host] [--port] [--token] [--allow-remote]`."""
    p = subparsers.add_parser(
        "serve",
        help="run the HTTP service the OpenClaw plugin talks to",
        description="Run the memory service for the OpenClaw plugin (default 127.0.0.1:8765).",
    )
    add_address_options(
        p,
        f"bearer token clients must send; visible to other local users in `ps`, so prefer "
        f"${TOKEN_ENV} or the token file (default: ${TOKEN_ENV}, then service.token, then "
        "<data_dir>/service.token, created 0600 on first start)",
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        default=None,
        help=f"allow a non-loopback --host (needs an explicit token: ${TOKEN_ENV} or service.token)",
    )
    p.set_defaults(func=run_serve)
    return p


def run_serve(args: argparse.Namespace, config: Any = None) -> int:
    """Entry for `openclaw-memory serve`; config is the CLI's loaded MemoryConfig, if any."""
    chosen = getattr(args, "serve_config", None) or config
    try:
        serve(
            chosen,
            host=args.host,
            port=args.port,
            token=args.token,
            allow_remote=args.allow_remote,
        )
    except ConfigError as exc:
        print(f"openclaw-memory serve: {exc}", file=sys.stderr)
        return 2
    return 0


def add_openclaw_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `openclaw install|uninstall [--service-url URL] [--token T] [--inject MODE] ...`."""
    p = subparsers.add_parser(
        "openclaw",
        help="install or remove the plugin in a local OpenClaw",
        description="Link the openclaw-memory plugin into OpenClaw and point it at the service.",
    )
    sub = p.add_subparsers(dest="openclaw_command", required=True, metavar="{install,uninstall}")
    inst = sub.add_parser("install", help="install the plugin and configure it and the service")
    inst.add_argument("--service-url", default="http://127.0.0.1:8765", help="memory service URL")
    inst.add_argument(
        "--token",
        default=None,
        help=f"bearer token for the service (default: ${TOKEN_ENV}, else the data dir's token file, "
        "created on first install)",
    )
    inst.add_argument(
        "--inject",
        choices=["append_system", "prepend_context"],
        default="append_system",
        help="where recalled memory goes: end of the system prompt, or before the user message",
    )
    inst.add_argument(
        "--user",
        default=None,
        help="whose memory runs without a channel sender use (web chat, the CLI through the "
        "Gateway), kept in the plugin's config (default: $OPENCLAW_MEMORY_USER, else your "
        "login name; '' for nobody)",
    )
    inst.add_argument(
        "--service-config",
        type=Path,
        default=None,
        metavar="FILE",
        help="the service's YAML (default: ~/.config/openclaw-memory/memory.yaml, created)",
    )
    inst.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where the service keeps its data (default: ~/.local/share/openclaw-memory)",
    )
    inst.add_argument(
        "--no-service-unit",
        action="store_true",
        help="do not write the systemd user unit (~/.config/systemd/user/openclaw-memory.service)",
    )
    uninst = sub.add_parser("uninstall", help="remove the plugin and its configuration")
    for q in (inst, uninst):
        q.add_argument("--openclaw-bin", default=None, help="path to the openclaw executable")
    p.set_defaults(func=run_openclaw)
    return p


def run_openclaw(args: argparse.Namespace, config: Any = None) -> int:
    """Entry for `openclaw-memory openclaw install|uninstall`; returns the exit code."""
    from .installer import InstallError, default_user, install, uninstall
    from .installer import prepare_service

    try:
        if args.openclaw_command == "install":
            token = args.token if args.token is not None else os.environ.get(TOKEN_ENV, "")
            setup = prepare_service(
                args.service_config, args.data_dir, token=token, unit=not args.no_service_unit
            )
            report = install(
                args.openclaw_bin,
                service_url=args.service_url,
                token=setup.token,
                inject=args.inject,
                user=default_user() if args.user is None else args.user.strip(),
                token_file=setup.token_file,
            )
            report.notes.extend(setup.notes())
        else:
            report = uninstall(args.openclaw_bin)
    except InstallError as exc:
        print(f"openclaw-memory openclaw {args.openclaw_command}: {exc}", file=sys.stderr)
        return 2
    print(report.describe())
    return 0
