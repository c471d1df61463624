"""The read path's speed-ups keep its result: channels run while the query is embedded, and the
query vectors of repeated request texts are cached (bounded, per user, dropped on purge)."""

from __future__ import annotations

import dataclasses
import threading

import numpy as np
import pytest

from openclaw_memory.core.clock import DAY
from openclaw_memory.embed.embedding import QueryVectors
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.recall.pool import Pool
from openclaw_memory.recall import recaller as recaller_module
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller, merge
from openclaw_memory.store import records as rec
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of
from openclaw_memory.store import inspect

ALICE, BOB = Scope("alice"), Scope("bob")

MEMORIES = [
    (MemoryType.PROFILE, "The user's name is Alice Chen and she lives in Lisbon", "name"),
    (MemoryType.PREFERENCE, "Alice drinks oat-milk flat whites, never espresso", "coffee"),
    (MemoryType.PREFERENCE, "用户喜欢喝手冲咖啡，不加糖", "咖啡"),
    (MemoryType.FACT, "用户的猫叫小白，三岁了", "猫"),
    (MemoryType.EVENT, "Alice ran the Lisbon half marathon in March", None),
    (MemoryType.EVENT, "用户上周去杭州出差，住在西湖边", None),
    (MemoryType.DECISION, "Project PRD-223 ships on Friday after the budget review", "PRD-223"),
    (MemoryType.SUMMARY, "Session: planning the trip to Hangzhou and the hotel budget", None),
    (MemoryType.EPISODE, "user: I think I will switch to tea in the evenings", None),
    (MemoryType.EPISODE, "user: 我最近晚上改喝乌龙茶了", None),
]

REQUESTS = [
    "what does the user like to drink",
    "用户喜欢喝什么咖啡",
    "when is PRD-223 shipping?",
    "用户的猫叫什么名字",
    "where did Alice run a marathon",
    "上周出差住在哪里",
    "tell me something unrelated about quantum chromodynamics",
]


@pytest.fixture
def stocked(engine, clock):
    for i, (type_, text, subject) in enumerate(MEMORIES):
        importance = 0.9 if i % 3 == 0 else 0.5
        for scope in (ALICE, BOB):
            writer_of(engine).write(
                scope, [Candidate(type_, text, subject=subject, importance=importance)]
            )
        clock.advance(DAY / 2)
    return engine


def _fingerprint(result):
    return [
        (s.record.id, s.score, dict(s.components), s.channels, s.rank, s.kept, s.reason)
        for s in result.ranked
    ]


@pytest.mark.parametrize("text", REQUESTS)
def test_parallel_channels_give_the_sequential_result(stocked, text, monkeypatch):
    # every request takes the thread, however fast the test's embedder is
    monkeypatch.setattr(recaller_module, "PARALLEL_EMBEDDING_S", 0.0)
    cfg = stocked.config.recall
    sequential = Recaller(read_ports(stocked), cfg, parallel=False, query_vectors=0)
    parallel = Recaller(read_ports(stocked), cfg, parallel=True, query_vectors=0)
    for deep in (False, True):
        want = sequential.recall(ALICE, text, deep=deep)
        got = parallel.recall(ALICE, text, deep=deep)
        assert _fingerprint(got) == _fingerprint(want)
        assert got.query == want.query


class _Spy:
    """A channel recording the thread it ran in and the vector it was given."""

    def __init__(self, name: str, uses_vector: bool | None) -> None:
        self.name = name
        if uses_vector is not None:
            self.uses_vector = uses_vector
        self.seen: list[tuple[int, int]] = []

    def propose(self, scope, query, qvec, pool) -> None:
        self.seen.append((threading.get_ident(), len(qvec)))


def test_channels_without_the_vector_run_beside_the_embedding(engine, monkeypatch):
    early, late, default = _Spy("early", False), _Spy("late", True), _Spy("default", None)
    started = threading.Event()
    embed = recaller_module.embed_query

    def slow_embed(embedder, text: str) -> np.ndarray:
        # the early channel runs while the query is being embedded, in another thread
        assert started.wait(5), "the early channel did not start while the query was embedded"
        return embed(embedder, text)

    monkeypatch.setattr(recaller_module, "embed_query", slow_embed)
    original = early.propose
    early.propose = lambda *a: (started.set(), original(*a))  # type: ignore[method-assign]
    recaller = Recaller(read_ports(engine), engine.config.recall, channels=[late, early, default])
    recaller.recall(ALICE, "what does the user like to drink")
    me = threading.get_ident()
    assert early.seen[0][0] != me and early.seen[0][1] == 0
    # a channel that reads the vector, or says nothing, runs after the embedding and gets it
    assert late.seen == [(me, engine.embedder.dim)]
    assert default.seen == [(me, engine.embedder.dim)]


def test_the_early_proposals_are_read_while_the_query_embeds(stocked, monkeypatch):
    """The records, vectors and search tokens of the early channels' proposals and the entity
    channel's request entities are read in the worker thread; the main thread reads only what
    the vector and entity channels add."""
    monkeypatch.setattr(recaller_module, "PARALLEL_EMBEDDING_S", 0.0)
    store, me = stocked.store, threading.get_ident()
    asked: dict[str, list[tuple[bool, frozenset]]] = {}

    def spy(name):
        real = getattr(store, name)

        def call(*args, **kw):
            ids = args[-1] if name in ("vectors_with_parts", "search_tokens") else args[1]
            asked.setdefault(name, []).append((threading.get_ident() == me, frozenset(ids)))
            return real(*args, **kw)

        monkeypatch.setattr(store, name, call)

    for name in ("get_many", "vectors_with_parts", "search_tokens", "records_naming"):
        spy(name)
    recaller = Recaller(read_ports(stocked), stocked.config.recall, query_vectors=0)
    result = recaller.recall(ALICE, "when is PRD-223 shipping? and Alice's marathon in Lisbon")
    assert any(not main and ids for main, ids in asked["vectors_with_parts"])  # read ahead
    assert any(not main for main, _ in asked["records_naming"])
    # (the vector search's drain of the test's fresh writes reads vectors too; the search
    # tokens are read for the pool alone)
    early = set().union(*(ids for main, ids in asked["search_tokens"] if not main))
    late = set().union(*(ids for main, ids in asked["search_tokens"] if main))
    assert early and not early & late  # each memory's tokens read once
    assert {s.record.id for s in result.ranked} == early | late


@pytest.mark.real_store("the tiered index: small tiers searched from the store's vectors")
def test_the_small_tiers_vectors_are_read_while_the_query_embeds(stocked, monkeypatch):
    """The vector channel's search is prepared in the worker thread (the tier's vectors read and
    stacked): after the embedding, the main thread reads neither the tier nor the vector of a
    memory the search found."""
    monkeypatch.setattr(recaller_module, "PARALLEL_EMBEDDING_S", 0.0)
    store, me = stocked.store, threading.get_ident()
    calls: list[tuple[str, bool, frozenset]] = []
    for name in ("tier_vectors", "vectors_with_parts"):

        def call(*args, _real=getattr(store, name), _name=name, **kw):
            ids = frozenset(args[0]) if _name == "vectors_with_parts" else frozenset()
            calls.append((_name, threading.get_ident() == me, ids))
            return _real(*args, **kw)

        monkeypatch.setattr(store, name, call)
    for deep in (False, True):
        calls.clear()
        result = Recaller(read_ports(stocked), stocked.config.recall, query_vectors=0).recall(
            ALICE, "what does the user like to drink", deep=deep
        )
        found = {s.record.id for s in result.ranked if "vector" in s.channels}
        assert found
        tiers = [main for name, main, _ in calls if name == "tier_vectors"]
        assert tiers and not any(tiers)  # hot (and cold when deep), in the worker
        late = set().union(*(ids for name, main, ids in calls if main), set())
        assert not late & found


def test_a_failing_early_channel_fails_the_recall(engine):
    class Broken:
        name, uses_vector = "broken", False

        def propose(self, *a):
            raise RuntimeError("channel down")

    recaller = Recaller(read_ports(engine), engine.config.recall, channels=[Broken()])
    with pytest.raises(RuntimeError, match="channel down"):
        recaller.recall(ALICE, "anything")


def test_merge_replays_proposals_in_order():
    pool, part = Pool(), Pool()
    pool.propose("a", "vector")
    pool.cosine["a"] = 0.5
    part.propose("b", "keyword")
    part.propose("a", "keyword")
    part.bm25.update(b=2.0, a=1.0)
    part.recent_summaries.append("s1")
    part.agreeing.add("b")
    merge(pool, part)
    assert pool.channels == {"a": ["vector", "keyword"], "b": ["keyword"]}
    assert list(pool.bm25) == ["b", "a"] and pool.cosine == {"a": 0.5}
    assert pool.recent_summaries == ["s1"] and pool.agreeing == {"b"}


def _counting(monkeypatch):
    """The texts the recallers built from now on embed."""
    calls: list[str] = []
    embed = recaller_module.embed_query

    def counted(embedder, text: str) -> np.ndarray:
        calls.append(text)
        return embed(embedder, text)

    monkeypatch.setattr(recaller_module, "embed_query", counted)
    return calls


def test_a_repeated_request_is_embedded_once_with_the_same_result(stocked, monkeypatch):
    calls = _counting(monkeypatch)
    recaller = Recaller(read_ports(stocked), stocked.config.recall)
    first = recaller.recall(ALICE, "用户喜欢喝什么咖啡")
    again = recaller.recall(ALICE, "用户喜欢喝什么咖啡")
    assert calls == ["用户喜欢喝什么咖啡"]
    assert _fingerprint(again) == _fingerprint(first)
    recaller.recall(BOB, "用户喜欢喝什么咖啡")  # another user: embedded again, kept apart
    recaller.recall(ALICE, "what does the user like to drink")
    assert len(calls) == 3 and recaller.query_vectors.hits == 1


def test_the_query_cache_is_bounded_least_recently_used_first():
    embedded: list[str] = []

    def embed(text: str) -> np.ndarray:
        embedded.append(text)
        return np.full(4, float(len(embedded)), dtype=np.float32)

    cache = QueryVectors("model@4", embed, size=2)
    owner = ("alice", "default")
    cache.embed(owner, "one")
    cache.embed(owner, "two")
    cache.embed(owner, "one")  # used again: "two" is now the oldest
    cache.embed(owner, "three")
    assert len(cache) == 2
    cache.embed(owner, "one")
    cache.embed(owner, "two")
    assert embedded == ["one", "two", "three", "two"]
    with pytest.raises(ValueError):  # what it hands out cannot be changed in place
        cache.embed(owner, "two")[0] = 9.0


def test_the_query_cache_keys_hold_no_request_text_and_name_the_model():
    vec = np.ones(4, dtype=np.float32)
    a = QueryVectors("model-a@4", lambda t: vec, size=8)
    b = QueryVectors("model-b@4", lambda t: vec, size=8)
    owner = ("alice", "default")
    a.put(owner, "my secret plan", vec)
    b.put(owner, "my secret plan", vec)
    assert "secret" not in repr(list(a._vectors)) and list(a._vectors) != list(b._vectors)
    assert QueryVectors("m", lambda t: vec, size=0).embed(owner, "x") is vec  # size 0: no cache


def test_a_purge_drops_the_users_cached_query_vectors(config, clock):
    mw = build_middleware(config, clock=clock, background=False)
    try:
        recaller = mw.recaller
        recaller.recall(ALICE, "what does the user like to drink")
        recaller.recall(Scope("alice", "other"), "what does the user like to drink")
        recaller.recall(BOB, "what does the user like to drink")
        assert len(recaller.query_vectors) == 3
        mw.purge_user("alice", "other")
        assert len(recaller.query_vectors) == 2
        mw.purge_user("alice")
        assert [k[0] for k in recaller.query_vectors._vectors] == ["bob"]
    finally:
        mw.close()


@pytest.mark.real_store("SQLite's query plan")
@pytest.mark.sqlite_only  # SQLite's partial index
def test_the_profile_channel_reads_its_partial_index(engine, monkeypatch):
    """The channel's own WHERE (not a copy of it) is one SQLite matches to rec_profile: no sort
    of every profile and preference of the user."""
    from openclaw_memory.recall.channels import ProfileChannel

    seen: list[str] = []
    store = engine.store
    query = store._query

    def spy(scope, where, args=(), order="updated_at DESC", limit=100):
        sql, sargs = rec._scope_sql(scope)
        select = f"SELECT * FROM records WHERE {sql} AND ({where}) ORDER BY {order} LIMIT ?"
        plan = inspect.rows(store, "EXPLAIN QUERY PLAN " + select, (*sargs, *args, limit))
        seen.append(" ".join(r[3] for r in plan))
        return query(scope, where, args, order=order, limit=limit)

    monkeypatch.setattr(store, "_query", spy)
    cfg = dataclasses.replace(engine.config.recall, profile_whitelist=())
    ProfileChannel(engine.store, cfg).propose(ALICE, None, np.empty(0), Pool())
    assert seen and "rec_profile" in seen[0] and "TEMP B-TREE" not in seen[0]


def test_no_thread_outlives_a_recall(stocked):
    before = set(threading.enumerate())
    recaller = Recaller(read_ports(stocked), stocked.config.recall, query_vectors=0)
    for text in REQUESTS[:3]:
        recaller.recall(ALICE, text)
    assert set(threading.enumerate()) - before == set()


def test_the_entity_hop_starts_from_the_merged_pool_under_the_parallel_recaller(engine):
    """The keyword channel runs beside the embedding into a pool of its own; the entity channel
    (no `uses_vector = False`: it reads the others' candidates) runs after the merge, so its hop
    starts from the keyword candidates in both modes, with the same plan."""
    from openclaw_memory.recall.channels import KeywordChannel
    from openclaw_memory.recall.channels import EntityChannel

    def write(text: str, session: str) -> str:
        got = writer_of(engine).write(
            ALICE, [Candidate(MemoryType.EPISODE, text)], session_id=session
        )
        return got[0].record.id

    write("Caroline's mentor is Oscar.", "s1")
    hops = {write(f"Oscar taught a pottery class number {i}.", f"h{i}") for i in range(6)}
    for i in range(20):  # names in few memories: selective enough to follow
        write(f"The weather was mild on day {i}.", f"w{i}")
    keyword, entity = KeywordChannel(engine.store, 20), EntityChannel(engine.store, 20)
    assert getattr(keyword, "uses_vector", True) is False
    assert getattr(entity, "uses_vector", True) is True
    cfg = engine.config.recall
    results = [
        Recaller(
            read_ports(engine), cfg, channels=(keyword, entity), parallel=p, query_vectors=0
        ).recall(ALICE, "who is the mentor")
        for p in (False, True)
    ]
    hopped = {s.record.id for s in results[1].ranked if "hop:Oscar" in s.channels}
    assert hopped and hopped <= hops
    assert _fingerprint(results[1]) == _fingerprint(results[0])


@pytest.mark.parametrize("seconds, beside", [(None, True), (0.0001, False), (0.05, True)])
def test_channels_run_beside_an_embedding_only_when_it_takes_a_while(engine, seconds, beside):
    """A thread costs more than a fast embedding saves: the early channels run beside the
    embedding when it is slow lately (or not known yet), in the request's thread when it is
    fast; the embedding's time is measured as it is computed."""
    early = _Spy("early", False)
    recaller = Recaller(read_ports(engine), engine.config.recall, channels=[early])
    recaller.query_vectors.seconds = seconds
    recaller.recall(ALICE, "what does the user like to drink")
    assert (early.seen[0][0] != threading.get_ident()) == beside
    assert recaller.query_vectors.seconds is not None and recaller.query_vectors.seconds > 0
