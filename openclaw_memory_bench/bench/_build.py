"""`python -m openclaw_memory_bench.bench._build DEST RECORDS USERS EMBEDDER SEED [COPIES]`: one
store build (COPIES: see replicate.py).

The benchmark runs builds here, in their own interpreter, so a build's memory peak never shows
in the measuring process's maxrss.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .store import build_store


def main(argv: list[str]) -> int:
    dest, records, users, embedder, seed, *copies = argv
    build_store(
        Path(dest),
        int(records),
        int(users),
        embedder,
        int(seed),
        progress=lambda message: print(f"[bench] {message}", file=sys.stderr, flush=True),
        copies=int(copies[0]) if copies else 1,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
