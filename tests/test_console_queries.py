"""The console's reads at their edges: the per-(user, agent, status, type) counts the users page
reads (schema migration 8, kept by triggers) equal counting the records after every kind of write
and vanish with a purged user; the list's keyset pages over the list indexes (migration 9) give
exactly the filtered, sorted rows, ties included, page after page."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

from openclaw_memory.runtime.factory import maintenance_ports
from openclaw_memory.console.pages import Filters
from openclaw_memory.console.pages import memory_page
from openclaw_memory.write.edit import edit_memory
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.maintain.doctor import purge_record
from openclaw_memory.maintain.doctor import purge_user
from openclaw_memory.store import inspect
from openclaw_memory.store.sqlite import SQLiteStore
from openclaw_memory.lang.entities import mentions_of
from openclaw_memory.types import Candidate, MemoryRecord, MemoryType, Scope, Source, Status
from store_helpers import forget_in, restore_in, writer_of

ALICE, ALICE_WORK, BOB = Scope("alice", "main"), Scope("alice", "work"), Scope("bob", "main")
#: the counts SQLite's triggers keep (migration 8) and its list indexes (migration 9)
pytestmark = pytest.mark.real_store("SQLite's count triggers, list indexes and migrations")


def _kept(store) -> list[tuple]:
    found = inspect.rows(store, "SELECT user_id, agent_id, status, type, n FROM record_counts")
    return sorted(tuple(r) for r in found)


def _counted(store) -> list[tuple]:
    found = inspect.rows(
        store,
        "SELECT user_id, agent_id, status, type, COUNT(*) FROM records "
        "GROUP BY user_id, agent_id, status, type",
    )
    return sorted(tuple(r) for r in found)


def _same(eng: MemoryEngine) -> list[tuple]:
    kept = _kept(eng.store)
    assert kept == _counted(eng.store)
    return kept


def test_counts_follow_every_write_and_a_purge_leaves_no_row(engine):
    tea = (
        writer_of(engine)
        .write(ALICE, [Candidate(MemoryType.PREFERENCE, "我喜欢喝乌龙茶", subject="drink")])[0]
        .record
    )
    job = (
        writer_of(engine)
        .write(
            ALICE, [Candidate(MemoryType.FACT, "Works at Acme as a data engineer", subject="job")]
        )[0]
        .record
    )
    writer_of(engine).write(
        ALICE_WORK, [Candidate(MemoryType.TASK, "Ship the quarterly report 季度报告")]
    )
    writer_of(engine).write(BOB, [Candidate(MemoryType.FACT, "Bob plays the cello 鲍勃拉大提琴")])
    assert ("alice", "main", "active", "preference", 1) in _same(engine)
    forget_in(engine, ALICE, tea.id, writer="test")
    assert ("alice", "main", "inactive", "preference", 1) in _same(engine)
    assert not any(
        r[2:4] == ("active", "preference") for r in _same(engine) if r[:2] == ("alice", "main")
    )
    restore_in(engine, ALICE, tea.id)
    edit_memory(engine, ALICE, job.id, "Works at Initech as a data engineer", writer="test")
    assert ("alice", "main", "active", "fact", 1) in _same(engine) and (
        "alice",
        "main",
        "inactive",
        "fact",
        1,
    ) in _same(engine)
    purge_record(maintenance_ports(engine), ALICE, tea.id)
    _same(engine)
    purge_user(maintenance_ports(engine), "alice")
    assert _same(engine) == [("bob", "main", "active", "fact", 1)]


def test_the_migration_counts_an_existing_store(config, clock):
    eng = MemoryEngine.open(config, clock=clock, background=False)
    for i in range(5):
        writer_of(eng).write(ALICE, [Candidate(MemoryType.FACT, f"fact number {i} 第{i}条")])
    eng.close()
    old = SQLiteStore.open(config.data_dir / "memory.db")  # back to schema 7: no counts kept
    inspect.execute(
        old,
        [
            "DROP TRIGGER rec_counts_insert",
            "DROP TRIGGER rec_counts_delete",
            "DROP TRIGGER rec_counts_update",
            "DROP TABLE record_counts",
            "DELETE FROM schema_version WHERE version > 7",
        ],
    )
    old.close()
    eng = MemoryEngine.open(config, clock=clock, background=False)
    try:
        assert _same(eng) == [("alice", "main", "active", "fact", 5)]
    finally:
        eng.close()


WORDS = ["coffee", "tea", "咖啡", "乌龙茶", "Lisbon", "杭州", "marathon", "跑步"]


@pytest.fixture(scope="module")
def listed(tmp_path_factory):
    """240 memories of alice (types, statuses, subjects, times with ties) and 40 of bob."""
    from conftest import make_config

    eng = MemoryEngine.open(make_config(tmp_path_factory.mktemp("list")), background=False)
    rng = random.Random(3)
    drafts = []
    for i in range(280):
        at = 1_704_067_200.0 + (i // 3) * 3600.0  # three memories share each creation time
        drafts.append(
            MemoryRecord(
                id=f"mem_list_{i:03d}",
                scope=ALICE if i < 240 else BOB,
                type=rng.choice(list(MemoryType)),
                summary=f"note {i}: {rng.choice(WORDS)} {rng.choice(WORDS)}",
                subject=rng.choice([None, "Diet", "diet/tea", "work"]),
                importance=0.5,
                confidence=0.5,
                status=rng.choice([Status.ACTIVE] * 3 + [Status.INACTIVE, Status.ARCHIVED]),
                source=Source(session_id="s1"),
                session_id="s1",
                created_at=at,
                updated_at=at + (i % 4) * 600.0,
            )
        )
    with eng.store.transaction():
        for r in drafts:
            eng.store.insert(r, None, eng.model_name, mentions=mentions_of(r))
    yield eng, [r for r in drafts if r.scope == ALICE]
    eng.close()


def _day(d: str) -> float:
    return datetime.strptime(d, "%Y-%m-%d").replace(tzinfo=timezone.utc).timestamp()


def _expected(records, f: Filters) -> list[str]:
    col = (
        "created_at"
        if f.date_from or f.date_to
        else {"updated": "updated_at", "created": "created_at"}[f.sort]
    )
    keep = [
        r
        for r in records
        if (f.status == "all" or r.status.value == f.status)
        and (not f.types() or r.type.value in f.types())
        and (not f.subject or (r.subject or "").lower().startswith(f.subject.lower()))
        and (not f.text or f.text in r.summary)
        and (not f.date_from or r.created_at >= _day(f.date_from))
        and (not f.date_to or r.created_at < _day(f.date_to) + 86400)
    ]
    rid = {r.id: i for i, r in enumerate(records)}  # inserted in order: rid order
    keep.sort(key=lambda r: (getattr(r, col), rid[r.id]), reverse=f.order == "desc")
    return [r.id for r in keep]


@pytest.mark.parametrize(
    "f",
    [
        Filters(),
        Filters(status="all"),
        Filters(status="all", sort="created", order="asc"),
        Filters(status="inactive", type="fact"),
        Filters(status="all", subject="diet"),
        Filters(subject="DIET/"),
        Filters(status="all", text="coffee"),
        Filters(status="all", text="咖啡", order="asc"),
        Filters(status="all", date_from="2024-01-02", date_to="2024-01-05"),
        Filters(status="archived", sort="created"),
        Filters(status="all", type="episode", subject="work", sort="created", order="desc"),
        Filters(type="raw", status="all"),
        Filters(type=""),
    ],
    ids=lambda f: ",".join(f"{k}={v}" for k, v in f.params().items()) or "default",
)
@pytest.mark.parametrize("cap", [10_000, 12], ids=["counted", "count-capped"])
def test_keyset_pages_give_exactly_the_filtered_sorted_rows(listed, f, cap, monkeypatch):
    """Every page, under the count cap and past it."""
    import openclaw_memory.console.pages as q

    monkeypatch.setattr(q, "COUNT_CAP", cap)
    eng, records = listed
    seen, cursor, pages = [], "", 0
    while True:
        page = memory_page(eng, ALICE, f, cursor, size=7)
        seen += [r.id for r in page.rows]
        assert page.total == (
            len(_expected(records, f)) if f.text else min(cap + 1, len(_expected(records, f)))
        )
        pages += 1
        if page.next_after is None:
            break
        cursor = page.next_after
    assert seen == _expected(records, f) and seen, f
    assert pages == max(1, -(-len(seen) // 7))


def test_read_path_lookups_by_index_find_what_the_scans_found(engine):
    """The turn lookup (record_turns) and the profile channel's query (rec_profile) give the
    rows, and the order among ties, that the scans before migration 9 gave."""
    from openclaw_memory.store.records import retired_turns

    rng = random.Random(5)
    turns = [f"s1#{i}" for i in range(12)]
    drafts = [
        MemoryRecord(
            id=f"mem_tie_{i:02d}",
            scope=ALICE,
            type=rng.choice(
                [MemoryType.PROFILE, MemoryType.PREFERENCE, MemoryType.FACT, MemoryType.EPISODE]
            ),
            summary=f"tie {i} 平局 {i}",
            importance=rng.choice([0.5, 0.7]),
            confidence=0.8,
            status=rng.choice([Status.ACTIVE, Status.INACTIVE]),
            source=Source(session_id="s1", turn_ids=tuple(rng.sample(turns, 2))),
            session_id="s1",
            created_at=1_704_067_200.0,
            updated_at=1_704_067_200.0 + rng.choice([0, 60]),
        )
        for i in range(40)
    ]
    with engine.store.transaction():
        for r in drafts:
            engine.store.insert(r, None, engine.model_name, mentions=mentions_of(r))
    store = engine.store
    with engine.db.read() as db:
        scanned: dict[str, str] = {}
        for row in inspect.rows(  # the query before migration 9, over (user, agent, status, type)
            store,
            "SELECT r.id, j.value FROM records r INDEXED BY rec_scope, json_each(r.turn_ids) j WHERE r.user_id = ? "
            "AND r.agent_id = ? AND r.status = 'inactive' AND r.type IN ('profile', 'preference', 'fact', 'task', "
            "'decision') AND j.value IN (%s)" % ",".join("?" * len(turns)),
            ("alice", "main", *turns),
        ):
            scanned.setdefault(row[1], row[0])
        assert scanned and retired_turns(db, ALICE, turns) == scanned
        profile = (
            "SELECT id FROM records {} WHERE user_id = 'alice' AND agent_id = 'main' AND (status = 'active' AND "
            "type IN ('profile', 'preference') AND doubt_of IS NULL) ORDER BY importance DESC, updated_at DESC LIMIT 20"
        )
        plan = " ".join(
            r[3] for r in inspect.rows(store, "EXPLAIN QUERY PLAN " + profile.format(""))
        )
        assert "rec_profile" in plan and "TEMP B-TREE" not in plan
        assert [r[0] for r in inspect.rows(store, profile.format(""))] == [
            r[0] for r in inspect.rows(store, profile.format("INDEXED BY rec_scope"))
        ]


def test_a_filter_matching_nothing_is_an_empty_page(listed):
    eng, _ = listed
    for f in (
        Filters(status="all", subject="zz"),
        Filters(type="fact", subject="没有"),
        Filters(text="violin 小提琴"),
    ):
        page = memory_page(eng, ALICE, f)
        assert (page.rows, page.total, page.next_after) == ([], 0, None), f
