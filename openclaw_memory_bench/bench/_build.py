"""`python -m openclaw_memory_bench.bench._build DEST RECORDS USERS EMBEDDER SEED`: one store build.

The benchmark runs builds here, in their own interpreter, so a build's memory peak never shows
in the measuring process's maxrss.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .store import build_store


def main(argv: list[str]) -> int:
    dest, records, users, embedder, seed = argv
    build_store(
        Path(dest),
        int(records),
        int(users),
        embedder,
        int(seed),
        progress=lambda message: print(f"[bench] {message}", file=sys.stderr, flush=True),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
