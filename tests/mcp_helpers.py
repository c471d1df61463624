"""Helpers for the MCP tests: the server on a loopback port, and the SDK's own client over HTTP."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from openclaw_memory.mcp import build_http_server
from openclaw_memory.mcp.server import MCP_PATH, build_server, http_app
from openclaw_memory.mcp import REFERENCE_CLOSE
from openclaw_memory.mcp import REFERENCE_OPEN
from openclaw_memory.mcp import MemoryTools
from openclaw_memory.service.guard import allowed_hosts
from openclaw_memory.types import Scope

TOKEN = "mcp-test-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def http_mcp(middleware: Any, scope: Scope, *, token: str = TOKEN) -> Iterator[str]:
    """The MCP server for scope over streamable HTTP on a free loopback port; yields its URL."""
    server = build_server(MemoryTools(middleware, scope, session_id="mcp-test"))
    port = free_port()
    uv = build_http_server(
        http_app(server, token=token, hosts=allowed_hosts("127.0.0.1")), host="127.0.0.1", port=port
    )
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert uv.started, "the MCP HTTP server did not start"
    try:
        yield f"http://127.0.0.1:{port}{MCP_PATH}"
    finally:
        uv.should_exit = True
        thread.join(timeout=10)


def http_client(url: str, token: str = TOKEN) -> Client:
    """The SDK's client over streamable HTTP, sending the bearer token."""
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=60)
    )
    return Client(streamable_http_client(url, http_client=http))


def call(client_factory: Any, *calls: tuple[str, dict]) -> list[Any]:
    """Open one client session, make the calls in order, return their CallToolResults."""

    async def run() -> list[Any]:
        async with client_factory() as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(run)


def text(result: Any) -> str:
    """The text of a tool result."""
    return "\n".join(part.text for part in result.content)


def inside_frame(result: Any) -> list[str]:
    """The lines between the reference markers; asserts the frame is whole and closed once."""
    lines = text(result).splitlines()
    assert lines.count(REFERENCE_OPEN) == 1 and lines.count(REFERENCE_CLOSE) == 1, lines
    start, end = lines.index(REFERENCE_OPEN), lines.index(REFERENCE_CLOSE)
    assert start < end
    return lines[start + 1 : end]


def stored_id(result: Any) -> str:
    """The memory id in memory_store's answer ("insert: <id> (reason)")."""
    return text(result).split(":", 1)[1].split()[0]
