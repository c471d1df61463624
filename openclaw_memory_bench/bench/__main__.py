"""`python -m openclaw_memory_bench.bench bench [flags]`: the same command as `openclaw-memory bench`."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from openclaw_memory.config import load_config
from openclaw_memory.errors import OpenClawMemoryError
from .cli import add_parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m openclaw_memory_bench.bench")
    parser.add_argument(
        "--config", default=None, help="project YAML overriding config/memory_config.yaml"
    )
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args, load_config(args.config)) or 0)
    except OpenClawMemoryError as exc:
        print(f"openclaw-memory: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
