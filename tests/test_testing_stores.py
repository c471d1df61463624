"""The in-memory backends the default fixtures give every engine (openclaw_memory.testing):
what they stand in for, where they stop, and the switch back to the real ones."""

from __future__ import annotations

import pytest

from openclaw_memory.errors import IndexMismatchError
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.store.memory import MemoryStore
from openclaw_memory.store.sqlite import SQLiteStore
from openclaw_memory.store.tiered_index import NumpyIndex
from openclaw_memory.testing import in_memory_backends
from openclaw_memory.testing import real_backends
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of

ALICE = Scope("alice", "main")
#: an English and a Chinese memory, side by side
TEXTS = ("I keep a zebrafish named Quasimodo", "我养了一条叫卡西莫多的斑马鱼")


def _open(make_config, path, clock, embedder="hash"):
    return MemoryEngine.open(make_config(path, embedder=embedder), clock=clock, background=False)


def _write(engine):
    return [
        writer_of(engine)
        .write(ALICE, [Candidate(MemoryType.FACT, text, subject=f"pet/{n}")])[0]
        .record.id
        for n, text in enumerate(TEXTS)
    ]


def test_an_engine_opens_the_in_memory_store_and_writes_no_file(make_config, tmp_path, clock):
    with in_memory_backends():
        engine = _open(make_config, tmp_path / "a", clock)
        try:
            assert isinstance(engine.store, MemoryStore) and isinstance(engine.index, NumpyIndex)
            ids = _write(engine)
            assert [engine.get(ALICE, i).summary for i in ids] == list(TEXTS)
        finally:
            engine.close()
    assert not (tmp_path / "a" / "memory.db").exists()


def test_the_same_folder_reopened_holds_what_was_written_another_starts_empty(
    make_config, tmp_path, clock
):
    with in_memory_backends():
        first = _open(make_config, tmp_path / "a", clock)
        ids = _write(first)
        first.close()
        again = _open(make_config, tmp_path / "a", clock)
        other = _open(make_config, tmp_path / "b", clock)
        try:
            assert [again.get(ALICE, i).summary for i in ids] == list(TEXTS)
            assert again.semantic(ALICE, again.embed_query(TEXTS[1]), limit=1)[0][0] == ids[1]
            assert other.store.user_records("alice") == []
        finally:
            again.close()
            other.close()


def test_another_embedder_on_the_same_folder_is_refused_naming_reindex(
    make_config, tmp_path, clock
):
    with in_memory_backends():
        _open(make_config, tmp_path / "a", clock).close()
        with pytest.raises(IndexMismatchError, match="reindex"):
            _open(make_config, tmp_path / "a", clock, embedder="hash:128")


@pytest.mark.sqlite_only  # the configured backend of the default run: SQLite
def test_nothing_outlives_the_block_and_real_backends_open_the_files(make_config, tmp_path, clock):
    with in_memory_backends():
        engine = _open(make_config, tmp_path / "a", clock)
        _write(engine)
        engine.close()
        with real_backends():
            real = _open(make_config, tmp_path / "r", clock)
            try:
                assert isinstance(real.store, SQLiteStore)
            finally:
                real.close()
        inner = _open(make_config, tmp_path / "m", clock)
        assert isinstance(inner.store, MemoryStore)
        inner.close()
    assert (tmp_path / "r" / "memory.db").exists()
    with in_memory_backends():
        engine = _open(make_config, tmp_path / "a", clock)
        assert engine.store.user_records("alice") == []
        engine.close()
