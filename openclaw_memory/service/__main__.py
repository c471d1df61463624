"""`python -m openclaw_memory.service [--config FILE] [--host] [--port] [--token] [--allow-remote]`.

The same as `openclaw-memory serve`, without the rest of the CLI.
"""

from __future__ import annotations

import argparse
import sys

from .server import add_serve_parser, run_serve


def main(argv: list[str] | None = None) -> int:
    """Parse the serve options and run the service until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(prog="python -m openclaw_memory.service")
    sub = parser.add_subparsers(dest="command")
    add_serve_parser(sub)
    args = parser.parse_args(["serve", *(sys.argv[1:] if argv is None else argv)])
    return run_serve(args)


if __name__ == "__main__":
    sys.exit(main())
