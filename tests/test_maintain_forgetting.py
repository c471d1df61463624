"""Forgetting jobs: TTL archive, the per-user cap, event compaction, cleanup, and the runner."""

from __future__ import annotations

import pytest

from openclaw_memory.runtime.factory import maintenance_ports
from openclaw_memory.core.clock import DAY, FakeClock, iso_date
from openclaw_memory.config import config_from_dict
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.maintain import (
    cleanup,
    compact_events,
    digest,
    enforce_cap,
    expire,
    run_maintenance,
)
from openclaw_memory.core.tokens import count_tokens
from openclaw_memory.types import Candidate, Channel, MemoryRecord, MemoryType, Scope, Status
from store_helpers import find, forget_in, writer_of
from openclaw_memory.store import inspect

T = MemoryType
U1 = Scope("u1")
START = 1_750_000_000.0


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


def open_engine(tmp_path, clock, **sections) -> MemoryEngine:
    data = {"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"}, **sections}
    return MemoryEngine.open(config_from_dict(data), clock=clock, background=False)


@pytest.fixture
def engine(tmp_path, clock):
    e = open_engine(tmp_path, clock)
    yield e
    e.close()


def write(engine, scope, type_, summary, **kw):
    return writer_of(engine).write(scope, [Candidate(type_, summary, **kw)])[0].record


def hits(engine, scope, text, tier="hot"):
    return [i for i, _ in engine.semantic(scope, engine.embed_query(text), limit=50, tier=tier)]


# ---- TTL --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["deploy to staging failed: disk full", "部署到测试环境失败：磁盘已满"]
)
def test_ttl_archives_an_expired_event_without_deleting_it(engine, clock, text):
    old = write(engine, U1, T.EVENT, text, subject="deploy")
    clock.advance(days=20)
    fresh = write(engine, U1, T.EVENT, text + " again", subject="deploy")
    clock.advance(days=11)  # old is 31 days old, fresh 11

    assert expire(maintenance_ports(engine), U1) == 1

    assert engine.get(U1, old.id).status is Status.ARCHIVED
    assert engine.get(U1, fresh.id).status is Status.ACTIVE
    assert old.id not in hits(engine, U1, text)
    assert old.id in hits(engine, U1, text, tier="cold")
    assert fresh.id in hits(engine, U1, text)
    assert [a["reason"] for a in engine.audit_log(U1, old.id)][0] == "expired (ttl)"
    assert expire(maintenance_ports(engine), U1) == 0  # idempotent


def test_ttl_ignores_records_without_expiry_and_other_users(engine, clock):
    fact = write(engine, U1, T.FACT, "the office is in Berlin", subject="office")
    other = write(engine, Scope("u2"), T.EVENT, "build failed", subject="build")
    clock.advance(days=400)
    assert expire(maintenance_ports(engine), U1) == 0
    assert engine.get(U1, fact.id).status is Status.ACTIVE
    assert engine.get(Scope("u2"), other.id).status is Status.ACTIVE


# ---- cap --------------------------------------------------------------------------------------


def test_cap_archives_the_lowest_value_curated_records(tmp_path, clock):
    engine = open_engine(tmp_path, clock, long_term={"max_facts_per_user": 3})
    try:
        low = write(
            engine, U1, T.FACT, "the printer is on floor two", subject="printer", importance=0.1
        )
        mid = write(engine, U1, T.FACT, "lunch is at noon", subject="lunch", importance=0.5)
        high = write(
            engine, U1, T.DECISION, "we chose Postgres over MySQL", subject="db", importance=0.9
        )
        profile = write(engine, U1, T.PROFILE, "名字叫王小明", subject="name", importance=0.05)
        told = write(
            engine,
            U1,
            T.PREFERENCE,
            "always answer in tables",
            subject="format",
            importance=0.05,
            channel=Channel.EXPLICIT,
        )
        events = [
            write(engine, U1, T.EVENT, f"tool call {i} ok", subject="tool", importance=0.0)
            for i in range(4)
        ]

        assert enforce_cap(maintenance_ports(engine), U1) == 2

        status = {
            r.id: engine.get(U1, r.id).status for r in (low, mid, high, profile, told, *events)
        }
        assert status[low.id] is Status.ARCHIVED and status[mid.id] is Status.ARCHIVED
        assert {status[high.id], status[profile.id], status[told.id]} == {Status.ACTIVE}
        assert all(status[e.id] is Status.ACTIVE for e in events)  # the episodic log is not capped
        assert low.id in hits(engine, U1, "the printer is on floor two", tier="cold")
        assert low.id not in hits(engine, U1, "the printer is on floor two")
        assert enforce_cap(maintenance_ports(engine), U1) == 0
    finally:
        engine.close()


def test_cap_prefers_to_keep_what_was_used(tmp_path, clock):
    engine = open_engine(tmp_path, clock, long_term={"max_facts_per_user": 1})
    try:
        a = write(
            engine, U1, T.FACT, "the wifi password rotates monthly", subject="wifi", importance=0.5
        )
        b = write(engine, U1, T.FACT, "咖啡机在三楼", subject="coffee", importance=0.5)
        clock.advance(days=1)
        engine.touch(U1, [a.id])  # a is the older record, but it was used since
        assert enforce_cap(maintenance_ports(engine), U1) == 1
        assert engine.get(U1, a.id).status is Status.ACTIVE
        assert engine.get(U1, b.id).status is Status.ARCHIVED
    finally:
        engine.close()


# ---- compaction -------------------------------------------------------------------------------


def test_compaction_turns_the_oldest_30_of_51_events_into_one_summary(engine, clock):
    events = []
    for i in range(51):
        events.append(
            write(
                engine,
                U1,
                T.EVENT,
                "tests passed" if i % 2 else "tests failed",
                subject="ci",
                turn_ids=(f"t{i}",),
                tags=("tool",),
            )
        )
        clock.advance(3600)
    write(engine, U1, T.EVENT, "unrelated event", subject="other")

    done = compact_events(maintenance_ports(engine), U1)

    assert len(done) == 1
    oldest = [e.id for e in events[:30]]
    assert list(done[0].event_ids) == oldest
    summary = engine.get(U1, done[0].summary_id)
    assert summary.type is T.SUMMARY and summary.source.channel is Channel.SUMMARY
    assert summary.subject == "ci"
    assert list(summary.links) == oldest
    assert summary.source.turn_ids == tuple(f"t{i}" for i in range(30))
    assert "30 events about ci" in summary.summary and "tests passed (x15)" in summary.summary
    for e in events[:30]:
        assert engine.get(U1, e.id).status is Status.ARCHIVED
        assert engine.audit_log(U1, e.id)[0]["reason"] == f"compacted into {summary.id}"
    assert all(engine.get(U1, e.id).status is Status.ACTIVE for e in events[30:])
    assert summary.id in hits(engine, U1, summary.summary)
    assert events[0].id in hits(engine, U1, events[0].summary, tier="cold")
    assert compact_events(maintenance_ports(engine), U1) == []  # 21 left: under the trigger


def test_compaction_repeats_until_under_the_trigger(engine):
    write_many = [Candidate(T.EVENT, f"事件 {i}：构建成功", subject="构建") for i in range(120)]
    writer_of(engine).write(U1, write_many)
    done = compact_events(maintenance_ports(engine), U1)
    assert len(done) == 3  # 120 -> 90 -> 60 -> 30
    left = find(engine, U1, status="active", type="event", limit=500)
    assert len(left) == 30


def _event(i: int, summary: str, day: float, tags=()) -> MemoryRecord:
    return MemoryRecord(
        id=f"e{i}", scope=U1, type=T.EVENT, summary=summary, tags=tags, created_at=START + day * DAY
    )


def test_digest_in_english_counts_kinds_and_distinct_outcomes():
    events = [
        _event(0, "npm test failed", 0, ("tool",)),
        _event(1, "npm test failed", 1, ("tool",)),
        _event(2, "deployed v2", 2, ("deploy",)),
    ]
    text = digest("ci", events)
    assert text.startswith(
        f"3 events about ci from {iso_date(START)} to {iso_date(START + 2 * DAY)}"
    )
    assert "tool x2, deploy x1" in text
    assert "npm test failed (x2); deployed v2." in text


def test_digest_in_chinese():
    events = [_event(0, "测试失败。", 0), _event(1, "测试失败", 0), _event(2, "发布了第二版", 0)]
    text = digest("发布", events)
    assert text.startswith(f"发布相关的3 条事件（{iso_date(START)}）")
    assert "事件 3 条" in text and "测试失败（2 次）；发布了第二版。" in text


def test_digest_is_capped_and_says_how_much_it_left_out():
    events = [
        _event(i, f"distinct outcome number {i} with a long explanation of what happened", 0)
        for i in range(40)
    ]
    text = digest(None, events, max_tokens=120)
    assert count_tokens(text) <= 130
    assert "more." in text and "distinct outcome number 0" in text


# ---- cleanup ----------------------------------------------------------------------------------


def test_cleanup_deletes_only_unused_unimportant_records_and_their_vectors(engine, clock):
    w = lambda t, s, **kw: write(engine, U1, t, s, subject=s[:12], **kw)  # noqa: E731
    doomed = w(T.FACT, "old trivia about the weather", importance=0.2)
    doomed_zh = w(T.FACT, "很久以前的闲聊内容", importance=0.3)
    archived = w(T.EVENT, "ancient build log", importance=0.1)
    keep_important = w(T.FACT, "the production database is db-7", importance=0.9)
    keep_profile = w(T.PROFILE, "lives in Shanghai", importance=0.1)
    keep_explicit = w(T.PREFERENCE, "never use emoji", importance=0.1, channel=Channel.EXPLICIT)
    keep_used = w(T.FACT, "the VPN needs a token", importance=0.1)
    keep_inactive = w(T.FACT, "an old forgotten note", importance=0.1)
    keep_summary = w(T.SUMMARY, "week 12: three deploys, one rollback", importance=0.1)
    forget_in(engine, U1, keep_inactive.id)
    clock.advance(days=100)
    expire(maintenance_ports(engine), U1)  # the event's 30-day TTL archives it
    engine.touch(U1, [keep_used.id])
    clock.advance(days=90)
    keep_recent = w(T.FACT, "fresh low-value note", importance=0.1)
    engine.indexer.drain()

    assert cleanup(maintenance_ports(engine), U1) == 3

    gone = {doomed.id, doomed_zh.id, archived.id}
    left = {r.id for r in find(engine, U1, limit=100)}
    assert not gone & left
    assert {
        keep_important.id,
        keep_profile.id,
        keep_explicit.id,
        keep_used.id,
        keep_inactive.id,
        keep_recent.id,
        keep_summary.id,
    } <= left
    engine.indexer.drain(U1)
    assert not gone & (engine.index.ids(U1, "hot") | engine.index.ids(U1, "cold"))
    assert inspect.count(engine.store, "vectors", record_id=tuple(gone)) == 0
    assert engine.keyword(U1, "闲聊", statuses=("active", "archived", "inactive")) == []
    assert engine.audit_log(U1, doomed.id)[0]["action"] == "delete"


# ---- runner -----------------------------------------------------------------------------------


def test_run_maintenance_covers_every_scope_or_one(engine, clock):
    u2 = Scope("u2", "helper")
    for scope in (U1, u2):
        write(engine, scope, T.EVENT, "nightly backup finished", subject="backup")
    writer_of(engine).write(
        U1, [Candidate(T.EVENT, f"poll {i} ok", subject="poll") for i in range(51)]
    )
    clock.advance(days=10)

    only = run_maintenance(maintenance_ports(engine), U1)
    assert only.scopes == 1 and only.summaries == 1 and only.compacted == 30 and only.expired == 0

    clock.advance(days=25)
    report = run_maintenance(maintenance_ports(engine))
    assert report.scopes == 2
    assert report.by_scope["u2/helper"]["expired"] == 1
    assert (
        report.by_scope["u1/default"]["expired"] == 22
    )  # 21 poll events + backup; not the summary
    assert report.to_dict()["changed"] == report.changed == 23
    assert engine.indexer.pending() == 0
    assert run_maintenance(maintenance_ports(engine), user_id="nobody").scopes == 0
