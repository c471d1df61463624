"""Time `migrate`'s copy of a SQLite store into PostgreSQL: rows per second, per table and overall.

    python scripts/with_postgres.py -- python scripts/migrate_speed.py STORE.db [--profile N]

The store is copied first (opening it may bring its schema up to date; the original is left
as it is), then into the empty database $OPENCLAW_MEMORY_PG_DSN names. --profile prints the
N most expensive functions of the copy (cProfile, cumulative time).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("store", type=Path, help="a SQLite store (memory.db)")
    p.add_argument("--dsn", default=os.environ.get("OPENCLAW_MEMORY_PG_DSN", ""))
    p.add_argument("--profile", type=int, default=0, metavar="N")
    args = p.parse_args(argv)
    if not args.dsn:
        p.error("no DSN: pass --dsn or run under scripts/with_postgres.py")
    from openclaw_memory.store.postgres.db import PostgresDatabase
    from openclaw_memory.store.postgres.migrate import copy_store

    with tempfile.TemporaryDirectory(prefix="ocm-migrate-speed-") as tmp:
        source = Path(tmp) / "memory.db"
        shutil.copyfile(args.store, source)
        target = PostgresDatabase(args.dsn)
        stamps: dict[str, float] = {}
        last = [time.perf_counter()]

        def progress(table: str, n: int) -> None:
            now = time.perf_counter()
            stamps[table] = stamps.get(table, 0.0) + now - last[0]
            last[0] = now

        profiler = cProfile.Profile() if args.profile else None
        start = time.perf_counter()
        try:
            if profiler is not None:
                profiler.enable()
            counts = copy_store(source, target, progress)
            if profiler is not None:
                profiler.disable()
        finally:
            target.close()
        seconds = time.perf_counter() - start
    rows = sum(counts.values())
    print(
        json.dumps(
            {
                "seconds": round(seconds, 2),
                "rows": rows,
                "rows_per_s": round(rows / seconds, 1),
                "records_per_s": round(counts["records"] / seconds, 1),
                "counts": counts,
                "load_average": os.getloadavg()[0],
            },
            indent=1,
        )
    )
    if profiler is not None:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
