"""The maintenance ports: what the factory hands maintenance over an open engine, and the jobs,
doctor and purge over ports built straight on the in-memory store and the numpy index, with no
engine at all (they read nothing but their ports)."""

from __future__ import annotations

import pytest

from openclaw_memory.embed.embedding import build_embedder, embedder_dim, embedder_name
from openclaw_memory.maintain import MaintenancePorts, doctor, purge_user, run_maintenance
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.store.indexer import Indexer
from openclaw_memory.store.memory import MemoryStore
from openclaw_memory.store.tiered_index import NumpyIndex
from openclaw_memory.types import Candidate, MemoryType, Scope, Status
from openclaw_memory.write.consolidate import MemoryWriter

ALICE, BOB = Scope("alice"), Scope("bob")


@pytest.fixture
def storage(config, clock):
    """Maintenance ports over the in-memory store and the numpy index (the indexer between them
    drains and wakes), and a writer over the same store."""
    embedder = build_embedder("hash")
    name = embedder_name(embedder)
    store = MemoryStore()
    index = NumpyIndex(name, embedder_dim(embedder))
    indexer = Indexer(store, index, background=False)
    ports = MaintenancePorts(
        store, index, embedder, name, clock, config, indexer.drain, indexer.notify
    )
    yield ports, MemoryWriter(store, embedder, clock, config, model_name=name, indexer=indexer)
    indexer.close()
    index.close()
    store.close()


def write(writer: MemoryWriter, scope: Scope, type_: MemoryType, text: str, **kw):
    return writer.write(scope, [Candidate(type_, text, **kw)])[0].record


@pytest.mark.parametrize(
    "event, fact",
    [
        ("deploy to staging failed: disk full", "bob keeps a zebrafish named Quasimodo"),
        ("部署到测试环境失败：磁盘已满", "小王养了一条叫卡西莫多的斑马鱼"),
    ],
)
def test_the_jobs_doctor_and_purge_run_over_ports_without_an_engine(storage, clock, event, fact):
    ports, writer = storage
    ev = write(writer, ALICE, MemoryType.EVENT, event, subject="deploy")
    kept = write(writer, BOB, MemoryType.FACT, fact, subject="pet")
    ports.sync_index()
    assert doctor(ports).problems == 0
    assert ev.id in ports.index.ids(ALICE, "hot")

    clock.advance(days=31)  # past the event's TTL
    report = run_maintenance(ports)
    assert report.expired == 1 and report.by_scope["alice/default"]["expired"] == 1
    assert ports.store.get(ALICE, ev.id).status is Status.ARCHIVED
    # the run drained what it queued: the vector moved to the cold tier before it returned
    assert ev.id in ports.index.ids(ALICE, "cold") and ev.id not in ports.index.ids(ALICE, "hot")
    assert doctor(ports, repair=False).problems == 0

    counts = purge_user(ports, "alice")
    assert counts["records"] == 1
    assert ports.store.get(ALICE, ev.id) is None
    assert ports.index.ids(ALICE, "cold") == set() == ports.index.ids(ALICE, "hot")
    assert ports.store.get(BOB, kept.id) is not None and kept.id in ports.index.ids(BOB, "hot")
    assert doctor(ports, repair=False).problems == 0


def test_the_factory_hands_maintenance_the_ports_of_the_engine_it_opened(config, clock):
    with build_middleware(config, clock=clock) as mw:
        ports, engine = mw.maintenance, mw.engine
        assert isinstance(ports, MaintenancePorts)
        assert (ports.store, ports.index, ports.embedder, ports.clock, ports.config) == (
            engine.store,
            engine.index,
            engine.embedder,
            engine.clock,
            engine.config,
        )
        assert ports.model_name == engine.model_name
        assert (ports.sync_index, ports.written) == (engine.sync_index, engine.written)
        assert not hasattr(ports, "close")  # the engine that opened the storage closes it
