"""Purge: remove every trace of a user, or of one record, from SQLite, the keyword index and
Chroma (seed 001 §1.1, docs/design.md invariant 6). `forget` deactivates and keeps an audit trail; purge does not.

Afterwards the keyword index is merged into one segment (FTS5 `optimize`): deleting a row from
an FTS5 table only adds a delete marker, and the row's lowercased and segmented tokens ("lisbon",
"花生") stay in the older index segments until they are merged, which may be never. Then the
SQLite file is vacuumed (secure_delete is on, and VACUUM plus a WAL truncate take the freed pages
off the disk). The user's Chroma collections are dropped with their segment
directories, and the embedded Chroma's own SQLite file is vacuumed and its segment files
scrubbed too (`ChromaIndex.compact`). What remains is one audit row saying that a purge happened,
with the user id replaced by a sha256 prefix, so an operator can prove the deletion without
keeping the identifier.

Through the middleware, use `MemoryMiddleware.purge_user`: it also drops the user's captures
still queued in the background worker, which would otherwise write the data back.

Not covered: text of a purged record quoted inside another record of the same user (a compaction
summary of purged events keeps its digest); purge the user, or the summary too, to remove that.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from ..errors import NotFoundError
from ..store import records as rec
from ..types import Scope
from .common import WRITER, chunks

if TYPE_CHECKING:
    from ..engine import MemoryEngine

#: Tables keyed by user_id/agent_id, deleted row by row for a user purge.
_USER_TABLES = ("versions", "outbox", "messages", "sessions", "audit")


def hashed_user(user_id: str) -> str:
    """What stays of a purged user id in the audit log."""
    return "sha256:" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:16]


def purge_user(engine: MemoryEngine, user_id: str, agent_id: str | None = None) -> dict[str, int]:
    """Delete everything of user_id (every agent, or one); return rows removed per table."""
    Scope(user_id, agent_id or "default")  # validates the ids
    where, args = (
        ("user_id = ?", [user_id])
        if agent_id is None
        else ("user_id = ? AND agent_id = ?", [user_id, agent_id])
    )
    agents = _agents(engine, where, args)
    for agent in agents:  # let in-flight index work of the user finish before the drop
        engine.indexer.drain(Scope(user_id, agent))
    counts: dict[str, int] = {}
    with engine.db.write() as db:
        counts.update(_delete_records(db, where, args))
        for table in _USER_TABLES:
            counts[table] = db.execute(f"DELETE FROM {table} WHERE {where}", args).rowcount
        _audit_purge(db, user_id, agent_id, counts, engine.clock.now())
        rebuild_keyword_index(db)
    counts["collections"] = 0
    for agent in agents:
        before = set(engine.index.scope_names())
        engine.index.drop_scope(Scope(user_id, agent))
        counts["collections"] += len(before - set(engine.index.scope_names()))
    engine.db.vacuum()
    counts["index_bytes_zeroed"] = sum(engine.index.compact().values())
    return counts


def purge_record(engine: MemoryEngine, scope: Scope, record_id: str) -> dict[str, int]:
    """Delete one record and its version chain (older and newer versions) everywhere, with the
    verbatim episodes and short-term messages of the turns it was distilled from."""
    with engine.db.write() as db:
        if rec.get(db, scope, record_id) is None:
            raise NotFoundError(f"memory {record_id!r} not found for user {scope.user_id!r}")
        ids = _chain(db, scope, record_id)
        episodes, turns = _episodes_of(db, scope, ids)
        ids = [*ids, *(e for e in episodes if e not in ids)]
        marks = ",".join("?" * len(ids))
        counts = {
            "vectors": db.execute(
                f"SELECT COUNT(*) FROM vectors WHERE record_id IN ({marks})", ids
            ).fetchone()[0]
        }
        # Records, FTS rows, vectors and versions go; the index deletes are queued in the outbox.
        counts["records"] = rec.delete_records(db, scope, ids)
        # Audit reasons can quote the content ("forgotten on request: ..."): they go too.
        counts["audit"] = db.execute(
            f"DELETE FROM audit WHERE user_id = ? AND agent_id = ? AND record_id IN ({marks})",
            (scope.user_id, scope.agent_id, *ids),
        ).rowcount
        counts["episodes"] = len(episodes)
        # the short-term window holds the same turns verbatim
        tmarks = ",".join("?" * len(turns))
        counts["messages"] = (
            db.execute(
                f"DELETE FROM messages WHERE user_id = ? AND agent_id = ? AND turn_id IN ({tmarks})",
                (scope.user_id, scope.agent_id, *sorted(turns)),
            ).rowcount
            if turns
            else 0
        )
        reason = f"purged {len(ids)} record(s): the version chain and the episodes of its turns"
        rec.audit(db, scope, record_id, "purge", reason, engine.clock.now(), None, WRITER)
        rebuild_keyword_index(db)
    engine.indexer.drain(scope)
    engine.db.vacuum()
    return counts


def rebuild_keyword_index(db) -> None:
    """Merge the FTS5 index into one segment, so deleted rows' tokens leave its pages (the
    freed pages are zeroed by secure_delete and dropped by the VACUUM that follows)."""
    db.execute("INSERT INTO records_fts(records_fts) VALUES ('optimize')")


def _agents(engine: MemoryEngine, where: str, args: list) -> list[str]:
    found: set[str] = set()
    with engine.db.read() as db:
        for table in ("records", *_USER_TABLES):
            found.update(
                r[0]
                for r in db.execute(f"SELECT DISTINCT agent_id FROM {table} WHERE {where}", args)
            )
    return sorted(found)


def _delete_records(db, where: str, args: list) -> dict[str, int]:
    rows = db.execute(f"SELECT rid, id FROM records WHERE {where}", args).fetchall()
    fts = vectors = 0
    for group in chunks(rows, 500):
        marks = ",".join("?" * len(group))
        fts += db.execute(
            f"DELETE FROM records_fts WHERE rowid IN ({marks})", [r["rid"] for r in group]
        ).rowcount
        vectors += db.execute(
            f"DELETE FROM vectors WHERE record_id IN ({marks})", [r["id"] for r in group]
        ).rowcount
    n = db.execute(f"DELETE FROM records WHERE {where}", args).rowcount
    return {"records": n, "fts": fts, "vectors": vectors}


def _episodes_of(db, scope: Scope, ids: list[str]) -> tuple[list[str], set[str]]:
    """The verbatim episodes of the turns these records were distilled from (a record purged
    while its turn stays logged would be recalled again from the episode)."""
    turns = {
        t
        for r in rec.get_many(db, scope, ids).values()
        if r.type.value != "episode"
        for t in r.source.turn_ids
    }
    if not turns:
        return [], turns
    marks = ",".join("?" * len(turns))
    sql, args = rec._scope_sql(scope, "r")
    rows = db.execute(
        f"SELECT DISTINCT r.id FROM records r, json_each(r.turn_ids) j WHERE {sql} AND r.type = 'episode' "
        f"AND j.value IN ({marks})",
        (*args, *sorted(turns)),
    )
    return [row[0] for row in rows], turns


def _chain(db, scope: Scope, record_id: str) -> list[str]:
    """record_id plus every record reachable through prev_id links, in either direction."""
    seen: list[str] = []
    todo = [record_id]
    while todo and len(seen) < 10_000:
        rid = todo.pop()
        if rid in seen:
            continue
        seen.append(rid)
        r = rec.get(db, scope, rid)
        if r is not None and r.prev_id:
            todo.append(r.prev_id)
        todo += [x.id for x in rec.query(db, scope, where="prev_id = ?", args=(rid,), limit=100)]
    return [i for i in seen if rec.get(db, scope, i) is not None]


def _audit_purge(db, user_id: str, agent_id: str | None, counts: dict[str, int], at: float) -> None:
    summary = ", ".join(f"{k} {v}" for k, v in counts.items())
    # Written directly: the row must not carry the user id, and "*" (every agent) is no valid Scope.
    db.execute(
        "INSERT INTO audit(at, user_id, agent_id, record_id, action, channel, reason, writer) "
        "VALUES (?, ?, ?, NULL, 'purge', 'admin', ?, ?)",
        (at, hashed_user(user_id), agent_id or "*", f"purged user: {summary}", WRITER),
    )


def purged_at(engine: MemoryEngine, user_id: str, agent_id: str) -> float | None:
    """When user_id (all agents, or agent_id) was last purged, from the purge's audit row.

    A write recorded before that time and replayed after it (the OpenClaw plugin's spool) must
    not bring the user's data back; the service refuses such a replay.
    """
    with engine.db.read() as db:
        row = db.execute(
            "SELECT MAX(at) FROM audit WHERE user_id = ? AND action = 'purge' AND agent_id IN ('*', ?)",
            (hashed_user(user_id), agent_id),
        ).fetchone()
    return None if row is None or row[0] is None else float(row[0])
