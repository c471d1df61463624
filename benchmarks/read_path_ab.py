"""CPU per before_request of two versions of the package, alternating in one run, per stage.

Runs `scripts/read_path_cpu.py` (this tree's copy, so both sides are measured the same way) with
`PYTHONPATH` on each side's source in turn: a git ref exported with `git archive` (default:
main) and the working tree this script lives in, alternating round by round so the machine's
load hits both sides alike. Both read the same cached bench store (`--store`, or the newest one
of these parameters: `openclaw-memory bench` builds it).

    python benchmarks/read_path_ab.py --ref main --rounds 4 -- \\
        --memories 10000 --users 100 --embedder hash --requests 300 --rounds 1 --stages

Prints, per side, the median over rounds of each figure the script prints (CPU ms per request
mean, p50, p95, the query embedding alone, each stage with --stages) and after / before.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from before_after import ROOT, export, table  # noqa: E402

SCRIPT = ROOT / "scripts" / "read_path_cpu.py"
_FIGURES = (
    ("CPU ms per request, mean", re.compile(r"\(median ([\d.]+)\)")),
    ("CPU ms per request, p50", re.compile(r"per request p50 ([\d.]+)")),
    ("CPU ms per request, p95", re.compile(r"per request p50 [\d.]+, p95 ([\d.]+)")),
    ("query embedding alone, CPU ms", re.compile(r"embedding alone, CPU ms mean ([\d.]+)")),
    ("wall ms per request, p50 (--parallel)", re.compile(r"wall ms per request p50 ([\d.]+)")),
    (
        "process CPU ms, p50 (--parallel)",
        re.compile(r"process CPU ms \(all threads\) p50 ([\d.]+)"),
    ),
)
_STAGE = re.compile(r"^  (\s*\S.*?)\s+([\d.]+)$")


def run_side(source: Path, args: list[str]) -> dict[str, float]:
    """The figures of one run of read_path_cpu.py on source's code."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    out = subprocess.run(
        [sys.executable, str(SCRIPT), *args], env=env, cwd=source, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise SystemExit(f"read_path_cpu.py failed on {source}:\n{out.stderr[-3000:]}")
    got: dict[str, float] = {}
    for name, pattern in _FIGURES:
        m = pattern.search(out.stdout)
        if m:
            got[name] = float(m.group(1))
    staged = out.stdout.split("by stage", 1)[1] if "by stage" in out.stdout else ""
    for line in staged.splitlines()[1:]:
        m = _STAGE.match(line)
        if m:
            got["stage: " + m.group(1).rstrip()] = float(m.group(2))
    return got


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ref", default="main", help="the 'before' side: a git ref (default: main)")
    p.add_argument("--rounds", type=int, default=4, help="runs per side, alternating")
    p.add_argument("args", nargs=argparse.REMAINDER, help="-- then read_path_cpu.py's arguments")
    opts = p.parse_args(argv)
    args = opts.args[1:] if opts.args[:1] == ["--"] else opts.args
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory(prefix="ocm-read-path-ab-") as tmp:
        sides = {"before": export(opts.ref, Path(tmp) / "before"), "after": ROOT}
        for n in range(opts.rounds):
            for side in ("before", "after") if n % 2 == 0 else ("after", "before"):
                print(f"round {n + 1}/{opts.rounds}: {side}", file=sys.stderr)
                runs[side].append(run_side(sides[side], args))
    names = list(dict.fromkeys(k for r in runs["before"] + runs["after"] for k in r))

    def median(side: str, name: str) -> float | None:
        values = [r[name] for r in runs[side] if name in r]
        return statistics.median(values) if values else None

    print(f"read_path_cpu.py {' '.join(args)}: medians of {opts.rounds} runs per side\n")
    print(table([(n, median("before", n), median("after", n)) for n in names]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
