"""PostgreSQL as the source of truth (`storage.backend: postgres`), through psycopg 3.

psycopg is an optional dependency, imported here and nowhere else (`psycopg_module`), so the
package imports without it and a missing install is one clear error with its install hint.

`PostgresRecordStore` is the SQL record store (`store/sql_store.py`) over PostgreSQL, on a
connection that takes the shared statements' `?` marks; scratch databases for tests. Several
service processes may share one database: write transactions queue on one advisory lock,
maintenance runs under the store's lease, and every read goes to the database, so a write
through one process is seen by the next read through any other.
"""

from __future__ import annotations

import functools
import os
import contextlib
import logging
import threading
import uuid
from typing import Any, Iterable, Iterator, Sequence, TYPE_CHECKING
from ...errors import ConfigError, StoreError
from ..sql import SharedConnection
from .dialect import POSTGRES
from .schema import migrate as migrate_schema
from ..sql_store import SqlStore

if TYPE_CHECKING:
    from ..ports import RecordStore

# PostgreSQL as the source of truth (`storage.backend: postgres`), through psycopg 3.
#
# psycopg is an optional dependency, imported here and nowhere else (`psycopg_module`), so the
# package imports without it and a missing install is one clear error with its install hint.

#: the environment variable a DSN may come from (the config's storage.postgres.dsn wins)
DSN_ENV = "OPENCLAW_MEMORY_PG_DSN"

INSTALL_HINT = "pip install 'openclaw-memory[postgres]' (psycopg 3 with its libpq)"


@functools.lru_cache(maxsize=1)
def psycopg_module() -> Any:
    """The psycopg module, or a ConfigError naming the setting and how to install it."""
    try:
        import psycopg
        import psycopg.conninfo  # noqa: F401  (redaction parses DSNs with it)
    except ImportError as exc:
        raise ConfigError(
            f"storage.backend: postgres needs psycopg 3, which is not installed ({exc}); "
            f"install it with: {INSTALL_HINT}"
        ) from exc
    return psycopg


def resolve_dsn(configured: str) -> str:
    """The DSN to connect with: the config's storage.postgres.dsn, else $OPENCLAW_MEMORY_PG_DSN."""
    dsn = configured.strip() or os.environ.get(DSN_ENV, "").strip()
    if not dsn:
        raise ConfigError(
            "storage.backend is 'postgres' but no DSN is set: set storage.postgres.dsn "
            f"(e.g. postgresql://user@host:5432/memory) or the environment variable {DSN_ENV}"
        )
    return dsn


# The PostgreSQL connection (it takes the shared statements' `?` marks), and scratch databases.

# The PostgreSQL connection: one per process, shared by its threads behind a lock.
#
# Mirrors `store/sqlite/__init__.py`'s `Database`: `read()` and `write()` yield a connection whose `execute`
# returns rows that answer `row["name"]`, `row[0]` and `row.keys()`; `write()` is one transaction
# (nested calls join the outer one), so a record, its keyword rows, its vector and its outbox
# entry commit together (read-your-writes). Write transactions of every process take one
# advisory lock first: writers queue as they do on SQLite's file lock, so consolidation's
# check-before-write sees every earlier write, whichever process made it.
#
# psycopg's errors leave through `StoreError`, naming the server without the DSN's password.

log = logging.getLogger(__name__)

#: the advisory lock every write transaction takes (an arbitrary constant of this package)
WRITE_LOCK = 0x6F636D02


def redact(dsn: str) -> str:
    """The DSN as it may be shown: host, port, database and user; never the password."""
    psycopg = psycopg_module()
    try:
        parts = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "postgresql://<unparsable DSN>"
    shown = [f"{k}={parts[k]}" for k in ("host", "port", "dbname", "user") if parts.get(k)]
    return "postgresql (" + (" ".join(shown) or "defaults") + ")"


class Row(tuple):
    """A result row read like `sqlite3.Row`: by position, by column name, and `keys()`."""

    _names: tuple[str, ...] = ()

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._names.index(key))
        return tuple.__getitem__(self, key)

    def keys(self) -> tuple[str, ...]:
        return self._names


def _row_factory(cursor: Any) -> Any:
    names = tuple(c.name for c in cursor.description or ())

    def make(values: Sequence[Any]) -> Row:
        row = Row(values)
        row._names = names
        return row

    return make


@functools.lru_cache(maxsize=1024)
def _psycopg_marks(sql: str) -> str:
    """A statement written with `?` marks (the store's shared SQL) in psycopg's `%s`."""
    return sql.replace("%", "%%").replace("?", "%s")


class Connection:
    """The connection `read()` and `write()` yield: `execute` takes the shared statements' `?`
    marks as well as psycopg's own, and maps psycopg's errors."""

    dialect = POSTGRES

    def __init__(self, conn: Any, where: str) -> None:
        self._conn = conn
        self._where = where

    def execute(self, sql: str, args: Sequence[Any] | dict[str, Any] = ()) -> Any:
        psycopg = psycopg_module()
        if "?" in sql and not isinstance(args, dict):
            sql = _psycopg_marks(sql)
        try:
            return self._conn.execute(sql, args or None)
        except psycopg.Error as exc:
            raise StoreError(f"{self._where}: {type(exc).__name__}: {exc}") from exc

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        psycopg = psycopg_module()
        if "?" in sql:
            sql = _psycopg_marks(sql)
        try:
            with self._conn.cursor() as cur:
                cur.executemany(sql, rows)
        except psycopg.Error as exc:
            raise StoreError(f"{self._where}: {type(exc).__name__}: {exc}") from exc

    def copy_rows(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        """Stream rows through `COPY ... FROM STDIN` (sql); how many were sent."""
        psycopg = psycopg_module()
        n = 0
        try:
            with self._conn.cursor() as cur, cur.copy(sql) as copy:
                for row in rows:
                    copy.write_row(row)
                    n += 1
        except psycopg.Error as exc:
            raise StoreError(f"{self._where}: {type(exc).__name__}: {exc}") from exc
        return n


class PostgresDatabase(SharedConnection):
    """The store's PostgreSQL database: migrated on open, one connection, writes serialized."""

    def __init__(self, dsn: str, *, connect_timeout_s: int = 10) -> None:
        psycopg = psycopg_module()
        self.where = redact(dsn)
        #: what logs and errors name instead of a file path
        self.path = self.where
        self.was_empty = False
        self._lock = threading.RLock()
        self._depth = 0
        try:
            self._raw = psycopg.connect(
                dsn, autocommit=True, connect_timeout=connect_timeout_s, row_factory=_row_factory
            )
        except psycopg.Error as exc:
            raise StoreError(f"{self.where}: cannot connect: {_first_line(exc)}") from exc
        self._conn = Connection(self._raw, self.where)
        try:
            with self._lock:
                self.schema_version = migrate_schema(self._raw)
        except psycopg.Error as exc:
            self._raw.close()
            raise StoreError(f"{self.where}: migration failed: {_first_line(exc)}") from exc

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        psycopg = psycopg_module()
        try:
            with self._raw.transaction():
                self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                yield
        except psycopg.Error as exc:  # raised by the commit itself
            raise StoreError(f"{self.where}: commit failed: {_first_line(exc)}") from exc

    def vacuum(self) -> None:
        """Reclaim the space of deleted rows (VACUUM runs outside a transaction)."""
        with self._lock:
            self._conn.execute("VACUUM")

    def close(self) -> None:
        with self._lock:
            self._raw.close()


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


# Databases made and dropped on a PostgreSQL server, for measurements (`bench --backend
# postgres`): a scratch database of its own per run, and a database's size on disk.


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


# `PostgresRecordStore`: the SQL record store (`store/sql_store.py`) over PostgreSQL.
#
# Several service processes may share one database: write transactions queue on one advisory
# lock (see `db.py`), maintenance runs under the store's lease, and every read goes to the
# database, so a write through one process is seen by the next read through any other.


class PostgresRecordStore(SqlStore):
    """The source of truth in PostgreSQL: records, versions, keyword index, audit, outbox,
    sessions, the short-term window and the maintenance log."""

    def __init__(self, db: PostgresDatabase) -> None:
        super().__init__(db, POSTGRES)

    @classmethod
    def open(cls, dsn: str) -> "PostgresRecordStore":
        """Connect to the database at dsn and bring its schema up to date."""
        return cls(PostgresDatabase(dsn))

    @property
    def where(self) -> str:
        """The server and database, as errors and logs name them (no password)."""
        return self.db.where


if TYPE_CHECKING:

    def _implements_the_port(store: PostgresRecordStore) -> RecordStore:
        return store  # mypy checks the protocol here
