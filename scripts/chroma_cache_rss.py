"""What embedded Chroma's cache of loaded HNSW indexes holds of the RSS, and what a smaller one
would cost: a study for the per-user collections' share of the bench's RSS (docs/benchmark-history.md).

Writes `--users` scratch collections of `--vectors` random vectors each, added one at a time
(as the capture worker adds a turn's memories), once with Chroma's default HNSW sync settings
and once with the index written to disk after every add (`sync_threshold` and `batch_size` 1);
then, in a fresh interpreter per case, searches every collection twice with the local client
holding at most `--cache` loaded indexes (Chroma sizes that cache from the open-file limit, a
few hundred here; no public setting, so this script sets it the way the client does) and
reports the RSS the searches added, per collection, and how many searches failed.

    python scripts/chroma_cache_rss.py --users 100 --vectors 100 --cache 8
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DIM = 384


def resident_mb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


def client(path: Path, cache: int | None) -> Any:
    import chromadb
    from chromadb.api import rust
    from chromadb.config import Settings

    if cache is not None:
        start = rust.RustBindingsAPI.start

        def limited(self: Any) -> None:
            self.hnsw_cache_size = cache
            start(self)

        rust.RustBindingsAPI.start = limited  # type: ignore[method-assign]
    return chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False))


def write(path: Path, users: int, vectors: int, synced: bool) -> dict[str, float]:
    """The collections, one add a vector; the median add in ms."""
    import numpy as np

    rng = np.random.default_rng(0)
    c = client(path, None)
    config = {"hnsw": {"space": "cosine"}}
    if synced:
        config["hnsw"].update(sync_threshold=1, batch_size=1)
    adds = []
    for u in range(users):
        col = c.create_collection(f"user-{u:04d}", configuration=config)  # type: ignore[arg-type]
        for i in range(vectors):
            t0 = time.perf_counter()
            col.add(ids=[f"{u}-{i}"], embeddings=rng.random((1, DIM), dtype=np.float32))
            adds.append(time.perf_counter() - t0)
    return {"add_ms_p50": round(statistics.median(adds) * 1000, 2)}


def search(path: Path, users: int, cache: int | None) -> dict[str, Any]:
    """Every collection searched twice, in a client holding at most `cache` loaded indexes."""
    import numpy as np

    rng = np.random.default_rng(1)
    c = client(path, cache)
    cols = [c.get_collection(f"user-{u:04d}") for u in range(users)]
    before, failed = resident_mb(), 0
    for _ in range(2):
        for col in cols:
            try:
                col.query(
                    query_embeddings=[rng.random(DIM, dtype=np.float32).tolist()], n_results=5
                )
            except Exception:  # noqa: BLE001 - what a case costs is the count, not the error
                failed += 1
    added = resident_mb() - before
    return {
        "rss_added_mb": added,
        "per_collection_mb": round(added / max(1, users), 2),
        "failed_searches": failed,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--users", type=int, default=100)
    p.add_argument("--vectors", type=int, default=100)
    p.add_argument("--cache", type=int, default=8, help="loaded indexes in the small-cache cases")
    p.add_argument("--search", type=Path, help=argparse.SUPPRESS)  # the child's part
    p.add_argument("--limit", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.search is not None:
        print(json.dumps(search(args.search, args.users, args.limit or None)))
        return 0
    out: dict[str, Any] = {"users": args.users, "vectors": args.vectors, "cases": []}
    with tempfile.TemporaryDirectory(prefix="ocm-chroma-cache-") as tmp:
        for synced in (False, True):
            path = Path(tmp) / ("synced" if synced else "default")
            written = write(path, args.users, args.vectors, synced)
            for cache in (0, args.cache):  # 0: Chroma's own size
                child = subprocess.run(
                    [sys.executable, __file__, "--search", str(path), "--users", str(args.users),
                     "--limit", str(cache)],
                    capture_output=True, text=True, check=True,
                )  # fmt: skip
                out["cases"].append(
                    {
                        "sync_every_add": synced,
                        "loaded_indexes": cache or "chroma default",
                        **written,
                        **json.loads(child.stdout),
                    }
                )
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
