"""What every request meets before any body is read: plain ASGI layers.

The request guard, the Host allow-list, and the connection limits uvicorn does not have.
"""

from __future__ import annotations

import json
import asyncio
import hmac
from collections.abc import Iterable, Callable
from typing import Any
from uvicorn.protocols.http.h11_impl import H11Protocol

# The Host allow-list, as a plain ASGI check any of our HTTP apps can sit behind.
#
# A page in a browser can make a loopback service its target through DNS rebinding: the request
# then carries the attacker's host name in its Host header. Answering only the names this process
# is really reached by (the loopback names, plus the bound host when it is not loopback) closes
# that door before any route, token check or body parsing runs. The memory service (its API and
# its web console under /ui) and the MCP server's streamable HTTP transport use the same check, so
# they answer the same names.

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


# Connection limits uvicorn does not have: header deadlines and a connection budget that a
# local process without the token cannot exhaust.
#
# uvicorn closes a keep-alive connection idle between requests (`timeout_keep_alive`), but a
# connection that never sends a request head (or sends half of one) stays open for ever, and its
# `limit_concurrency` counts open connections: 70 half-open connections from any local process,
# no token needed, made every request answer 503. So the service gives uvicorn no concurrency
# limit (the guard caps running authenticated requests instead: guard.py) and uses
# `guarded_http_protocol`, uvicorn's h11 protocol with:
#
# - a header deadline: a connection waiting for a request head (a new one, or a keep-alive one
#   between requests) is closed when no complete head arrived within `header_timeout_s`;
# - a connection budget: when a new connection would pass `max_connections`, an idle one (waiting
#   for a head, no request running) is closed to make room: one that never sent the token first,
#   the oldest first, then idle keep-alive connections that did; only when every connection is
#   busy with a request is the new one closed. A head that carries the right token (the
#   `authorized` check) marks its connection as trusted.
#
# The body deadline is the guard's (a body must arrive within `body_timeout_s` of its head).

Headers = Iterable[tuple[bytes, bytes]]


def guarded_http_protocol(
    header_timeout_s: float,
    max_connections: int = 256,
    authorized: Callable[[Headers], bool] | None = None,
) -> type:
    """An H11Protocol subclass with a header deadline and a connection budget (module doc)."""

    class GuardedH11Protocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            self._head_timer: asyncio.TimerHandle | None = None
            self._trusted = False
            self._opened = self.loop.time()
            super().connection_made(transport)
            if self._open_count() > max_connections and not self._make_room():
                self.logger.warning("refused a connection: %d open, all busy", max_connections)
                transport.close()
                return
            self._arm()

        def _open_count(self) -> int:
            return sum(1 for c in self.connections if not c.transport.is_closing())

        def _make_room(self) -> bool:
            """Close one idle connection (untrusted first, oldest first); False if none is idle."""
            idle = [
                c
                for c in self.connections
                if c is not self
                and isinstance(c, GuardedH11Protocol)
                and c._waiting_for_head()
                and not c.transport.is_closing()
            ]
            if not idle:
                return False
            victim = min(idle, key=lambda c: (c._trusted, c._opened))
            victim._disarm()
            victim.transport.close()
            return True

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(header_timeout_s, self._head_timeout)

        def _disarm(self) -> None:
            timer = getattr(self, "_head_timer", None)
            if timer is not None:
                timer.cancel()
                self._head_timer = None

        def _waiting_for_head(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _head_timeout(self) -> None:
            self._head_timer = None
            if self._waiting_for_head() and not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            before = self.cycle
            super().data_received(data)
            if self.cycle is not before and not self._waiting_for_head():
                self._disarm()  # a head arrived: the request's own time is the guard's business
                if authorized is not None and not self._trusted:
                    self._trusted = authorized(self.headers or ())

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next head must come in time too

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return GuardedH11Protocol


# `RequestGuard`: the plain ASGI layer every request meets before any body is read or parsed.
#
# A Host header outside the allow-list gets 421 (a DNS-rebinding page in a browser sends its own
# host name), a missing or wrong token 401 (also for /openapi.json; only /health is open), a
# body over its route's byte cap 413, read no further, and a body that does not arrive within
# `body_timeout_s` of its head 408. Past `max_inflight` authenticated requests running at once a
# request gets 503 at once; refused and unauthenticated requests do not count, so a process
# without the token cannot use up the service (limits.py keeps its idle connections from doing
# so). Refusals are JSON, never plain text.

#: Paths served without a token: the liveness probe only.
OPEN_PATHS = frozenset({"/health"})
#: the web console authenticates itself (the token traded once for a SameSite=Strict session
#: cookie, a CSRF token in every form, same-origin checks: console/base.py); the Host check
#: and the body cap still apply to it here
CONSOLE_PREFIX = "/ui"
#: Body caps in bytes, one table: transcripts may be long (80 messages of a few thousand
#: characters, Chinese at 3 bytes a character, plus JSON escapes); everything else is small.
BODY_CAPS = {
    "/v1/capture": 4 * 1024 * 1024,
    "/v1/session/compact": 4 * 1024 * 1024,
    "/v1/memory/import": 32 * 1024 * 1024,  # a whole export or OpenClaw workspace
    "/ui/import": 32 * 1024 * 1024,
}
DEFAULT_BODY_CAP = 1024 * 1024
#: authenticated requests running at once, and the seconds a body may take after its head
DEFAULT_MAX_INFLIGHT = 64
DEFAULT_BODY_TIMEOUT_S = 30.0


def bearer_check(token: str) -> Callable[[Iterable[tuple[bytes, bytes]]], bool]:
    """Whether request headers carry `Authorization: Bearer <token>` (constant-time)."""
    expected = f"Bearer {token.strip()}".encode()

    def authorized(headers: Iterable[tuple[bytes, bytes]]) -> bool:
        return any(
            k.lower() == b"authorization" and hmac.compare_digest(v, expected) for k, v in headers
        )

    return authorized


def _json_bytes(kind: str, message: str) -> bytes:
    return json.dumps({"error": kind, "message": message}).encode("utf-8")


class RequestGuard:
    """ASGI layer in front of the app: Host allow-list, bearer token, body cap, before parsing.

    The body is read here, up to the route's cap, and handed on whole; a request over the cap is
    answered 413 as soon as the cap is passed (or at once, from Content-Length), so an
    unauthenticated or oversized body never reaches JSON parsing or validation.
    """

    def __init__(
        self,
        app: Any,
        *,
        token: str,
        hosts: Iterable[str],
        caps: dict[str, int] | None = None,
        default_cap: int = DEFAULT_BODY_CAP,
        state: Any = None,
    ) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()
        self._hosts = frozenset(h.lower() for h in hosts)
        self._caps = dict(BODY_CAPS if caps is None else caps)
        self._default_cap = default_cap
        #: the app's state: build_server sets `max_inflight` and `body_timeout_s` there
        self._state = state
        self._inflight = 0

    def _limit(self, name: str, default: float) -> float:
        return float(getattr(self._state, name, None) or default)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", [])}
        refusal = self._refuse(scope, headers)
        if refusal is not None:
            await _send_json(send, *refusal)
            return
        cap = self._caps.get(scope.get("path", ""), self._default_cap)
        declared = headers.get("content-length", b"").decode("latin-1").strip()
        if declared.isdigit() and int(declared) > cap:
            await _send_json(
                send, 413, "body_too_large", f"request body over {cap} bytes for this route"
            )
            return
        if self._inflight >= self._limit("max_inflight", DEFAULT_MAX_INFLIGHT):
            await _send_json(send, 503, "busy", "too many requests running; try again shortly")
            return
        self._inflight += 1
        try:
            await self._serve(scope, receive, send, cap)
        finally:
            self._inflight -= 1

    async def _serve(self, scope: dict, receive: Any, send: Any, cap: int) -> None:
        deadline = self._limit("body_timeout_s", DEFAULT_BODY_TIMEOUT_S)
        try:
            body = await asyncio.wait_for(_read_body(receive, cap), timeout=deadline)
        except asyncio.TimeoutError:
            await _send_json(
                send,
                408,
                "request_timeout",
                f"the request body did not arrive within {deadline:g} s",
                {"connection": "close"},
            )
            return
        if body is None:
            await _send_json(
                send, 413, "body_too_large", f"request body over {cap} bytes for this route"
            )
            return
        await self.app(scope, _replay(body, receive), send)

    def _refuse(self, scope: dict, headers: dict[str, bytes]) -> tuple[int, str, str, dict] | None:
        header = headers.get("host", b"").decode("latin-1")
        if not host_allowed(header, self._hosts):
            host = host_name(header)
            return (
                421,
                "misdirected_request",
                f"Host {host!r} is not served here; expected one of {', '.join(sorted(self._hosts))}",
                {},
            )
        path = scope.get("path", "")
        if path in OPEN_PATHS or path == CONSOLE_PREFIX or path.startswith(CONSOLE_PREFIX + "/"):
            return None
        if not hmac.compare_digest(headers.get("authorization", b""), self._expected):
            return (
                401,
                "unauthorized",
                "expected header 'Authorization: Bearer <token>'",
                {"www-authenticate": "Bearer"},
            )
        return None


async def _send_json(
    send: Any, status: int, kind: str, message: str, extra: dict | None = None
) -> None:
    body = _json_bytes(kind, message)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _read_body(receive: Any, cap: int) -> bytes | None:
    """The whole body, or None as soon as it passes cap bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > cap:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Any) -> Any:
    sent = False

    async def replay() -> dict:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # after the body: disconnect notices, as the server sends them

    return replay
