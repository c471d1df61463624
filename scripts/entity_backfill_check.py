"""The entity backfill on a real store: take a copy back to the schema before entity memory,
open it (migrations 10 and 11 note the backlog), link the backlog, and compare the entities,
aliases and links with the ones the store's writes made. Prints the CPU per record.

    openclaw-memory eval locomo tests/data/zh_locomo.json --no-precision --data-dir STORE
    python scripts/entity_backfill_check.py STORE

The store itself is never changed: the work happens on a copy of its memory.db.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from openclaw_memory.store.sqlite import SQLiteStore

_OLD_SCHEMA = (
    "DROP TRIGGER ent_links_delete; DROP TRIGGER ent_links_forget; DROP TABLE entity_links; "
    "DROP TABLE entity_aliases; DROP TABLE entities; DROP TABLE IF EXISTS entity_backfill; "
    "DELETE FROM schema_version WHERE version >= 10;"
)


def entity_memory(db: sqlite3.Connection) -> dict[str, Any]:
    """Entities, aliases and links without the row ids they happen to have."""
    return {
        "entities": sorted(
            db.execute(
                "SELECT user_id, agent_id, key, name, kind, first_seen, last_seen FROM entities"
            ).fetchall()
        ),
        "aliases": sorted(
            db.execute(
                "SELECT a.user_id, a.agent_id, a.alias, e.key FROM entity_aliases a "
                "JOIN entities e ON e.id = a.entity_id"
            ).fetchall()
        ),
        "links": sorted(
            db.execute(
                "SELECT e.key, r.id, l.seen_at FROM entity_links l "
                "JOIN entities e ON e.id = l.entity_id JOIN records r ON r.rid = l.rid"
            ).fetchall()
        ),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("store", type=Path, help="an evaluation store (eval --data-dir)")
    p.add_argument("--batch", type=int, default=500, help="records a call links (default 500)")
    args = p.parse_args(argv)
    source = args.store / "memory.db"
    if not source.is_file():
        p.error(f"{source}: no memory.db there")
    with tempfile.TemporaryDirectory(prefix="ocm-backfill-") as tmp:
        path = Path(tmp) / "memory.db"
        with sqlite3.connect(source) as src, sqlite3.connect(path) as dst:
            src.backup(dst)
        con = sqlite3.connect(path, isolation_level=None)
        written = entity_memory(con)
        records = con.execute("SELECT COUNT(*) FROM records").fetchone()[0]
        con.executescript(_OLD_SCHEMA)
        con.close()
        store = SQLiteStore.open(path)
        c0, examined, calls = time.process_time(), 0, 0
        while True:
            n, left = store.backfill_entity_links(args.batch)
            examined, calls = examined + n, calls + 1
            if not left:
                break
        cpu = time.process_time() - c0
        store.close()
        con = sqlite3.connect(path)
        linked = entity_memory(con)
        con.close()
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"records {records}, examined {examined} in {calls} calls")
    print(f"CPU {cpu:.2f} s, {cpu * 1000 / max(examined, 1):.2f} ms per record")
    same = True
    for kind in ("entities", "aliases", "links"):
        a, b = set(written[kind]), set(linked[kind])
        print(f"{kind}: written {len(a)}, backfilled {len(b)}, equal {a == b}")
        if a != b:
            same = False
            print("  only written:", sorted(a - b)[:10])
            print("  only backfilled:", sorted(b - a)[:10])
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
