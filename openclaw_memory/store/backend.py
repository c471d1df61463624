"""The record store a config asks for (`storage.backend`): the one place that chooses it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import MemoryConfig
    from .ports import RecordStore


def open_record_store(cfg: "MemoryConfig") -> "RecordStore":
    """SQLite at storage.sqlite_path (the default), or PostgreSQL at storage.postgres.dsn
    (else $OPENCLAW_MEMORY_PG_DSN) when storage.backend is 'postgres'."""
    if cfg.storage.backend == "postgres":
        from .postgres import resolve_dsn
        from .postgres.store import PostgresRecordStore

        return PostgresRecordStore.open(resolve_dsn(cfg.storage.postgres.dsn))
    from .sqlite import SQLiteStore

    return SQLiteStore.open(cfg.sqlite_file)
