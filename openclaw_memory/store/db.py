"""The SQLite connection: WAL, busy timeout, one writer transaction at a time per process.

The store is private: a data directory this code creates is mode 0700 and the database file is
created 0600 (SQLite gives its -wal and -shm the database file's mode), whatever the umask. An
unreadable file (not a database, or damaged) is refused with a `StoreError` naming the file and
what to do; a zero-length file beside a populated vector index is reported (`was_empty`), since
it usually means the database was lost, not that the store is new.

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
from pathlib import Path
from types import ModuleType
from typing import Iterator

from ..errors import StoreError
from .keys import StoreKey, sqlcipher
from .schema import migrate
from .sql import SharedConnection

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
