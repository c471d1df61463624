"""A batch of candidates is written in one transaction, with the outcome of writing them one by
one: each sees the ones before it, and a failure keeps what preceded the failing candidate."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from openclaw_memory.types import Candidate, Channel, MemoryType, Scope, Status
from openclaw_memory.errors import StoreError
from store_helpers import find, writer_of
from openclaw_memory.store import inspect

ALICE = Scope("alice")
#: SQLite's own transactions: its commits traced, a trigger refusing a row, an outer write
SQLITE_TRANSACTIONS = pytest.mark.real_store("SQLite's transactions and triggers")


def pref(text, subject="drink"):
    return Candidate(
        MemoryType.PREFERENCE, text, subject=subject, channel=Channel.EXPLICIT, confidence=0.95
    )


def fact(text):
    return Candidate(MemoryType.FACT, text, subject=f"topic/{text}", channel=Channel.EXPLICIT)


def _commits(engine) -> list[str]:
    seen: list[str] = []
    engine.db._conn.set_trace_callback(
        lambda sql: seen.append(sql) if sql.startswith("COMMIT") else None
    )
    return seen


@SQLITE_TRANSACTIONS
def test_a_batch_commits_once_and_each_candidate_sees_the_ones_before_it(engine):
    commits = _commits(engine)
    results = writer_of(engine).write(
        ALICE,
        [
            pref("I prefer coffee in the morning"),
            pref("I prefer coffee in the morning"),
            pref("I don't like coffee"),
            fact("the build uses make"),
        ],
    )
    assert len(commits) == 1
    assert [r.action for r in results] == ["insert", "update", "update", "insert"]
    live = find(engine, ALICE, status="active")
    assert sorted(r.summary for r in live) == ["I don't like coffee", "the build uses make"]


@SQLITE_TRANSACTIONS
def test_a_failing_candidate_keeps_the_ones_before_it_and_raises(engine, caplog):
    inspect.execute(
        engine.store,
        "CREATE TEMP TRIGGER refuse BEFORE INSERT ON records WHEN NEW.summary = 'boom' "
        "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
    )
    batch = [fact("one"), fact("two"), fact("boom"), fact("four")]
    # the driver's error leaves the store as the package's StoreError, the cause kept
    with pytest.raises(StoreError, match="refused by the test") as raised:
        writer_of(engine).write(ALICE, batch)
    assert isinstance(raised.value.__cause__, sqlite3.IntegrityError)
    assert sorted(r.summary for r in find(engine, ALICE)) == ["one", "two"]
    inserts = [a for a in engine.audit_log(ALICE) if a["action"] == "insert"]
    assert len(inserts) == 2
    assert "writing them one by one" in caplog.text
    # nothing half-written: every record has its FTS row, vector and outbox entry
    for table in ("records_fts", "vectors", "outbox"):
        assert inspect.count(engine.store, table) == 2, table


def test_given_vectors_are_the_ones_write_would_compute(engine):
    cands = [fact("the deploy runs on Fridays"), pref("我喜欢喝茶")]
    vecs = writer_of(engine).embed(cands)
    written = writer_of(engine).write(ALICE, cands, vectors=vecs)
    stored = engine.store.vectors_with_parts([res.record.id for res in written])[0]
    for res, vec in zip(written, vecs.whole):
        assert np.array_equal(stored[res.record.id], vec)
    other = writer_of(engine).write(Scope("bob"), cands)
    theirs = engine.store.vectors_with_parts([res.record.id for res in other])[0]
    for res, mine in zip(other, written):
        assert theirs[res.record.id].tobytes() == stored[mine.record.id].tobytes()
    with pytest.raises(ValueError, match="one per candidate"):
        writer_of(engine).write(ALICE, cands, vectors=vecs[:1])


@SQLITE_TRANSACTIONS
def test_a_write_inside_an_outer_transaction_joins_it(engine):
    with engine.db.write():
        assert engine.db.nested()
        writer_of(engine).write(ALICE, [fact("a"), fact("b")])
    assert not engine.db.nested()
    assert {r.summary for r in find(engine, ALICE) if r.status is Status.ACTIVE} == {"a", "b"}
