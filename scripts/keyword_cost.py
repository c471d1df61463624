"""The keyword channel's cost and result with and without its per-term cap, on a kept store.

For each request text: the CPU milliseconds of `records.keyword_search` (median of --repeat),
with the cap (`KEYWORD_SCORED`) and with every match scored as before, and how many of the
channel's results the two share (same ids; same scores for the shared ones).

    python scripts/keyword_cost.py STORE/memory.db --user heavy-user --agent main \\
        "用户喜欢喝什么咖啡" "what does the user like to drink"

The database is opened read-only.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import time


def measure(db: sqlite3.Connection, scope, text: str, limit: int, repeat: int) -> dict:
    from openclaw_memory.store import records as rec

    def run(capped: bool) -> tuple[list[tuple[str, float]], float]:
        probe = rec._newest_matches
        if not capped:  # no probe: the plain query, as before the cap
            rec._newest_matches = lambda db, expression: []  # type: ignore[assignment]
        try:
            cpu = []
            for _ in range(repeat):
                c = time.process_time()
                found = rec.keyword_search(db, scope, text, limit=limit)
                cpu.append((time.process_time() - c) * 1000)
            return found, statistics.median(cpu)
        finally:
            rec._newest_matches = probe  # type: ignore[assignment]

    capped, capped_ms = run(True)
    every, every_ms = run(False)
    exact = dict(every)
    shared = [i for i, _ in capped if i in exact]
    return {
        "text": text,
        "cap": rec.KEYWORD_SCORED,
        "cpu_ms_capped": round(capped_ms, 1),
        "cpu_ms_every_match": round(every_ms, 1),
        "results": len(every),
        "shared": len(shared),
        "shared_scores_equal": all(exact[i] == s for i, s in capped if i in exact),
    }


def main(argv: list[str] | None = None) -> int:
    from openclaw_memory.types import Scope

    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("db", help="a store's memory.db")
    p.add_argument("texts", nargs="+")
    p.add_argument("--user", required=True)
    p.add_argument("--agent", default="default")
    p.add_argument("--limit", type=int, default=30, help="the channel's candidates (default 30)")
    p.add_argument("--repeat", type=int, default=10)
    args = p.parse_args(argv)
    db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    scope = Scope(args.user, args.agent)
    for text in args.texts:
        print(json.dumps(measure(db, scope, text, args.limit, args.repeat), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
