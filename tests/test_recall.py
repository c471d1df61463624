"""The read path: channels, filters, type-aware decay, thresholds, conflicts, isolation."""

from __future__ import annotations

import dataclasses

import pytest

from openclaw_memory.core.clock import DAY
from openclaw_memory.recall.rank import recency
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.lang.entities import mentions_of
from openclaw_memory.types import Candidate, Channel, MemoryType, Scope, Status
from store_helpers import forget_in, writer_of

ALICE, BOB = Scope("alice"), Scope("bob")


@pytest.fixture
def recaller(engine):
    return Recaller(read_ports(engine), engine.config.recall)


def put(engine, scope, type_, text, **kw):
    return writer_of(engine).write(scope, [Candidate(type_, text, **kw)])[0].record


def kept(result):
    return [s.record.summary for s in result.ranked if s.kept]


def by_summary(result, text):
    return next(s for s in result.ranked if s.record.summary == text)


@pytest.mark.parametrize(
    "memory,query",
    [
        ("我每天早上都喝咖啡", "咖啡"),
        ("他对花生过敏，不能吃花生酱", "花生"),
        ("I drink coffee every morning", "coffee"),
    ],
)
def test_keyword_channel_matches_two_character_chinese_words(engine, recaller, memory, query):
    put(engine, ALICE, MemoryType.FACT, memory)
    s = by_summary(recaller.recall(ALICE, query), memory)
    assert "keyword" in s.channels and s.kept


def test_vector_channel_proposes_semantic_neighbours(engine, recaller):
    put(engine, ALICE, MemoryType.FACT, "the staging database runs postgres sixteen")
    s = by_summary(
        recaller.recall(ALICE, "which postgres does staging run"),
        "the staging database runs postgres sixteen",
    )
    assert "vector" in s.channels and s.components["semantic"] > 0


def test_recent_important_channel_brings_fresh_important_memories(engine, clock, recaller):
    old = put(engine, ALICE, MemoryType.FACT, "release freeze starts monday", importance=0.9)
    clock.advance(days=5)
    fresh = put(
        engine, ALICE, MemoryType.FACT, "prod incident: payment gateway down", importance=0.9
    )
    res = recaller.recall(ALICE, "what should I know today")
    channels = {s.record.id: s.channels for s in res.ranked}
    assert "recent" in channels[fresh.id]
    assert "recent" not in channels.get(old.id, ())


@pytest.mark.parametrize(
    "subject,query",
    [("task/PRD-223", "PRD-223 现在什么状态"), ("coding_lang", "what is my coding_lang")],
)
def test_subject_channel_matches_exact_keys(engine, recaller, subject, query):
    put(engine, ALICE, MemoryType.FACT, "采用后端鉴权方案", subject=subject)
    s = by_summary(recaller.recall(ALICE, query), "采用后端鉴权方案")
    assert "subject" in s.channels and s.components["structure"] == 1.0 and s.kept


def test_profile_is_always_proposed_even_when_unrelated(engine, recaller):
    put(
        engine,
        ALICE,
        MemoryType.PROFILE,
        "对花生过敏",
        subject="allergy/花生",
        channel=Channel.EXPLICIT,
    )
    s = by_summary(recaller.recall(ALICE, "how do I rotate the TLS certificate"), "对花生过敏")
    assert "profile" in s.channels and s.kept


def test_inactive_and_archived_are_filtered_and_deep_recall_reaches_the_archive(engine, recaller):
    r = put(engine, ALICE, MemoryType.FACT, "the old VPN endpoint is vpn1.example.org")
    archived = r.replace(status=Status.ARCHIVED)
    engine.store.update(archived, None, "", reindex=False, mentions=mentions_of(archived))
    assert "the old VPN endpoint is vpn1.example.org" not in kept(
        recaller.recall(ALICE, "VPN endpoint")
    )
    assert "the old VPN endpoint is vpn1.example.org" in kept(
        recaller.recall(ALICE, "VPN endpoint", deep=True)
    )
    forget_in(engine, ALICE, r.id)
    assert "the old VPN endpoint is vpn1.example.org" not in kept(
        recaller.recall(ALICE, "VPN endpoint", deep=True)
    )


def test_expired_records_are_not_recalled(engine, clock, recaller):
    put(engine, ALICE, MemoryType.EVENT, "deploy failed on build step", subject="tool/deploy")
    clock.advance(days=31)
    s = by_summary(recaller.recall(ALICE, "deploy failed"), "deploy failed on build step")
    assert not s.kept and s.reason == "expired"


# the user's own deploy: a request about nothing of theirs is gated against its levels instead
# (recall/gate.py), which the hashing embedder's cosines do not model
@pytest.mark.parametrize(
    "query", ["我们上周的部署出了什么错", "what went wrong with our deploy last week"]
)
def test_time_window_in_the_request_filters_old_events(engine, clock, recaller, query):
    put(
        engine,
        ALICE,
        MemoryType.EVENT,
        "deploy 部署 failed: disk full",
        subject="tool/deploy",
        ttl_seconds=400 * DAY,
    )
    clock.advance(days=20)
    put(
        engine,
        ALICE,
        MemoryType.EVENT,
        "deploy 部署 failed: timeout",
        subject="tool/deploy",
        ttl_seconds=400 * DAY,
    )
    res = recaller.recall(ALICE, query)
    assert by_summary(res, "deploy 部署 failed: timeout").kept
    assert by_summary(res, "deploy 部署 failed: disk full").reason.startswith(
        "outside the time window"
    )


@pytest.mark.parametrize(
    "type_,decays",
    [
        (MemoryType.EVENT, True),
        (MemoryType.EPISODE, True),
        (MemoryType.FACT, False),
        (MemoryType.PROFILE, False),
        (MemoryType.PREFERENCE, False),
    ],
)
def test_decay_is_type_aware(engine, clock, type_, decays):
    r = put(engine, ALICE, type_, "something that happened")
    later = clock.now() + 60 * DAY
    value = recency(r, later, 30.0)
    assert (value == pytest.approx(0.25)) if decays else (value == 1.0)


def test_unrelated_memory_falls_under_the_threshold(engine, recaller):
    put(engine, ALICE, MemoryType.FACT, "我们团队用 Rust 写后端服务")
    s = by_summary(recaller.recall(ALICE, "推荐一部周末看的电影"), "我们团队用 Rust 写后端服务")
    assert not s.kept and s.reason.startswith("below relevance threshold")


def test_low_confidence_is_offered_to_confirm_not_kept(engine, recaller):
    put(engine, ALICE, MemoryType.FACT, "maybe the user prefers dark mode", confidence=0.3)
    res = recaller.recall(ALICE, "dark mode")
    assert "maybe the user prefers dark mode" not in kept(res)
    assert [r.summary for r in res.to_confirm] == ["maybe the user prefers dark mode"]


def test_only_the_newest_version_is_recalled(engine, clock, recaller):
    put(
        engine,
        ALICE,
        MemoryType.PREFERENCE,
        "回复用中文",
        subject="reply_language",
        channel=Channel.EXPLICIT,
    )
    clock.advance(days=2)
    put(
        engine,
        ALICE,
        MemoryType.PREFERENCE,
        "回复改用英文 English",
        subject="reply_language",
        channel=Channel.EXPLICIT,
    )
    res = recaller.recall(ALICE, "reply_language 用什么语言回复")
    assert kept(res).count("回复用中文") == 0 and "回复改用英文 English" in kept(res)


def test_another_users_memory_never_appears(engine, recaller):
    put(engine, BOB, MemoryType.PROFILE, "bob secret project: falcon", subject="project")
    put(engine, BOB, MemoryType.FACT, "falcon launches in May")
    res = recaller.recall(ALICE, "falcon project launch")
    assert all(s.record.scope.user_id == "alice" for s in res.ranked)


def test_near_duplicates_are_suppressed(engine, recaller):
    put(engine, ALICE, MemoryType.EPISODE, "the quarterly report is due friday", turn_ids=("s1#1",))
    put(
        engine, ALICE, MemoryType.EPISODE, "the quarterly report is due friday!", turn_ids=("s2#1",)
    )
    res = recaller.recall(ALICE, "when is the quarterly report due")
    reasons = [s.reason for s in res.ranked if s.record.summary.startswith("the quarterly report")]
    assert sum(1 for r in reasons if r == "") == 1 and any(
        r.startswith("near-duplicate") for r in reasons
    )


@pytest.mark.parametrize(
    "older,newer,duplicate",
    [
        # one topic, a new statement: near in meaning, its own words
        (
            "I need to take care of my old sneakers, I keep them under my bed and they smell",
            "I'm organising my closet: my old sneakers are in a shoe rack in it, taking up space",
            False,
        ),
        (
            "我的旧运动鞋一直放在床底下，有点味道了",
            "周末整理衣柜，旧运动鞋现在放在衣柜里的鞋架上",
            False,
        ),
        # a restatement: the words of what it restates
        ("the quarterly report is due friday", "oh and the quarterly report is due friday", True),
        ("季度报告周五截止", "季度报告周五截止啊", True),
    ],
)
def test_a_near_duplicate_restates_and_a_new_statement_stays(engine, older, newer, duplicate):
    """Every pair is near in meaning here (the bar lowered to let the test's hashing embedder
    reach it): what decides is whether the second says more than the first."""
    cfg = dataclasses.replace(engine.config.recall, dedup_similarity=0.05)
    put(engine, ALICE, MemoryType.EPISODE, older, turn_ids=("s1#1",))
    put(engine, ALICE, MemoryType.EPISODE, newer, turn_ids=("s2#1",))
    res = Recaller(read_ports(engine), cfg).recall(ALICE, older + " " + newer)
    reasons = {s.record.summary: s.reason for s in res.ranked}
    assert {older, newer} <= set(reasons)
    dropped = [t for t in (older, newer) if reasons[t].startswith("near-duplicate")]
    assert len(dropped) == (1 if duplicate else 0), reasons


def test_curated_memory_outranks_the_episode_it_came_from(engine, recaller):
    put(
        engine,
        ALICE,
        MemoryType.PREFERENCE,
        "likes window seats on flights",
        subject="seat",
        turn_ids=("s1#3",),
        importance=0.8,
    )
    put(
        engine,
        ALICE,
        MemoryType.EPISODE,
        "I always take window seats on flights",
        turn_ids=("s1#3",),
    )
    res = recaller.recall(ALICE, "window seats on flights")
    ep = by_summary(res, "I always take window seats on flights")
    assert not ep.kept and ep.reason.startswith("covered by curated memory")


def test_episode_that_ranks_above_its_curated_memory_stays(engine, recaller):
    put(
        engine,
        ALICE,
        MemoryType.PREFERENCE,
        "likes quiet cafes",
        subject="cafe",
        turn_ids=("s1#3",),
        importance=0.8,
    )
    put(
        engine,
        ALICE,
        MemoryType.EPISODE,
        "the new router arrived on tuesday, I like quiet cafes",
        turn_ids=("s1#3",),
    )
    res = recaller.recall(ALICE, "when did the new router arrive")
    ep = by_summary(res, "the new router arrived on tuesday, I like quiet cafes")
    pref = by_summary(res, "likes quiet cafes")
    assert ep.kept and ep.rank < pref.rank


def test_read_your_writes_with_background_indexing(make_config, tmp_path, clock):
    from openclaw_memory.runtime.engine import MemoryEngine

    eng = MemoryEngine.open(make_config(tmp_path), clock=clock, background=True)
    try:
        r = put(eng, ALICE, MemoryType.FACT, "the wifi password hint is the cat's name")
        hits = eng.semantic(ALICE, eng.embed_query("wifi password hint"), limit=5)
        assert r.id in [i for i, _ in hits]
    finally:
        eng.close()


@pytest.mark.parametrize(
    "query,which", [("咖啡喝什么", "weights_unspaced"), ("what coffee do I drink", "weights")]
)
def test_chinese_requests_use_their_own_weights(engine, recaller, query, which):
    from openclaw_memory.recall.rank import COMPONENTS, fuse

    put(engine, ALICE, MemoryType.FACT, "我每天早上喝咖啡 I drink coffee every morning")
    cfg = engine.config.recall
    assert cfg.weights_unspaced is not None and cfg.weights_unspaced != cfg.weights
    s = recaller.recall(ALICE, query).ranked[0]
    chosen = getattr(cfg, which)
    assert s.score == pytest.approx(fuse(s.components, {k: getattr(chosen, k) for k in COMPONENTS}))


def test_single_retriever_evaluation_ignores_the_chinese_weights(engine):
    from openclaw_memory_bench.evaluate.memory_system import retriever_config

    cfg = retriever_config(engine.config, "vector").recall
    assert (
        cfg.weights_unspaced is None and cfg.weights.semantic == 1.0 and cfg.weights.keyword == 0.0
    )
    assert cfg.weights.session == 0.0  # no session evidence either: a single channel's own ranking


def test_keyword_search_stays_inside_the_scope_in_fts(engine):
    put(engine, BOB, MemoryType.FACT, "falcon launches in May 猎鹰五月发射")
    put(engine, ALICE, MemoryType.FACT, "the garden needs water 花园要浇水")
    assert engine.keyword(ALICE, "falcon 猎鹰 launches") == []
    assert [len(engine.keyword(BOB, q)) for q in ("falcon", "猎鹰")] == [1, 1]


@pytest.mark.real_store("SQLite's keyword index taken back to schema 2")
@pytest.mark.sqlite_only
def test_a_store_with_the_unscoped_keyword_index_is_migrated(make_config, tmp_path, clock):
    from openclaw_memory.runtime.engine import MemoryEngine
    from openclaw_memory.store.schema import MIGRATIONS
    from openclaw_memory.lang.text import fts_document
    from openclaw_memory.store import inspect

    cfg = make_config(tmp_path)
    eng = MemoryEngine.open(cfg, clock=clock, background=False)
    put(eng, ALICE, MemoryType.FACT, "I drink coffee every morning 每天早上喝咖啡")
    put(eng, BOB, MemoryType.FACT, "bob drinks coffee too")
    # back to schema 2: one column, no scope token
    held = inspect.select(eng.store, "records", ("rid", "summary"))
    inspect.execute(
        eng.store,
        [
            "DROP TABLE records_fts",
            "CREATE VIRTUAL TABLE records_fts USING fts5(tokens, tokenize = 'unicode61 remove_diacritics 2')",
            "DELETE FROM schema_version WHERE version > 2",
        ],
    )
    for row in held:
        inspect.insert(
            eng.store, "records_fts", rowid=row["rid"], tokens=fts_document(row["summary"])
        )
    eng.close()

    eng = MemoryEngine.open(cfg, clock=clock, background=False)
    try:
        assert eng.db.schema_version == len(MIGRATIONS)
        hits = eng.keyword(ALICE, "咖啡 coffee")
        assert [eng.get(ALICE, rid).summary for rid, _ in hits] == [
            "I drink coffee every morning 每天早上喝咖啡"
        ]
        assert len(eng.keyword(BOB, "coffee")) == 1
    finally:
        eng.close()


@pytest.mark.parametrize("channel", ["semantic", "keyword"])
def test_a_workspace_sees_its_own_and_shared_memories_not_another_workspaces(engine, channel):
    w1, w2, shared = Scope("alice", workspace="w1"), Scope("alice", workspace="w2"), Scope("alice")
    for scope, text in (
        (w1, "deploy the billing service on friday"),
        (w2, "deploy the search service on monday"),
        (shared, "deploy checklist lives in the wiki"),
    ):
        put(engine, scope, MemoryType.FACT, text)
    if channel == "semantic":
        hits = engine.semantic(w1, engine.embed_query("deploy service"), limit=10)
    else:
        hits = engine.keyword(w1, "deploy service", limit=10)
    found = sorted(engine.get(w1, rid).summary for rid, _ in hits)
    assert found == ["deploy checklist lives in the wiki", "deploy the billing service on friday"]


def test_nearest_kept_matches_the_matrix_product():
    """Duplicate suppression's cosines (computed per kept record, without a BLAS matrix
    product) are the matrix product's, and of equal ones the first kept record wins."""
    import numpy as np

    from openclaw_memory.recall.rank import _Similarity

    rng = np.random.default_rng(3)
    vecs = rng.normal(size=(60, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs[7] = vecs[3]  # an exact duplicate: a tie between 3 and 7 goes to the first kept
    ids = [f"m{i}" for i in range(len(vecs))]
    full = vecs @ vecs.T
    sim = _Similarity(dict(zip(ids, vecs)))
    assert sim.nearest_kept("m0") is None  # nothing kept yet
    kept: list[int] = []
    for j in [*range(0, len(ids), 5), 3, 7]:
        sim.keep(ids[j])
        sim.keep("missing")  # a kept record without a vector is no one's nearest
        kept.append(j)
        for i in range(len(ids)):
            best, cos = sim.nearest_kept(ids[i])
            ref = kept[int(np.argmax(full[i, kept]))]
            assert abs(cos - float(full[i, ref])) < 1e-5
            assert abs(float(full[i, int(best[1:])]) - float(full[i, ref])) < 1e-5
    assert sim.nearest_kept("m3")[0] == "m3" and sim.nearest_kept("m7")[0] == "m3"
    assert sim.nearest_kept("missing") is None
    assert _Similarity({}).nearest_kept("m0") is None


def test_nearest_kept_is_the_row_by_row_cosine_bit_for_bit():
    """The cosine read for a pooled record is the one its own products with the kept records
    give (the same float32 products, summed in the same order), and the nearest is the first
    kept of the highest (argmax): a near-duplicate decision at the threshold does not move."""
    import numpy as np

    from openclaw_memory.recall.rank import _Similarity

    rng = np.random.default_rng(5)
    vecs = rng.normal(size=(47, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs[20] = vecs[4]
    ids = [f"m{i}" for i in range(len(vecs))]
    sim = _Similarity(dict(zip(ids, vecs)))
    kept: list[int] = []
    for j in [4, *range(1, len(ids), 3), 20]:
        sim.keep(ids[j])
        kept.append(j)
        for i in range(len(ids)):
            sims = (vecs[kept] * vecs[i]).sum(axis=1)
            best = int(np.argmax(sims))
            assert sim.nearest_kept(ids[i]) == (ids[kept[best]], float(sims[best]))
