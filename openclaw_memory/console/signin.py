"""The console's sign-in pages: the token traded once for a session cookie, sign-out, and the
console's own CSS and JavaScript."""

from __future__ import annotations

from urllib.parse import parse_qs

from fastapi import Request
from fastapi.responses import FileResponse, PlainTextResponse, RedirectResponse, Response

from .base import HERE, ConsoleBase, secured
from .security import COOKIE, RefusedError, check_host, check_same_origin


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
