"""`openclaw-memory bench` with the request's kinds switched off (recall/kinds.py), for a side by
side run on one machine: the same cached bench store, the read path with and without reading
the kinds a request names and searching their members.

    python scripts/bench_without_kinds.py --memories 10000 --users 100 --repeat 1 --ingest 0 --json

is the bench under a config that switches the kind channel off, the same as

    printf 'rules:\\n  disabled: [channel.kind]\\n' > no-kinds.yaml
    openclaw-memory --config no-kinds.yaml bench --memories 10000 --users 100 --repeat 1 --ingest 0 --json

(`rules.disabled` names any recall channel, `channel.<name>`: recall/channels.py `CHANNELS`). Alternate
it with the plain `openclaw-memory bench` of the same arguments; the store is built once (its
key is the write path, which kinds do not touch).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

#: the config the bench runs under: the defaults with the kind channel switched off
CONFIG = "rules:\n  disabled: [channel.kind]\n"


def main(argv: list[str] | None = None) -> int:
    from openclaw_memory.cli import main as cli

    with tempfile.TemporaryDirectory(prefix="ocm-no-kinds-") as tmp:
        config = Path(tmp) / "no-kinds.yaml"
        config.write_text(CONFIG, encoding="utf-8")
        return cli(["--config", str(config), "bench", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
