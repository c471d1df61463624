"""Run the BM25 baseline on a benchmark file: python -m openclaw_memory_bench.evaluate locomo PATH."""

from __future__ import annotations

import argparse
import json
import sys

from .baseline import BM25System
from .progress import ProgressBar
from .report import format_report
from .runner import run_locomo, run_longmemeval


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the baseline, print the report (or the JSON result with --json)."""
    parser = argparse.ArgumentParser(
        prog="python -m openclaw_memory_bench.evaluate", description=__doc__
    )
    parser.add_argument(
        "dataset", choices=["locomo", "longmemeval"], help="benchmark format of PATH"
    )
    parser.add_argument("path", help="the benchmark file (.json or .json.gz)")
    parser.add_argument("--limit", type=int, default=None, help="score only the first N questions")
    parser.add_argument(
        "--k", type=int, nargs="+", default=[5, 10, 20], help="cut-offs (default 5 10 20)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    run = run_locomo if args.dataset == "locomo" else run_longmemeval
    result = run(
        BM25System(), args.path, limit=args.limit, ks=args.k, progress=ProgressBar(args.dataset)
    )
    print(json.dumps(result, indent=2) if args.json else format_report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
