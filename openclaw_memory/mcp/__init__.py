"""The MCP server: memory for any agent that speaks the Model Context Protocol.

The memory tools an MCP client's model calls, over one middleware and one fixed scope, and the
`openclaw-memory mcp` command that serves them for one user and agent. Nothing here imports the
optional `mcp` SDK at import time (`mcp/server.py` does), so the CLI works without the extra.
"""

from __future__ import annotations

import secrets
import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any
from ..core.clock import iso_time
from ..errors import ValidationError, ConfigError
from ..inject.escape import (  # noqa: F401 - the markers, re-exported
    REFERENCE_CLOSE,
    REFERENCE_OPEN,
    frame_reference,
    sanitize,
)
from ..types import InjectionPlan, MemoryRecord, Scope, ScoredMemory

# The MCP server: memory for any agent that speaks the Model Context Protocol.
#
# `openclaw-memory mcp` (mcp/__init__.py) serves the tools of mcp/__init__.py, registered by mcp/server.py
# on the official `mcp` SDK (the `mcp` extra), over stdio or streamable HTTP, for one user and
# agent fixed at start.


# The memory tools an MCP client's model calls, over one middleware and one fixed scope.
#
# The scope (user, agent) is chosen by whoever starts the server, never by the model: no tool takes
# a user or agent argument, so a model cannot reach another user's memory whatever it sends.
#
# Every answer that carries stored text is framed as reference data (`frame`): each line
# sanitized like the injected block, between markers stored content can neither close nor forge.
# Our own guidance (how to expand a memory, when to go deep) stays outside the frame.

SEARCH_HINT = (
    "Call memory_get with an id for its detail, provenance and earlier versions. "
    "Nothing relevant? Call memory_search again with deep=true: it also searches archived "
    "and expired memories (older events, compacted history)."
)
MAX_LIMIT = 20


def frame(lines: Iterable[str]) -> str:
    """Stored text as reference data (escape.frame_reference: each line sanitized, inside the
    reference markers, which stored content can neither close nor forge)."""
    return frame_reference("\n".join(lines))


class MemoryTools:
    """memory_search / get / store / forget / restore / explain for one scope.

    middleware: a MemoryMiddleware (or anything with its methods); scope: fixed at start;
    session_id: the session the server's writes are recorded under (provenance).
    """

    def __init__(self, middleware: Any, scope: Scope, *, session_id: str | None = None) -> None:
        self.mw = middleware
        self.scope = scope
        self.session_id = session_id or f"mcp-{secrets.token_hex(4)}"

    @property
    def can_restore(self) -> bool:
        """Whether the middleware can undo a forget (memory_restore is offered only then)."""
        return callable(getattr(self.mw, "restore", None))

    def search(self, query: str, limit: int = 5, deep: bool = False) -> str:
        """The memories that match query (deep: the cold archive too), framed, then the hint."""
        _check_text("query", query)
        found = self.mw.search(self.scope, query, _limit(limit), deep=bool(deep))
        head = f"{len(found)} memories for this request{' (archive included)' if deep else ''}:"
        lines = [head, *(_scored_line(s) for s in found)] if found else ["No matching memories."]
        return frame(lines) + "\n" + SEARCH_HINT

    def get(self, id: str) -> str:
        """One memory: detail, provenance, its earlier versions and the records it replaced."""
        _check_text("id", id)
        engine = self.mw.engine
        chain = engine.chain(self.scope, id)
        newer = self.mw.store.successors(self.scope, id, limit=3)
        lines = [
            *_record_lines(chain[0]),
            *_version_lines(engine.versions(self.scope, id)),
            *_replaced_lines(chain[1:]),
        ]
        lines += [
            f"replaced by [{r.id}] ({r.status.value}, from {iso_time(r.created_at)} UTC): {r.summary}"
            for r in newer
        ]
        return frame(lines)

    def store(self, text: str, type: str | None = None, subject: str | None = None) -> str:
        """Remember text (the explicit channel); says what was done and the memory's id."""
        _check_text("text", text)
        result = self.mw.remember(
            self.scope, text, type=type or None, subject=subject or None, session_id=self.session_id
        )
        rid = result.record.id if result.record is not None else "-"
        return f"{result.action}: {rid} ({sanitize(result.reason)})"

    def forget(self, id: str | None = None, query: str | None = None) -> str:
        """Deactivate one memory by id, or what a description clearly names (exactly one of them)."""
        if bool(id) == bool(query):
            raise ValidationError(
                "id or query: expected exactly one of them (an id from memory_search, "
                "or a description of what to forget)"
            )
        ids = self.mw.forget(self.scope, memory_id=id or None, query=query or None)
        if not ids:
            return "Nothing matched clearly enough; nothing was forgotten."
        return f"Forgot {len(ids)}: {', '.join(ids)} (memory_restore undoes it)."

    def restore(self, id: str) -> str:
        """Bring a forgotten (or archived) memory back into recall."""
        _check_text("id", id)
        record = self.mw.restore(self.scope, id)
        return f"restored: {record.id}\n" + frame([_record_head(record)])

    def explain(self, query: str, deep: bool = False) -> str:
        """Why these memories for this request: every candidate with its score, fate and reason."""
        _check_text("query", query)
        result = self.mw.recaller.recall(self.scope, query, (), deep=bool(deep))
        plan: InjectionPlan = self.mw.assembler.assemble(self.scope, result)
        ranked = sorted(plan.candidates, key=lambda c: (c.rank <= 0, c.rank))
        kept = len([c for c in ranked if c.kept])
        lines = [f"{kept} of {len(ranked)} candidates would be injected ({plan.tokens} tokens):"]
        lines += [_explain_line(c) for c in ranked] or ["No candidate matched."]
        lines += [
            f"to confirm (low confidence, never injected): [{r.id}] {r.summary}"
            for r in plan.to_confirm
        ]
        return frame(lines)


def _check_text(field: str, value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{field}: expected a non-empty string, found {value!r}")


def _limit(limit: Any) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ValidationError(f"limit: expected an integer from 1 to {MAX_LIMIT}, found {limit!r}")
    return limit


def _status(record: MemoryRecord) -> str:
    return "" if record.status.value == "active" else f", {record.status.value}"


def _scored_line(item: ScoredMemory) -> str:
    r = item.record
    subject = f" {r.subject}:" if r.subject else ""
    return f"- [{r.id}] {r.type.value}{_status(r)}, score {item.score:.2f}:{subject} {r.summary}"


def _record_head(r: MemoryRecord) -> str:
    subject = f", subject {r.subject}" if r.subject else ""
    return f"[{r.id}] {r.type.value}{_status(r)}, version {r.version}{subject}: {r.summary}"


def _record_lines(r: MemoryRecord) -> list[str]:
    src = r.source
    turns = f", turns {', '.join(src.turn_ids[:10])}" if src.turn_ids else ""
    lines = [_record_head(r)]
    if r.detail:
        lines += [f"detail: {line}" for line in r.detail.splitlines() if line.strip()]
    lines.append(
        f"written {iso_time(r.created_at)} UTC, updated {iso_time(r.updated_at)} UTC, "
        f"importance {r.importance:.2f}, confidence {r.confidence:.2f}"
    )
    lines.append(
        f"source: {src.channel.value} channel, session {src.session_id or '-'}{turns}, by {src.writer}"
    )
    if r.expires_at:
        lines.append(f"expires {iso_time(r.expires_at)} UTC")
    return lines


def _version_lines(versions: Sequence[dict]) -> list[str]:
    return [
        f"earlier version {v['version']} (until {iso_time(v['superseded_at'])} UTC): {v['summary']}"
        for v in versions
    ]


def _replaced_lines(chain: Sequence[MemoryRecord]) -> list[str]:
    return [
        f"replaced [{r.id}] ({r.status.value}, from {iso_time(r.created_at)} UTC): {r.summary}"
        for r in chain
    ]


def _explain_line(c: ScoredMemory) -> str:
    r = c.record
    fate = "kept" if c.kept else "dropped"
    parts = ", ".join(f"{k} {v:.2f}" for k, v in sorted(c.components.items()))
    why = f" - {c.reason}" if c.reason else ""
    return f"{c.rank}. {fate} [{r.id}] {r.type.value}{_status(r)} score {c.score:.2f} ({parts}): {r.summary}{why}"


# `openclaw-memory mcp`: run the MCP server for one user and agent, over stdio or HTTP.
#
#     openclaw-memory mcp --user alice [--agent main] [--transport stdio|http] [--host] [--port]
#
# The scope comes from the flags, else from $OPENCLAW_MEMORY_USER / $OPENCLAW_MEMORY_AGENT; it
# is fixed for the life of the process. Over stdio the client owns the process (stdout carries
# the protocol, everything else goes to stderr). Over HTTP the server listens on loopback, needs
# the service's bearer token (service/installer.py) and answers only the loopback Host names. The
# server owns its store, so it runs the scheduled maintenance too (one runner per store at a
# time, whatever else is running on it).

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
    from ..maintain.runner import start_scheduler
    from ..service.app import package_version
    from .server import build_server

    mw = middleware if middleware is not None else build_middleware(config)
    scheduler = start_scheduler(mw.maintenance, mw.cfg.maintenance) if maintenance else None
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
    from ..service.guard import allowed_hosts
    from ..service.installer import load_or_create_token
    from .server import MCP_PATH
    from .server import http_app

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
