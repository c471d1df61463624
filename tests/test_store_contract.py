"""One suite, every implementation of the storage ports (tests/store_backends.py): the record
store (SQLite, in-memory, ...) and the vector index (Chroma, numpy, ...) answer the same
questions the same way. Chinese and English side by side."""

from __future__ import annotations

import json

import numpy as np
import pytest

from openclaw_memory.store.ports import ListQuery, UnusedQuery, content_hash, hashed_user
from openclaw_memory.lang.entities import NAME, PLACE, Entity, Mentions, mentions_of
from openclaw_memory.types import (
    WindowMessage,
    AuditEntry,
    Channel,
    MemoryRecord,
    MemoryType,
    Scope,
    Source,
    Status,
)
from store_backends import RECORD_STORES, VECTOR_INDEXES

ALICE, BOB = Scope("alice", "a1"), Scope("bob", "a1")
ALICE_OTHER_AGENT = Scope("alice", "a2")
DIM = 8


@pytest.fixture(params=sorted(RECORD_STORES))
def store(request, tmp_path):
    s = RECORD_STORES[request.param](tmp_path)
    yield s
    s.close()


@pytest.fixture(params=sorted(VECTOR_INDEXES))
def index(request, tmp_path):
    i = VECTOR_INDEXES[request.param](tmp_path, "hash-8", DIM)
    yield i
    i.close()


_n = iter(range(1, 10**6))


def rec(scope=ALICE, summary="a memory", type_=MemoryType.FACT, at=None, **kw) -> MemoryRecord:
    n = next(_n)
    at = float(1000 + n) if at is None else at
    return MemoryRecord(
        id=kw.pop("id", f"mem_{n}"),
        scope=scope,
        type=type_,
        summary=summary,
        created_at=kw.pop("created_at", at),
        updated_at=kw.pop("updated_at", at),
        **kw,
    )


def vec(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def put(store, *records, vectors=True):
    with store.transaction():
        for i, r in enumerate(records):
            store.insert(r, vec(i) if vectors else None, "hash-8", mentions=mentions_of(r))
    return records


# ---- records, scope, transactions ---------------------------------------------------------


def test_a_record_is_read_back_only_within_its_scope(store):
    (r,) = put(
        store, rec(summary="我喜欢乌龙茶", subject="drink", tags=("t",), entities=("乌龙茶",))
    )
    assert store.get(ALICE, r.id) == r
    assert store.get(BOB, r.id) is None and store.get(ALICE_OTHER_AGENT, r.id) is None
    assert store.get_many(ALICE, [r.id, "missing"]) == {r.id: r}
    assert store.get_many(BOB, [r.id]) == {}


def test_a_workspace_sees_its_own_records_and_the_shared_ones(store):
    shared, mine, theirs = put(
        store,
        rec(summary="shared"),
        rec(summary="mine", scope=Scope("alice", "a1", "w1")),
        rec(summary="theirs", scope=Scope("alice", "a1", "w2")),
    )
    seen = store.get_many(Scope("alice", "a1", "w1"), [shared.id, mine.id, theirs.id])
    assert set(seen) == {shared.id, mine.id}
    assert set(store.get_many(ALICE, [shared.id, mine.id, theirs.id])) == {
        shared.id,
        mine.id,
        theirs.id,
    }


def test_a_failed_transaction_leaves_nothing_and_nested_ones_join(store):
    with pytest.raises(RuntimeError):
        with store.transaction():
            put(store, rec(id="gone"))
            assert store.in_transaction()
            raise RuntimeError("boom")
    assert store.get(ALICE, "gone") is None and store.pending() == 0
    assert not store.in_transaction()
    with store.transaction():
        with store.transaction():
            put(store, rec(id="kept"))
    assert store.get(ALICE, "kept") is not None


def test_writes_queue_index_work_in_order_and_done_removes_it(store):
    a, b = put(store, rec(), rec(scope=BOB))
    forgotten = a.replace(status=Status.INACTIVE)
    store.update(forgotten, None, "hash-8", reindex=False, mentions=mentions_of(forgotten))
    entries = store.next_entries(None, 10)
    assert [(e["record_id"], e["op"]) for e in entries] == [
        (a.id, "upsert"),
        (b.id, "upsert"),
        (a.id, "delete"),
    ]
    assert store.pending(ALICE) == 2 and store.pending(BOB) == 1
    assert [e["record_id"] for e in store.next_entries(BOB, 10)] == [b.id]
    store.done([e["seq"] for e in entries[:2]])
    assert store.pending() == 1


def test_update_touch_and_delete(store):
    (r,) = put(store, rec(summary="the build uses make"))
    new = r.replace(summary="the build uses bazel", version=2, updated_at=r.updated_at + 1)
    store.save_version(r, new.updated_at)
    store.update(new, vec(9), "hash-8", reindex=True, mentions=mentions_of(new))
    assert store.get(ALICE, r.id).summary == "the build uses bazel"
    assert [i for i, _ in store.keyword_search(ALICE, "bazel")] == [r.id]
    assert store.keyword_search(ALICE, "make") == []
    assert [v["summary"] for v in store.versions(ALICE, r.id)] == ["the build uses make"]
    assert store.versions(BOB, r.id) == []
    store.touch(ALICE, [r.id], at=5000.0)
    store.touch(BOB, [r.id], at=6000.0)  # another user's touch reaches nothing
    got = store.get(ALICE, r.id)
    assert (got.access_count, got.last_accessed_at) == (1, 5000.0)
    assert store.delete_records(BOB, [r.id]) == 0
    assert store.delete_records(ALICE, [r.id]) == 1
    assert store.get(ALICE, r.id) is None and store.vectors_with_parts([r.id]) == ({}, {})
    assert store.versions(ALICE, r.id) == []
    assert store.next_entries(ALICE, 10)[-1]["op"] == "delete"


# ---- keyword search: the score contract ---------------------------------------------------


@pytest.mark.parametrize(
    "query, hit",
    [("乌龙茶", "我每天早上喝乌龙茶"), ("oolong tea", "I drink oolong tea every morning")],
)
def test_keyword_search_finds_chinese_and_english_with_scores_in_0_1(store, query, hit):
    put(
        store,
        rec(summary="我每天早上喝乌龙茶"),
        rec(summary="I drink oolong tea every morning"),
        rec(summary="the tea kettle is in the kitchen"),
        rec(summary="我的狗叫豆豆"),
    )
    found = store.keyword_search(ALICE, query)
    assert found, query
    texts = {store.get(ALICE, i).summary: s for i, s in found}
    assert hit in texts
    assert all(0.0 < s <= 1.0 for _, s in found)
    assert found[0][1] == 1.0 and [s for _, s in found] == sorted(
        (s for _, s in found), reverse=True
    )
    assert store.keyword_search(BOB, query) == []
    assert store.keyword_search(ALICE, "the of ,") == []  # no content token: nothing


def test_keyword_search_keeps_to_the_statuses_asked(store):
    live, old = put(store, rec(summary="PRD-223 ships on Friday"), rec(summary="PRD-223 slipped"))
    archived = old.replace(status=Status.ARCHIVED)
    store.update(archived, None, "", reindex=False, mentions=mentions_of(archived))
    assert [i for i, _ in store.keyword_search(ALICE, "PRD-223")] == [live.id]
    both = store.keyword_search(ALICE, "PRD-223", statuses=("active", "archived"))
    assert {i for i, _ in both} == {live.id, old.id}
    assert store.search_tokens([live.id])[live.id] >= {"prd"} or store.search_tokens([live.id])


# ---- the recall channels' look-ups --------------------------------------------------------


def test_recent_profile_summaries_and_subjects(store):
    ep = rec(summary="hi there", type_=MemoryType.EPISODE, importance=0.9, at=100.0)
    recent = rec(summary="deadline friday", type_=MemoryType.TASK, importance=0.8, at=200.0)
    faint = rec(summary="minor", importance=0.1, at=210.0)
    prof = rec(
        summary="name is Ana", type_=MemoryType.PROFILE, subject="name", importance=0.9, at=50.0
    )
    pref = rec(summary="replies in 中文", type_=MemoryType.PREFERENCE, subject="language", at=60.0)
    doubt = rec(
        summary="name is Anna?", type_=MemoryType.PROFILE, subject="name", doubt_of="x", at=70.0
    )
    s1 = rec(summary="session one", type_=MemoryType.SUMMARY, at=300.0)
    s2 = rec(summary="session two", type_=MemoryType.SUMMARY, at=400.0)
    put(store, ep, recent, faint, prof, pref, doubt, s1, s2)
    assert [r.id for r in store.recent_important(ALICE, 150.0, 0.5, 10)] == [recent.id]
    profile = store.profile(ALICE, ["preference", "profile"], [])
    assert {r.id for r in profile} == {prof.id, pref.id} and profile[0].id == prof.id
    assert [r.id for r in store.profile(ALICE, ["preference", "profile"], ["language"])] == [
        pref.id
    ]
    assert [r.id for r in store.latest_summaries(ALICE, 1)] == [s2.id]
    assert store.latest_summaries(ALICE, 0) == []
    assert set(store.live_subjects(ALICE)) == {"name", "language"}
    assert {r.id for r in store.live_by_subject(ALICE, ["name"])} == {prof.id, doubt.id}
    assert store.live_by_subject(ALICE, ["name"], types=["task"]) == []
    assert store.recent_important(BOB, 0.0, 0.0, 10) == []


def test_newest_live_records_of_several_subjects_and_types(store):
    # the newest first across every subject or type asked for, cut at the limit, whichever value
    # holds them: a common value's many records do not crowd out a rare value's newer one
    common = [rec(summary=f"tea note {i}", subject="drink", at=float(i)) for i in range(1, 8)]
    rare = rec(summary="moved to Lyon", subject="city", at=5.5)
    plan = rec(summary="会议改到周五", type_=MemoryType.TASK, subject="meeting", at=6.5)
    gone = rec(summary="old city", subject="city", at=9.0, status=Status.INACTIVE)
    doubt = rec(summary="tea?", subject="drink", doubt_of="x", at=9.5)
    other = rec(scope=BOB, summary="bob's city", subject="city", at=10.0)
    put(store, *common, rare, plan, gone, doubt, other)
    newest = store.live_by_subject(ALICE, ["drink", "city", "meeting"], limit=4)
    assert [r.summary for r in newest] == ["tea?", "tea note 7", "会议改到周五", "tea note 6"]
    mixed = store.live_by_subject(ALICE, ["city", "drink"], types=["fact"], limit=3)
    assert [r.summary for r in mixed] == ["tea?", "tea note 7", "tea note 6"]
    assert [r.summary for r in store.live_by_subject(ALICE, ["city"])] == ["moved to Lyon"]
    claims = store.live_claims(ALICE, ["task", "fact", "preference"], limit=3)
    assert [r.summary for r in claims] == ["tea note 7", "会议改到周五", "tea note 6"]
    older = store.live_claims(ALICE, ["task", "fact"], created_before=6.0, limit=3)
    assert [r.summary for r in older] == ["tea note 6", "moved to Lyon", "tea note 5"]
    assert store.live_claims(ALICE, []) == [] and store.live_by_subject(ALICE, []) == []
    assert store.live_subjects(ALICE) == ["city", "drink", "meeting"]
    assert store.live_subjects(ALICE, limit=2) == ["city", "drink"]


def test_session_neighbours_and_retired_turns(store):
    def ep(text, at, turn, **kw):
        return rec(
            summary=text,
            type_=MemoryType.EPISODE,
            session_id="s1",
            at=at,
            source=Source(Channel.IMPLICIT, "s1", (turn,)),
            **kw,
        )

    e1, e2, e3, e4 = (
        ep("one", 1.0, "t1"),
        ep("two", 2.0, "t2"),
        ep("three", 3.0, "t3"),
        ep("four", 4.0, "t4", expires_at=50.0),
    )
    fact = rec(summary="drinks coffee", source=Source(Channel.IMPLICIT, "s1", ("t2",)))
    put(store, e1, e2, e3, e4, fact)
    before, after = store.session_neighbours(ALICE, e2.id, before=1, after=5, now=10.0)
    assert [r.id for r in before] == [e1.id] and [r.id for r in after] == [e3.id, e4.id]
    _, after = store.session_neighbours(ALICE, e2.id, before=0, after=5, now=100.0)
    assert [r.id for r in after] == [e3.id]  # an expired episode is no neighbour
    assert store.session_neighbours(BOB, e2.id, before=1, after=1, now=10.0) == ([], [])
    ids = [e3.id, e1.id, e2.id, fact.id, "nothing"]
    for before, after in ((1, 5), (2, 0), (0, 2), (3, 3)):
        many = store.neighbours_of(ALICE, ids, before=before, after=after, now=10.0)
        assert many == {
            i: store.session_neighbours(ALICE, i, before=before, after=after, now=10.0) for i in ids
        }
    assert [r.id for r in many[e3.id][0]] == [e2.id, e1.id]  # nearest first
    assert store.neighbours_of(BOB, ids, before=1, after=1, now=10.0) == {i: ([], []) for i in ids}
    assert store.retired_turns(ALICE, ["t2"]) == {}
    forgotten = fact.replace(status=Status.INACTIVE)
    store.update(forgotten, None, "", reindex=False, mentions=mentions_of(forgotten))
    assert store.retired_turns(ALICE, ["t1", "t2"]) == {"t2": fact.id}
    assert store.retired_turns(BOB, ["t2"]) == {}
    assert [r.id for r in store.session_episodes(ALICE, "s1")] == [e1.id, e2.id, e3.id, e4.id]


def test_vectors_and_sentence_parts(store):
    (r,) = put(store, rec(summary="first part. second part."))
    parts = np.stack([vec(1), vec(2)])
    store.put_parts(r, parts)
    vecs, got = store.vectors_with_parts([r.id, "missing"])
    assert set(vecs) == {r.id} and np.allclose(vecs[r.id], vec(0))
    assert got[r.id].shape == (2, DIM) and np.allclose(got[r.id], parts)
    store.put_parts(r.replace(summary="another text"), np.stack([vec(3)]))  # not this text
    assert np.allclose(store.vectors_with_parts([r.id])[1][r.id], parts)
    assert np.allclose(store.vectors_with_parts([r.id])[0][r.id], vec(0))


def test_tier_vectors_follow_status_and_the_bound(store):
    """What the exact search of a small tier reads (store/tiered_index.py): a (user, agent)'s
    records of the tier's status, every workspace's, with their parts; None over the bound."""
    live = rec(scope=Scope("alice", "a1", "w1"), summary="她搬到了杭州。She moved to Berlin.")
    (a, b, c, _forgotten, other) = put(
        store,
        rec(summary="住在杭州"),
        live,
        rec(summary="archived one", status=Status.ARCHIVED),
        rec(summary="forgotten one", status=Status.INACTIVE),
        rec(scope=BOB, summary="bob's"),
    )
    store.put_parts(b, np.stack([vec(7), vec(8)]))
    hot = {r.id: r for r in store.tier_vectors(ALICE, "hot")}
    assert set(hot) == {a.id, b.id}
    assert hot[b.id].workspace == "w1" and hot[a.id].workspace == ""
    assert hot[a.id].type == "fact" and hot[a.id].parts is None
    assert np.allclose(hot[a.id].vec, vec(0)) and hot[b.id].parts.shape == (2, DIM)
    assert [r.id for r in store.tier_vectors(ALICE, "cold")] == [c.id]
    assert {r.id for r in store.tier_vectors(ALICE, "hot", at_most=2)} == {a.id, b.id}
    assert store.tier_vectors(ALICE, "hot", at_most=1) is None
    assert store.tier_vectors(ALICE_OTHER_AGENT, "hot", at_most=0) == []
    assert [r.id for r in store.tier_vectors(BOB, "hot")] == [other.id]


# ---- consolidation's look-ups --------------------------------------------------------------


def test_claims_copies_episodes_and_successors(store):
    a = rec(summary="likes tea", type_=MemoryType.PREFERENCE, subject="drink", at=10.0)
    b = rec(summary="likes tea?", type_=MemoryType.PREFERENCE, subject="drink", doubt_of="x")
    c = rec(summary="works at Globex", subject="employer", at=30.0)
    e1 = rec(summary="我换工作了", type_=MemoryType.EPISODE, at=5.0)
    e2 = rec(summary="我换工作了", type_=MemoryType.EPISODE, at=6.0)
    put(store, a, b, c, e1, e2)
    assert {r.id for r in store.live_claims(ALICE, ["preference", "fact"])} == {a.id, c.id}
    assert [r.id for r in store.live_claims(ALICE, ["preference"], subject="drink")] == [a.id]
    assert [
        r.id for r in store.live_claims(ALICE, ["fact", "preference"], created_before=20.0)
    ] == [a.id]
    assert [r.id for r in store.copies_of_text(ALICE, "fact", content_hash(c))] == [c.id]
    assert [r.id for r in store.live_episodes_before(ALICE, 10.0, 10)] == [e2.id, e1.id]
    assert [r.id for r in store.live_episodes_before(ALICE, 10.0, 10, exclude=e2.id)] == [e1.id]
    assert [r.id for r in store.live_episodes_saying(ALICE, "我换工作了", exclude=e1.id)] == [e2.id]
    succ = rec(summary="likes coffee", prev_id=a.id, version=2, subject="drink")
    put(store, succ)
    assert [r.id for r in store.successors(ALICE, a.id)] == [succ.id]
    assert store.latest_successor(ALICE, a.id).id == succ.id
    assert store.latest_successor(BOB, a.id) is None
    assert [r.id for r in store.in_written_order(ALICE, [c.id, a.id])] == [a.id, c.id]


# ---- audit, sessions, the short-term window, the maintenance log --------------------------


def test_audit_is_scoped_and_newest_first(store):
    store.audit(AuditEntry(ALICE, "m1", "insert", "new", 1.0, "explicit", "w"))
    store.audit(AuditEntry(ALICE, "m1", "update", "restated", 2.0))
    store.audit(AuditEntry(BOB, "m1", "insert", "new", 3.0))
    assert [a["action"] for a in store.audit_log(ALICE, "m1")] == ["update", "insert"]
    assert [a["action"] for a in store.audit_log(ALICE)] == ["update", "insert"]
    assert len(store.audit_log(BOB)) == 1
    assert [a["action"] for a in store.audit_of(ALICE, ["m1"])] == ["update", "insert"]


def test_sessions_open_continue_end_and_participants(store):
    assert store.session(ALICE, "s") is None
    assert store.open_session(ALICE, "s", 10.0) is True
    assert store.open_session(ALICE, "s", 20.0) is False
    assert store.session(ALICE, "s")["last_active_at"] == 20.0
    store.open_session(Scope("bob", "a1"), "s", 30.0)
    assert store.participants("a1", "s") == ["alice", "bob"]
    store.end_session(ALICE, "s", 40.0, "stop", "sum_1")
    assert store.session(ALICE, "s")["ended_at"] == 40.0
    assert store.open_session(ALICE, "s", 50.0) is False  # reopened, not new
    assert store.session(ALICE, "s")["ended_at"] is None


def test_the_message_window(store):
    for i, (role, text) in enumerate([("user", "你好"), ("assistant", "hello"), ("user", "bye")]):
        store.append_message(ALICE, WindowMessage("s", role, text, 3, f"t{i}", float(i)))
    store.append_message(BOB, WindowMessage("s", "user", "not alice", 3, "tb", 0.0))
    window = store.window_messages(ALICE, "s")
    assert [m["content"] for m in window] == ["你好", "hello", "bye"]
    assert sum(m["tokens"] for m in window) == 9
    store.leave_window(ALICE, "s", [window[0]["seq"]])
    assert [m["content"] for m in store.window_messages(ALICE, "s")] == ["hello", "bye"]
    assert store.captured_turn_ids(ALICE, "s") == {"t0", "t1", "t2"}
    assert [m["content"] for m in store.session_messages(ALICE, "s")] == ["你好", "hello", "bye"]
    assert store.prune_messages("alice", None, before=100.0, keep=1) == 1  # 你好: emptied, kept
    assert [m["content"] for m in store.session_messages(ALICE, "s")] == ["hello", "bye"]
    assert "t0" in store.captured_turn_ids(ALICE, "s")
    store.leave_window(ALICE, "s", None)
    assert store.window_messages(ALICE, "s") == []


def test_the_lease_and_the_run_log(store):
    assert store.acquire_lease("m", "p1", 0.0, 60.0)
    assert not store.acquire_lease("m", "p2", 10.0, 60.0)
    assert store.lease("m", 10.0)["holder"] == "p1"
    assert store.acquire_lease("m", "p2", 61.0, 60.0)  # expired: taken over
    store.release_lease("m", "p1")  # not the holder: nothing happens
    assert store.lease("m", 62.0)["holder"] == "p2"
    store.release_lease("m", "p2")
    assert store.lease("m", 62.0) is None
    first = store.begin_run("schedule", "p1", 1.0)
    second = store.begin_run("cli", "p2", 2.0)
    store.finish_run(second, 3.0, "ok", json.dumps({"expired": 1}), None)
    runs = store.recent_runs(5)
    assert [(r["id"], r["status"]) for r in runs] == [(second, "ok"), (first, "abandoned")]
    assert runs[0]["started_at"] == 2.0


# ---- forgetting, reindex, purge -----------------------------------------------------------


def test_forgetting_look_ups(store):
    old = rec(summary="expired", expires_at=5.0, importance=0.1, at=1.0)
    keep = rec(summary="kept", type_=MemoryType.PROFILE, importance=0.1, at=1.0)
    explicit = rec(summary="said", importance=0.1, at=1.0, source=Source(Channel.EXPLICIT))
    ev1 = rec(summary="deploy 1", type_=MemoryType.EVENT, subject="deploy", at=2.0)
    ev2 = rec(summary="deploy 2", type_=MemoryType.EVENT, subject="deploy", at=3.0)
    ev3 = rec(summary="free event", type_=MemoryType.EVENT, at=4.0)
    put(store, old, keep, explicit, ev1, ev2, ev3)
    assert [r.id for r in store.expired(ALICE, 10.0, 10)] == [old.id]
    assert [r.id for r in store.unused(ALICE, UnusedQuery(("profile",), 0.2, 1.5, 10))] == [old.id]
    assert store.crowded_event_subjects(ALICE, 1) == ["deploy"]
    assert store.live_event_count(ALICE, "deploy") == 2 and store.live_event_count(ALICE, None) == 1
    assert [r.id for r in store.oldest_live_events(ALICE, "deploy", 1)] == [ev1.id]
    assert store.curated_count(ALICE, ["event", "episode", "summary"]) == 3
    lowest = store.lowest_value(ALICE, ["event", "episode", "summary"], 3)
    assert lowest[0].id == old.id and {r.id for r in lowest[1:]} == {keep.id, explicit.id}
    assert store.scopes() == [ALICE] and store.scopes("bob") == []


def test_stored_vectors_for_reindex(store):
    a, b = put(store, rec(summary="one"), rec(summary="two"))
    put(store, rec(summary="three"), vectors=False)
    assert len(store.stale_vector_ids("hash-8", DIM)) == 1
    assert set(store.stale_vector_ids("other", DIM)) >= {a.id, b.id}
    store.put_vector(a, vec(5), "other")
    assert a.id in store.stale_vector_ids("hash-8", DIM)
    assert store.retire_vectors("hash-8", DIM) == 1 and store.embedder() == "hash-8"
    assert store.live_count() == 3 and store.record_count() == 3
    assert store.last_outbox_seq() > 0 and store.clear_outbox(store.last_outbox_seq()) == 3
    assert store.pending() == 0


def test_purge_a_user_leaves_only_a_hashed_audit_row(store):
    put(store, rec(summary="alice secret"), rec(summary="bob keeps this", scope=BOB))
    store.open_session(ALICE, "s", 1.0)
    store.append_message(ALICE, WindowMessage("s", "user", "alice secret", 2, "t1", 1.0))
    store.audit(AuditEntry(ALICE, None, "insert", "alice secret", 1.0))
    assert store.user_agents("alice") == ["a1"]
    counts = store.purge_user("alice", None, 99.0, "test")
    assert counts["records"] == 1 and counts["messages"] == 1 and counts["sessions"] == 1
    assert store.user_records("alice") == [] and store.scopes() == [BOB]
    assert store.keyword_search(ALICE, "secret") == []
    assert store.purged_at("alice", "a1") == 99.0 and store.purged_at("bob", "a1") is None
    rows = list(store.user_rows("audit", hashed_user("alice")))
    assert len(rows) == 1 and rows[0]["agent_id"] == "*" and "alice" not in json.dumps(rows)
    assert store.user_rows and list(store.user_rows("audit", "alice")) == []


def test_purge_records_with_their_messages(store):
    turn = ("t9",)
    fact = rec(summary="the code is 1234", source=Source(Channel.IMPLICIT, "s", turn))
    ep = rec(summary="the code is 1234", type_=MemoryType.EPISODE, source=Source(turn_ids=turn))
    put(store, fact, ep)
    store.append_message(ALICE, WindowMessage("s", "user", "the code is 1234", 4, "t9", 1.0))
    store.audit(AuditEntry(ALICE, fact.id, "insert", "new", 1.0))
    assert store.episodes_of_turns(ALICE, ["t9"]) == [ep.id]
    counts = store.purge_records(ALICE, [fact.id, ep.id], ["t9"])
    assert counts == {"vectors": 2, "records": 2, "audit": 1, "messages": 1}
    assert store.get_many(ALICE, [fact.id, ep.id]) == {} and store.audit_log(ALICE) == []


# ---- entity memory: links written with the records, the entity channel's reads ----------------


def named(store, scope, *keys):
    """name -> entity id of the scope's entities filed under these keys."""
    return {name: eid for eid, name in store.entities_named(scope, keys).items()}


def test_entities_are_linked_on_write_and_read_back_per_scope(store):
    r1, r2, r3 = put(
        store,
        rec(summary="Today Caroline joined a choir in Boston.", at=1000.0),
        rec(summary="Yesterday Caroline sang a solo at the concert.", at=2000.0),
        rec(summary="王伟今天在上海加班。", at=3000.0),
    )
    (other,) = put(store, rec(scope=BOB, summary="Bob met Caroline in Boston."))
    ids = named(store, ALICE, "caroline", "boston", "王伟", "nobody")
    assert set(ids) == {"Caroline", "Boston", "王伟"}
    caroline, boston = ids["Caroline"], ids["Boston"]
    bobs = named(store, BOB, "caroline")
    assert set(bobs) == {"Caroline"} and bobs["Caroline"] != caroline  # one entity per user
    # newest link first; another user's records never
    assert store.records_naming(ALICE, [caroline]) == [(r2.id, caroline), (r1.id, caroline)]
    assert store.records_naming(ALICE, [caroline], limit=1) == [(r2.id, caroline)]
    assert store.records_naming(BOB, [caroline]) == []
    assert store.entities_of(ALICE, [r1.id, r3.id, other.id])[r1.id] == {caroline, boston}
    assert other.id not in store.entities_of(ALICE, [other.id])
    # a name in two of three memories tells less than one in a single memory
    weight = store.entity_weights(ALICE, [caroline, boston])
    assert 0.0 <= weight[caroline] < weight[boston] <= 1.0
    assert store.entity_weights(BOB, [caroline]) == {}
    assert store.entity_names(ALICE, [caroline, boston]) == {caroline: "Caroline", boston: "Boston"}
    assert store.entity_names(BOB, [caroline]) == {}
    listed = {e["name"]: e for e in store.entity_list(ALICE)}
    assert listed["Caroline"]["links"] == 2 and listed["Caroline"]["first_seen"] == 1000.0
    assert listed["Caroline"]["last_seen"] == 2000.0 and listed["Boston"]["kind"] == "place"
    assert store.entity_list(ALICE)[0]["name"] == "Caroline"  # most linked first


@pytest.mark.parametrize(
    ("text", "handed", "alias"),
    [
        ("Caroline moved to Lisbon.", Entity("Porto", PLACE), ("Mel", "Melanie")),
        ("王伟搬到了北京。", Entity("上海", PLACE), ("小王", "王伟")),
    ],
)
def test_the_store_files_what_it_is_handed_and_reads_no_text(store, text, handed, alias):
    """What a record names comes with it (`mentions`): the store links exactly that, whatever
    its text says, and nothing when it is handed nothing."""
    told, silent = rec(summary=text), rec(summary=text)
    with store.transaction():
        store.insert(told, None, "hash-8", mentions=Mentions((alias,), (handed,)))
        store.insert(silent, None, "hash-8", mentions=Mentions())
    listed = {e["name"]: e for e in store.entity_list(ALICE)}
    assert set(listed) == {alias[1], handed.name}
    assert listed[alias[1]]["aliases"] == [alias[0].lower()]
    assert listed[handed.name]["kind"] == PLACE and listed[alias[1]]["kind"] == NAME
    assert silent.id not in store.entities_of(ALICE, [told.id, silent.id])
    assert len(store.entities_of(ALICE, [told.id])[told.id]) == 2


def test_aliases_resolve_to_one_entity_in_chinese_and_english(store):
    put(
        store,
        rec(summary="On Sunday Mel took the kids camping."),
        rec(summary="Yesterday Melanie painted a sunset."),  # takes the short name over
        rec(summary="王伟今天加班。"),
        rec(summary="我叫王伟，大家都叫我小王。"),
        rec(summary="小王明天去上海出差。"),
    )
    assert set(named(store, ALICE, "mel")) == {"Melanie"}
    assert named(store, ALICE, "mel") == named(store, ALICE, "melanie")
    assert set(named(store, ALICE, "小王")) == {"王伟"}
    listed = {e["name"]: e for e in store.entity_list(ALICE)}
    assert "Mel" not in listed and listed["Melanie"]["aliases"] == ["mel"]
    assert "小王" in listed["王伟"]["aliases"] and listed["王伟"]["links"] == 3
    assert named(store, BOB, "mel") == {}


def test_entity_links_follow_forget_restore_archive_and_delete(store):
    r, keep = put(
        store,
        rec(summary="Today Caroline adopted a dog named Biscuit."),
        rec(summary="Last year Caroline moved to Lisbon."),
    )
    forgotten = r.replace(status=Status.INACTIVE)
    store.update(forgotten, None, "hash-8", reindex=False, mentions=mentions_of(forgotten))
    assert "Biscuit" not in named(store, ALICE, "biscuit")  # forgotten: no links, no entity
    store.update(r, None, "hash-8", reindex=False, mentions=mentions_of(r))  # restored
    biscuit = named(store, ALICE, "biscuit")["Biscuit"]
    assert store.records_naming(ALICE, [biscuit]) == [(r.id, biscuit)]
    archived = r.replace(status=Status.ARCHIVED)
    store.update(archived, None, "hash-8", reindex=False, mentions=mentions_of(archived))
    biscuit = named(store, ALICE, "biscuit")["Biscuit"]  # ids are per request: relinked
    assert store.records_naming(ALICE, [biscuit]) == []  # deep recall only
    both = ("active", "archived")
    assert store.records_naming(ALICE, [biscuit], statuses=both) == [(r.id, biscuit)]
    assert store.delete_records(ALICE, [r.id]) == 1
    assert named(store, ALICE, "biscuit") == {}
    caroline = named(store, ALICE, "caroline")["Caroline"]
    assert store.records_naming(ALICE, [caroline]) == [(keep.id, caroline)]


def test_entity_reads_keep_to_the_workspace(store):
    shared, mine, theirs = put(
        store,
        rec(summary="Today Caroline played the piano."),
        rec(summary="Yesterday Caroline played the violin.", scope=Scope("alice", "a1", "w1")),
        rec(summary="Last week Caroline played the drums.", scope=Scope("alice", "a1", "w2")),
    )
    w1 = Scope("alice", "a1", "w1")
    caroline = named(store, w1, "caroline")["Caroline"]
    assert {rid for rid, _ in store.records_naming(w1, [caroline])} == {shared.id, mine.id}
    assert store.entities_of(w1, [theirs.id]) == {}


def test_purges_leave_no_entity_of_the_user(store):
    keep, gone = put(
        store,
        rec(summary="Last week Caroline visited Lisbon."),
        rec(summary="By the way, Mel is short for Melanie; Melanie loves Quasimodo the fish."),
    )
    put(store, rec(scope=BOB, summary="Bob visited Quasimodo's pond."))
    store.purge_records(ALICE, [gone.id], [])
    assert {e["name"] for e in store.entity_list(ALICE)} == {"Caroline", "Lisbon"}
    assert named(store, ALICE, "mel", "melanie", "quasimodo") == {}
    store.purge_user("alice", None, 99.0, "test")
    assert store.entity_list(ALICE) == [] and named(store, ALICE, "caroline", "lisbon") == {}
    assert named(store, BOB, "quasimodo")  # bob keeps his


# ---- export, import and the console's list ------------------------------------------------


def test_export_rows_and_import_them_once(store):
    (r,) = put(store, rec(summary="ships Friday"))
    store.open_session(ALICE, "s", 1.0)
    assert [x.id for x in store.user_records("alice")] == [r.id]
    assert store.record_owner(r.id) == ("alice", "a1") and store.record_owner("nope") is None
    assert store.holds(ALICE, r) and store.holds(ALICE, rec(summary="ships Friday"))
    assert not store.holds(ALICE, rec(summary="ships Monday"))
    sessions = list(store.user_rows("sessions", "alice"))
    assert [s["id"] for s in sessions] == ["s"]
    row = {
        "user_id": "alice",
        "agent_id": "a1",
        "id": "s2",
        "started_at": 5.0,
        "last_active_at": 5.0,
    }
    assert store.import_row("sessions", row) == 1
    assert store.import_row("sessions", row) == 0
    assert store.session(ALICE, "s2")["started_at"] == 5.0


def test_the_console_list_pages_by_keyset(store):
    rs = put(store, *(rec(summary=f"note {i} 笔记") for i in range(5)))
    q = ListQuery(statuses=("active",), size=2)
    first = store.list_page(ALICE, q)
    assert [r.id for r in first.rows] == [rs[4].id, rs[3].id] and first.total == 5
    second = store.list_page(ALICE, ListQuery(statuses=("active",), size=2, after=first.next_after))
    assert [r.id for r in second.rows] == [rs[2].id, rs[1].id]
    texts = store.list_page(ALICE, ListQuery(statuses=("active",), text="笔记", size=10))
    assert texts.text_filter and len(texts.rows) == 5
    assert store.list_page(BOB, q).rows == []
    assert store.counts_by_scope() == [
        {"user_id": "alice", "agent_id": "a1", "status": "active", "type": "fact", "n": 5}
    ]


# ---- the vector index -----------------------------------------------------------------------


def test_vector_search_ranks_by_cosine_with_parts(index):
    q = vec(1)
    near = (q + 0.1 * vec(2)) / np.linalg.norm(q + 0.1 * vec(2))
    index.upsert(
        ALICE,
        "hot",
        [("far", vec(3), {}), ("near", near, {}), ("parted", vec(4), {})],
        {"parted": np.stack([vec(5), q])},
    )
    found = index.query(ALICE, q, 3)
    assert [i for i, _ in found][:2] == ["parted", "near"]  # a part equal to the query wins
    assert found[0][1] == pytest.approx(1.0, abs=1e-4)
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
    assert all(-1.0 - 1e-5 <= s <= 1.0 + 1e-5 for _, s in found)
    assert index.ids(ALICE) == {"far", "near", "parted"} and index.count(ALICE) == 5
    assert index.query(BOB, q, 3) == [] and index.query(ALICE, q, 3, tier="cold") == []


def test_vector_upsert_replaces_delete_and_drop(index):
    index.upsert(ALICE, "hot", [("a", vec(1), {}), ("b", vec(2), {})], {"a": np.stack([vec(3)])})
    index.upsert(ALICE, "hot", [("a", vec(4), {})])  # replaced, its old part gone
    assert index.count(ALICE) == 2
    assert index.query(ALICE, vec(4), 1)[0][0] == "a"
    index.upsert(ALICE, "cold", [("c", vec(5), {})])
    index.delete(ALICE, ["a"])
    assert index.ids(ALICE) == {"b"} and index.ids(ALICE, "cold") == {"c"}
    index.delete(ALICE, ["c"], tiers=("hot",))
    assert index.ids(ALICE, "cold") == {"c"}
    index.drop_scope(ALICE)
    assert index.ids(ALICE) == set() and index.count(ALICE, "cold") == 0


def test_vector_workspace_filter(index):
    index.upsert(
        ALICE,
        "hot",
        [
            ("shared", vec(1), {"workspace": ""}),
            ("w1", vec(1), {"workspace": "w1"}),
            ("w2", vec(1), {"workspace": "w2"}),
        ],
    )
    found = {i for i, _ in index.query(Scope("alice", "a1", "w1"), vec(1), 5)}
    assert found == {"shared", "w1"}


# ---- the port's shape ---------------------------------------------------------------------

#: the port's methods that take no scope, by reason; a new one must be added here on purpose
UNSCOPED = {
    # a record carries its scope
    "insert": "record",
    "update": "record",
    "put_parts": "record",
    "put_vector": "record",
    "save_version": "record",
    # by ids a scoped read returned first (recall loads a pool it fetched within the scope)
    "search_tokens": "ids",
    "vectors": "ids",
    "vectors_with_parts": "ids",
    "records_by_id": "ids",
    # a user (every agent, or one): export, purge
    "user_agents": "user",
    "user_records": "user",
    "user_rows": "user",
    "purge_user": "user",
    "purged_at": "user",
    "audit_purge_request": "user",
    "prune_messages": "user",
    "participants": "agent and session: who spoke in a shared session",
    "record_owner": "import: an id must not change owner",
    "import_row": "import: the row carries its user and agent",
    "audit": "the audit entry carries its scope",
    # the whole store: maintenance, reindex, doctor, the console's user list, lifecycle
    **dict.fromkeys(
        (
            "scopes stale_vector_ids part_stale_ids retire_vectors orphan_vector_rows embedder "
            "set_embedder live_count record_count last_outbox_seq clear_outbox pending_by_scope "
            "keyword_index_gaps repair_keyword_index optimize_keyword_index counts_by_scope "
            "pending done acquire_lease release_lease lease begin_run finish_run recent_runs "
            "transaction in_transaction vacuum close entity_backlog backfill_entity_links"
        ).split(),
        "whole store",
    ),
}


def test_every_other_method_of_the_record_store_takes_a_scope_first():
    import inspect

    from openclaw_memory.store.ports import RecordStore

    for name, fn in inspect.getmembers(RecordStore, inspect.isfunction):
        if name.startswith("_") or name in UNSCOPED:
            continue
        params = list(inspect.signature(fn).parameters)
        assert params[1:2] == ["scope"], f"RecordStore.{name} does not take a scope first"
