"""`openclaw-memory ui`: start the service with its console and print the console's address.

The console is part of the service (`serve` mounts it under /ui); `ui` is `serve` that prints the
address to open once, with the token in it (the page trades it for a session cookie and takes
it out of the address bar). Same loopback host, token and Host checks as `serve`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

TOKEN_ENV = "OPENCLAW_MEMORY_TOKEN"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `ui [--host] [--port] [--token]`."""
    p = subparsers.add_parser(
        "ui",
        help="start the service with the web console and print its address",
        description="Serve the API and the memory console (under /ui) and print the address to open.",
    )
    p.add_argument(
        "--config",
        dest="serve_config",
        type=Path,
        default=None,
        metavar="FILE",
        help="project YAML config file (same as the global --config)",
    )
    p.add_argument("--host", default=None, help="address to bind (default from config: 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default from config: 8765)")
    p.add_argument(
        "--token",
        default=None,
        help=f"bearer token (default: ${TOKEN_ENV}, config, then the token file)",
    )
    p.set_defaults(func=run_ui)
    return p


def console_url(host: str, port: int, token: str) -> str:
    """The address that opens the console and signs the browser in."""
    from urllib.parse import quote

    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/ui/login?token={quote(token, safe='')}"


def run_ui(args: argparse.Namespace, config: Any = None) -> int:
    """Entry for `openclaw-memory ui`."""
    from ..config import MemoryConfig, load_config
    from ..errors import ConfigError
    from ..service.server import serve
    from ..service.token import load_or_create_token

    chosen = getattr(args, "serve_config", None) or config
    cfg = chosen if isinstance(chosen, MemoryConfig) else load_config(chosen)
    configured = (
        args.token if args.token is not None else os.environ.get(TOKEN_ENV, cfg.service.token)
    )
    token = load_or_create_token(cfg.data_dir, configured or "")
    host = args.host or cfg.service.host
    port = args.port or cfg.service.port
    print(f"openclaw-memory console: {console_url(host, port, token)}", flush=True)
    try:
        serve(cfg, host=host, port=port, token=token)
    except ConfigError as exc:
        print(f"openclaw-memory ui: {exc}", file=sys.stderr)
        return 2
    return 0
