"""The one place that turns the storage config into a record store (`storage.backend`), so
the engine, reindex and the tools open whichever is configured."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .ports import RecordStore

if TYPE_CHECKING:
    from ..config import MemoryConfig


def open_record_store(config: MemoryConfig) -> RecordStore:
    """The configured record store, open and migrated: SQLite at storage.sqlite_path (the
    default), or PostgreSQL at storage.postgres.dsn (else $OPENCLAW_MEMORY_PG_DSN) when
    storage.backend is 'postgres'."""
    if config.storage.backend == "postgres":
        from .postgres import resolve_dsn
        from .postgres.store import PostgresRecordStore

        return PostgresRecordStore.open(resolve_dsn(config.storage.postgres.dsn))
    from .sqlite import SQLiteStore

    return SQLiteStore.open(config.sqlite_file)
