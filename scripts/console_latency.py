"""Console page latency at 100k memories, over real HTTP on loopback.

Two stores:
  single-user  (default) 100,000 memories of ONE user, the worst case for every page: written
               straight into SQLite (records, keyword index, hash-embedder vectors) and indexed
               into Chroma, so the "why" page runs a full recall over all of them.
  bench        the `openclaw-memory bench` store (100,000 synthetic memories over 100 users,
               hash embedder), when it is cached already or passed with --entry (building it
               takes about 20 minutes on an idle machine), on a copy.

Each page is requested --repeat times after one warm-up request; the figures are wall-clock
milliseconds per response (p50, p95, max), measured by the client on the same machine.

    python scripts/console_latency.py [--store bench|single-user|both] [--repeat 20] [--runs 3]
                                      [--data-dir DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

TOKEN = "console-latency-token"


def _pages(user: str, agent: str, rid: str, deep_cursor: str, why: bool) -> dict[str, str]:
    who = f"user={user}&agent={agent}"
    pages = {
        "users": "/ui/",
        "list": f"/ui/memories?{who}",
        "list all statuses, oldest first": f"/ui/memories?{who}&status=all&sort=created&order=asc",
        "list type=fact": f"/ui/memories?{who}&type=fact",
        "list text filter": f"/ui/memories?{who}&q=coffee",
        "list text filter (zh)": f"/ui/memories?{who}&q=%E5%92%96%E5%95%A1",
        "list date range": f"/ui/memories?{who}&from=2024-03-01&to=2024-06-30&status=all",
        "list subject prefix": f"/ui/memories?{who}&subject=a&status=all",
        "list subject prefix, no match": f"/ui/memories?{who}&subject=zz&status=all",
        "list type + status, created": f"/ui/memories?{who}&type=decision&status=archived&sort=created",
        "list deep page (keyset)": f"/ui/memories?{who}&status=all&after={deep_cursor}",
        "memory": f"/ui/memory/{rid}?{who}",
        "import page": f"/ui/import?{who}",
        "purge-user page": f"/ui/purge-user?{who}",
    }
    if why:
        pages["why"] = f"/ui/why?{who}&q=what+does+the+user+like+to+drink"
        pages["why (zh)"] = (
            f"/ui/why?{who}&q=%E7%94%A8%E6%88%B7%E5%96%9C%E6%AC%A2%E5%96%9D%E4%BB%80%E4%B9%88%E5%92%96%E5%95%A1"
        )
    return pages


def measure_runs(
    base: str, pages: dict[str, str], repeat: int, runs: int
) -> dict[str, dict[str, float]]:
    """`runs` rounds of `measure`; per page the median over the rounds of p50, p95, max and CPU,
    with the load average seen after each round."""
    rounds = []
    for _ in range(runs):
        rounds.append(measure(base, pages, repeat))
        print(f"round {len(rounds)}/{runs} done (load {os.getloadavg()[0]:.1f})", file=sys.stderr)
        LOADS.append(round(os.getloadavg()[0], 1))
    return {
        name: {k: round(statistics.median(r[name][k] for r in rounds), 1) for k in rounds[0][name]}
        for name in pages
    }


LOADS: list[float] = []
RUNS = 1


def measure(base: str, pages: dict[str, str], repeat: int) -> dict[str, dict[str, float]]:
    out = {}
    with httpx.Client(
        base_url=base, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60
    ) as client:
        for name, path in pages.items():
            r = client.get(path)
            if r.status_code != 200:
                raise SystemExit(f"{name}: {path} answered {r.status_code}: {r.text[:300]}")
            times, cpu = [], []
            for _ in range(repeat):
                t, c = time.perf_counter(), time.process_time()
                client.get(path).raise_for_status()
                times.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - c) * 1000)  # server thread + client, this process
            times.sort()
            out[name] = {
                "p50": round(statistics.median(times), 1),
                "p95": round(times[max(0, int(len(times) * 0.95) - 1)], 1),
                "max": round(times[-1], 1),
                "cpu_p50": round(statistics.median(cpu), 1),
            }
    return out


def _serve(
    config: Any, user: str, agent: str, why: bool, repeat: int, runs: int = 1
) -> dict[str, Any]:
    from openclaw_memory.console.live import LiveServer
    from openclaw_memory.console.queries import Filters, memory_page
    from openclaw_memory.factory import build_middleware
    from openclaw_memory.service.app import create_app
    from openclaw_memory.types import Scope

    mw = build_middleware(config)
    try:
        scope = Scope(user, agent)
        f = Filters(status="all")
        cursor, page = "", None
        for _ in range(40):  # the cursor 40 pages (2,000 rows) in
            page = memory_page(mw.engine, scope, f, cursor)
            cursor = page.next_after or cursor
        rid = page.rows[0].id
        with mw.engine.db.read() as db:
            total = db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
            mine = db.execute("SELECT COUNT(*) FROM records WHERE user_id = ?", (user,)).fetchone()[
                0
            ]
        with LiveServer(create_app(mw, token=TOKEN)) as base:
            figures = measure_runs(base, _pages(user, agent, rid, cursor, why), repeat, runs)
        return {"memories": total, "user_memories": mine, "pages": figures}
    finally:
        mw.close()


def bench_store(repeat: int, entry: Path | None) -> dict[str, Any]:
    from openclaw_memory.bench.store import DEFAULT_CACHE_DIR, bench_config, copy_data, ensure_store

    entry = entry or ensure_store(
        DEFAULT_CACHE_DIR, 100_000, 100, "hash", 7, progress=print
    )  # cached, or built
    with tempfile.TemporaryDirectory() as tmp:
        data = copy_data(entry, Path(tmp))
        cfg = bench_config(data, "hash")
        with __import__("sqlite3").connect(data / "memory.db") as db:
            user, agent = db.execute(
                "SELECT user_id, agent_id FROM records GROUP BY user_id, agent_id "
                "ORDER BY COUNT(*) DESC LIMIT 1"
            ).fetchone()
        return {"store": "bench (100 users)", **_serve(cfg, user, agent, True, repeat, RUNS)}


_WORDS = [
    "coffee",
    "tea",
    "咖啡",
    "乌龙茶",
    "Lisbon",
    "杭州",
    "marathon",
    "跑步",
    "violin",
    "猫",
    "report",
    "项目",
    "deadline",
    "周末",
    "allergy",
    "过敏",
    "flight",
    "会议",
    "budget",
    "家人",
]


def single_user_store(
    n: int, repeat: int, *, vectors: bool = True, data_dir: Path | None = None
) -> dict[str, Any]:
    """Build the single-user store (in data_dir when given, kept for the next run) and measure.

    A data_dir that already holds a finished store of this size and kind is measured as is, so
    repeated runs skip the write (about 4 minutes without vectors, 20 with them, on 2 busy cores)."""
    from openclaw_memory.config import config_from_dict

    scope_user, scope_agent = "heavy-user", "main"
    if data_dir is None:
        with tempfile.TemporaryDirectory() as tmp:
            cfg = config_from_dict({"storage": {"data_dir": tmp, "embedding_model": "hash"}})
            _write_single_user(cfg, n, vectors)
            return {
                "store": "single user",
                **_serve(cfg, scope_user, scope_agent, vectors, repeat, RUNS),
            }
    data_dir.mkdir(parents=True, exist_ok=True)
    cfg = config_from_dict({"storage": {"data_dir": str(data_dir), "embedding_model": "hash"}})
    marker = data_dir / "console-latency-store.json"
    kind = {"memories": n, "vectors": vectors}
    if not marker.exists() or json.loads(marker.read_text()) != kind:
        if any(data_dir.iterdir()):
            raise SystemExit(
                f"--data-dir {data_dir}: not empty and not a finished store of {kind}; "
                "pass an empty or missing directory"
            )
        _write_single_user(cfg, n, vectors)
        marker.write_text(json.dumps(kind))
    else:
        print(f"reusing the store in {data_dir}", file=sys.stderr)
    return {"store": "single user", **_serve(cfg, scope_user, scope_agent, vectors, repeat, RUNS)}


def _write_single_user(cfg: Any, n: int, vectors: bool) -> None:
    from openclaw_memory.embedding import embed_passages
    from openclaw_memory.engine import MemoryEngine
    from openclaw_memory.store import records as rec
    from openclaw_memory.types import MemoryRecord, MemoryType, Scope, Source, Status

    rng = random.Random(7)
    engine = MemoryEngine.open(cfg, background=False)
    scope = Scope("heavy-user", "main")
    types = list(MemoryType)
    start = 1_704_067_200.0  # 2024-01-01
    t0 = time.perf_counter()
    drafts = []
    for i in range(n):
        words = " ".join(rng.choice(_WORDS) for _ in range(6))
        at = start + i * 300.0
        drafts.append(
            MemoryRecord(
                id=f"mem_bench_{i:06d}",
                scope=scope,
                type=rng.choice(types),
                summary=f"note {i}: {words}",
                subject=rng.choice([None, "alpha", "beta", "diet"]),
                importance=rng.random(),
                confidence=rng.random(),
                status=rng.choice([Status.ACTIVE] * 8 + [Status.INACTIVE, Status.ARCHIVED]),
                source=Source(session_id=f"s{i // 50}", turn_ids=(f"s{i // 50}#{i % 50}",)),
                session_id=f"s{i // 50}",
                created_at=at,
                updated_at=at + rng.random() * 86400,
            )
        )
    for k in range(0, n, 5000):
        batch = drafts[k : k + 5000]
        vecs = (
            embed_passages(engine.embedder, [r.text for r in batch])
            if vectors
            else [None] * len(batch)
        )
        with engine.db.write() as db:
            for r, vec in zip(batch, vecs):
                rec.insert(db, r, vec, engine.model_name)
            if not vectors:
                db.execute("DELETE FROM outbox")  # nothing to index
    engine.indexer.drain()  # into Chroma, as the service's indexer would
    engine.close()
    print(f"wrote {n} memories of one user in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--store", choices=["bench", "single-user", "both"], default="single-user")
    p.add_argument(
        "--memories", type=int, default=100_000, help="single-user store size (default 100000)"
    )
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument(
        "--runs",
        type=int,
        default=1,
        help="rounds of --repeat requests per page; the figures are medians over the rounds",
    )
    p.add_argument(
        "--no-vectors",
        action="store_true",
        help="single-user store without vectors or Chroma (minutes faster to write; no why page)",
    )
    p.add_argument(
        "--entry", type=Path, default=None, help="a cached bench store directory to use as is"
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="build the single-user store here and keep it; a later run with the same "
        "--memories and --no-vectors reuses it (default: a temporary directory)",
    )
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    global RUNS
    RUNS = max(1, args.runs)
    results = []
    if args.store in ("bench", "both"):
        results.append(bench_store(args.repeat, args.entry))
    if args.store in ("single-user", "both"):
        results.append(
            single_user_store(
                args.memories, args.repeat, vectors=not args.no_vectors, data_dir=args.data_dir
            )
        )
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
    for res in results:
        print(
            f"\n{res['store']}: {res['memories']} memories, {res['user_memories']} of the measured user"
        )
        print(f"{'page':<36} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'CPU p50':>8}")
        for name, f in res["pages"].items():
            print(f"{name:<36} {f['p50']:>8} {f['p95']:>8} {f['max']:>8} {f['cpu_p50']:>8}")
        print(
            f"(medians of {RUNS} round(s) of --repeat requests; 1-minute load average after each round: "
            f"{', '.join(str(x) for x in LOADS)}; at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
