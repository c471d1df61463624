"""`RequestGuard`: the plain ASGI layer every request meets before any body is read or parsed.

A Host header outside the allow-list gets 421 (a DNS-rebinding page in a browser sends its own
host name), a missing or wrong token 401 (also for /openapi.json; only /health is open), a
body over its route's byte cap 413, read no further, and a body that does not arrive within
`body_timeout_s` of its head 408. Past `max_inflight` authenticated requests running at once a
request gets 503 at once; refused and unauthenticated requests do not count, so a process
without the token cannot use up the service (limits.py keeps its idle connections from doing
so). Refusals are JSON, never plain text.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import Callable, Iterable
from typing import Any

from .hosts import host_allowed, host_name

#: Paths served without a token: the liveness probe only.
OPEN_PATHS = frozenset({"/health"})
#: the web console authenticates itself (the token traded once for a SameSite=Strict session
#: cookie, a CSRF token in every form, same-origin checks: console/security.py); the Host check
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
