"""The web console: see and correct what the agent remembers, under /ui on the service.

The pages and actions are server-rendered from Jinja2 templates; this module assembles them.
"""

from __future__ import annotations

from typing import Any
from .base import ConsoleBase, SignInPages
from .pages import MemoryPages, UserPages, WhyPage

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
