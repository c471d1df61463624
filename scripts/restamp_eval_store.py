"""Copy a kept evaluation store and mark it as ingested by the code in this checkout.

For comparing *read-path* changes side by side on one ingestion: `eval --data-dir` re-ingests a
store whose manifest names other write-path code (evaluate/memory_system.py), and a change to
shared files such as config.py changes that digest even when ingestion itself is unchanged.
Only use it when the two checkouts ingest identically (the diff between them touches recall/,
inject/ or recall settings only); otherwise re-ingest with `--reuse-vectors`.

    python scripts/restamp_eval_store.py KEPT_STORE NEW_STORE
    openclaw-memory eval locomo DATA.json --json --data-dir NEW_STORE
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from openclaw_memory.config import load_config
from openclaw_memory.evaluate.memory_system import MANIFEST, MemorySystem


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "source", help="a kept evaluation store (an earlier --data-dir); not modified"
    )
    parser.add_argument("target", help="where the copy goes (replaced if it exists)")
    args = parser.parse_args()
    if not (Path(args.source) / MANIFEST).is_file():
        parser.error(
            f"source: expected an evaluation store with {MANIFEST}, found none in {args.source}"
        )
    shutil.rmtree(args.target, ignore_errors=True)
    shutil.copytree(args.source, args.target)
    system = MemorySystem(load_config(None), args.target)
    fingerprint = system._fingerprint
    system.close()
    manifest = Path(args.target) / MANIFEST
    entries = json.loads(manifest.read_text())
    for entry in entries.values():
        entry["fingerprint"] = fingerprint
    manifest.write_text(json.dumps(entries, indent=1))
    print(f"{args.target}: {len(entries)} ingested conversations stamped {fingerprint}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
