"""Databases made and dropped on a PostgreSQL server, for measurements (`bench --backend
postgres`): a scratch database of its own per run, and a database's size on disk."""

from __future__ import annotations

import contextlib
import uuid
from typing import Iterator

from . import psycopg_module


@contextlib.contextmanager
def scratch_database(dsn: str, prefix: str = "ocm_scratch_") -> Iterator[str]:
    """A new empty database on the DSN's server (its user creates it); yields its DSN and drops
    it afterwards, whoever is still connected."""
    psycopg = psycopg_module()
    name = prefix + uuid.uuid4().hex[:12]
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield psycopg.conninfo.make_conninfo(dsn, dbname=name)
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def database_mb(dsn: str) -> float:
    """The DSN's database's size on the server, in MB."""
    with psycopg_module().connect(dsn) as conn:
        row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    return round(float(row[0]) / 2**20, 2)
