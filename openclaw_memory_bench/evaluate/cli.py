"""`openclaw-memory eval locomo|longmemeval PATH` and `openclaw-memory bench`."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from openclaw_memory.core.progress import whole_number
from .memory_system import RETRIEVERS, MemorySystem
from .progress import ProgressBar
from .block import run_block
from .precision import run_precision
from .report import format_block, format_comparison, format_precision, format_report
from .runner import _stem, run_locomo, run_longmemeval
from .features import write_features
from .fusion_table import oof_runner
from .fusion_table import add_parser as add_fit_fusion
from openclaw_memory.config import config_from_dict


def cmd_eval(args: argparse.Namespace, config) -> int:
    if args.dataset == "precision":
        run = _run_precision
    elif args.dataset == "block":
        run = _block_runner(args.seed)
    elif not args.path:
        print(f"eval {args.dataset}: expected the dataset file (PATH)", file=sys.stderr)
        return 2
    else:
        run = run_locomo if args.dataset == "locomo" else run_longmemeval
    retrievers = RETRIEVERS if args.retriever == "all" else (args.retriever,)
    per_question = args.folds or args.questions_out or args.features_out or args.fusion_oof
    if per_question and args.dataset in ("precision", "block"):
        print(
            f"eval {args.dataset}: --folds, --questions-out, --features-out and --fusion-oof "
            "score questions of a data set",
            file=sys.stderr,
        )
        return 2
    if args.fusion_oof and not args.folds:
        print("eval: --fusion-oof: expected --folds K (the folds it fits without)", file=sys.stderr)
        return 2
    if args.fusion:
        config = config_from_dict({"recall": {"fusion": args.fusion}}, base=config)
    results = []
    outcomes: list[dict] = []
    features: list[dict] = []
    set_name = f"{args.dataset}:{_stem(args.path)}" if args.path else args.dataset
    oof_dir = None
    embedder = _reused_embedder(config, args.reuse_vectors) if args.reuse_vectors else None
    with tempfile.TemporaryDirectory(prefix="ocm-eval-") as tmp:
        system = MemorySystem(
            config, args.data_dir or tmp, retriever=retrievers[0], embedder=embedder
        )
        if args.features_out:
            system.features, system.feature_set = features, set_name
        try:
            if args.fusion_oof:
                system.fusion_for, oof_dir = oof_runner(args, set_name)
            for name in retrievers:
                system.use(name)
                progress = None if args.no_progress else ProgressBar(f"{args.dataset}/{name}")
                result = run(
                    system,
                    args.path,
                    limit=args.limit,
                    progress=progress,
                    retriever=name,
                    precision=not args.no_precision,
                    **_per_question(args, outcomes),
                )
                # the store was ingested once; every retriever reports that ingestion's cost
                items = sum(n for n, _ in system.ingested.values())
                result["ingest"] = {
                    "items": items,
                    "seconds": sum(s for _, s in system.ingested.values()),
                }
                results.append(result)
        finally:
            system.close()
            if oof_dir is not None:
                oof_dir.cleanup()
    if args.questions_out:
        _write_outcomes(args.questions_out, outcomes)
    if args.features_out:
        n = write_features(args.features_out, features)
        print(f"--features-out: {n} questions -> {args.features_out}", file=sys.stderr)
    if embedder is not None:
        print(
            f"--reuse-vectors: {embedder.hits} passages reused, {embedder.misses} embedded",
            file=sys.stderr,
        )
    if args.json:
        print(
            json.dumps(
                results if args.retriever == "all" else results[0], indent=2, ensure_ascii=False
            )
        )
    else:
        print("\n\n".join(_format(r) for r in results))
        if len(results) > 1:
            print("\n" + format_comparison(results))
    return 0


def _per_question(args: argparse.Namespace, outcomes: list[dict]) -> dict:
    """The runner's keywords for the folds protocol and per-question outcomes, when asked for."""
    if args.dataset in ("precision", "block"):
        return {}
    return {"folds": args.folds, "outcomes": outcomes if args.questions_out else None}


def _write_outcomes(path: str, outcomes: list[dict]) -> None:
    """One JSON object per line (`evaluate/outcomes.py`), written whole or not at all."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for row in outcomes:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    os.replace(tmp, target)
    print(f"--questions-out: {len(outcomes)} questions -> {path}", file=sys.stderr)


def _run_precision(system, path, *, limit=None, progress=None, retriever=None, precision=True):
    """The package's own precision sets (noise personas, update scenarios); PATH: another
    scenario file of the same shape."""
    return run_precision(system, path=path, progress=progress)


def _format(result: dict) -> str:
    if "overall" in result:
        return format_report(result)
    if result.get("dataset") == "block":
        return format_block(result)
    return format_precision(result)


def _block_runner(seed: int):
    """`eval block`: assistant-style sessions generated with `seed` (evaluate/block.py)."""

    def run(system, path, *, limit=None, progress=None, retriever=None, precision=True):
        return run_block(system, seed=seed, progress=progress)

    return run


def _reused_embedder(config, source: str):
    from openclaw_memory.embed.embedding import build_embedder
    from .reuse import ReusedVectors, load_vectors

    inner = build_embedder(config.storage.embedding_model, config.storage.query_runtime)
    return ReusedVectors(inner, load_vectors(source, inner))


def add_parsers(sub) -> None:
    p = sub.add_parser(
        "eval",
        help="retrieval quality on LoCoMo or LongMemEval through the real write and read paths",
    )
    p.add_argument(
        "dataset",
        choices=["locomo", "longmemeval", "precision", "block"],
        help="precision: the package's own noise and knowledge-update sets, both languages; "
        "block: the quality of the injected block over generated assistant-style sessions",
    )
    p.add_argument(
        "path",
        nargs="?",
        default=None,
        help="the dataset file (.json or .json.gz); for precision, optionally another update scenario file",
    )
    p.add_argument(
        "--retriever",
        choices=(*RETRIEVERS, "all"),
        default="hybrid",
        help="hybrid (default), keyword or vector: same ingestion, different read path; "
        "all: the three side by side over one ingestion (--json prints a list)",
    )
    p.add_argument("--limit", type=int, default=None, help="score only the first N questions")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--data-dir",
        default=None,
        help="keep the evaluation store here and reuse what it already ingested (default: a temp dir)",
    )
    p.add_argument(
        "--reuse-vectors",
        metavar="DIR",
        default=None,
        help="an earlier evaluation store (its --data-dir): passages it already embedded with the same "
        "embedder take their vectors from it, so re-ingesting after an extraction change is fast",
    )
    p.add_argument(
        "--questions-out",
        metavar="FILE",
        default=None,
        help="write every question's outcome as JSON lines (id, set, category, hit at 5/10/20, "
        "the evidence's ranks, the channels that found it)",
    )
    p.add_argument(
        "--folds",
        type=whole_number(2),
        default=None,
        metavar="K",
        help='split the set into K folds by conversation and report each fold\'s figures ("folds")',
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="block: the seed the assistant-style sessions are generated with (default 0)",
    )
    p.add_argument(
        "--features-out",
        metavar="FILE",
        default=None,
        help="write every question's ranked candidates as JSON lines: their fusion components and "
        "whether each delivers an evidence turn (training data for fit-fusion)",
    )
    p.add_argument(
        "--fusion",
        choices=("hand", "fitted"),
        default=None,
        help="fuse with the configuration's weights (hand) or the fusion table's (fitted) "
        "instead of what recall.fusion says",
    )
    p.add_argument(
        "--fusion-oof",
        metavar="FEATURES",
        nargs="+",
        default=None,
        help="rank each conversation with weights fitted on these features files without its "
        "fold (needs --folds K): out-of-fold figures of fitted fusion",
    )
    p.add_argument(
        "--fusion-model",
        choices=("listwise", "logistic"),
        default="listwise",
        help="--fusion-oof: the fit (default listwise)",
    )
    p.add_argument(
        "--pooled",
        action="store_true",
        help="--fusion-oof: one fit over every language instead of one per language",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument(
        "--no-precision",
        action="store_true",
        help="recall only: no noise and update sections (they embed the background and scenario texts)",
    )
    p.set_defaults(func=cmd_eval)
    add_fit_fusion(sub)
