"""`openclaw-memory eval locomo|longmemeval PATH` and `openclaw-memory bench`."""

from __future__ import annotations

import argparse
import json
import tempfile

from .memory_system import RETRIEVERS, MemorySystem
from .progress import ProgressBar
from .report import format_report
from .runner import run_locomo, run_longmemeval


def cmd_eval(args: argparse.Namespace, config) -> int:
    run = run_locomo if args.dataset == "locomo" else run_longmemeval
    with tempfile.TemporaryDirectory(prefix="ocm-eval-") as tmp:
        system = MemorySystem(config, args.data_dir or tmp, retriever=args.retriever)
        try:
            progress = None if args.no_progress else ProgressBar(f"{args.dataset}/{args.retriever}")
            result = run(system, args.path, limit=args.limit, progress=progress, retriever=args.retriever)
        finally:
            system.close()
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else format_report(result))
    return 0


def add_parsers(sub) -> None:
    p = sub.add_parser("eval", help="retrieval quality on LoCoMo or LongMemEval through the real write and read paths")
    p.add_argument("dataset", choices=["locomo", "longmemeval"])
    p.add_argument("path", help="the dataset file (.json or .json.gz)")
    p.add_argument("--retriever", choices=RETRIEVERS, default="hybrid",
                   help="hybrid (default), keyword or vector: same ingestion, different read path")
    p.add_argument("--limit", type=int, default=None, help="score only the first N questions")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--data-dir", default=None, help="keep the evaluation store here (default: a temp dir)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=cmd_eval)
