"""Bench medians and eval figures of two versions of the package, side by side in one run.

The "before" side is a git ref (default: main) exported with `git archive` into a temp dir; the
"after" side is the working tree this script lives in. Each command runs in a fresh interpreter
with `PYTHONPATH` pointing at its side's source, in the same environment (same venv, same cached
bench store, same load), and the bench runs alternate before/after round by round so a change in
the machine's load hits both sides alike.

    python benchmarks/before_after.py --ref main --rounds 2 \\
        --bench "--memories 10000 --users 100 --embedder hash --requests 200 --ingest 200 --concurrency 10" \\
        --eval "locomo tests/data/zh_locomo.json --retriever hybrid --no-precision --reuse-vectors STORE"

Prints a Markdown table (figure, before, after, after/before); `--json-out` keeps the raw runs.
Each side's eval gets its own fresh `--data-dir` under the run's temp dir.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: bench figures reported (dotted paths into `openclaw-memory bench --json`), when present
BENCH_FIGURES = (
    "before_request_ms.p50",
    "before_request_ms.p95",
    "before_request_ms.p99",
    "before_request_cpu_ms",
    "embed_query_ms.p50",
    "read_path_ms_p50",
    "repeated_ms.p50",
    "baseline_ms.p50",
    "hit_rate",
    "after_response_ms.p50",
    "after_response_ms.p95",
    "concurrent.burst.p95_ms",
    "concurrent.paced.p95_ms",
    "ingest_per_s",
    "ingest.batched_memories_per_s",
    "rss_mb",
    "rss.vm_rss_mb",
    "disk_mb",
)
#: eval figures reported (dotted paths into `openclaw-memory eval --json`)
EVAL_FIGURES = (
    "overall.recall_all@5",
    "overall.recall_all@10",
    "overall.recall_all@20",
    "overall.evidence_recall@10",
    "injected.recall_all",
    "injected.tokens_mean",
    "latency_ms.p50",
    "latency_ms.p95",
)


def export(ref: str, into: Path) -> Path:
    """The tree of ref (a commit, branch or tag of this repository) as files under into."""
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


#: runs the package's CLI from the source dir in argv[1]: ahead of sys.path, and with an editable
#: install's import hook taken out (it would otherwise win over sys.path and load the working tree)
_LAUNCH = """
import runpy, sys
src = sys.argv.pop(1)
sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")]
sys.path.insert(0, src)
import openclaw_memory
if not openclaw_memory.__file__.startswith(src):
    raise SystemExit(f"expected openclaw_memory from {src}, found {openclaw_memory.__file__}")
runpy.run_module("openclaw_memory", run_name="__main__", alter_sys=True)
"""


def run_side(source: Path, args: list[str]) -> dict[str, Any]:
    """`python -m openclaw_memory <args> --json` on source's code; its JSON result."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    out = subprocess.run(
        [sys.executable, "-c", _LAUNCH, str(source), *args, "--json"],
        env=env,
        cwd=source,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed on {source}:\n{out.stderr[-3000:]}")
    text = out.stdout
    result = json.loads(text[min(i for i in (text.find("{"), text.find("[")) if i >= 0) :])
    return result[0] if isinstance(result, list) else result


def flat(d: Any, prefix: str = "") -> dict[str, float]:
    """Every number of a nested dict under its dotted path."""
    out: dict[str, float] = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(flat(v, f"{prefix}{k}."))
    elif isinstance(d, (int, float)) and not isinstance(d, bool):
        out[prefix[:-1]] = float(d)
    return out


def table(rows: list[tuple[str, float | None, float | None]]) -> str:
    lines = ["| figure | before | after | after / before |", "|---|---|---|---|"]
    for name, a, b in rows:
        ratio = f"x{b / a:.2f}" if a and b is not None else "-"
        lines.append(f"| {name} | {_num(a)} | {_num(b)} | {ratio} |")
    return "\n".join(lines)


def _num(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.3f}" if abs(x) < 10 else f"{x:,.1f}"


def derived(x: dict[str, float]) -> dict[str, float]:
    """The read path's own work (before_request p50 less the query embedding's p50) for a side
    whose bench predates that figure."""
    if "read_path_ms_p50" not in x and {"before_request_ms.p50", "embed_query_ms.p50"} <= set(x):
        x["read_path_ms_p50"] = x["before_request_ms.p50"] - x["embed_query_ms.p50"]
    return x


def medians(runs: list[dict[str, Any]], figures: tuple[str, ...]) -> dict[str, float | None]:
    flats = [derived(flat(r)) for r in runs]
    return {
        f: (
            statistics.median(x[f] for x in flats) if all(f in x for x in flats) and flats else None
        )
        for f in figures
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ref", default="main", help="the 'before' side: a git ref (default: main)")
    p.add_argument("--bench", default="", help="arguments of `openclaw-memory bench` (quoted)")
    p.add_argument("--eval", default="", help="arguments of `openclaw-memory eval` (quoted)")
    p.add_argument(
        "--rounds", type=int, default=2, help="bench rounds per side, alternating (default: 2)"
    )
    p.add_argument("--json-out", type=Path, help="write every raw run here")
    p.add_argument("--config", type=Path, help="a project YAML both sides' bench runs read")
    opts = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ocm-before-after-") as tmp:
        sides = {"before": export(opts.ref, Path(tmp) / "before"), "after": ROOT}
        raw: dict[str, Any] = {"ref": opts.ref, "bench": {"before": [], "after": []}, "eval": {}}
        if opts.bench:
            config = ["--config", str(opts.config.resolve())] if opts.config else []
            args = [*config, "bench", *shlex.split(opts.bench)]
            for n in range(opts.rounds):
                for side in ("before", "after") if n % 2 == 0 else ("after", "before"):
                    print(f"bench round {n + 1}/{opts.rounds}: {side}", file=sys.stderr)
                    raw["bench"][side].append(run_side(sides[side], args))
        for side in ("before", "after") if opts.eval else ():
            print(f"eval: {side}", file=sys.stderr)
            args = [
                "eval",
                *shlex.split(opts.eval),
                "--no-progress",
                "--data-dir",
                str(Path(tmp) / f"eval-{side}"),
            ]
            raw["eval"][side] = run_side(sides[side], args)
    if opts.json_out:
        opts.json_out.write_text(
            json.dumps(raw, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    if opts.bench:
        b, a = (
            medians(raw["bench"]["before"], BENCH_FIGURES),
            medians(raw["bench"]["after"], BENCH_FIGURES),
        )
        print(f"bench {opts.bench} (medians of {opts.rounds} rounds per side)\n")
        print(
            table([(f, b[f], a[f]) for f in BENCH_FIGURES if b[f] is not None or a[f] is not None])
            + "\n"
        )
    if opts.eval:
        b, a = flat(raw["eval"]["before"]), flat(raw["eval"]["after"])
        print(f"eval {opts.eval}\n")
        print(table([(f, b.get(f), a.get(f)) for f in EVAL_FIGURES if f in b or f in a]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
