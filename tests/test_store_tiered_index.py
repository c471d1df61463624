"""Small tiers searched exactly from the store, larger ones by Chroma (store/tiered_index.py):
the same answers either way, no collection (and no Chroma memory) for a small tier, one built
whole when a tier outgrows the bound, dropped when it shrinks, and reindex and doctor aware of
both. Real SQLite and Chroma, Chinese and English side by side."""

from __future__ import annotations

import numpy as np
import pytest

from openclaw_memory.runtime.factory import maintenance_ports
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.maintain import doctor, reindex
from openclaw_memory.maintain.runner import tier_collections
from openclaw_memory.store.ports import TierVector
from openclaw_memory.store.tiered_index import TieredIndex, exact_search
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of

U, V = Scope("u1"), Scope("u2")
TEXTS = [
    "我住在杭州西湖附近",
    "My sister moved to Berlin last spring",
    "我每周五晚上打网球",
    "The staging server is called atlas",
    "我最喜欢的咖啡是拿铁",
    "Caroline researched adoption agencies after the support group",
]


def unit(seed: int, dim: int = 8) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=dim).astype(np.float32)
    return v / np.linalg.norm(v)


def open_engine(make_config, tmp_path, clock, exact_below: int) -> MemoryEngine:
    cfg = make_config(tmp_path, storage={"vector_store": {"exact_below": exact_below}})
    return MemoryEngine.open(cfg, clock=clock, background=False)


def write(engine: MemoryEngine, scope: Scope, *texts: str) -> list[str]:
    out = writer_of(engine).write(scope, [Candidate(MemoryType.FACT, t) for t in texts])
    engine.indexer.drain()
    return [r.record.id for r in out]


def collections(engine: MemoryEngine) -> list[str]:
    return tier_collections(engine.index)


def test_exact_search_scores_like_chroma():
    q = unit(1)
    rows = [
        TierVector("far", "fact", "", unit(2), None),
        TierVector("parted", "fact", "", unit(3), np.stack([unit(4), q])),
        TierVector(
            "w1", "fact", "w1", (q + 0.3 * unit(5)) / np.linalg.norm(q + 0.3 * unit(5)), None
        ),
        TierVector("stale", "fact", "", unit(6, dim=4), None),  # another embedder's length
    ]
    found = exact_search(rows, q, 10)
    assert [i for i, _ in found][:2] == ["parted", "w1"]  # a part equal to the query wins
    assert found[0][1] == pytest.approx(1.0, abs=1e-5)
    assert "stale" not in dict(found) and len(found) == 3
    assert dict(found)["far"] == pytest.approx(float(unit(2) @ q), abs=1e-5)
    assert [i for i, _ in exact_search(rows, q, 1)] == ["parted"]
    assert "w1" not in dict(exact_search(rows, q, 10, workspace="w2"))
    assert "w1" in dict(exact_search(rows, q, 10, workspace="w1"))
    assert exact_search([], q, 5) == [] and exact_search(rows, q, 0) == []


def test_a_small_tier_has_no_collection_and_is_searched_exactly(make_config, tmp_path, clock):
    engine = open_engine(make_config, tmp_path, clock, exact_below=10)
    try:
        ids = write(engine, U, *TEXTS)
        assert collections(engine) == []
        assert engine.index.ids(U) == set(ids) and engine.index.count(U) >= len(ids)
        for text, rid in zip(TEXTS, ids):  # both languages find their own memory first
            assert engine.semantic(U, engine.embed_query(text), limit=3)[0][0] == rid
        assert engine.semantic(V, engine.embed_query(TEXTS[0]), limit=3) == []
    finally:
        engine.close()


def test_a_tier_over_the_bound_gets_its_collection_with_the_same_answers(
    make_config, tmp_path, clock
):
    engine = open_engine(make_config, tmp_path, clock, exact_below=4)
    try:
        ids = write(engine, U, *TEXTS[:4])
        queries = [engine.embed_query(t) for t in TEXTS]
        exact = [engine.semantic(U, q, limit=4) for q in queries]
        assert collections(engine) == []
        ids += write(engine, U, *TEXTS[4:])
        assert collections(engine) == [engine.index.collection_name(U, "hot")]
        assert engine.index.ids(U) == set(ids)  # built whole: the earlier records too
        assert engine.index.count(U) == engine.index.chroma.count(U)
        for q, before in zip(queries, exact):
            now = engine.semantic(U, q, limit=6)
            kept = [i for i, _ in now if i in dict(before)]
            assert kept == [i for i, _ in before]  # the old records rank as they did
            for i, s in now:
                assert s == pytest.approx(dict(engine.index.chroma.query(U, q, 6))[i], abs=1e-4)
        assert not [n for n in engine.index.scope_names() if "_filling_" in n]
    finally:
        engine.close()


def test_a_collection_is_dropped_when_its_tier_shrinks(make_config, tmp_path, clock):
    """A store written before (every tier in Chroma) gives its small tiers' memory back at
    their next write; the searches answer the same throughout."""
    engine = open_engine(make_config, tmp_path, clock, exact_below=0)
    ids = write(engine, U, *TEXTS[:3])
    assert len(collections(engine)) == 1
    engine.close()
    engine = open_engine(make_config, tmp_path, clock, exact_below=10)
    try:
        q = engine.embed_query(TEXTS[1])
        assert engine.semantic(U, q, limit=1)[0][0] == ids[1]
        ids += write(engine, U, TEXTS[3])
        assert collections(engine) == []
        assert engine.semantic(U, q, limit=1)[0][0] == ids[1]
        assert engine.index.ids(U) == set(ids)
    finally:
        engine.close()


def test_a_collection_taken_meanwhile_is_written_to(make_config, tmp_path, clock):
    """Two writers building one tier's collection: the second finds the name taken, drops its
    half and upserts into the first's."""
    engine = open_engine(make_config, tmp_path, clock, exact_below=0)
    try:
        chroma = engine.index.chroma
        chroma.upsert(U, "hot", [("a", unit(1), {"type": "fact", "workspace": ""})])
        chroma.fill(U, "hot", [("b", unit(2), {"type": "fact", "workspace": ""})])
        assert chroma.ids(U, "hot") == {"a", "b"}
        assert not [n for n in chroma.scope_names() if "_filling_" in n]
    finally:
        engine.close()


def test_reindex_builds_only_the_tiers_over_the_bound(make_config, tmp_path, clock):
    engine = open_engine(make_config, tmp_path, clock, exact_below=0)
    big = write(engine, U, *TEXTS)
    small = write(engine, V, *TEXTS[:2])
    assert len(collections(engine)) == 2
    engine.close()
    cfg = make_config(tmp_path, storage={"vector_store": {"exact_below": 3}})
    result = reindex(cfg)
    assert result["indexed"] == len(big) + len(small) and result["dropped_collections"] == 2
    engine = MemoryEngine.open(cfg, clock=clock, background=False)
    try:
        assert collections(engine) == [engine.index.collection_name(U, "hot")]
        assert engine.index.ids(U) == set(big) and engine.index.ids(V) == set(small)
        assert doctor(maintenance_ports(engine), repair=False).healthy
    finally:
        engine.close()


def test_doctor_builds_a_missing_collection_and_trusts_a_small_tier(make_config, tmp_path, clock):
    engine = open_engine(make_config, tmp_path, clock, exact_below=3)
    try:
        big = write(engine, U, *TEXTS)
        write(engine, V, TEXTS[0])
        assert doctor(maintenance_ports(engine), repair=False).healthy
        engine.index.drop_scope(U)  # the big tier's collection lost
        found = doctor(maintenance_ports(engine), repair=True)
        assert found.found["missing_vectors"] == len(big)
        assert engine.index.chroma.ids(U, "hot") == set(big)
        assert doctor(maintenance_ports(engine), repair=False).healthy
    finally:
        engine.close()


def test_the_bound_must_be_a_count(make_config, tmp_path, clock):
    from openclaw_memory.errors import ConfigError

    engine = open_engine(make_config, tmp_path, clock, exact_below=0)
    try:
        for bad in (-1, 2.5, True, "100"):
            with pytest.raises(ConfigError, match="exact_below"):
                TieredIndex(engine.index.chroma, engine.store, bad)  # type: ignore[arg-type]
    finally:
        engine.close()


def test_small_tiers_need_no_usable_chroma(make_config, tmp_path, clock):
    """A damaged Chroma (reindex or doctor rebuild it) takes nothing from a small tier: its
    searches and writes go on over the store; a large tier's writes wait in the outbox."""
    engine = open_engine(make_config, tmp_path, clock, exact_below=3)
    try:
        big = write(engine, U, *TEXTS)
        chroma = engine.index.chroma
        chroma.close()
        chroma._client, chroma.unusable = None, "the vector index is damaged; run reindex"
        small = write(engine, V, TEXTS[0], TEXTS[1])
        assert engine.semantic(V, engine.embed_query(TEXTS[1]), limit=1)[0][0] == small[1]
        assert engine.semantic(U, engine.embed_query(TEXTS[2]), limit=1)[0][0] == big[2]
        writer_of(engine).write(U, [Candidate(MemoryType.FACT, "我的车是蓝色的")])
        with pytest.raises(Exception):
            engine.indexer.drain(U)
        assert engine.indexer.pending(U) == 1
    finally:
        engine.close()
