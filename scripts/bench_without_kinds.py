"""`openclaw-memory bench` with the request's kinds switched off (recall/kinds.py), for a side by
side run on one machine: the same cached bench store, the read path with and without reading
the kinds a request names and searching their members.

    python scripts/bench_without_kinds.py --memories 10000 --users 100 --repeat 1 --ingest 0 --json

Alternate it with the plain `openclaw-memory bench` of the same arguments; the store is built
once (its key is the write path, which kinds do not touch).
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    import openclaw_memory.recall.query as query
    from openclaw_memory.cli import main as cli

    query.kinds_named = lambda text: ()  # build_query reads no kind
    return cli(["bench", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
