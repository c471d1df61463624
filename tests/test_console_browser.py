"""The console in a real headless Chromium (Debian's `chromium`, driven by Playwright's Python API;
no browser is downloaded): list, filter, open, edit, forget and restore, why, purge a user, export
and import into a fresh store; every request stays on the service's loopback address; a page on
another site cannot post a form to the console; hostile memory text stays text.

Screenshots of each page go to $OCM_ARTIFACTS_DIR (or a pytest temp dir).
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import threading
from pathlib import Path

import pytest
from console_helpers import ALICE, HOSTILE, TOKEN, console_app

from openclaw_memory.console import LiveServer
from openclaw_memory.portability import export_text
from openclaw_memory.types import Status

CHROMIUM = os.environ.get("OCM_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists(),
        reason=f"needs Debian's chromium at {CHROMIUM} (.ci/run installs it)",
    ),
]


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def shots(tmp_path_factory) -> Path:
    configured = os.environ.get("OCM_ARTIFACTS_DIR")
    out = (
        Path(configured) / "console"
        if configured
        else tmp_path_factory.mktemp("console-screenshots")
    )
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture
def service(make_config, tmp_path):
    app, mw, ids = console_app(make_config(tmp_path / "store"))
    with LiveServer(app) as url:
        yield url, mw, ids
    mw.close()


class Watched:
    """A page that records every request and refuses script dialogs (an executed <script>)."""

    def __init__(self, browser, base: str) -> None:
        self.context = browser.new_context(
            accept_downloads=True, viewport={"width": 1360, "height": 900}
        )
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.base = base

    def go(self, path: str) -> None:
        self.page.goto(self.base + path)

    def shot(self, out: Path, name: str) -> None:
        self.page.screenshot(path=str(out / f"{name}.png"), full_page=True)

    def close(self) -> None:
        self.context.close()


def _sign_in(w: Watched) -> None:
    w.go("/ui/")
    assert "Sign in" in w.page.inner_text("h1")
    w.go(f"/ui/login?token={TOKEN}")
    assert w.page.url == w.base + "/ui/"  # the token left the address bar
    assert w.page.inner_text("h1") == "Users and agents"


def test_console_flow_in_chromium(browser, service, shots):
    url, mw, ids = service
    w = Watched(browser, url)
    try:
        _sign_in(w)
        assert "alice" in w.page.inner_text("#users") and "bob" in w.page.inner_text("#users")
        w.shot(shots, "01-users")

        w.page.click("text=alice")
        # by default what the agent knows (four memories); the raw turn is one click away
        assert w.page.locator("#memories tbody tr").count() == 4
        assert "What the agent knows" in w.page.inner_text("#view-hint")
        assert "Conversation turn" not in w.page.inner_text("#memories")
        w.shot(shots, "02-memories")
        w.page.click("#show-raw")
        rows = w.page.locator("#memories tbody tr")
        assert rows.count() == 1 and "Conversation turn" in rows.inner_text()
        w.go("/ui/memories?user=alice&agent=main")
        w.page.select_option("select[name=type]", "preference")
        w.page.click("#filters button[type=submit]")
        rows = w.page.locator("#memories tbody tr")
        assert rows.count() == 1 and "乌龙茶" in rows.inner_text()
        w.page.fill("input[name=q]", "peanuts")
        w.page.select_option("select[name=type]", "")
        w.page.click("#filters button[type=submit]")
        assert w.page.locator("#memories tbody tr").count() == 2  # the profile and the episode
        w.shot(shots, "03-filtered")

        w.go("/ui/memories?user=alice&agent=main&type=preference")
        w.page.click("a.mem")
        assert "乌龙茶" in w.page.inner_text("#summary")
        assert "s1#1" in w.page.inner_text("#turns")
        w.shot(shots, "04-memory")

        w.page.fill("#edit-form textarea[name=text]", "我喜欢喝乌龙茶，加一点蜂蜜")
        w.page.click("#edit-form button")
        assert "new version" in w.page.inner_text(".notice")
        assert w.page.inner_text("#version") == "2"
        chain = w.page.inner_text("#chain")
        assert "我喜欢喝乌龙茶，不加糖" in chain and "加一点蜂蜜" in chain
        assert "edit" in w.page.inner_text("#audit") and "console" in w.page.inner_text("#audit")
        w.shot(shots, "05-edited")

        w.page.click("#forget-form button")
        assert "Forgotten or replaced" in w.page.inner_text("h1 .badge")
        restore = w.page.locator("#restore-form button")
        restore.click()
        assert "In use" == w.page.inner_text("h1 .badge").strip()
        w.shot(shots, "06-forgotten")

        w.go("/ui/why?user=alice&agent=main")
        w.page.fill("input[name=q]", "what should I avoid eating? peanuts")
        w.page.click("form.filters button")
        assert "<memory-context>" in w.page.inner_text("#block")
        assert "peanuts" in w.page.inner_text("#block")
        cands = w.page.inner_text("#candidates")
        assert "kept" in cands and "Meaning" in w.page.inner_text("#candidates thead")
        w.shot(shots, "07-why")

        w.go("/ui/purge-user?user=bob&agent=default")
        w.page.fill("input[name=confirm]", "not-bob")
        w.page.click("#purge-user-form button")
        assert "type the user id" in w.page.inner_text(".error")
        w.go("/ui/purge-user?user=bob&agent=default")
        w.page.fill("input[name=confirm]", "bob")
        w.shot(shots, "08-purge-user")
        w.page.click("#purge-user-form button")
        assert "every memory of the user is deleted" in w.page.inner_text(".notice")
        assert "bob" not in w.page.inner_text("#users")

        assert not w.dialogs
        foreign = [u for u in w.requests if not u.startswith(url + "/")]
        assert foreign == [] and len(w.requests) > 10
    finally:
        w.close()


def test_export_then_import_into_a_fresh_store(browser, service, shots, make_config, tmp_path):
    url, mw, ids = service
    w = Watched(browser, url)
    app2, mw2, _ = console_app(make_config(tmp_path / "fresh"), seeded=False)
    try:
        _sign_in(w)
        w.go("/ui/import?user=alice&agent=main")
        w.shot(shots, "09-import-export")
        with w.page.expect_download() as got:
            w.page.click("#export-jsonl")
        path = tmp_path / "alice.jsonl"
        got.value.save_as(str(path))
        with LiveServer(app2) as url2:
            w2 = Watched(browser, url2)
            try:
                _sign_in(w2)
                w2.go("/ui/import?user=alice&agent=main")
                w2.page.set_input_files("#import-file", str(path))
                w2.page.wait_for_function(
                    "document.getElementById('import-content').value.length > 0"
                )
                w2.page.click("#import-form button")
                assert "record" in w2.page.inner_text("#report")
                w2.shot(shots, "10-imported")
                w2.go("/ui/memories?user=alice&agent=main&status=all&type=")  # every type
                assert w2.page.locator("#memories tbody tr").count() == 5
                assert [u for u in w2.requests if not u.startswith(url2 + "/")] == []
            finally:
                w2.close()
        mw2.engine.indexer.drain()
        strip = lambda text: [json.loads(x) for x in text.splitlines()][1:]
        assert strip(export_text(mw2.engine, "alice")) == strip(path.read_text(encoding="utf-8"))
    finally:
        w.close()
        mw2.close()


def test_hostile_text_renders_as_text(browser, service, shots):
    url, mw, ids = service
    w = Watched(browser, url)
    try:
        _sign_in(w)
        for path in (
            f"/ui/memory/{ids['hostile']}?user=alice&agent=main",
            "/ui/memories?user=alice&agent=main",
            "/ui/why?user=alice&agent=main&q=ignore+previous+instructions+note",
        ):
            w.go(path)
            assert w.page.locator("main script").count() == 0
        w.go(f"/ui/memory/{ids['hostile']}?user=alice&agent=main")
        assert w.page.inner_text("#summary") == HOSTILE
        w.shot(shots, "11-hostile")
        assert w.dialogs == []
    finally:
        w.close()


class _Evil(http.server.BaseHTTPRequestHandler):
    """A page on another site that auto-submits a forget form to the console."""

    target = ""

    def do_GET(self) -> None:
        body = (
            f'<form id="f" method="post" action="{self.target}"><input name="user" value="alice">'
            f'<input name="agent" value="main"></form><script>document.getElementById("f").submit()</script>'
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args) -> None:
        pass


def test_a_foreign_page_cannot_post_to_the_console(browser, service):
    url, mw, ids = service
    w = Watched(browser, url)
    evil = http.server.HTTPServer(
        ("127.0.0.1", 0), type("Evil", (_Evil,), {"target": f"{url}/ui/memory/{ids['tea']}/forget"})
    )
    thread = threading.Thread(target=evil.serve_forever, daemon=True)
    thread.start()
    try:
        _sign_in(w)  # the browser holds a live console session
        # "localhost" is another site than "127.0.0.1": SameSite=Strict keeps the cookie home.
        with w.page.expect_response(lambda r: "/forget" in r.url) as resp:
            w.page.goto(f"http://localhost:{evil.server_address[1]}/")
        assert resp.value.status in (401, 403)
        assert mw.engine.get(ALICE, ids["tea"]).status is Status.ACTIVE
    finally:
        evil.shutdown()
        w.close()


def test_pages_load_with_the_network_namespace_unshared(tmp_path):
    """The whole console (service, browser, pages, stylesheet, script) in a namespace whose only
    interface is loopback: nothing it needs is fetched from elsewhere."""
    import subprocess
    import sys

    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0 or not shutil.which("ip"):
        pytest.skip("needs `unshare -n` (root or user namespaces) and iproute2's `ip`")
    script = Path(__file__).parent / "console_offline.py"
    cmd = f"ip link set lo up && {sys.executable} {script} {CHROMIUM} {' '.join(ARGS)}"
    done = subprocess.run(
        ["unshare", "-n", "sh", "-c", cmd],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("ok") and "/ui/why" in done.stdout
