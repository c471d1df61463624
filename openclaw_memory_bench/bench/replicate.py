"""A large store of few users, made from a smaller build by copying it (`bench --replicate K`).

Writing a memory through the write path costs more the longer its user's history is
(consolidation compares a new episode with the user's earlier claims), so 100,000 memories of one
user written one by one take hours on a small machine. With `--replicate K` the build writes
memories/K of them through the write path, then copies every record K-1 times inside SQLite:
new ids and row ids, sessions renamed per copy, the vector (and its sentence parts), keyword
rows, entity links, versions and sessions copied with it (turn lists and per-scope counts follow
through the store's triggers). The vector index is then rebuilt from the stored vectors
(`reindex`: nothing is embedded again).

A copy says what its original says, so such a store measures costs (rows per user, index and
posting-list sizes, the plans' row counts), not ranking: its hit rate is not comparable with a
store written memory by memory.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from openclaw_memory.errors import ValidationError

#: what a copy's ids, sessions and linked ids are suffixed with (then the copy's number)
SUFFIX = "~"
#: records columns that name a record or a session, renamed in each copy
_RENAMED = ("id", "session_id", "source_session", "prev_id", "doubt_of")


def check(records: int, users: int, copies: int) -> None:
    """Refuse a replication that does not split the memories evenly over whole users."""
    if copies < 1:
        raise ValidationError(f"replicate: expected a positive integer, found {copies}")
    if records % copies or records // copies < users:
        raise ValidationError(
            f"replicate: expected a divisor of memories ({records}) leaving at least one memory "
            f"per user ({users}), found {copies}"
        )


def copy_records(db: sqlite3.Connection, copies: int) -> int:
    """Copy every record of the store copies-1 times, with what belongs to it; rows added."""
    cols = [row[1] for row in db.execute("PRAGMA table_info(records)") if row[1] != "rid"]
    (last,) = db.execute("SELECT MAX(rid) FROM records").fetchone()
    if last is None:
        return 0
    (sessions,) = db.execute("SELECT COALESCE(MAX(rowid), 0) FROM sessions").fetchone()
    picked = ", ".join(f"{c} || :sfx" if c in _RENAMED else c for c in cols)
    added = 0
    db.execute("BEGIN IMMEDIATE")
    try:
        for n in range(1, copies):
            args = {"sfx": f"{SUFFIX}{n}", "last": last, "sessions": sessions}
            added += db.execute(
                f"INSERT INTO records({', '.join(cols)}) SELECT {picked} FROM records "
                "WHERE rid <= :last ORDER BY rid",
                args,
            ).rowcount
            _copy_belongings(db, args)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return added


def _copy_belongings(db: sqlite3.Connection, args: dict[str, Any]) -> None:
    """A copy's keyword rows, vectors, entity links, versions and sessions."""
    pairs = "records o JOIN records c ON c.id = o.id || :sfx WHERE o.rid <= :last"
    db.execute(
        "INSERT INTO records_fts(rowid, tokens, scope) SELECT c.rid, f.tokens, f.scope "
        f"FROM records_fts f JOIN {pairs} AND f.rowid = o.rid",
        args,
    )
    db.execute(
        "INSERT INTO vectors(record_id, model, content_hash, dim, vec, parts) "
        "SELECT c.id, v.model, v.content_hash, v.dim, v.vec, v.parts "
        f"FROM vectors v JOIN {pairs} AND v.record_id = o.id",
        args,
    )
    db.execute(
        "INSERT INTO entity_links(entity_id, rid, user_id, agent_id, seen_at) "
        "SELECT l.entity_id, c.rid, l.user_id, l.agent_id, l.seen_at "
        f"FROM entity_links l JOIN {pairs} AND l.rid = o.rid",
        args,
    )
    db.execute(
        "INSERT INTO versions(record_id, version, user_id, agent_id, summary, detail, channel, "
        "confidence, turn_ids, valid_from, superseded_at) SELECT c.id, v.version, v.user_id, "
        "v.agent_id, v.summary, v.detail, v.channel, v.confidence, v.turn_ids, v.valid_from, "
        f"v.superseded_at FROM versions v JOIN {pairs} AND v.record_id = o.id",
        args,
    )
    db.execute(
        "INSERT OR IGNORE INTO sessions(id, user_id, agent_id, started_at, last_active_at, "
        "ended_at, end_reason) SELECT s.id || :sfx, s.user_id, s.agent_id, s.started_at, "
        "s.last_active_at, s.ended_at, s.end_reason FROM sessions s WHERE s.rowid <= :sessions",
        args,
    )


def replicate(data: Path, copies: int, config: Any, embedder: Any) -> dict[str, Any]:
    """Copy the data dir's records copies-1 times, then rebuild its vector index."""
    from openclaw_memory.maintain.doctor import reindex
    from openclaw_memory.store.sqlite import Database

    db = Database(data / "memory.db")
    try:
        with db.read() as conn:
            added = copy_records(conn, copies)
    finally:
        db.close()
    rebuilt = reindex(config, embedder=embedder)
    return {"copies": copies, "added": added, "indexed": rebuilt["indexed"]}
