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

from typing import TYPE_CHECKING

from ..errors import NotFoundError
from ..store.sqlite import hashed_user
from ..types import Scope
from .common import WRITER

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine

__all__ = ["hashed_user", "purge_record", "purge_user", "purged_at"]


def purge_user(engine: MemoryEngine, user_id: str, agent_id: str | None = None) -> dict[str, int]:
    """Delete everything of user_id (every agent, or one); return rows removed per table."""
    Scope(user_id, agent_id or "default")  # validates the ids
    store = engine.store
    agents = store.user_agents(user_id, agent_id)
    for agent in agents:  # let in-flight index work of the user finish before the drop
        engine.sync_index(Scope(user_id, agent))
    counts = store.purge_user(user_id, agent_id, engine.clock.now(), WRITER)
    counts["collections"] = 0
    for agent in agents:
        before = set(engine.index.scope_names())
        engine.index.drop_scope(Scope(user_id, agent))
        counts["collections"] += len(before - set(engine.index.scope_names()))
    store.vacuum()
    counts["index_bytes_zeroed"] = sum(engine.index.compact().values())
    return counts


def purge_record(engine: MemoryEngine, scope: Scope, record_id: str) -> dict[str, int]:
    """Delete one record and its version chain (older and newer versions) everywhere, with the
    verbatim episodes and short-term messages of the turns it was distilled from."""
    store = engine.store
    with store.transaction():
        if store.get(scope, record_id) is None:
            raise NotFoundError(f"memory {record_id!r} not found for user {scope.user_id!r}")
        ids = _chain(engine, scope, record_id)
        episodes, turns = _episodes_of(engine, scope, ids)
        ids = [*ids, *(e for e in episodes if e not in ids)]
        # records, keyword rows, vectors, versions, their audit rows (reasons can quote the
        # content) and the short-term messages of the turns go; index deletes are queued
        done = store.purge_records(scope, ids, sorted(turns))
        counts = {
            "vectors": done["vectors"],
            "records": done["records"],
            "audit": done["audit"],
            "episodes": len(episodes),
            "messages": done["messages"],
        }
        reason = f"purged {len(ids)} record(s): the version chain and the episodes of its turns"
        store.audit(scope, record_id, "purge", reason, engine.clock.now(), None, WRITER)
        store.optimize_keyword_index()
    engine.sync_index(scope)
    store.vacuum()
    return counts


def _episodes_of(engine: MemoryEngine, scope: Scope, ids: list[str]) -> tuple[list[str], set[str]]:
    """The verbatim episodes of the turns these records were distilled from (a record purged
    while its turn stays logged would be recalled again from the episode)."""
    turns = {
        t
        for r in engine.store.get_many(scope, ids).values()
        if r.type.value != "episode"
        for t in r.source.turn_ids
    }
    if not turns:
        return [], turns
    return engine.store.episodes_of_turns(scope, sorted(turns)), turns


def _chain(engine: MemoryEngine, scope: Scope, record_id: str) -> list[str]:
    """record_id plus every record reachable through prev_id links, in either direction."""
    store = engine.store
    seen: list[str] = []
    todo = [record_id]
    while todo and len(seen) < 10_000:
        rid = todo.pop()
        if rid in seen:
            continue
        seen.append(rid)
        r = store.get(scope, rid)
        if r is not None and r.prev_id:
            todo.append(r.prev_id)
        todo += [x.id for x in store.successors(scope, rid, limit=100)]
    return [i for i in seen if store.get(scope, i) is not None]


def purged_at(engine: MemoryEngine, user_id: str, agent_id: str) -> float | None:
    """When user_id (all agents, or agent_id) was last purged, from the purge's audit row.

    A write recorded before that time and replayed after it (the OpenClaw plugin's spool) must
    not bring the user's data back; the service refuses such a replay.
    """
    return engine.store.purged_at(user_id, agent_id)
