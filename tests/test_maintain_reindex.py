"""Reindex: after the embedder changes, the store refuses to open until `reindex` rebuilds it."""

from __future__ import annotations

import pytest

from openclaw_memory.runtime.factory import maintenance_ports
from openclaw_memory.core.clock import FakeClock
from openclaw_memory.config import config_from_dict
from openclaw_memory.embed.embedding import HashEmbedding
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.errors import IndexMismatchError
from openclaw_memory.maintain import doctor, expire, reindex
from openclaw_memory.types import Candidate, MemoryType, Scope, Status
from openclaw_memory.store import inspect
from store_helpers import forget_in, writer_of

pytestmark = pytest.mark.real_store("reindex rebuilds Chroma's files from the SQLite file")

T = MemoryType
U1, U2 = Scope("u1"), Scope("u2", "helper")
EN, ZH, OLD = (
    "the deploy key lives in the vault",
    "部署密钥放在保险库里",
    "weekly sync moved to friday",
)


def config(tmp_path, model):
    return config_from_dict({"storage": {"data_dir": str(tmp_path), "embedding_model": model}})


def open_engine(tmp_path, model="hash:256", clock=None, **kw):
    return MemoryEngine.open(
        config(tmp_path, model), clock=clock or FakeClock(1_750_000_000.0), background=False, **kw
    )


@pytest.fixture
def seeded(tmp_path):
    """Two scopes written with hash:256: live, archived and forgotten records."""
    clock = FakeClock(1_750_000_000.0)
    engine = open_engine(tmp_path, clock=clock)
    ids = {
        "en": writer_of(engine)
        .write(U1, [Candidate(T.FACT, EN, subject="deploy key")])[0]
        .record.id,
        "zh": writer_of(engine).write(U2, [Candidate(T.FACT, ZH, subject="部署密钥")])[0].record.id,
        "old": writer_of(engine).write(U1, [Candidate(T.EVENT, OLD, subject="sync")])[0].record.id,
        "forgotten": writer_of(engine)
        .write(U1, [Candidate(T.FACT, "temporary note", subject="note")])[0]
        .record.id,
    }
    forget_in(engine, U1, ids["forgotten"])
    clock.advance(days=31)
    expire(maintenance_ports(engine), U1)  # the event goes to the cold tier
    engine.close()
    return ids


def test_opening_with_another_embedder_names_reindex(tmp_path, seeded):
    with pytest.raises(IndexMismatchError, match="openclaw-memory reindex"):
        open_engine(tmp_path, "hash:128")


def test_reindex_rebuilds_with_the_configured_embedder(tmp_path, seeded):
    calls = []
    result = reindex(
        config(tmp_path, "hash:128"), progress=lambda done, total: calls.append((done, total))
    )

    assert result["dim"] == 128 and result["scopes"] == 2
    assert result["records"] == 3 and result["reembedded"] == 3 and result["indexed"] == 3
    assert result["dropped_vectors"] == 1  # the forgotten record's 256-dim vector
    assert calls and calls[-1] == (6, 6) and all(d <= t for d, t in calls)

    engine = open_engine(tmp_path, "hash:128")
    try:
        assert engine.index.dim == 128
        assert engine.semantic(U1, engine.embed_query(EN), limit=1)[0][0] == seeded["en"]
        assert engine.semantic(U2, engine.embed_query(ZH), limit=1)[0][0] == seeded["zh"]
        assert (
            engine.semantic(U1, engine.embed_query(OLD), limit=1, tier="cold")[0][0]
            == seeded["old"]
        )
        assert engine.get(U1, seeded["old"]).status is Status.ARCHIVED
        dims = {r["dim"] for r in inspect.select(engine.store, "vectors", ("dim",))}
        assert engine.store.pending() == 0
        assert dims == {128}
        assert doctor(maintenance_ports(engine), repair=False).problems == 0
        writer_of(engine).write(
            U1, [Candidate(T.FACT, "new facts index at 128 dims", subject="new")]
        )
        assert engine.semantic(U1, engine.embed_query("new facts index at 128 dims"), limit=1)
    finally:
        engine.close()

    again = reindex(config(tmp_path, "hash:128"))
    assert again["reembedded"] == 0 and again["indexed"] == 4


def test_reindex_after_a_model_rename_updates_the_sqlite_meta_row(tmp_path, seeded):
    renamed = HashEmbedding(model_name="hash-embedding-v2", dimensions=256)
    with pytest.raises(IndexMismatchError, match="reindex"):
        open_engine(
            tmp_path, embedder=renamed, check_embedder=False
        )  # the SQLite meta row refuses too

    result = reindex(config(tmp_path, "hash:256"), embedder=renamed)
    assert result["embedder"] == "hash-embedding-v2@256" and result["reembedded"] == 3

    engine = open_engine(tmp_path, embedder=renamed)
    try:
        assert engine.model_name == "hash-embedding-v2@256"
        assert engine.semantic(U1, engine.embed_query(EN), limit=1)[0][0] == seeded["en"]
    finally:
        engine.close()
