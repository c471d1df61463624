"""Make the console screenshots (docs/console-*.png, shown in docs/operations.md) from a small demo store.

The store is the OpenClaw-format fixture (tests/data/openclaw_workspace) imported for one user,
plus one edit so the version chain shows; the pages are shot in Debian's chromium through
Playwright's Python API (no browser download), on the real service over loopback.

    python scripts/console_screenshot.py [--out docs] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TOKEN = "screenshot-token"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--out", type=Path, default=ROOT / "docs")
    p.add_argument("--chromium", default="/usr/bin/chromium")
    args = p.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from openclaw_memory.config import config_from_dict
    from openclaw_memory.console.live import LiveServer
    from openclaw_memory.edit import edit_memory
    from openclaw_memory.factory import build_middleware
    from openclaw_memory.portability import import_path
    from openclaw_memory.service.app import create_app
    from openclaw_memory.types import Scope

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        mw = build_middleware(
            config_from_dict({"storage": {"data_dir": tmp, "embedding_model": "hash"}})
        )
        scope = Scope("alice", "main")
        import_path(
            mw.engine,
            ROOT / "tests" / "data" / "openclaw_workspace",
            scope,
            extractor=mw.extractor,
            secrets=mw.secrets,
        )
        coffee = next(
            r for r in mw.engine.store.listing(scope, limit=50) if "美式咖啡" in r.summary
        )
        edited = edit_memory(
            mw.engine,
            scope,
            coffee.id,
            "用户每天早上喝一杯美式咖啡，不加糖，周末改喝拿铁。",
            writer="console",
            secrets=mw.secrets,
        )
        mw.flush()
        try:
            with LiveServer(create_app(mw, token=TOKEN)) as url, sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=args.chromium, args=ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 820})
                page.goto(f"{url}/ui/login?token={TOKEN}")
                shots = {
                    "console-memories.png": "/ui/memories?user=alice&agent=main&status=all",
                    "console-memory.png": f"/ui/memory/{edited.id}?user=alice&agent=main",
                    "console-why.png": "/ui/why?user=alice&agent=main&q=%E6%88%91%E6%97%A9%E4%B8%8A%E5%96%9D%E4%BB%80%E4%B9%88%EF%BC%9F",
                }
                for name, path in shots.items():
                    page.goto(url + path)
                    page.screenshot(path=str(args.out / name), full_page=False)
                    print(args.out / name)
                browser.close()
        finally:
            mw.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
