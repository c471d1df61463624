"""The console's doors: Host allow-list, sign-in, sessions, CSRF and cross-site checks.

The service token is never a cookie a foreign page can ride on. A browser signs in once by
opening `/ui/login?token=...` (the address `openclaw-memory ui` prints) or by typing the token
into the sign-in form; the server then issues a random session id in an HttpOnly,
SameSite=Strict cookie scoped to /ui and redirects to a clean address. Every state-changing
request (POST) must also:

- carry the session's CSRF token in its form (`csrf` field), compared in constant time;
- come from this origin: a `Sec-Fetch-Site` other than same-origin/none, or an `Origin` that is
  not this service's own, is refused before the form is read.

Scripts may skip the cookie and send `Authorization: Bearer <token>` instead (no CSRF needed:
a foreign page cannot set that header). Requests whose Host is not an allowed name are refused,
which stops DNS-rebinding pages: `check_host` asks the service's own allow-list
(service/hosts.py: loopback names, the bound host, $OPENCLAW_MEMORY_HOSTS), the same set the
service's request guard checks, so the console and the API always answer the same names.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ..service.hosts import host_allowed

COOKIE = "ocm_console"
#: an idle session expires after this many seconds
SESSION_IDLE_SECONDS = 12 * 3600
MAX_SESSIONS = 64


def check_host(header: str | None, hosts: frozenset[str]) -> None:
    """Raise RefusedError(421) for a missing Host or one outside the service's allow-list."""
    if not host_allowed(header, hosts):
        raise RefusedError(
            421, "unexpected Host header; open the console at the address the service prints"
        )


class RefusedError(Exception):
    """A request the console will not serve: HTTP status and a short, safe message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class _Session:
    csrf: str
    seen: float


@dataclass
class Sessions:
    """Console sessions held in memory (a restart signs everyone out, which is fine for a local tool)."""

    token: str
    clock: object = time.monotonic
    _items: dict[str, _Session] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def token_ok(self, candidate: str | None) -> bool:
        """True when candidate is the service token (constant-time); never true without a token."""
        if not self.token or not candidate:
            return False
        return hmac.compare_digest(candidate.encode("utf-8", "surrogatepass"), self.token.encode())

    def open(self) -> tuple[str, str]:
        """A new session: (session id for the cookie, its CSRF token)."""
        sid, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = self.clock()  # type: ignore[operator]
        with self._lock:
            self._expire(now)
            if len(self._items) >= MAX_SESSIONS:
                oldest = min(self._items, key=lambda k: self._items[k].seen)
                del self._items[oldest]
            self._items[sid] = _Session(csrf, now)
        return sid, csrf

    def csrf_for(self, sid: str | None) -> str | None:
        """The session's CSRF token, or None when sid is not a live session (and touch it)."""
        if not sid:
            return None
        now = self.clock()  # type: ignore[operator]
        with self._lock:
            self._expire(now)
            s = self._items.get(sid)
            if s is None:
                return None
            s.seen = now
            return s.csrf

    def close(self, sid: str | None) -> None:
        """Sign a session out."""
        with self._lock:
            self._items.pop(sid or "", None)

    def _expire(self, now: float) -> None:
        for key in [k for k, s in self._items.items() if now - s.seen > SESSION_IDLE_SECONDS]:
            del self._items[key]


def check_same_origin(headers: dict[str, str], scheme: str) -> None:
    """Refuse a state-changing request a foreign page sent (Fetch Metadata, then Origin)."""
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        raise RefusedError(403, "cross-site request refused")
    origin = headers.get("origin")
    if origin is not None:
        parts = urlsplit(origin)
        if (
            origin == "null"
            or parts.scheme != scheme
            or parts.netloc.lower() != headers.get("host", "").lower()
        ):
            raise RefusedError(403, "cross-origin request refused")


def csrf_ok(expected: str | None, got: str | None) -> bool:
    """Constant-time comparison of the session's CSRF token with the form's."""
    if not expected or not got:
        return False
    return hmac.compare_digest(expected.encode(), got.encode("utf-8", "surrogatepass"))


#: sent with every console response: no framing, no foreign scripts, styles or form targets
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # "no-referrer" would make browsers send Origin: null
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
