"""What every console page stands on: its doors, its sign-in and its words.

Each request passes the Host allow-list, a session or bearer token, the CSRF and cross-site
checks; the sign-in pages trade the token once for a session cookie; every word of the store a
page shows is in plain language, from one table.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from ..types import MemoryType, Scope, Status
from dataclasses import dataclass, field
from urllib.parse import urlsplit, parse_qs
from ..service.guard import host_allowed, allowed_hosts
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from fastapi import APIRouter, Request
from fastapi.responses import (
    HTMLResponse,
    Response,
    FileResponse,
    PlainTextResponse,
    RedirectResponse,
)
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from ..core.clock import iso_time
from ..errors import NotFoundError, OpenClawMemoryError, ValidationError

# Every word of the store a console page shows, in plain language: one table.
#
# The store speaks in its own words (a memory's type, status, channel and writer, an audit
# action, a recall channel, a score component). A page never shows one of them bare: the
# `label` filter gives the plain words, and `explain` the sentence shown when the pointer rests on
# them (`title`). A word missing from the table is shown as it is, with a line saying it is the
# store's own word: a new word of the store stays visible rather than hidden.
#
# The memory list shows "what the agent knows" (`KNOWN_TYPES`) by default; the raw log
# (conversation turns and tool calls, `RAW_TYPES`) is one filter away.

#: what the agent knows: the memories it distilled, shown by default
KNOWN_TYPES = tuple(t.value for t in MemoryType if t not in (MemoryType.EPISODE, MemoryType.EVENT))
#: the raw log the knowledge came from: conversation turns as said, tool calls as run
RAW_TYPES = (MemoryType.EPISODE.value, MemoryType.EVENT.value)
#: the list's type choices besides one type: (value, label); "" is every type
VIEWS = (
    ("known", "What the agent knows"),
    ("raw", "Raw conversation turns and tool calls"),
    ("", "Everything"),
)

#: kind -> word -> (plain label, explanation)
LABELS: dict[str, dict[str, tuple[str, str]]] = {
    "type": {
        "profile": ("About the person", "Who the user is: name, home, job, allergies."),
        "preference": ("Preference", "What the user likes, dislikes or wants done a certain way."),
        "fact": ("Fact", "Something true about the user's world: people, things, plans."),
        "event": (
            "Tool call",
            "A tool the agent ran, or a task's status change, as it happened (raw log).",
        ),
        "decision": ("Decision", "Something the user decided."),
        "task": ("Task", "Something to do, with its state."),
        "summary": (
            "Session summary",
            "What a conversation came to, written at its end or when it was compacted.",
        ),
        "procedure": (
            "How a task was done",
            "How the agent did a kind of task: the steps that worked, the step that failed and "
            "its fix, from its tool calls.",
        ),
        "episode": (
            "Conversation turn",
            "What the user said in one turn, kept word for word as evidence (raw log).",
        ),
    },
    "status": {
        "active": ("In use", "Recalled when relevant."),
        "inactive": (
            "Forgotten or replaced",
            "No longer recalled; kept for the audit trail and can be restored.",
        ),
        "archived": (
            "Archived",
            "Old and rarely used: recalled only when the archive is searched (deep recall).",
        ),
        "all": ("Any status", "In use, forgotten or replaced, and archived."),
    },
    "channel": {
        "explicit": (
            "Asked to remember",
            "The user said to remember it, or the agent stored it on request.",
        ),
        "implicit": (
            "Picked up from the conversation",
            "Taken from what the user said, without being asked to remember it.",
        ),
        "tool": ("From a tool call", "Recorded from a tool the agent ran."),
        "summary": ("From a summary", "Written by a session summary."),
        "admin": ("By an operator", "Written by an operator or an admin tool."),
        "imported": (
            "Imported",
            "Brought in from a file (a MEMORY.md workspace or an export); its file and line are kept.",
        ),
    },
    "writer": {
        "after_response": (
            "Captured after a reply",
            "The conversation's capture, after the agent answered.",
        ),
        "save-hook": ("Tool call record", "Written when the agent's tool call finished."),
        "process-node": ("Task status change", "Written when a task or subagent changed state."),
        "summary-hook:end": ("Summary at session end", "Written when the session ended."),
        "summary-hook:compaction": (
            "Summary before compaction",
            "Written before OpenClaw shortened the conversation's context.",
        ),
        "summary-hook:threshold": (
            "Summary of a long conversation",
            "Written when the conversation's recent window grew past its limit.",
        ),
        "memory-tool": ("The agent's memory tool", "Stored by the agent with memory_store."),
        "console": ("This console", "Changed here, by an operator."),
        "cli": ("The command line", "Written with the openclaw-memory command."),
        "cli-import": ("Command-line import", "Imported with openclaw-memory import."),
        "openclaw-import": ("OpenClaw import", "Imported from OpenClaw's memory files."),
        "api": ("The API", "Written through the service's API."),
        "openclaw-memory maintenance": (
            "Maintenance",
            "Scheduled upkeep: expiry, caps, compaction.",
        ),
    },
    "action": {
        "insert": ("Written", "The memory was stored."),
        "update": ("Restated", "The same memory was said again; its text or weight was updated."),
        "supersede": ("Replaced", "A newer version took its place."),
        "deactivate": ("Forgotten or replaced", "It stopped being recalled."),
        "restore": ("Restored", "It is recalled again."),
        "archive": ("Archived", "Moved to the archive (old and rarely used)."),
        "purge": ("Deleted", "Deleted for good."),
        "delete": ("Deleted", "Deleted for good."),
        "edit": ("Edited", "Corrected by hand; a new version."),
    },
    "reason": {
        "new": ("New memory", "Nothing like it was stored before."),
        "new summary": ("New summary", "A summary of the conversation was written."),
        "append episode": ("Turn logged", "The user's words of one turn, kept as said."),
        "append event": ("Tool call logged", "One tool call, kept as it happened."),
        "append summary": ("Summary logged", "One more summary of the conversation."),
    },
    "role": {
        "user": ("User", "What the user said."),
        "assistant": ("Agent", "What the agent answered."),
        "summary": ("Summary", "The summary that replaced earlier turns."),
    },
    "recall": {
        "vector": ("Similar meaning", "Found because it means something close to the request."),
        "keyword": ("Shared words", "Found because it shares words with the request."),
        "subject": ("Same subject", "Found through the subject the request is about."),
        "profile": ("About the person", "The user's profile, given with every request."),
        "summary": ("Recent summaries", "Summaries of recent conversations."),
        "recent": ("Recent", "Among the newest memories."),
        "date": ("The date asked about", "Found through a date or time named in the request."),
        "kind": (
            "The kind asked about",
            "Found through the kind of thing the request asks (a job, a home...).",
        ),
        "speaker": ("The person named", "Found through a person named in the request."),
    },
    "score": {
        "semantic": ("Meaning", "How close in meaning to the request (0-1)."),
        "keyword": ("Words", "How many of the request's words it shares."),
        "recency": ("Recency", "Newer memories score higher; older ones are not erased."),
        "importance": ("Importance", "How much it matters, set when it was written."),
        "trust": ("Trust", "How it entered: asked to remember ranks above picked up."),
        "structure": ("Structure", "Subject, people and dates in common with the request."),
    },
}


def label(word: object, kind: str) -> str:
    """The plain words for a store word of this kind (the word itself when the table lacks it)."""
    text = str(getattr(word, "value", word) or "")
    found = LABELS.get(kind, {}).get(text)
    if found is None and kind == "writer" and text.startswith("summary-hook:"):
        found = ("Summary", "Written by a session summary.")
    return found[0] if found else text


def explain(word: object, kind: str) -> str:
    """The sentence explaining a store word of this kind, with the word itself."""
    text = str(getattr(word, "value", word) or "")
    found = LABELS.get(kind, {}).get(text)
    if found is None:
        return f"{text}: the store's own word" if text else ""
    return f"{found[1]} (stored as {text!r})"


# The console's doors: Host allow-list, sign-in, sessions, CSRF and cross-site checks.
#
# The service token is never a cookie a foreign page can ride on. A browser signs in once by
# opening `/ui/login?token=...` (the address `openclaw-memory ui` prints) or by typing the token
# into the sign-in form; the server then issues a random session id in an HttpOnly,
# SameSite=Strict cookie scoped to /ui and redirects to a clean address. Every state-changing
# request (POST) must also:
#
# - carry the session's CSRF token in its form (`csrf` field), compared in constant time;
# - come from this origin: a `Sec-Fetch-Site` other than same-origin/none, or an `Origin` that is
#   not this service's own, is refused before the form is read.
#
# Scripts may skip the cookie and send `Authorization: Bearer <token>` instead (no CSRF needed:
# a foreign page cannot set that header). Requests whose Host is not an allowed name are refused,
# which stops DNS-rebinding pages: `check_host` asks the service's own allow-list
# (service/guard.py: loopback names, the bound host, $OPENCLAW_MEMORY_HOSTS), the same set the
# service's request guard checks, so the console and the API always answer the same names.

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


# What every console page stands on: the doors each request passes (Host, session or bearer
# token, and for a POST the same-origin and CSRF checks), page rendering from the Jinja2
# templates, refusals and failures as pages, and the security headers on every answer.

HERE = Path(__file__).parent
WRITER = "console"
#: how the next page says what an action did (fixed texts, never echoed from the request)
NOTICES = {
    "edited": "Saved as a new version; the old text stays in the version chain.",
    "forgotten": "Forgotten: the memory is no longer recalled (kept for the audit trail; Restore undoes it).",
    "restored": "Restored: the memory is active again.",
    "purged": "Purged: the memory and its version chain are deleted.",
    "user-purged": "Purged: every memory of the user is deleted.",
    "imported": "Import finished.",
}
MAX_FORM_BYTES = 60_000_000


def _env() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(HERE / "templates")),
        autoescape=select_autoescape(["html"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["time"] = lambda t: iso_time(t) if t else "-"
    env.filters["num"] = lambda v: "-" if v is None else f"{v:.3f}"
    env.globals["types"] = [t.value for t in MemoryType]
    env.globals["statuses"] = [s.value for s in Status]
    env.globals["views"] = VIEWS
    env.filters["label"] = label
    env.filters["explain"] = explain
    return env


class ConsoleBase:
    """The /ui router over one middleware, with its sessions and Host allow-list; the page
    groups (`signin`, `memory_pages`, `why`, `user_pages`) build on it."""

    def __init__(self, middleware: Any, *, token: str, hosts: frozenset[str] | None = None) -> None:
        self.mw = middleware
        self.sessions = Sessions(token)
        # The service's allow-list (create_app passes the set its request guard checks).
        self.hosts = hosts if hosts is not None else allowed_hosts()
        self.env = _env()
        self.router = APIRouter(prefix="/ui", include_in_schema=False)

    # ---- doors ------------------------------------------------------------------------------

    def _csrf(self, request: Request) -> str:
        """The caller's CSRF token ("" for a bearer-token client); RefusedError when not signed in."""
        check_host(request.headers.get("host"), self.hosts)
        auth = request.headers.get("authorization", "")
        if auth.startswith("Bearer ") and self.sessions.token_ok(auth[7:]):
            return ""
        csrf = self.sessions.csrf_for(request.cookies.get(COOKIE))
        if csrf is None:
            raise RefusedError(
                401,
                "sign in first: open the address `openclaw-memory ui` prints, or enter the token",
            )
        return csrf

    async def _form(self, request: Request) -> dict[str, str]:
        """A POST's form, after the same-origin and CSRF checks."""
        csrf = self._csrf(request)
        check_same_origin({k.lower(): v for k, v in request.headers.items()}, request.url.scheme)
        body = await request.body()
        if len(body) > MAX_FORM_BYTES:
            raise RefusedError(413, "form too large")
        form = {
            k: v[0]
            for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()
        }
        if csrf and not csrf_ok(csrf, form.get("csrf")):
            raise RefusedError(403, "missing or wrong form token; reload the page and try again")
        return form

    def _render(
        self, request: Request, template: str, status: int = 200, **ctx: Any
    ) -> HTMLResponse:
        csrf = self.sessions.csrf_for(request.cookies.get(COOKIE)) or ""
        notice = NOTICES.get(request.query_params.get("done", ""))
        html = self.env.get_template(template).render(csrf=csrf, notice=notice, **ctx)
        return secured(HTMLResponse(html, status_code=status))

    def _refusal(self, request: Request, exc: RefusedError) -> HTMLResponse:
        login = exc.status == 401
        return self._render(
            request, "login.html" if login else "error.html", exc.status, message=exc.message
        )

    def _guard(self, request: Request, fn: Callable[[], Response]) -> Response:
        try:
            self._csrf(request)
            return fn()
        except (RefusedError, OpenClawMemoryError) as exc:
            return self._failure(request, exc)

    async def _act(self, request: Request, fn: Callable[[dict[str, str]], Response]) -> Response:
        try:
            form = await self._form(request)
            return await run_in_threadpool(fn, form)
        except (RefusedError, OpenClawMemoryError) as exc:
            return self._failure(request, exc)

    def _failure(self, request: Request, exc: Exception) -> Response:
        """A refused request, a missing memory (404) or bad input (422), as a page."""
        if isinstance(exc, RefusedError):
            return self._refusal(request, exc)
        return self._render(
            request, "error.html", 404 if isinstance(exc, NotFoundError) else 422, message=str(exc)
        )


def scope_from(params: Any) -> Scope:
    user = params.get("user", "")
    if not user:
        raise ValidationError("user: expected a user id (choose one on the Users page)")
    return Scope(user, params.get("agent") or "default")


_R = TypeVar("_R", bound=Response)


def secured(resp: _R) -> _R:
    for k, v in SECURITY_HEADERS.items():
        resp.headers.setdefault(k, v)
    return resp


# The console's sign-in pages: the token traded once for a session cookie, sign-out, and the
# console's own CSS and JavaScript.


class SignInPages(ConsoleBase):
    """Sign-in, sign-out and static files."""

    def static(self, name: str, request: Request) -> Response:
        """The console's CSS and JavaScript (shipped in the package; nothing fetched elsewhere)."""
        path = HERE / "static" / name
        if "/" in name or name.startswith(".") or not path.is_file():
            return PlainTextResponse("not found", status_code=404)
        return secured(FileResponse(path))

    def login_page(self, request: Request, token: str = "") -> Response:
        """`/ui/login?token=...` signs in and redirects to a clean address; without a token, the form."""
        try:
            check_host(request.headers.get("host"), self.hosts)
        except RefusedError as exc:
            return self._render(request, "error.html", exc.status, message=exc.message)
        if not token:
            return self._render(request, "login.html", message="")
        if not self.sessions.token_ok(token):
            return self._render(
                request, "login.html", 401, message="that token is not this service's token"
            )
        return self._signed_in()

    async def login(self, request: Request) -> Response:
        """The sign-in form's POST."""
        try:
            check_host(request.headers.get("host"), self.hosts)
            check_same_origin(
                {k.lower(): v for k, v in request.headers.items()}, request.url.scheme
            )
        except RefusedError as exc:
            return self._render(request, "error.html", exc.status, message=exc.message)
        form = {
            k: v[0] for k, v in parse_qs((await request.body()).decode("utf-8", "replace")).items()
        }
        if not self.sessions.token_ok(form.get("token", "").strip()):
            return self._render(
                request, "login.html", 401, message="that token is not this service's token"
            )
        return self._signed_in()

    def _signed_in(self) -> Response:
        sid, _ = self.sessions.open()
        resp = RedirectResponse("/ui/", status_code=303)
        resp.set_cookie(COOKIE, sid, httponly=True, samesite="strict", path="/ui", secure=False)
        return secured(resp)

    async def logout(self, request: Request) -> Response:
        """Sign this browser out."""
        try:
            await self._form(request)
        except RefusedError as exc:
            return self._refusal(request, exc)
        self.sessions.close(request.cookies.get(COOKIE))
        resp = RedirectResponse("/ui/login", status_code=303)
        resp.delete_cookie(COOKIE, path="/ui")
        return secured(resp)
