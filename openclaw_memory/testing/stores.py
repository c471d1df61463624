"""The in-memory backends for tests: every engine opened inside `in_memory_backends()` holds
its records in the in-memory record store (`store.memory.MemoryStore`) and its vectors in the
numpy index (`store.tiered_index.NumpyIndex`) instead of SQLite and Chroma.

Each store stands for the files at its config's paths for as long as the block lasts: opening
the same data directory again (a second engine, a command, a maintenance job) finds what the
first one wrote, and a different directory starts empty. Nothing outlives the block, so a test
about durability, file permissions, SQLite's own keyword ranking or a process that opens the
files itself runs on the real backends instead (tests/conftest.py's `real_store` mark).
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Any, Iterator

from ..config import MemoryConfig
from ..store.memory import MemoryStore
from ..store.ports import ManagedVectorIndex, RecordStore
from ..store.tiered_index import NumpyIndex

__all__ = ["InMemoryBackends", "in_memory_backends", "real_backends"]


class InMemoryBackends:
    """The stores and indexes opened so far, by the path their config gives them."""

    def __init__(self) -> None:
        self._stores: dict[Path, MemoryStore] = {}
        self._indexes: dict[Path, NumpyIndex] = {}
        self._lock = threading.Lock()

    def record_store(self, config: MemoryConfig) -> RecordStore:
        """The record store at config's SQLite path: the one opened there before, or a new one."""
        with self._lock:
            return self._stores.setdefault(config.sqlite_file.resolve(), MemoryStore())

    def vector_index(self, config: MemoryConfig, embedder_name: str, dim: int) -> NumpyIndex:
        """The vector index at config's Chroma path: the one opened there before when it has
        this embedder's name and dimension, else a new one (the record store keeps the first
        embedder's name, so the engine still refuses a mismatch and names `reindex`)."""
        with self._lock:
            key = config.chroma_dir.resolve()
            held = self._indexes.get(key)
            if held is None or (held.embedder_name, held.dim) != (embedder_name, int(dim)):
                prefix = config.storage.vector_store.collection_prefix
                held = self._indexes[key] = NumpyIndex(embedder_name, dim, prefix=prefix)
            return held


def _open_chroma(backends: InMemoryBackends) -> Any:
    def open_index(config: MemoryConfig, embedder_name: str, dim: int) -> ManagedVectorIndex:
        return backends.vector_index(config, embedder_name, dim)

    return open_index


def _untiered(config: MemoryConfig, index: ManagedVectorIndex, store: RecordStore) -> Any:
    """The numpy index searches every tier exactly: no small-scope tier in front of it."""
    return index


@contextlib.contextmanager
def in_memory_backends() -> Iterator[InMemoryBackends]:
    """Inside the block, `MemoryEngine.open` (and so `build_middleware`, `Memory`, the CLI and
    the maintenance jobs run in this process) opens the in-memory record store and the numpy
    index; the real openers are back when it ends. Blocks nest: the innermost one serves."""
    from ..runtime import engine as engine_module

    backends = InMemoryBackends()
    names = ("open_record_store", "open_chroma", "tiered")
    saved = {name: getattr(engine_module, name) for name in names}
    opened = (backends.record_store, _open_chroma(backends), _untiered)
    for name, opener in zip(names, opened):
        setattr(engine_module, name, opener)
    try:
        yield backends
    finally:
        for name, value in saved.items():
            setattr(engine_module, name, value)


@contextlib.contextmanager
def real_backends() -> Iterator[None]:
    """Inside an `in_memory_backends()` block, the configured backends again (SQLite and
    Chroma by default) until this block ends."""
    from ..runtime import engine as engine_module
    from ..store import backends as configured

    names = ("open_record_store", "open_chroma", "tiered")
    saved = {name: getattr(engine_module, name) for name in names}
    for name in names:
        setattr(engine_module, name, getattr(configured, name))
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(engine_module, name, value)
