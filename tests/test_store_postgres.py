"""The PostgreSQL record store: schema, transactions (the outbox guarantee), errors, config, and
keyword search with per-user statistics. Runs against a real server (tests/pg_server.py)."""

from __future__ import annotations

import numpy as np
import pytest

from openclaw_memory.config import config_from_dict
from openclaw_memory.errors import ConfigError, StoreError
from openclaw_memory.store import inspect
from openclaw_memory.store import records as sqlite_records
from openclaw_memory.store.sqlite import Database
from openclaw_memory.lang.entities import mentions_of
from openclaw_memory.types import (
    AuditEntry,
    MemoryRecord,
    MemoryType,
    Scope,
    Source,
    Status,
    WindowMessage,
)

pytestmark = [pytest.mark.backend, pytest.mark.postgres]

ALICE, BOB = Scope("alice"), Scope("bob")


def record(scope: Scope, rid: str, summary: str, **kw) -> MemoryRecord:
    kw.setdefault("created_at", 1_700_000_000.0)
    kw.setdefault("updated_at", kw["created_at"])
    return MemoryRecord(
        id=rid, scope=scope, type=kw.pop("type", MemoryType.FACT), summary=summary, **kw
    )


def put(store, r: MemoryRecord, vector=None, model: str = "hash") -> None:
    """Insert r with what it names, as the write path reads it."""
    store.insert(r, vector, model, mentions=mentions_of(r))


@pytest.fixture
def store(pg_dsn):
    from openclaw_memory.store.postgres import PostgresRecordStore

    s = PostgresRecordStore.open(pg_dsn)
    yield s
    s.close()


def test_migrations_are_numbered_and_run_once(pg_dsn, store):
    from openclaw_memory.store.postgres.schema import MIGRATIONS
    from openclaw_memory.store.postgres import PostgresRecordStore

    assert store.db.schema_version == len(MIGRATIONS)
    again = PostgresRecordStore.open(pg_dsn)  # a second process starting on the same database
    try:
        held = inspect.rows(again, "SELECT version FROM schema_version ORDER BY 1")
        versions = [r[0] for r in held]
        assert versions == list(range(1, len(MIGRATIONS) + 1))
    finally:
        again.close()


def test_a_record_and_its_outbox_entry_commit_together(store):
    r = record(ALICE, "m1", "Alice drinks oat milk")
    with pytest.raises(RuntimeError):
        with store.transaction():
            put(store, r, np.ones(4, dtype=np.float32), "hash")
            assert store.get(ALICE, "m1") is not None  # read-your-writes inside the transaction
            raise RuntimeError("crash before commit")
    assert store.get(ALICE, "m1") is None and store.pending() == 0
    assert store.keyword_search(ALICE, "oat milk") == []
    put(store, r, np.ones(4, dtype=np.float32), "hash")
    assert store.get(ALICE, "m1") == r
    assert [e["record_id"] for e in store.next_entries(ALICE, 10)] == ["m1"]
    assert set(store.vectors_with_parts(["m1"])[0]) == {"m1"}


def test_a_commit_is_seen_by_another_connection_at_once(pg_dsn, store):
    from openclaw_memory.store.postgres import PostgresRecordStore

    other = PostgresRecordStore.open(pg_dsn)
    try:
        put(store, record(ALICE, "m1", "我喜欢喝咖啡"), None, "hash")
        assert other.get(ALICE, "m1") is not None
        assert [i for i, _ in other.keyword_search(ALICE, "咖啡")] == ["m1"]
    finally:
        other.close()


def test_reads_keep_to_the_scope(store):
    put(store, record(ALICE, "a1", "Alice is allergic to peanuts", subject="allergy"), None, "h")
    put(store, record(BOB, "b1", "Bob is allergic to peanuts", subject="allergy"), None, "h")
    assert store.get(BOB, "a1") is None
    assert set(store.get_many(BOB, ["a1", "b1"])) == {"b1"}
    assert [i for i, _ in store.keyword_search(BOB, "peanuts allergic")] == ["b1"]
    assert [r.id for r in store.live_by_subject(BOB, ["allergy"])] == ["b1"]
    assert store.delete_records(BOB, ["a1"]) == 0 and store.get(ALICE, "a1") is not None


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("用户对花生过敏，不能吃花生酱", "花生"),
        ("The user is painting the kitchen walls", "paint"),
        ("Le café crème du matin", "cafe"),
    ],
)
def test_keyword_search_matches_the_tokens_of_the_sqlite_index(store, text, query):
    put(store, record(ALICE, "m1", text), None, "hash")
    put(store, record(ALICE, "m2", "unrelated 无关的内容"), None, "hash")
    assert store.keyword_search(ALICE, query) == [("m1", 1.0)]


def test_keyword_scores_are_relative_to_the_best_and_follow_statuses(store):
    put(store, record(ALICE, "m1", "coffee coffee every morning"), None, "h")
    put(store, record(ALICE, "m2", "coffee beans and a long list of other words here"), None, "h")
    put(store, record(ALICE, "m3", "coffee retired", status=Status.INACTIVE), None, "h")
    hits = store.keyword_search(ALICE, "coffee")
    assert [i for i, _ in hits] == ["m1", "m2"] and hits[0][1] == 1.0 and 0 < hits[1][1] < 1
    assert "m3" in dict(store.keyword_search(ALICE, "coffee", statuses=("inactive",)))


# Alice's words: "apple" in one of her five memories, "cherry" in two, so a memory about
# apples is the rarer, better match. Bob then writes fifty memories about apples.
_ALICE_DOCS = ["apple", "cherry", "cherry date", "elder", "fig"]


def test_one_users_words_do_not_shift_another_users_ranking(store):
    for n, text in enumerate(_ALICE_DOCS):
        put(store, record(ALICE, f"a{n}", text), None, "hash")
    before = store.keyword_search(ALICE, "apple cherry")
    for n in range(50):
        put(store, record(BOB, f"b{n}", f"apple pie number {n}"), None, "hash")
    after = store.keyword_search(ALICE, "apple cherry")
    assert before == after
    assert [i for i, _ in after][:1] == ["a0"]


def test_sqlite_statistics_are_table_wide(tmp_path):
    """What the test above guards against: on SQLite's FTS5 table Bob's words flip Alice's order."""
    db = Database(tmp_path / "m.db")
    try:
        with db.write() as c:
            for n, text in enumerate(_ALICE_DOCS):
                r = record(ALICE, f"a{n}", text)
                sqlite_records.insert(c, r, None, "hash", mentions=mentions_of(r))
        with db.read() as c:
            before = [i for i, _ in sqlite_records.keyword_search(c, ALICE, "apple cherry")]
        with db.write() as c:
            for n in range(50):
                r = record(BOB, f"b{n}", f"apple pie number {n}")
                sqlite_records.insert(c, r, None, "h", mentions=mentions_of(r))
        with db.read() as c:
            after = [i for i, _ in sqlite_records.keyword_search(c, ALICE, "apple cherry")]
    finally:
        db.close()
    assert before[0] == "a0" and after[0] != "a0"


def test_purge_user_leaves_no_row_of_the_user(store):
    put(store, record(ALICE, "a1", "Alice lives in Lisbon"), np.ones(4), "hash")
    store.audit(AuditEntry(ALICE, "a1", "add", "new fact", 1.0))
    store.append_message(ALICE, WindowMessage("s1", "user", "I live in Lisbon", 5, "t1", 1.0))
    store.open_session(ALICE, "s1", 1.0)
    put(store, record(BOB, "b1", "Bob lives in Porto"), None, "hash")
    counts = store.purge_user("alice", None, 2.0, "openclaw-memory")
    assert counts["records"] == 1 and counts["messages"] == 1
    for table in (
        "records",
        "keyword_docs",
        "keyword_terms",
        "keyword_stats",
        "messages",
        "sessions",
        "versions",
        "outbox",
        "record_counts",
        "record_turns",
    ):
        assert inspect.count(store, table, user_id="alice") == 0, table
    texts = [r["reason"] for r in inspect.select(store, "audit", ("reason",))]
    assert not any("Lisbon" in t for t in texts)
    assert store.purged_at("alice", "default") == 2.0
    assert [i for i, _ in store.keyword_search(BOB, "lives")] == ["b1"]


def test_sessions_leases_and_counts(store):
    assert store.open_session(ALICE, "s1", 1.0) is True
    assert store.open_session(ALICE, "s1", 2.0) is False
    store.end_session(ALICE, "s1", 3.0, "stop", None)
    assert store.session(ALICE, "s1") == {"started_at": 1.0, "last_active_at": 2.0, "ended_at": 3.0}
    assert store.acquire_lease("maint", "p1", 10.0, 60.0)
    assert not store.acquire_lease("maint", "p2", 20.0, 60.0)
    assert store.acquire_lease("maint", "p2", 71.0, 60.0)
    put(store, record(ALICE, "a1", "x", type=MemoryType.PREFERENCE), None, "h")
    put(store, record(ALICE, "a2", "y", source=Source(turn_ids=("t9",))), None, "h")
    forgotten = record(ALICE, "a2", "y", status=Status.INACTIVE, source=Source(turn_ids=("t9",)))
    store.update(forgotten, None, "h", reindex=False, mentions=mentions_of(forgotten))
    assert store.counts_by_scope() == [
        {
            "user_id": "alice",
            "agent_id": "default",
            "status": "active",
            "type": "preference",
            "n": 1,
        },
        {"user_id": "alice", "agent_id": "default", "status": "inactive", "type": "fact", "n": 1},
    ]
    assert store.retired_turns(ALICE, ["t9", "t0"]) == {"t9": "a2"}


# ---- config, DSN and errors (no server needed) --------------------------------------------------


def test_a_missing_dsn_names_the_field(monkeypatch):
    from openclaw_memory.store.postgres import DSN_ENV, resolve_dsn

    monkeypatch.delenv(DSN_ENV, raising=False)
    with pytest.raises(ConfigError, match=r"storage\.postgres\.dsn.*OPENCLAW_MEMORY_PG_DSN"):
        resolve_dsn("")
    monkeypatch.setenv(DSN_ENV, "postgresql://u@h/db")
    assert resolve_dsn("") == "postgresql://u@h/db"
    assert resolve_dsn("postgresql://x@y/z") == "postgresql://x@y/z"


def test_backend_is_a_choice():
    assert config_from_dict({"storage": {"backend": "postgres"}}).storage.backend == "postgres"
    with pytest.raises(ConfigError, match="storage.backend"):
        config_from_dict({"storage": {"backend": "mysql"}})


def test_errors_never_show_the_password():
    pytest.importorskip("psycopg")
    from openclaw_memory.store.postgres import PostgresDatabase
    from openclaw_memory.store.postgres import redact

    dsn = "postgresql://ocm:s3cret-pw@127.0.0.1:1/memory?connect_timeout=2"
    assert "s3cret" not in redact(dsn) and "127.0.0.1" in redact(dsn)
    with pytest.raises(StoreError) as caught:
        PostgresDatabase(dsn, connect_timeout_s=2)
    assert "s3cret" not in str(caught.value) and "cannot connect" in str(caught.value)
