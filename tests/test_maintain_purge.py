"""Purge: a user (every agent, or one) and a single record leave no trace anywhere."""

from __future__ import annotations

import pytest

from openclaw_memory.runtime.factory import maintenance_ports
from openclaw_memory.core.clock import FakeClock
from openclaw_memory.config import config_from_dict
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.errors import NotFoundError, ValidationError
from openclaw_memory.maintain import purge_record, purge_user
from openclaw_memory.maintain.doctor import hashed_user
from openclaw_memory.store import inspect
from openclaw_memory.types import Candidate, Channel, MemoryType, Scope, Status, WindowMessage
from store_helpers import forget_in, writer_of

T = MemoryType
A, B, OTHER = Scope("alice", "main"), Scope("alice", "coder"), Scope("bob", "main")
TABLES = ("records", "versions", "outbox", "messages", "sessions", "audit")
#: purge is checked in the files themselves (the SQLite file and its WAL, the FTS5 index)
pytestmark = pytest.mark.real_store("the bytes of the SQLite file and its FTS5 index")


@pytest.fixture
def engine(tmp_path):
    cfg = config_from_dict(  # every tier in Chroma: purge must empty its collections
        {
            "storage": {
                "data_dir": str(tmp_path),
                "embedding_model": "hash",
                "vector_store": {"exact_below": 0},
            }
        }
    )
    e = MemoryEngine.open(cfg, clock=FakeClock(1_750_000_000.0), background=False)
    yield e
    e.close()


def write(engine, scope, type_, summary, **kw):
    return (
        writer_of(engine).write(scope, [Candidate(type_, summary, **kw)], session_id="s1")[0].record
    )


def add_session(engine, scope, text):
    engine.store.open_session(scope, "s1", 0)
    engine.store.append_message(scope, WindowMessage("s1", "user", text, 3, None, 0))


def populate(engine):
    """alice on two agents (English and Chinese, a restated fact, a forgotten one) and bob."""
    ids = {}
    ids["a_fact"] = write(
        engine, A, T.FACT, "alice keeps a zebrafish named Quasimodo", subject="pet"
    ).id
    write(
        engine, A, T.FACT, "alice keeps a zebrafish named Quasimodo", subject="pet", confidence=0.9
    )
    ids["a_zh"] = write(engine, A, T.PREFERENCE, "爱丽丝喜欢喝乌龙茶", subject="茶").id
    gone = write(engine, A, T.FACT, "alice moved to Lisbon", subject="city")
    forget_in(engine, A, gone.id)
    ids["b_event"] = write(engine, B, T.EVENT, "compiled the zebrafish tracker", subject="build").id
    ids["bob"] = write(engine, OTHER, T.FACT, "bob keeps a zebrafish too", subject="pet").id
    add_session(engine, A, "tell me about Quasimodo")
    add_session(engine, B, "build the tracker")
    add_session(engine, OTHER, "hello from bob")
    engine.indexer.drain()
    return ids


def rows_of(engine, table, user, agent=None):
    where = {"user_id": user} if agent is None else {"user_id": user, "agent_id": agent}
    return inspect.count(engine.store, table, **where)


def fts_hits(engine, word):
    return inspect.keyword_hits(engine.store, word)


def disk_bytes(tmp_path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(tmp_path.glob("memory.db*")))


def test_purge_user_removes_every_trace(engine, tmp_path):
    ids = populate(engine)
    assert b"Quasimodo" in disk_bytes(tmp_path)
    assert rows_of(engine, "versions", "alice") == 1 and fts_hits(engine, "quasimodo") == 1
    names = {engine.index.collection_name(s, t) for s in (A, B) for t in ("hot", "cold")}
    assert names & set(engine.index.scope_names())

    counts = purge_user(maintenance_ports(engine), "alice")

    assert counts["records"] == 4 and counts["versions"] == 1 and counts["messages"] == 2
    assert counts["collections"] >= 2
    for table in TABLES:
        assert rows_of(engine, table, "alice") == 0, table
    gone = (ids["a_fact"], ids["a_zh"], ids["b_event"])
    assert inspect.count(engine.store, "vectors", record_id=gone) == 0
    trail = inspect.select(engine.store, "audit", ("user_id", "agent_id", "action"), action="purge")
    assert [tuple(r.values()) for r in trail] == [(hashed_user("alice"), "*", "purge")]
    assert fts_hits(engine, "quasimodo") == 0 and fts_hits(engine, "乌龙茶") == 0
    assert not names & set(engine.index.scope_names())
    assert b"Quasimodo" not in disk_bytes(tmp_path) and "乌龙茶".encode() not in disk_bytes(
        tmp_path
    )
    # bob is untouched and still searchable
    assert engine.get(OTHER, ids["bob"]).status is Status.ACTIVE
    assert fts_hits(engine, "zebrafish") == 1
    found = engine.semantic(OTHER, engine.embed_query("bob keeps a zebrafish too"), limit=5)
    assert found[0][0] == ids["bob"]


def test_purge_one_agent_keeps_the_others(engine):
    ids = populate(engine)
    counts = purge_user(maintenance_ports(engine), "alice", "main")
    assert counts["records"] == 3
    assert rows_of(engine, "records", "alice", "main") == 0
    assert rows_of(engine, "messages", "alice", "main") == 0
    assert engine.get(B, ids["b_event"]).status is Status.ACTIVE
    assert rows_of(engine, "messages", "alice", "coder") == 1
    assert engine.index.collection_name(A) not in engine.index.scope_names()
    assert engine.index.ids(B) == {ids["b_event"]}


def test_purge_user_rejects_a_malformed_id(engine):
    with pytest.raises(ValidationError, match="user_id"):
        purge_user(maintenance_ports(engine), "alice; DROP TABLE records")


def test_purge_record_removes_its_version_chain(engine):
    ids = populate(engine)
    old = write(
        engine, A, T.PREFERENCE, "likes green tea", subject="drink", channel=Channel.EXPLICIT
    )
    new = writer_of(engine).write(
        A,
        [
            Candidate(
                T.PREFERENCE, "now prefers black coffee", subject="drink", channel=Channel.EXPLICIT
            )
        ],
    )[0]
    assert new.replaced_id == old.id and new.record.prev_id == old.id
    engine.indexer.drain()

    counts = purge_record(maintenance_ports(engine), A, new.record.id)

    assert counts["records"] == 2 and counts["vectors"] == 2
    both = (old.id, new.record.id)
    left = inspect.count(engine.store, "records", id=both)
    audit = inspect.select(engine.store, "audit", ("action",), record_id=both)
    vecs = inspect.count(engine.store, "vectors", record_id=both)
    assert left == 0 and vecs == 0
    assert [r["action"] for r in audit] == ["purge"]
    assert fts_hits(engine, "coffee") == 0 and fts_hits(engine, "green") == 0
    assert new.record.id not in engine.index.ids(A, "hot") | engine.index.ids(A, "cold")
    assert engine.indexer.pending() == 0
    assert engine.get(A, ids["a_fact"]).status is Status.ACTIVE  # the rest of alice stays


def test_purge_record_of_another_scope_is_not_found(engine):
    ids = populate(engine)
    with pytest.raises(NotFoundError, match=ids["bob"]):
        purge_record(maintenance_ports(engine), A, ids["bob"])
    assert engine.get(OTHER, ids["bob"]).status is Status.ACTIVE
