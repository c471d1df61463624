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
6. with `--explain N`: N more requests with the store's statements logged, each explained on
   that store (explain.py: full scans flagged);
7. sustained ingest on a fresh store: M turns through `after_response` + flush (and the same
   turns through `MemoryMiddleware.ingest`, batched per session).

`--backend postgres` runs the same steps with PostgreSQL as the source of truth (see
backends.py); `--backend both` measures SQLite and PostgreSQL in one run, their rounds
alternating (SQLite, PostgreSQL, SQLite, ...) so the machine's load falls on both alike, and
reports one section per backend with their ratios.
"""

from __future__ import annotations

import os
import platform
import tempfile
from pathlib import Path
from typing import Any, Callable, Sequence

from openclaw_memory.core.clock import Clock, SystemClock, iso_time
from openclaw_memory.config import MemoryConfig
from . import synth
from .backends import BACKENDS, backends_for, postgres_mb, prepared, storage_overrides
from .ingest import ingest
from .measure import median_merge, rss_mb
from .options import EMBEDDERS, BenchOptions
from .read_path import after_response, bench_middleware, read_path, request_for
from .store import Progress, bench_config, copy_data, disk_usage, ensure_store, load_entry
from .synth import SynthQuery

# re-exported: the CLI, the tests and scripts/read_path_cpu.py import these from here
__all__ = [
    "EMBEDDERS",
    "RATIO_FIGURES",
    "BenchOptions",
    "machine",
    "ratios",
    "request_for",
    "run_bench",
    "stage_printer",
]
#: the name scripts/read_path_cpu.py builds its middleware by
_middleware = bench_middleware


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
        copies=opts.replicate,
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
        "replicate": opts.replicate,
    }
    meta = {
        "store": {
            "cache": entry.name,
            "written": manifest["written"],
            "build_seconds": manifest["build_seconds"],
            "replicated": manifest.get("replicated"),
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
    from openclaw_memory.store.postgres import resolve_dsn

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
    from openclaw_memory.embed.embedding import build_embedder

    assert backend in BACKENDS
    # the configured query runtime (storage.query_runtime), as the middleware would build it
    runtime = (config or MemoryConfig()).storage.query_runtime
    embedder = build_embedder(opts.embedder, runtime)
    with tempfile.TemporaryDirectory(prefix="ocm-bench-") as tmp:
        data = copy_data(entry, Path(tmp))
        if backend != "sqlite":
            say(f"copying the store into a scratch {backend} database")
        with prepared(backend, data, dsn) as scratch:
            storage = storage_overrides(backend, scratch)
            mw = bench_middleware(
                bench_config(data, opts.embedder, base=config, storage=storage), embedder
            )
            try:
                out = read_path(mw, bank, opts, data, embedder, say)
                say("after_response")
                out["after_response_ms"] = after_response(
                    mw, synth.make_queries(bank, opts.requests, opts.seed + 1)
                )
                out["rss"] = rss_mb()
                out["rss_mb"] = out["rss"]["max_rss_mb"]
                out["disk"] = _disk(backend, data, scratch)
                out["disk_mb"] = out["disk"]["total_mb"]
                if opts.profile:
                    say(f"profile: {opts.profile} requests under the stack sampler")
                    out["profile"] = _profile(mw, bank, opts)
                if opts.explain:
                    say(f"explain: the store's statements of {opts.explain} requests, {backend}")
                    out["plans"] = _plans(mw, bank, opts)
            finally:
                mw.close()
    if opts.ingest:
        say(f"ingest {opts.ingest} turns, {backend}")
        out["ingest"] = ingest(opts, config, embedder, backend, dsn)
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


def _plans(mw: Any, bank: list[SynthQuery], opts: BenchOptions) -> dict[str, Any]:
    from .explain import read_path_plans

    queries = synth.make_queries(bank, opts.explain, opts.seed + 3)
    return read_path_plans(
        mw, queries, lambda q: mw.before_request(request_for(q, f"bench-{q.user_id}"))
    )


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
