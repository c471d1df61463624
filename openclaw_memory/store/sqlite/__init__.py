"""The SQLite record store: the default source of truth (one file, WAL, FTS5 keyword index).

`SQLiteStore` is the SQL record store (`store/sql_store.py`) on one SQLite file with the SQLite
dialect (`dialect.py`); with a read-only view of a file another process owns.

The connection: WAL, busy timeout, one writer transaction at a time per process. The store is
private: a data directory this code creates is mode 0700 and the database file is created 0600
(SQLite gives its -wal and -shm the database file's mode), whatever the umask. An unreadable file
(not a database, or damaged) is refused with a `StoreError` naming the file and what to do; a
zero-length file beside a populated vector index is reported (`was_empty`), since it usually
means the database was lost, not that the store is new.

With a key (`encryption.enabled`, `store/keys.py`) the file is opened through SQLCipher: `PRAGMA
key` is the first statement on the connection, and the key is checked by one read before
anything is written (the WAL switch and migrations included), so a wrong key fails naming where
it came from and leaves the file as it was. A key given for a plaintext store, or none for an
encrypted one, is refused the same way, before SQLite touches the file.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import time
import numpy as np
from pathlib import Path
from types import ModuleType
from typing import Iterator, Any, Iterable, TYPE_CHECKING
from ...errors import StoreError
from ..keys import StoreKey, sqlcipher
from ..schema import migrate
from ..sql import SharedConnection
from ...types import Scope, MemoryRecord
from .. import records as rec
from ..ports import hashed_user
from ..sql_store import SqlStore
from .dialect import SQLITE, fts5_search

# The SQLite connection: WAL, busy timeout, one writer transaction at a time per process.
#
# The store is private: a data directory this code creates is mode 0700 and the database file is
# created 0600 (SQLite gives its -wal and -shm the database file's mode), whatever the umask. An
# unreadable file (not a database, or damaged) is refused with a `StoreError` naming the file and
# what to do; a zero-length file beside a populated vector index is reported (`was_empty`), since
# it usually means the database was lost, not that the store is new.
#
# With a key (`encryption.enabled`, `store/keys.py`) the file is opened through SQLCipher: `PRAGMA
# key` is the first statement on the connection, and the key is checked by one read before
# anything is written (the WAL switch and migrations included), so a wrong key fails naming where
# it came from and leaves the file as it was. A key given for a plaintext store, or none for an
# encrypted one, is refused the same way, before SQLite touches the file.

log = logging.getLogger(__name__)

#: what to tell an operator whose database file cannot be read
REMEDY = (
    "restore it from a backup; or, to start over, move it away (the next start creates a new "
    "store) and run `openclaw-memory reindex` so the vector index matches"
)
#: the first 16 bytes of every plaintext SQLite database file (an encrypted one starts with salt)
PLAIN_HEADER = b"SQLite format 3\x00"
#: what to tell an operator who turned encryption on over a plaintext store
CONVERT = (
    "to encrypt this store, run `openclaw-memory encrypt` with the key in place (it writes an "
    "encrypted copy and swaps it in); or set encryption.enabled: false to keep it in plaintext"
)


def private_dir(path: Path) -> None:
    """Create path and its missing parents mode 0700; an existing directory is left as it is."""
    missing = []
    while not path.is_dir():
        missing.append(path)
        if path.parent == path:
            break
        path = path.parent
    for p in reversed(missing):
        p.mkdir(mode=0o700, exist_ok=True)
        os.chmod(p, 0o700)  # mkdir's mode is filtered by the umask


def private_file(path: Path) -> None:
    """Create path empty with mode 0600 if missing; tighten an existing file we own to 0600."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
    except FileExistsError:
        pass
    try:
        st = path.stat()
        if st.st_uid == os.getuid() and st.st_mode & 0o077:
            os.chmod(path, 0o600)
    except OSError as exc:
        log.warning("cannot make %s private: %s", path, exc)


def unreadable(path: Path | str, exc: BaseException) -> StoreError:
    """The error for a database file SQLite cannot read."""
    return StoreError(f"{path}: cannot read the memory database ({exc}); {REMEDY}")


def check_encryption(path: Path, key: StoreKey | None) -> None:
    """Refuse a key for a plaintext store file, and no key for one that is not plaintext SQLite
    (encrypted, or damaged: the message names both), before anything opens it."""
    try:
        with path.open("rb") as f:
            header = f.read(len(PLAIN_HEADER))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the memory database ({exc})") from exc
    if not header:
        return  # an empty file: the store is created as configured
    if key is not None and header == PLAIN_HEADER:
        raise StoreError(
            f"{path}: encryption.enabled is true but this store is not encrypted (plaintext "
            f"SQLite); {CONVERT}"
        )
    if key is None and header != PLAIN_HEADER and len(header) == len(PLAIN_HEADER):
        raise StoreError(
            f"{path}: this is not a plaintext SQLite file: an encrypted store needs "
            "encryption.enabled: true and its key ($OPENCLAW_MEMORY_KEY, encryption.key_file or "
            f"the OS keyring); if it was never encrypted, it is damaged: {REMEDY}"
        )


def unlock(conn: sqlite3.Connection, key: StoreKey, path: Path, busy_timeout_ms: int) -> None:
    """Give a SQLCipher connection the key, then read once: a wrong key fails here, before any
    write, and the connection is closed. The read waits out another process's lock (the busy
    timeout), so a busy file is not taken for a wrong key."""
    conn.execute(f"PRAGMA key = {key.pragma()}")
    # SQLCipher would also log the failed page decryption of a wrong key to stderr; the error
    # below says it once, with the key's source
    conn.execute("PRAGMA cipher_log_level = NONE")
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except Exception as exc:
        if type(exc).__name__ != "DatabaseError":  # "file is not a database" is this base class
            conn.close()
            raise
        conn.close()
        raise StoreError(
            f"{path}: the key from {key.source} does not open this encrypted file ({exc}); "
            "nothing was written. Give the key it was created with (a lost key means a lost "
            "store)"
        ) from exc


def is_plaintext(path: Path) -> bool:
    """Whether path is a plaintext SQLite file (False for a missing or empty one)."""
    try:
        with path.open("rb") as f:
            return f.read(len(PLAIN_HEADER)) == PLAIN_HEADER
    except FileNotFoundError:
        return False


class Database(SharedConnection):
    """One connection shared by the threads of a process, guarded by a lock.

    Writes run in `BEGIN IMMEDIATE` transactions so concurrent processes queue on SQLite's lock
    (busy_timeout) instead of failing with "database is locked" on a read->write upgrade.
    """

    def __init__(
        self, path: str | Path, *, busy_timeout_ms: int = 60000, key: StoreKey | None = None
    ) -> None:
        self.path = Path(path)
        #: the file existed with no bytes in it (see the module docstring)
        self.was_empty = False
        #: the DB-API module of the connection: sqlite3, or SQLCipher's for an encrypted store
        self.driver: ModuleType = sqlite3 if key is None else sqlcipher()
        if str(path) != ":memory:":
            check_encryption(self.path, key)
            private_dir(self.path.parent)
            self.was_empty = self.path.is_file() and self.path.stat().st_size == 0
            private_file(self.path)
            for extra in (Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
                if extra.exists():  # left by an older version with the umask's mode
                    private_file(extra)
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection = self.driver.connect(
            str(path), check_same_thread=False, isolation_level=None
        )
        self._depth = 0
        try:
            if key is not None:
                unlock(self._conn, key, self.path, busy_timeout_ms)
            self._conn.row_factory = self.driver.Row
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self._wal(busy_timeout_ms / 1000)
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA secure_delete = ON")
            with self._lock:
                self.schema_version = self._migrate()
        except self.driver.DatabaseError as exc:  # "file is not a database", "malformed"
            self._conn.close()
            raise unreadable(self.path, exc) from exc
        except StoreError:
            self._conn.close()
            raise
        if self.was_empty:
            log.warning(
                "%s was an empty file (0 bytes) and now holds a new, empty store; if this "
                "store had memories, stop and %s",
                self.path,
                REMEDY,
            )

    def _wal(self, timeout_s: float) -> None:
        """Switch to WAL. SQLite does not apply busy_timeout to this switch: while another process
        holds the fresh file's lock (its own switch or migration) it raises "database is locked"
        at once, or answers with the old mode, so retry with backoff until it answers 'wal'."""
        if str(self.path) == ":memory:":
            self._conn.execute("PRAGMA journal_mode = WAL")
            return
        deadline = time.monotonic() + timeout_s
        delay, mode = 0.005, None
        while True:
            try:
                mode = str(self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
            except self.driver.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise unreadable(self.path, exc) from exc
            if mode == "wal":
                return
            if time.monotonic() >= deadline:
                raise StoreError(
                    f"{self.path}: cannot switch to WAL journal mode: the file stayed locked by "
                    f"another process for {timeout_s:.0f} s (journal mode {mode or 'unknown'})"
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.25)

    def _migrate(self) -> int:
        """Apply migrations; when another process migrated first (its tables already exist), roll
        back our half-open transaction and re-read the version it left."""
        for _ in range(20):
            try:
                return migrate(self._conn)
            except self.driver.OperationalError as exc:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                if not any(m in str(exc) for m in ("already exists", "duplicate column", "locked")):
                    raise StoreError(f"{self.path}: migration failed: {exc}; {REMEDY}") from exc
        raise StoreError(f"{self.path}: migration kept racing with another process; try again")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        else:
            self._conn.execute("COMMIT")

    def vacuum(self) -> None:
        """Compact the file and truncate the WAL so deleted content leaves the disk."""
        with self._lock:
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.execute("VACUUM")
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        with self._lock:
            try:
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except self.driver.Error:
                pass
            self._conn.close()


# The SQLite record store: the default source of truth (one file, WAL, FTS5 keyword index).
#
# `SQLiteStore` is the SQL record store (`store/sql_store.py`) on one SQLite file with the SQLite
# dialect (`dialect.py`); with a read-only view of a file another process owns.

__all__ = ["ReadOnlyStore", "SQLiteStore", "hashed_user"]


class SQLiteStore(SqlStore):
    """The record store on one SQLite file (see `store/sqlite/__init__.py` for the connection). Every driver
    error (sqlite3's, or SQLCipher's for an encrypted store) leaves it as a `StoreError` naming
    the file; a damaged file names the remedy."""

    def __init__(self, db: Database) -> None:
        super().__init__(db, SQLITE)

    @classmethod
    def open(cls, path: str | Path, *, key: StoreKey | None = None) -> "SQLiteStore":
        """The store at path; with a key, an encrypted (SQLCipher) one."""
        return cls(Database(path, key=key))

    @property
    def was_empty(self) -> bool:
        """The file existed with no bytes in it (it usually means the database was lost)."""
        return self.db.was_empty

    def _driver_errors(self) -> tuple[type[Exception], ...]:
        return (self.db.driver.Error,)

    def _error(self, exc: Exception) -> StoreError:
        # "malformed", "not a database": the base class itself, not a busy or bad call (sqlite3's
        # or SQLCipher's, whose classes have the same names outside sqlite3's tree)
        if type(exc).__name__ == "DatabaseError":
            return unreadable(str(self.db.path), exc)
        return StoreError(f"{self.db.path}: {exc}")

    def _written_order(self, table: str) -> str:
        return "seq" if table in ("audit", "messages") else "rowid"


if TYPE_CHECKING:  # the type checker holds the class to the port
    from ..ports import RecordStore

    _conforms: type[RecordStore] = SQLiteStore


# A read-only view of a store file another process owns: the benchmark's naive baseline and
# the evaluation's vector reuse read one without opening (or migrating) it as a store.


class ReadOnlyStore:
    """One read-only connection to a SQLite store file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.conn = sqlite3.connect(
                f"file:{self.path}?mode=ro", uri=True, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open read-only: {exc}") from exc
        self.conn.row_factory = sqlite3.Row

    def _rows(self, sql: str, args: Iterable[Any] = ()) -> list[sqlite3.Row]:
        try:
            return self.conn.execute(sql, tuple(args)).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from exc

    def embedder(self) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = 'embedder'")
        return str(rows[0][0]) if rows else None

    def vectors_by_text(self, model: str) -> list[tuple[str, np.ndarray]]:
        """(text hash, vector) of every stored vector made by `model`."""
        return [
            (r[0], np.frombuffer(r[1], dtype=np.float32))
            for r in self._rows("SELECT content_hash, vec FROM vectors WHERE model = ?", (model,))
        ]

    def parts_with_text(self, model: str) -> list[tuple[str | None, str, str | None, np.ndarray]]:
        """(subject, summary, detail, part vectors (k, d)) of every record with sentence-part
        vectors made by `model` (none from a store written before parts existed)."""
        columns = {row[1] for row in self._rows("PRAGMA table_info(vectors)")}
        if "parts" not in columns:
            return []
        rows = self._rows(
            "SELECT r.subject, r.summary, r.detail, v.dim, v.parts FROM vectors v "
            "JOIN records r ON r.id = v.record_id WHERE v.model = ? AND v.parts IS NOT NULL",
            (model,),
        )
        return [
            (r[0], r[1], r[2], np.frombuffer(r[4], dtype=np.float32).reshape(-1, r[3]))
            for r in rows
        ]

    def active_vectors(self, scope: Scope) -> tuple[list[str], np.ndarray | None]:
        """Ids and the (n, d) matrix of the stored vectors of the scope's active records."""
        rows = self._rows(
            "SELECT r.id AS id, v.vec AS vec FROM records r JOIN vectors v ON v.record_id = r.id "
            "WHERE r.user_id = ? AND r.agent_id = ? AND r.status = 'active'",
            (scope.user_id, scope.agent_id),
        )
        if not rows:
            return [], None
        matrix = np.frombuffer(b"".join(r["vec"] for r in rows), dtype=np.float32)
        return [r["id"] for r in rows], matrix.reshape(len(rows), -1)

    def keyword_search(self, scope: Scope, text: str, limit: int) -> list[tuple[str, float]]:
        """(id, BM25 relevance) best first, as the store's keyword search finds them."""
        try:
            return fts5_search(self.conn, scope, text, ("active",), limit)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from exc

    def get_many(self, scope: Scope, ids: Iterable[str]) -> dict[str, MemoryRecord]:
        try:
            return rec.get_many(self.conn, scope, ids)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from exc

    def ids_saying(self, user_id: str, summary: str) -> set[str]:
        """Ids of the user's records (any agent, any status) with exactly this summary."""
        return {
            r[0]
            for r in self._rows(
                "SELECT id FROM records WHERE user_id = ? AND summary = ?", (user_id, summary)
            )
        }

    def close(self) -> None:
        self.conn.close()
