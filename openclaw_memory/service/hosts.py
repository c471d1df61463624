"""The Host allow-list, as a plain ASGI check any of our HTTP apps can sit behind.

A page in a browser can make a loopback service its target through DNS rebinding: the request
then carries the attacker's host name in its Host header. Answering only the names this process
is really reached by (the loopback names, plus the bound host when it is not loopback) closes
that door before any route, token check or body parsing runs. The memory service (its API and
its web console under /ui) and the MCP server's streamable HTTP transport use the same check, so
they answer the same names.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

#: Host names a loopback server answers to (the port is ignored).
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")


def host_name(header: str) -> str:
    """The host of a Host header, lowercased, without its port ("[::1]:8765" -> "[::1]")."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[: value.find("]") + 1] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def allowed_hosts(bound_host: str = "127.0.0.1", extra: Iterable[str] = ()) -> frozenset[str]:
    """The names to answer: the loopback ones, the bound host and `extra`, lowercased.

    An IPv6 literal is accepted both bare and in brackets, since Host headers bracket it.
    """
    names = {*LOOPBACK_HOSTS, bound_host, *extra}
    out = set()
    for name in names:
        name = name.strip().lower()
        if not name:
            continue
        out.add(name)
        if ":" in name and not name.startswith("["):
            out.add(f"[{name}]")
    return frozenset(out)


def host_allowed(header: str | None, hosts: frozenset[str]) -> bool:
    """Whether a request with this Host header is served by an app answering `hosts` (the set
    `allowed_hosts` builds); a missing header never is."""
    return bool(header) and host_name(header or "") in hosts


class HostCheck:
    """ASGI layer: an HTTP request whose Host is not in `hosts` gets 421, as JSON.

    Other ASGI events (lifespan, websocket handshakes are not used here) pass through unchanged.
    """

    def __init__(self, app: Any, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = frozenset(h.lower() for h in hosts)

    def allows(self, header: str) -> bool:
        """Whether a request with this Host header is served."""
        return host_allowed(header, self.hosts)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = dict(scope.get("headers", [])).get(b"host", b"").decode("latin-1")
        if self.allows(header):
            await self.app(scope, receive, send)
            return
        shown = host_name(header)
        await send_json(
            send,
            421,
            "misdirected_request",
            f"Host {shown!r} is not served here; expected one of {', '.join(sorted(self.hosts))}",
        )


async def send_json(
    send: Any, status: int, kind: str, message: str, headers: dict[str, str] | None = None
) -> None:
    """Answer an ASGI HTTP request with {"error": kind, "message": message}."""
    body = json.dumps({"error": kind, "message": message}).encode("utf-8")
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
