"""The source of truth a bench run measures: SQLite (the cached data dir as is) or PostgreSQL.

The cache only ever holds SQLite builds. A PostgreSQL run gets a database of its own on the
server the DSN names, filled from its private copy of the cached store by `migrate`'s copy
(records, chains, vectors, keyword index); the Chroma directory of the copy serves it as is.
The database is dropped when the run ends, so nothing of one backend is ever read by the other
and a run never starts from another run's leftovers.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator

from openclaw_memory.errors import ValidationError

BACKENDS = ("sqlite", "postgres")
#: --backend values: one backend, or both measured in one run
CHOICES = (*BACKENDS, "both")


def backends_for(choice: str) -> tuple[str, ...]:
    """The backends a --backend value measures, in the order rounds alternate between them."""
    if choice == "both":
        return BACKENDS
    if choice not in BACKENDS:
        raise ValidationError(f"backend: expected one of {', '.join(CHOICES)}, found {choice!r}")
    return (choice,)


def storage_overrides(backend: str, dsn: str) -> dict[str, Any]:
    """The storage settings that point a bench config at this backend."""
    if backend == "sqlite":
        return {"backend": "sqlite"}
    return {"backend": "postgres", "postgres": {"dsn": dsn}}


def scratch_database(dsn: str) -> contextlib.AbstractContextManager[str]:
    """A new empty database on the DSN's server for one measurement, dropped afterwards."""
    from openclaw_memory.store.postgres import scratch_database as scratch

    return scratch(dsn, prefix="ocm_bench_")


@contextlib.contextmanager
def prepared(backend: str, data: Path, dsn: str) -> Iterator[str]:
    """Make the data dir's store readable through `backend`; yields the DSN to use ('' for
    SQLite). For PostgreSQL the SQLite file stays beside it: the naive baseline reads it."""
    if backend == "sqlite":
        yield ""
        return
    from openclaw_memory.store.postgres import PostgresDatabase
    from openclaw_memory.store.postgres.migrate import copy_store

    with scratch_database(dsn) as scratch:
        target = PostgresDatabase(scratch)
        try:
            copy_store(data / "memory.db", target)
        finally:
            target.close()
        yield scratch


@contextlib.contextmanager
def empty_store(backend: str, dsn: str) -> Iterator[str]:
    """A fresh, empty store of this backend for the ingest measurement; yields its DSN."""
    if backend == "sqlite":
        yield ""
        return
    with scratch_database(dsn) as scratch:
        yield scratch


def postgres_mb(dsn: str) -> float:
    """The database's size on the server, in MB."""
    from openclaw_memory.store.postgres import database_mb

    return database_mb(dsn)
