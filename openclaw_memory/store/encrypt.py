"""`openclaw-memory encrypt`: turn a plaintext SQLite store into an encrypted one, in place.

SQLCipher's `sqlcipher_export` copies every table, index, trigger and the FTS5 index into a new
encrypted file beside the store; the copy is checked (opened with the key, its record count
compared) and then renamed over the plaintext file, so a crash leaves either the old store or
the new one, never half of each. Run it with the service stopped: a process holding the old file
open would go on writing to it. The Chroma folder holds no record text (RELIABILITY.md) and is
left as it is. The plaintext file's old disk blocks are freed, not overwritten; see
RELIABILITY.md for what that means on a filesystem without encryption of its own.

`openclaw-memory encrypt --rekey` changes the key of an encrypted store the same way: every file
the key opens (the store, then the capture journal) is first checked against the old and the new
key, so a key that opens neither fails before anything is written; each file is then copied under
the new key, checked and renamed over itself. A crash leaves each file whole under one of the two
keys; the store is renamed first, and running the command again finishes the journal (a file the
new key already opens is skipped).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Any

from ..errors import StoreError
from .sqlite import Database
from .sqlite import is_plaintext
from .sqlite import private_file
from .sqlite import unlock
from .capture_journal import FILE_NAME as JOURNAL_NAME
from .keys import NEW_KEY_ENV, StoreKey, new_key, resolve_key, sqlcipher

#: the temporary name of the encrypted copy, beside the store
SUFFIX = ".encrypting"
#: the temporary name of a copy under the new key, beside the file it replaces
REKEY_SUFFIX = ".rekeying"
#: the table whose rows a copy must hold as many of as its original, per file name
COUNTED = {JOURNAL_NAME: "captures"}


def encrypt_store(path: Path, key: StoreKey) -> int:
    """Encrypt the plaintext store at path with key; returns the number of records it holds."""
    if not path.is_file() or path.stat().st_size == 0:
        raise StoreError(f"{path}: no store to encrypt (storage.sqlite_path)")
    if not is_plaintext(path):
        raise StoreError(f"{path}: not a plaintext SQLite store (already encrypted?); not changed")
    target = export_encrypted(path, key)
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as src:
        want = src.execute("SELECT count(*) FROM records").fetchone()[0]
    _check_copy(target, key, want)
    _replace(path, target)
    return int(want)


def encrypt_file(path: Path, key: StoreKey) -> None:
    """Encrypt any plaintext SQLite file of the store's in place (the capture journal)."""
    target = export_encrypted(path, key)
    _replace(path, target)


def export_encrypted(
    path: Path, key: StoreKey, *, old: StoreKey | None = None, suffix: str = SUFFIX
) -> Path:
    """An encrypted copy of the SQLite file at path (plaintext, or encrypted with old), beside it
    (mode 0600)."""
    driver = sqlcipher()
    target = Path(f"{path}{suffix}")
    for leftover in (target, Path(f"{target}-wal"), Path(f"{target}-shm")):
        leftover.unlink(missing_ok=True)
    private_file(target)
    src = driver.connect(str(path), isolation_level=None)
    try:
        if old is not None:
            unlock(src, old, path, busy_timeout_ms=10000)
        src.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        src.execute(f"ATTACH DATABASE ? AS encrypted KEY {key.pragma()}", (str(target),))
        src.execute("SELECT sqlcipher_export('encrypted')")
        src.execute("DETACH DATABASE encrypted")
    except driver.Error as exc:
        target.unlink(missing_ok=True)
        raise StoreError(f"{path}: cannot encrypt it ({exc}); not changed") from exc
    finally:
        src.close()
    return target


def _check_copy(target: Path, key: StoreKey, want: int) -> None:
    """Open the encrypted copy as the store will be opened, and count its records."""
    copy = Database(target, key=key)
    try:
        with copy.read() as db:
            got = db.execute("SELECT count(*) FROM records").fetchone()[0]
        copy.vacuum()  # folds the WAL the open wrote into the file before the rename
    finally:
        copy.close()
    if got != want:
        target.unlink(missing_ok=True)
        raise StoreError(f"{target}: the encrypted copy holds {got} records, not {want}")


def _replace(path: Path, target: Path) -> None:
    """Rename the encrypted copy over the store, dropping the plaintext WAL and shared memory."""
    for name in (f"{target}-wal", f"{target}-shm", f"{path}-wal", f"{path}-shm"):
        Path(name).unlink(missing_ok=True)
    with target.open("rb") as f:
        os.fsync(f.fileno())
    os.replace(target, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def rekey_store(path: Path, old: StoreKey, new: StoreKey) -> int:
    """Change the key of the encrypted store at path (and of the capture journal beside it) from
    old to new; returns the number of records. Nothing is written unless every file opens with
    one of the two keys."""
    if not path.is_file() or path.stat().st_size == 0:
        raise StoreError(f"{path}: no store to rekey (storage.sqlite_path)")
    if old.secret == new.secret:
        raise StoreError(f"rekey: the new key from {new.source} is the key the store has now")
    journal = path.parent / JOURNAL_NAME
    files = [path]
    # a journal still in plaintext (no service start since `encrypt`) has no key to change: the
    # next start encrypts it with the configured key, the new one by then
    if journal.is_file() and journal.stat().st_size and not is_plaintext(journal):
        files.append(journal)
    pending = [f for f in files if _opened_by(f, old, new) is old]
    for f in pending:
        want = _count(f, old)
        target = export_encrypted(f, new, old=old, suffix=REKEY_SUFFIX)
        _check_rekeyed(target, new, COUNTED.get(f.name, "records"), want)
        _replace(f, target)
    return _count(path, new)


def _opened_by(path: Path, old: StoreKey, new: StoreKey) -> StoreKey:
    """The key of the two that opens path (old first); neither is a StoreError naming both
    sources, before anything is written."""
    if is_plaintext(path):
        raise StoreError(
            f"{path}: not encrypted, so there is no key to change; run `openclaw-memory "
            "encrypt` to encrypt it"
        )
    for key in (old, new):
        try:
            _count(path, key)
            return key
        except StoreError:
            continue
    raise StoreError(
        f"{path}: the key from {old.source} does not open this encrypted file (nor does the new "
        f"key from {new.source}); nothing was written. Give the key it is encrypted with"
    )


def _count(path: Path, key: StoreKey) -> int:
    """The rows of the file's counted table, read through key (a StoreError when it does not
    open the file)."""
    conn = sqlcipher().connect(str(path), isolation_level=None)
    unlock(conn, key, path, busy_timeout_ms=10000)  # closes conn when the key does not fit
    try:
        table = COUNTED.get(path.name, "records")
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        conn.close()


def _check_rekeyed(target: Path, key: StoreKey, table: str, want: int) -> None:
    """The copy under the new key opens with it and holds as many rows as the original."""
    conn = sqlcipher().connect(str(target), isolation_level=None)
    unlock(conn, key, target, busy_timeout_ms=10000)
    try:
        got = int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    if got != want:
        target.unlink(missing_ok=True)
        raise StoreError(f"{target}: the copy under the new key holds {got} rows, not {want}")


def add_parser(subparsers: Any) -> Any:
    """Add `encrypt`."""
    p = subparsers.add_parser(
        "encrypt",
        help="encrypt the plaintext SQLite store in place with the configured key",
        description="Write an encrypted copy of the SQLite store (SQLCipher, the `encryption` "
        "extra) with the key encryption.enabled finds ($OPENCLAW_MEMORY_KEY, "
        "encryption.key_file, then the OS keyring), check it and swap it in. Stop the service "
        "first. A lost key is a lost store: keep the key somewhere safe before you run this. "
        f"With --rekey, change the key of an encrypted store instead: the new key from "
        f"${NEW_KEY_ENV} or --new-key-file (mode 0600).",
    )
    p.add_argument(
        "--rekey",
        action="store_true",
        help="change the key of an encrypted store (and its capture journal) from the configured "
        f"key to the new one (${NEW_KEY_ENV} or --new-key-file)",
    )
    p.add_argument(
        "--new-key-file",
        metavar="PATH",
        help="with --rekey: a file (mode 0600) holding the new key",
    )
    p.set_defaults(func=run)
    return p


def run(args: Any, config: Any) -> int:
    """Entry for `openclaw-memory encrypt`."""
    if config.storage.backend != "sqlite":
        raise StoreError(
            "encrypt: storage.backend is not sqlite; PostgreSQL's encryption at rest is the "
            "database server's (see RELIABILITY.md)"
        )
    key = resolve_key(config)
    if key is None:
        raise StoreError("encrypt: set encryption.enabled: true in the config first")
    path = config.sqlite_file
    if getattr(args, "rekey", False):
        fresh = new_key(getattr(args, "new_key_file", None))
        n = rekey_store(path, key, fresh)
        print(
            f"rekeyed {path} ({n} records) and its capture journal: the key from {key.source} "
            f"no longer opens them, the new key from {fresh.source} does. Put the new key where "
            "the configured key was before the service starts again"
        )
        return 0
    if getattr(args, "new_key_file", None):
        raise StoreError("encrypt: --new-key-file is for --rekey")
    n = encrypt_store(path, key)
    print(f"encrypted {path} ({n} records) with the key from {key.source}")
    return 0
