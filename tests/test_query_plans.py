"""The per-user read queries are planned on indexes.

A seeded store (the bench's synthetic memories: one Chinese and one English user, each with some
memories in the other language) serves Chinese and English requests through `before_request`
with every statement it sends logged (`bench --explain`'s log), and each statement is explained on
that store: on SQLite, no table is walked whole, and a lookup by id within a scope starts from
the id; on PostgreSQL (the backend step), the same with sequential scans disabled, so a statement
no index serves still shows a "Seq Scan".
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from openclaw_memory.embed.embedding import build_embedder
from openclaw_memory_bench.bench.backends import prepared, storage_overrides
from openclaw_memory_bench.bench.explain import (
    explain,
    is_sqlite,
    postgres_scans,
    recording,
    shape,
    sqlite_scans,
)
from openclaw_memory_bench.bench.read_path import bench_middleware, request_for
from openclaw_memory_bench.bench.store import bench_config, copy_data, ensure_store, load_entry

#: requests per language
PER_LANG = 4
#: statements that pick rows by their ids (records, entities, entity links)
BY_ID = re.compile(r"\b(?:\w+\.)?(?:entity_)?id IN \(\.\.\.\)")
#: a plan step that starts from an id (a placeholder, a list, or PostgreSQL's literal of one id)
FROM_ID = re.compile(r"\b(?:entity_id|id|rowid) ?= ?(?:\?|ANY|'[^']*'::\w+)")
#: the indexer's queue, read across scopes in its own order up to a LIMIT (not a per-user read)
OUTBOX = "SELECT * FROM outbox ORDER BY seq LIMIT ?"


@pytest.fixture(scope="module")
def entry(tmp_path_factory: Any) -> Path:
    return ensure_store(tmp_path_factory.mktemp("plans"), 160, 2, "hash", 3, in_subprocess=False)


def _requests(entry: Path) -> list[Any]:
    _, bank = load_entry(entry)
    return [q for lang in ("zh", "en") for q in [q for q in bank if q.lang == lang][:PER_LANG]]


def _plans(entry: Path, tmp: Path, backend: str = "sqlite", dsn: str = "") -> list[Any]:
    """Every statement of the requests, explained on the store that served them."""
    data = copy_data(entry, tmp)
    requests = _requests(entry)
    with prepared(backend, data, dsn) as scratch:
        cfg = bench_config(data, "hash", storage=storage_overrides(backend, scratch))
        mw = bench_middleware(cfg, build_embedder("hash"))
        try:
            call = lambda q: mw.before_request(request_for(q, f"plans-{q.user_id}"))  # noqa: E731
            for q in requests:  # the first request of a session does more: log the later ones
                call(q)
            db = mw.engine.store.db
            mw.flush()
            with recording(db) as log:
                for q in requests:
                    call(q)
                mw.flush()
            if is_sqlite(db):
                return explain(db, log.statements.values())
            with db.read() as conn:
                conn.execute("SET enable_seqscan = off")
            try:
                return explain(db, log.statements.values())
            finally:
                with db.read() as conn:
                    conn.execute("RESET enable_seqscan")
        finally:
            mw.close()


def _first_step(plan: list[str]) -> str:
    """The outer loop of a SQLite plan: its first step on a table."""
    return next(s.strip() for s in plan if s.strip().startswith(("SEARCH", "SCAN")))


def test_the_seed_and_the_requests_hold_both_languages(entry):
    assert {q.lang for q in _requests(entry)} == {"zh", "en"}
    assert len(_requests(entry)) == 2 * PER_LANG


def test_shape_folds_values_and_in_lists():
    assert shape("SELECT * FROM t WHERE a = 'x''y' AND b IN (1, 2.5, 3) AND c = X'0a'") == (
        "SELECT * FROM t WHERE a = ? AND b IN (...) AND c = ?"
    )
    assert shape("SELECT  *\n FROM t WHERE a = %s AND b IN (%s,%s)") == (
        "SELECT * FROM t WHERE a = ? AND b IN (...)"
    )


@pytest.mark.parametrize(
    ("step", "full"),
    [
        ("SCAN records", True),
        ("SCAN r USING INDEX rec_scope", True),
        ("SCAN r USING COVERING INDEX rec_scope", True),
        ("SEARCH r USING INDEX rec_scope_id (user_id=? AND agent_id=? AND id=?)", False),
        ("SCAN records_fts VIRTUAL TABLE INDEX 0:M2", False),
        ("SCAN json_each VIRTUAL TABLE INDEX 1:", False),
        ("SCAN CONSTANT ROW", False),
    ],
)
def test_sqlite_full_scans_are_told_from_searches(step, full):
    assert bool(sqlite_scans([step])) is full


def test_sqlite_scans_of_a_plans_own_results_are_not_full_scans():
    plan = [
        "MATERIALIZE ep",
        "  SEARCH r USING INDEX x (id=?)",
        "SCAN ep",
        "CO-ROUTINE t",
        "SCAN t",
    ]
    assert sqlite_scans(plan) == []


def test_postgres_full_scans_are_its_seq_scans():
    plan = ["Nested Loop", "  ->  Seq Scan on records r", "  ->  Index Scan using x on vectors v"]
    assert postgres_scans(plan) == ["records"]


@pytest.fixture(scope="module")
def sqlite_plans(entry, tmp_path_factory):
    return _plans(entry, tmp_path_factory.mktemp("sqlite"))


def test_sqlite_reads_walk_no_table_whole(sqlite_plans):
    scanned = {st.shape: st.scans for st in sqlite_plans if st.scans}
    assert set(scanned) <= {OUTBOX}, scanned
    assert len(sqlite_plans) >= 15  # the channels, the entity look-ups, the block's reads


def test_sqlite_lookups_by_id_start_from_the_id(sqlite_plans):
    by_id = [st for st in sqlite_plans if BY_ID.search(st.shape)]
    assert any("entity_links" in st.shape for st in by_id)  # the seed's entities were read
    assert any("FROM entities" in st.shape for st in by_id)
    for st in by_id:
        assert FROM_ID.search(_first_step(st.plan)), (st.shape, st.plan)


def test_postgres_reads_are_served_by_indexes(entry, tmp_path, pg_server):
    plans = _plans(entry, tmp_path, "postgres", pg_server.dsn())
    assert len(plans) >= 15
    scanned = {st.shape: st.scans for st in plans if st.scans}
    assert not scanned, scanned
    # Lookups by id: every one reads an index of its table. Which one is the planner's choice:
    # in this database, never analysed, it may take the scope's index for `id IN (...)` and
    # filter the ids in the heap (SQLite's choice is pinned by the test above)
    for st in (st for st in plans if BY_ID.search(st.shape)):
        assert any("Index" in line for line in st.plan), (st.shape, st.plan)


def _steps(store: Any, read: Any) -> int:
    """The SQLite virtual machine's steps (in thousands) one read of the store takes."""
    ticks = [0]

    def tick() -> int:
        ticks[0] += 1
        return 0

    store.db._conn.set_progress_handler(tick, 1000)
    try:
        read()
    finally:
        store.db._conn.set_progress_handler(None, 1000)
    return ticks[0]


def test_the_newest_of_a_rare_type_or_subject_costs_what_it_returns(tmp_path):
    # a scope with no procedure, and a subject (and a name) held by one record among thousands of
    # another: their newest records are read from an index in order, so ten times the user's
    # records cost about the same steps (the walk of the user's records newest first, or the
    # sort of every link of a common name, grew with them)
    from openclaw_memory.lang.entities import mentions_of
    from openclaw_memory.store.sqlite import SQLiteStore
    from openclaw_memory.types import MemoryRecord, MemoryType, Scope

    scope = Scope("alice", "a1")
    costs = []
    for size in (300, 3000):
        store = SQLiteStore.open(tmp_path / f"m{size}.db")
        with store.transaction():
            for i in range(size):
                r = MemoryRecord(
                    id=f"m{i}",
                    scope=scope,
                    type=MemoryType.FACT,
                    summary=f"drinks tea with Grace {i}",
                    subject="drink",
                    created_at=float(i),
                    updated_at=float(i),
                )
                store.insert(r, None, "hash-8", mentions=mentions_of(r))
            old = MemoryRecord(
                id="city",
                scope=scope,
                type=MemoryType.FACT,
                summary="lives in Lyon near Grace",
                subject="city",
                created_at=0.5,
                updated_at=0.5,
            )
            store.insert(old, None, "hash-8", mentions=mentions_of(old))
        names = {n: e for e, n in store.entities_named(scope, ["grace", "lyon"]).items()}
        costs.append(
            (
                _steps(store, lambda: store.live_claims(scope, ["procedure"], limit=200)),
                _steps(store, lambda: store.live_by_subject(scope, ["city", "drink"], limit=20)),
                _steps(store, lambda: store.live_by_subject(scope, ["city"], limit=20)),
                _steps(store, lambda: store.live_subjects(scope)),
                _steps(store, lambda: store.records_naming(scope, list(names.values()), limit=20)),
            )
        )
        assert [r.id for r in store.live_by_subject(scope, ["city"])] == ["city"]
        newest = store.records_naming(scope, [names["Lyon"], names["Grace"]], limit=3)
        grace = [(f"m{size - n}", names["Grace"]) for n in (1, 2, 3)]
        assert newest == grace, newest
        assert store.records_naming(scope, [names["Lyon"]]) == [("city", names["Lyon"])]
        store.close()
    small, large = costs
    assert all(b <= 2 * a + 2 for a, b in zip(small, large)), costs
