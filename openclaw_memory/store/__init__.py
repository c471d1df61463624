"""The storage: the ports, one SQL store over a dialect, the in-memory fake, the vector indexes.

This module is the one place that turns the storage config into a record store
(`storage.backend`) and a vector index (`storage.vector_store`), so the engine, reindex and the
tools open whichever is configured.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from ..errors import ConfigError
from .ports import RecordStore

if TYPE_CHECKING:
    from ..config import MemoryConfig
    from .tiered_index import TieredIndex
    from .vector import ChromaIndex


def open_record_store(config: MemoryConfig) -> RecordStore:
    """The configured record store, open and migrated: SQLite at storage.sqlite_path (the
    default; encrypted with the key `store/keys.py` finds when encryption.enabled), or
    PostgreSQL at storage.postgres.dsn (else $OPENCLAW_MEMORY_PG_DSN) when storage.backend is
    'postgres'."""
    if config.storage.backend == "postgres":
        from .postgres import resolve_dsn
        from .postgres import PostgresRecordStore

        if config.encryption.enabled:
            raise ConfigError(
                "encryption.enabled applies to the SQLite store only: with storage.backend: "
                "postgres, encryption at rest and in transit is the database server's (an "
                "encrypted volume, TLS in the DSN); set encryption.enabled: false"
            )
        return PostgresRecordStore.open(resolve_dsn(config.storage.postgres.dsn))
    from .keys import resolve_key
    from .sqlite import SQLiteStore

    return SQLiteStore.open(config.sqlite_file, key=resolve_key(config))


def open_chroma(config: MemoryConfig, embedder_name: str, dim: int) -> ChromaIndex:
    """The configured Chroma: embedded under the data dir, or a `chroma run` server."""
    from .vector import ChromaIndex

    vs = config.storage.vector_store
    return ChromaIndex(
        kind=vs.kind,
        path=config.chroma_dir,
        host=vs.host,
        port=vs.port,
        prefix=vs.collection_prefix,
        embedder_name=embedder_name,
        dim=dim,
        search_ef=vs.search_ef,
    )


def tiered(config: MemoryConfig, chroma: ChromaIndex, store: RecordStore) -> TieredIndex:
    """Chroma for the tiers over `storage.vector_store.exact_below` records, the store's exact
    search for the rest (store/tiered_index.py)."""
    from .tiered_index import TieredIndex

    return TieredIndex(chroma, store, config.storage.vector_store.exact_below)
