"""`openclaw-memory mcp`: run the MCP server for one user and agent, over stdio or HTTP.

    openclaw-memory mcp --user alice [--agent main] [--transport stdio|http] [--host] [--port]

The scope comes from the flags, else from $OPENCLAW_MEMORY_USER / $OPENCLAW_MEMORY_AGENT; it
is fixed for the life of the process. Over stdio the client owns the process (stdout carries
the protocol, everything else goes to stderr). Over HTTP the server listens on loopback, needs
the service's bearer token (service/token.py) and answers only the loopback Host names. The
server owns its store, so it runs the scheduled maintenance too (one runner per store at a
time, whatever else is running on it).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..errors import ConfigError, ValidationError
from ..types import Scope

USER_ENV = "OPENCLAW_MEMORY_USER"
AGENT_ENV = "OPENCLAW_MEMORY_AGENT"
DEFAULT_PORT = 8766


def add_mcp_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `mcp [--user] [--agent] [--transport] [--host] [--port] [--allow-remote] [--no-maintenance]`."""
    p = subparsers.add_parser(
        "mcp",
        help="run the MCP server (memory tools for any MCP client) for one user",
        description="Serve memory_search, memory_get, memory_store, memory_forget, memory_restore and "
        "memory_explain over the Model Context Protocol, for one user and agent fixed at start.",
    )
    p.add_argument(
        "--user", default=None, help=f"the user whose memory this is (default: ${USER_ENV})"
    )
    p.add_argument(
        "--agent", default=None, help=f"the agent id (default: ${AGENT_ENV}, else 'default')"
    )
    p.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (the client starts this process) or http (streamable HTTP at /mcp)",
    )
    p.add_argument("--host", default="127.0.0.1", help="HTTP: address to bind (default 127.0.0.1)")
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"HTTP: port (default {DEFAULT_PORT})"
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="HTTP: allow a non-loopback --host (the token is then all that protects the memory)",
    )
    p.add_argument(
        "--no-maintenance",
        action="store_true",
        help="do not run the scheduled maintenance in this process",
    )
    p.set_defaults(func=run_mcp)
    return p


def scope_from(user: str | None, agent: str | None, env: Any = os.environ) -> Scope:
    """The fixed scope: flags first, then the environment; a missing user is an error."""
    user = user or env.get(USER_ENV, "").strip()
    if not user:
        raise ValidationError(
            f"user: expected --user ID or ${USER_ENV}; the MCP server serves one user"
        )
    return Scope(user, agent or env.get(AGENT_ENV, "").strip() or "default")


def run_mcp(args: argparse.Namespace, config: Any) -> int:
    """Entry for `openclaw-memory mcp`; returns the exit code."""
    from ..service.server import check_bind

    try:
        import mcp.server.mcpserver  # noqa: F401 - the optional SDK, checked before anything opens
    except ImportError:
        print(
            "openclaw-memory mcp: the MCP SDK is not installed; pip install 'openclaw-memory[mcp]'",
            file=sys.stderr,
        )
        return 2
    try:
        scope = scope_from(args.user, args.agent)
        if args.transport == "http":
            check_bind(args.host, args.allow_remote)
    except (ValidationError, ConfigError) as exc:
        print(f"openclaw-memory mcp: {exc}", file=sys.stderr)
        return 2
    serve_mcp(
        config,
        scope,
        transport=args.transport,
        host=args.host,
        port=args.port,
        maintenance=not args.no_maintenance,
    )
    return 0


def serve_mcp(
    config: Any,
    scope: Scope,
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    maintenance: bool = True,
    middleware: Any = None,
) -> None:
    """Build the middleware (unless given), the tools and the server; serve until stopped."""
    import anyio

    from ..runtime.factory import build_middleware
    from ..maintain.schedule import start_scheduler
    from ..service.app import package_version
    from .server import build_server
    from .tools import MemoryTools

    mw = middleware if middleware is not None else build_middleware(config)
    scheduler = start_scheduler(mw.engine, mw.cfg.maintenance) if maintenance else None
    server = build_server(MemoryTools(mw, scope), version=package_version())
    try:
        if transport == "stdio":
            anyio.run(server.run_stdio_async)
        else:
            _serve_http(server, mw, host, port)
    except KeyboardInterrupt:
        pass
    finally:
        if scheduler is not None:
            scheduler.stop()
        mw.close()


def _serve_http(server: Any, mw: Any, host: str, port: int) -> None:
    from ..service.hosts import allowed_hosts
    from ..service.token import load_or_create_token
    from .server import MCP_PATH, http_app

    token = load_or_create_token(mw.cfg.data_dir, mw.cfg.service.token)
    app = http_app(server, token=token, hosts=allowed_hosts(host))
    shown = f"[{host}]" if ":" in host else host
    print(
        f"openclaw-memory mcp: serving on http://{shown}:{port}{MCP_PATH} (the service's bearer token "
        "required)",
        file=sys.stderr,
        flush=True,
    )
    build_http_server(app, host=host, port=port).run()


def build_http_server(app: Any, *, host: str, port: int) -> Any:
    """A uvicorn Server for the MCP app (its lifespan runs the SDK's session manager)."""
    import uvicorn

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
        limit_concurrency=64,
        timeout_keep_alive=5,
    )
    return uvicorn.Server(config)
