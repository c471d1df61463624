"""Doctor: finds and repairs drift between SQLite (truth) and the vector and keyword indexes."""

from __future__ import annotations

import numpy as np
import pytest

from openclaw_memory.runtime.factory import maintenance_ports
from openclaw_memory.core.clock import FakeClock
from openclaw_memory.config import config_from_dict
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.maintain import doctor, expire
from openclaw_memory.maintain.doctor import PROBLEMS
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of
from openclaw_memory.store import inspect

T = MemoryType
U1 = Scope("u1")
EN, ZH = "the staging server is called atlas", "测试服务器的名字叫阿特拉斯"


#: the doctor repairs drift between SQLite (its vectors, its FTS5 rows) and Chroma's files
pytestmark = pytest.mark.real_store("drift made in SQLite's rows and Chroma's collections")


@pytest.fixture
def clock():
    return FakeClock(1_750_000_000.0)


@pytest.fixture
def engine(tmp_path, clock):
    # every tier in Chroma: these tests make and repair drift between the store and Chroma
    cfg = config_from_dict(
        {
            "storage": {
                "data_dir": str(tmp_path),
                "embedding_model": "hash",
                "vector_store": {"exact_below": 0},
            }
        }
    )
    e = MemoryEngine.open(cfg, clock=clock, background=False)
    yield e
    e.close()


def write(engine, scope, type_, summary, **kw):
    return writer_of(engine).write(scope, [Candidate(type_, summary, **kw)])[0].record


def top(engine, text, tier="hot"):
    found = engine.semantic(U1, engine.embed_query(text), limit=5, tier=tier)
    return found[0][0] if found else None


def test_a_healthy_store_has_nothing_to_fix(engine):
    write(engine, U1, T.FACT, EN, subject="staging")
    report = doctor(maintenance_ports(engine), repair=True)
    assert report.drained == 1 and report.scopes == 1
    assert report.problems == 0 and report.healthy
    assert set(report.to_dict()["found"]) == set(PROBLEMS)


def test_doctor_repairs_an_orphan_vector_and_a_missing_one(engine):
    kept = write(engine, U1, T.FACT, EN, subject="staging")
    lost = write(engine, U1, T.FACT, ZH, subject="测试服务器")
    engine.indexer.drain()
    engine.index.upsert(
        U1, "hot", [("mem_ghost", engine.embed_query(EN), {"type": "fact", "workspace": ""})]
    )
    engine.index.delete(U1, [lost.id])
    assert top(engine, ZH) != lost.id

    check = doctor(maintenance_ports(engine), repair=False)
    assert check.found["orphan_vectors"] == 1 and check.found["missing_vectors"] == 1
    assert sum(check.fixed.values()) == 0 and not check.healthy
    assert "mem_ghost" in engine.index.ids(U1)  # a dry run changes nothing

    fixed = doctor(maintenance_ports(engine), repair=True)
    assert fixed.found["orphan_vectors"] == fixed.fixed["orphan_vectors"] == 1
    assert fixed.found["missing_vectors"] == fixed.fixed["missing_vectors"] == 1
    assert fixed.problems == 2 and fixed.healthy
    assert engine.index.ids(U1) == {kept.id, lost.id}
    assert top(engine, ZH) == lost.id

    assert doctor(maintenance_ports(engine), repair=True).problems == 0


def test_doctor_moves_a_vector_in_the_wrong_tier(engine, clock):
    event = write(engine, U1, T.EVENT, "nightly backup failed", subject="backup")
    clock.advance(days=31)
    expire(maintenance_ports(engine), U1)
    engine.indexer.drain()
    vec = engine.embed_query("nightly backup failed")
    engine.index.upsert(U1, "hot", [(event.id, vec, {"type": "event", "workspace": ""})])
    engine.index.delete(U1, [event.id], tiers=("cold",))

    report = doctor(maintenance_ports(engine))
    assert report.found["orphan_vectors"] == 1 and report.found["missing_vectors"] == 1
    assert engine.index.ids(U1, "hot") == set() and engine.index.ids(U1, "cold") == {event.id}


def test_doctor_reembeds_a_lost_sqlite_vector(engine):
    r = write(engine, U1, T.FACT, EN, subject="staging")
    engine.indexer.drain()
    inspect.delete(engine.store, "vectors", record_id=r.id)
    engine.index.delete(U1, [r.id])

    report = doctor(maintenance_ports(engine))
    assert report.found["stale_sqlite_vectors"] == 1 and report.found["missing_vectors"] == 1
    [row] = inspect.select(engine.store, "vectors", ("model", "dim", "vec"), record_id=r.id)
    assert row["model"] == engine.model_name and row["dim"] == engine.index.dim
    assert np.allclose(
        np.frombuffer(row["vec"], dtype=np.float32), engine.embed_query(r.text), atol=1e-5
    )
    assert top(engine, EN) == r.id


def test_doctor_drops_orphan_collections_and_fixes_the_keyword_index(engine):
    r = write(engine, U1, T.FACT, ZH, subject="测试服务器")
    ghost_scope = Scope("ghost")
    engine.index.upsert(
        ghost_scope, "hot", [("mem_x", engine.embed_query("x"), {"type": "fact", "workspace": ""})]
    )
    orphan_name = engine.index.collection_name(ghost_scope)
    [held] = inspect.select(engine.store, "records", ("rid",), id=r.id)
    inspect.delete(engine.store, "records_fts", rowid=held["rid"])
    inspect.insert(engine.store, "records_fts", rowid=99999, tokens="stale tokens")
    inspect.insert(
        engine.store, "vectors", record_id="gone", model="m", content_hash="h", dim=1, vec=b"\x00"
    )
    assert engine.keyword(U1, "阿特拉斯") == []

    report = doctor(maintenance_ports(engine))
    for kind in ("orphan_collections", "orphan_fts", "missing_fts", "orphan_sqlite_vectors"):
        assert report.found[kind] == report.fixed[kind] == 1, kind
    assert orphan_name not in engine.index.scope_names()
    assert [i for i, _ in engine.keyword(U1, "阿特拉斯")] == [r.id]
    assert inspect.keyword_hits(engine.store, "stale") == 0
    assert doctor(maintenance_ports(engine)).problems == 0
