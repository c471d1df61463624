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
from openclaw_memory.store.tiered_index import NumpyIndex
from openclaw_memory.store.ports import ManagedVectorIndex, RecordStore
from openclaw_memory.store.sqlite import SQLiteStore
from openclaw_memory.store.vector import ChromaIndex


def _sqlite(tmp: Path) -> RecordStore:
    return SQLiteStore.open(tmp / "memory.db")


def _memory(tmp: Path) -> RecordStore:
    return MemoryStore()


def _postgres(tmp: Path) -> RecordStore:
    """A database of this test's own on the run's throwaway server (tests/pg_server.py)."""
    import os

    import pytest
    from pg_server import REQUIRE_ENV, database_for, find_bindir

    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        missing = f"psycopg is not installed ({exc})"
    else:
        missing = "" if find_bindir() else "no PostgreSQL server binaries"
    if missing:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {missing}")
        pytest.skip(missing)
    from openclaw_memory.store.postgres import PostgresRecordStore

    return PostgresRecordStore.open(database_for(tmp))


def _chroma(tmp: Path, name: str, dim: int) -> ManagedVectorIndex:
    index = ChromaIndex(path=tmp / "chroma", embedder_name=name, dim=dim)
    index.check_embedder()
    return index


def _numpy(tmp: Path, name: str, dim: int) -> ManagedVectorIndex:
    index = NumpyIndex(name, dim)
    index.check_embedder()
    return index


RECORD_STORES: dict[str, Callable[[Path], RecordStore]] = {
    "sqlite": _sqlite,
    "memory": _memory,
    "postgres": _postgres,
}
VECTOR_INDEXES: dict[str, Callable[[Path, str, int], ManagedVectorIndex]] = {
    "chroma": _chroma,
    "numpy": _numpy,
}
