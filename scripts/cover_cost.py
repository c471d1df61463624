"""CPU of covering sessions (recall/cover.py) for one list question, against the pool's size.

The read path re-orders the head of a list question's ranking after scoring; this times that step
alone on synthetic rankings (every candidate kept or only below the bar, sessions of ten turns),
median over --rounds of --calls calls, for a few pool sizes. `penalty 1.0` is the hard layering
(every session's best before any session's second), the default the soft one.

    python scripts/cover_cost.py --rounds 7 --calls 2000
"""

from __future__ import annotations

import argparse
import statistics
import time


def ranking(n: int) -> list:
    from openclaw_memory.types import MemoryRecord, MemoryType, ScoredMemory, Scope

    scope = Scope("u", "a")
    out = []
    for i in range(n):
        r = MemoryRecord(f"m{i}", scope, MemoryType.EPISODE, f"turn {i}", session_id=f"s{i % 17}")
        kept = i % 3 != 2
        reason = "" if kept else "below relevance threshold"
        out.append(ScoredMemory(r, 1.0 - i / (2 * n), {}, ("vector",), i + 1, kept, reason))
    return out


def main(argv: list[str] | None = None) -> int:
    from openclaw_memory.recall.cover import LAYER_PENALTY, cover_sessions

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--calls", type=int, default=2000)
    args = p.parse_args(argv)
    for n in (60, 150, 300):
        ranked = ranking(n)
        for penalty in (1.0, LAYER_PENALTY):
            runs = []
            for _ in range(args.rounds):
                t = time.thread_time()
                for _ in range(args.calls):
                    cover_sessions(ranked, penalty=penalty)
                runs.append((time.thread_time() - t) / args.calls * 1e6)
            print(f"pool {n:4d}  penalty {penalty:.2f}: {statistics.median(runs):7.1f} us per call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
