"""The web console: see and correct what the agent remembers, under /ui on the service.

The pages and actions are server-rendered from Jinja2 templates; this module assembles them.
`openclaw-memory ui` prints the console's address, of the running service or of one it starts,
and a real HTTP server on a free loopback port, in a thread, serves the browser tests.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from typing import Any
from .base import ConsoleBase, SignInPages
from .pages import MemoryPages, UserPages, WhyPage

# The web console: see and correct what the agent remembers, under /ui on the service.
#
# The pages and actions are server-rendered from Jinja2 templates; this module assembles them.

# The web console: see and correct what the agent remembers, under /ui on the service.
#
# `views.Console` holds the routes, one module per page group (server-rendered Jinja2 templates
# in templates/, a little JavaScript and CSS in static/, nothing fetched from elsewhere), `queries`
# the reads, `security` the doors (Host allow-list, sign-in, session cookie, CSRF and same-origin
# checks), `api` the JSON routes under /v1 for edit, export and import, `cli` the `ui` command.


# The console's pages and actions, under /ui, server-rendered from Jinja2 templates.
#
# Reads go through `queries.py`; actions call the same library functions as the CLI (edit_memory,
# the engine's forget, the middleware's restore and purge_user, purge_record, import/export), each
# audited with the console as the writer. Every route first passes the doors of `security.py`
# (Host, session or bearer token, and for POST the CSRF token and same-origin checks), held in
# `base.py`. One module per page group: `signin.py`, `memory_pages.py`, `why.py`,
# `user_pages.py`; this one lists the routes and mounts them.


class Console(SignInPages, MemoryPages, WhyPage, UserPages, ConsoleBase):
    """The /ui router over one middleware: every page group's routes."""

    def __init__(self, middleware: Any, *, token: str, hosts: frozenset[str] | None = None) -> None:
        super().__init__(middleware, token=token, hosts=hosts)
        self._routes()

    def _routes(self) -> None:
        r = self.router
        r.add_api_route("/static/{name}", self.static, methods=["GET"])
        r.add_api_route("/login", self.login_page, methods=["GET"])
        r.add_api_route("/login", self.login, methods=["POST"])
        r.add_api_route("/logout", self.logout, methods=["POST"])
        r.add_api_route("/", self.users_page, methods=["GET"])
        r.add_api_route("/memories", self.list_page, methods=["GET"])
        r.add_api_route("/memory/{memory_id}", self.memory_page, methods=["GET"])
        r.add_api_route("/memory/{memory_id}/{action}", self.memory_action, methods=["POST"])
        r.add_api_route("/why", self.why_page, methods=["GET"])
        r.add_api_route("/purge-user", self.purge_user_page, methods=["GET"])
        r.add_api_route("/purge-user", self.purge_user, methods=["POST"])
        r.add_api_route("/export", self.export, methods=["GET"])
        r.add_api_route("/import", self.import_page, methods=["GET"])
        r.add_api_route("/import", self.import_, methods=["POST"])


def mount_console(
    app: Any, middleware: Any, *, token: str, hosts: frozenset[str] | None = None
) -> Console:
    """Add the console's routes under /ui to a FastAPI app; hosts: the app's Host allow-list
    (service/guard.py `allowed_hosts`; loopback names only when not given)."""
    console = Console(middleware, token=token, hosts=hosts)
    app.include_router(console.router)
    return console


# `openclaw-memory ui`: the console's address, of the running service or of one it starts.
#
# Also a real HTTP server on a free loopback port, in a thread, for the browser tests.

# `openclaw-memory ui`: the console's address, of the running service or of one it starts.
#
# The console is part of the service (`serve` mounts it under /ui). When a service already answers
# on the configured host and port (the one `openclaw-memory openclaw install` set up), `ui` prints
# the address of *its* console, signed with the token that service takes (the environment,
# service.token, else its token file), after checking the service accepts it; it never makes a
# token of its own then. Otherwise `ui` is `serve` that prints the address once (the page trades
# the token for a session cookie and takes it out of the address bar). Same loopback host, token
# and Host checks as `serve`.

TOKEN_ENV = "OPENCLAW_MEMORY_TOKEN"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `ui [--host] [--port] [--token]`."""
    p = subparsers.add_parser(
        "ui",
        help="start the service with the web console and print its address",
        description="Serve the API and the memory console (under /ui) and print the address to open.",
    )
    from ..service.server import add_address_options

    add_address_options(p, f"bearer token (default: ${TOKEN_ENV}, config, then the token file)")
    p.set_defaults(func=run_ui)
    return p


def console_url(host: str, port: int, token: str) -> str:
    """The address that opens the console and signs the browser in."""
    from urllib.parse import quote

    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/ui/login?token={quote(token, safe='')}"


def _base(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def service_running(host: str, port: int, timeout: float = 2.0) -> bool:
    """True when an openclaw-memory service answers GET /health there."""
    import json
    import urllib.request

    try:
        with urllib.request.urlopen(f"{_base(host, port)}/health", timeout=timeout) as resp:
            return json.load(resp).get("status") == "ok"
    except (OSError, ValueError):
        return False


def token_accepted(host: str, port: int, token: str, timeout: float = 5.0) -> bool:
    """Whether the service takes this token: its guard answers 401 before it reads a body, and
    an empty search (422) touches nothing."""
    import urllib.error
    import urllib.request

    req = urllib.request.Request(
        f"{_base(host, port)}/v1/memory/search",
        data=b"{}",
        method="POST",
        headers={"authorization": f"Bearer {token}", "content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout):
            return True
    except urllib.error.HTTPError as exc:
        return exc.code not in (401, 403)
    except OSError:
        return False


def _running_console(args: argparse.Namespace, cfg: Any, host: str, port: int) -> int:
    """The console of the service already running there: its address with its own token."""
    from ..service.installer import read_token
    from ..service.installer import token_path

    where = "--token" if args.token is not None else ""
    token = (args.token or "").strip()
    if not token and os.environ.get(TOKEN_ENV, "").strip():
        token, where = os.environ[TOKEN_ENV].strip(), f"${TOKEN_ENV}"
    if not token and (cfg.service.token or "").strip():
        token, where = cfg.service.token.strip(), "service.token"
    if not token:
        token, where = read_token(cfg.data_dir), str(token_path(cfg.data_dir))
    if not token:
        print(
            f"openclaw-memory ui: a service is running at {_base(host, port)}, but no token for "
            f"it was found (--token, ${TOKEN_ENV}, service.token or {token_path(cfg.data_dir)}); "
            "pass --config with the service's config file, or --token",
            file=sys.stderr,
        )
        return 2
    if not token_accepted(host, port, token):
        print(
            f"openclaw-memory ui: the service at {_base(host, port)} refuses the token from "
            f"{where}; it runs with another config or token: pass --config with its config "
            "file, or --token",
            file=sys.stderr,
        )
        return 2
    print(
        f"openclaw-memory console (of the service running at {_base(host, port)}): "
        f"{console_url(host, port, token)}",
        flush=True,
    )
    return 0


def run_ui(args: argparse.Namespace, config: Any = None) -> int:
    """Entry for `openclaw-memory ui`."""
    from ..config import MemoryConfig
    from ..config import load_config
    from ..errors import ConfigError
    from ..service.server import serve
    from ..service.installer import load_or_create_token

    chosen = getattr(args, "serve_config", None) or config
    cfg = chosen if isinstance(chosen, MemoryConfig) else load_config(chosen)
    host = args.host or cfg.service.host
    port = args.port or cfg.service.port
    if service_running(host, port):
        return _running_console(args, cfg, host, port)
    configured = (
        args.token if args.token is not None else os.environ.get(TOKEN_ENV, cfg.service.token)
    )
    token = load_or_create_token(cfg.data_dir, configured or "")
    print(f"openclaw-memory console: {console_url(host, port, token)}", flush=True)
    try:
        serve(cfg, host=host, port=port, token=token)
    except ConfigError as exc:
        print(f"openclaw-memory ui: {exc}", file=sys.stderr)
        return 2
    return 0


# A real HTTP server on a free loopback port, in a thread: for browser tests, the console
# benchmark and the screenshot script (the same uvicorn the service runs, not a test client).


class LiveServer:
    """`with LiveServer(app) as url:` serves app on 127.0.0.1:<free port> until the block ends."""

    def __init__(self, app: Any, host: str = "127.0.0.1") -> None:
        import uvicorn

        self.config = uvicorn.Config(
            app, host=host, port=0, log_level="warning", access_log=False, lifespan="off"
        )
        self.server = uvicorn.Server(self.config)
        self.thread = threading.Thread(target=self.server.run, name="live-server", daemon=True)
        self.url = ""

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the live server did not start")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://{self.config.host}:{port}"
        return self.url

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
