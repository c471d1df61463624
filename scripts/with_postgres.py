"""Run a command with a throwaway PostgreSQL server and an empty database of its own.

    python scripts/with_postgres.py -- openclaw-memory --config pg.yaml eval ...

Starts a server from the machine's PostgreSQL binaries (as tests/pg_server.py does for the
tests: initdb in a temp dir, a unix socket there, an unprivileged user under root), creates a
database, exports its DSN as OPENCLAW_MEMORY_PG_DSN, runs the command, then stops the server
and removes its files. Exits with the command's status.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from pg_server import start_server  # noqa: E402


def main(argv: list[str]) -> int:
    command = argv[argv.index("--") + 1 :] if "--" in argv else argv
    if not command:
        print(__doc__, file=sys.stderr)
        return 2
    server = start_server()
    try:
        dsn = server.dsn(server.create_database())
        return subprocess.call(command, env={**os.environ, "OPENCLAW_MEMORY_PG_DSN": dsn})
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
