"""The one place that turns the storage config into a record store (SQLite today; a server
database joins here), so the engine, reindex and the tools open whichever is configured."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .ports import RecordStore

if TYPE_CHECKING:
    from ..config import MemoryConfig


def open_record_store(config: MemoryConfig) -> RecordStore:
    """The configured record store, open and migrated."""
    from .sqlite import SQLiteStore

    return SQLiteStore.open(config.sqlite_file)
