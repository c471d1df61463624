"""The implementations the store contract tests run against (tests/test_store_contract.py).

A backend joins the suite by adding a factory here: `RECORD_STORES[name] = make` with
`make(tmp_path) -> RecordStore`, or `VECTOR_INDEXES[name] = make` with
`make(tmp_path, embedder_name, dim) -> ManagedVectorIndex`. A factory that needs a server
nobody started calls `pytest.skip(...)`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from openclaw_memory.store.memory import MemoryStore
from openclaw_memory.store.numpy_index import NumpyIndex
from openclaw_memory.store.ports import ManagedVectorIndex, RecordStore
from openclaw_memory.store.sqlite import SQLiteStore
from openclaw_memory.store.vector import ChromaIndex


def _sqlite(tmp: Path) -> RecordStore:
    return SQLiteStore.open(tmp / "memory.db")


def _memory(tmp: Path) -> RecordStore:
    return MemoryStore()


def _chroma(tmp: Path, name: str, dim: int) -> ManagedVectorIndex:
    index = ChromaIndex(path=tmp / "chroma", embedder_name=name, dim=dim)
    index.check_embedder()
    return index


def _numpy(tmp: Path, name: str, dim: int) -> ManagedVectorIndex:
    index = NumpyIndex(name, dim)
    index.check_embedder()
    return index


RECORD_STORES: dict[str, Callable[[Path], RecordStore]] = {"sqlite": _sqlite, "memory": _memory}
VECTOR_INDEXES: dict[str, Callable[[Path, str, int], ManagedVectorIndex]] = {
    "chroma": _chroma,
    "numpy": _numpy,
}
