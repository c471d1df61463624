"""Run inside `unshare -n` by test_console_browser: the console's pages in chromium on a machine
with no network at all (only loopback). Prints one line per page, then "ok"."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import make_config
from console_helpers import TOKEN, console_app

from openclaw_memory.console import LiveServer


def main(chromium: str, args: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        app, mw, ids = console_app(make_config(Path(tmp)))
        try:
            with LiveServer(app) as url, sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium, args=args)
                page = browser.new_page()
                failed: list[str] = []
                page.on("requestfailed", lambda r: failed.append(r.url))
                page.goto(f"{url}/ui/login?token={TOKEN}")
                who = "user=alice&agent=main"
                for path in (
                    "/ui/",
                    f"/ui/memories?{who}",
                    f"/ui/memory/{ids['tea']}?{who}",
                    f"/ui/why?{who}&q=tea",
                    f"/ui/import?{who}",
                    f"/ui/purge-user?{who}",
                ):
                    resp = page.goto(url + path)
                    css = page.evaluate("getComputedStyle(document.body).backgroundColor")
                    print(path, resp.status, css)
                    if resp.status != 200 or css != "rgb(246, 247, 249)":  # the stylesheet loaded
                        return 1
                browser.close()
                if failed:
                    print("failed requests:", failed)
                    return 1
        finally:
            mw.close()
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
