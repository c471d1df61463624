"""Injected recall against the injected-token budget, for the three retrievers, as a PNG.

One ingestion (kept in --data-dir, reused by later runs), then for each budget of the retrieved
section (`injection.budgets.retrieved`) and each retriever (hybrid, keyword, vector) the read path
over every question of the set: the injected block's recall_all and its mean tokens.

    python benchmarks/plot_budget.py locomo tests/data/zh_locomo.json --data-dir /tmp/zh \\
        --budgets 200,400,600,800,1000,1500 --json-out budget_zh.json --out budget_zh.png

`--from-json FILE` redraws a PNG from an earlier --json-out without running anything. Needs
matplotlib for the PNG (`pip install 'openclaw-memory[plot]'`); without it the JSON is written.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from openclaw_memory.config import config_from_dict, load_config
from openclaw_memory_bench.evaluate.memory_system import RETRIEVERS, MemorySystem
from openclaw_memory_bench.evaluate.runner import run_locomo, run_longmemeval


def measure(
    dataset: str,
    path: str,
    data_dir: str,
    budgets: list[int],
    config: str | None,
    limit: int | None,
) -> dict[str, Any]:
    """{"points": [{retriever, budget, recall, tokens}], ...}: every retriever at every budget."""
    run = run_locomo if dataset == "locomo" else run_longmemeval
    base = load_config(config)
    system = MemorySystem(base, data_dir)
    points = []
    try:
        stored = system.base_config
        for budget in budgets:
            system.base_config = config_from_dict(
                {"injection": {"budgets": {"retrieved": budget}}}, base=stored
            )
            for name in RETRIEVERS:
                system.use(name)
                result = run(system, path, limit=limit, retriever=name)
                point = {
                    "retriever": name,
                    "budget": budget,
                    "recall": result["injected"]["recall_all"],
                    "tokens": result["injected"]["tokens_mean"],
                    "questions": result["questions"],
                }
                points.append(point)
                print(json.dumps(point), file=sys.stderr, flush=True)
    finally:
        system.close()
    return {
        "dataset": dataset,
        "path": Path(path).name,
        "top_k": base.long_term.top_k,
        "points": points,
    }


def plot(data: dict[str, Any], out: Path) -> None:
    """Write the PNG: injected recall (y) over mean injected tokens (x), one line per retriever."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    for name in RETRIEVERS:
        pts = sorted(
            (p for p in data["points"] if p["retriever"] == name), key=lambda p: p["budget"]
        )
        ax.plot([p["tokens"] for p in pts], [p["recall"] for p in pts], marker="o", label=name)
        labels: dict[tuple[float, float], list[str]] = {}  # budgets past top_k give the same block
        for p in pts:
            labels.setdefault((round(p["tokens"], 1), round(p["recall"], 4)), []).append(
                str(p["budget"])
            )
        for (tokens, recall), budgets in labels.items():
            text = budgets[0] if len(budgets) == 1 else f"{budgets[0]}-{budgets[-1]}"
            ax.annotate(
                text,
                (tokens, recall),
                textcoords="offset points",
                xytext=(4, -10),
                fontsize=7,
                color="gray",
            )
    ax.set_xlabel("mean injected tokens per request")
    ax.set_ylabel("injected recall_all")
    ax.set_title(
        f"{data['path']}: injected recall vs budget (labels: budgets.retrieved; top_k {data['top_k']})",
        fontsize=9,
    )
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dataset", nargs="?", choices=["locomo", "longmemeval"])
    parser.add_argument("path", nargs="?", help="the dataset file")
    parser.add_argument(
        "--data-dir", default=None, help="keep the evaluation store here (default: a temp dir)"
    )
    parser.add_argument(
        "--budgets",
        default="200,400,600,800,1000,1500",
        help="comma-separated injection.budgets.retrieved values",
    )
    parser.add_argument(
        "--config", default=None, help="a project YAML (default: the shipped defaults)"
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--json-out", default=None, help="write the measured points here")
    parser.add_argument("--out", default="budget.png", help="the PNG to write")
    parser.add_argument("--from-json", default=None, help="redraw from an earlier --json-out")
    args = parser.parse_args(argv)
    if args.from_json:
        data = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
    else:
        if not (args.dataset and args.path):
            parser.error("dataset and path are required unless --from-json is given")
        budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
        with tempfile.TemporaryDirectory(prefix="ocm-budget-") as tmp:
            data = measure(
                args.dataset, args.path, args.data_dir or tmp, budgets, args.config, args.limit
            )
        if args.json_out:
            Path(args.json_out).write_text(json.dumps(data, indent=2), encoding="utf-8")
    try:
        plot(data, Path(args.out))
    except ImportError:
        print(
            "matplotlib is not installed (pip install 'openclaw-memory[plot]'): no PNG written",
            file=sys.stderr,
        )
        return 1
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
