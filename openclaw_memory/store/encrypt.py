"""`openclaw-memory encrypt`: turn a plaintext SQLite store into an encrypted one, in place.

SQLCipher's `sqlcipher_export` copies every table, index, trigger and the FTS5 index into a new
encrypted file beside the store; the copy is checked (opened with the key, its record count
compared) and then renamed over the plaintext file, so a crash leaves either the old store or
the new one, never half of each. Run it with the service stopped: a process holding the old file
open would go on writing to it. The Chroma folder holds no record text (RELIABILITY.md) and is
left as it is. The plaintext file's old disk blocks are freed, not overwritten; see
RELIABILITY.md for what that means on a filesystem without encryption of its own.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Any

from ..errors import StoreError
from .db import Database, is_plaintext, private_file
from .keys import StoreKey, resolve_key, sqlcipher

#: the temporary name of the encrypted copy, beside the store
SUFFIX = ".encrypting"


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


def export_encrypted(path: Path, key: StoreKey) -> Path:
    """An encrypted copy of the plaintext SQLite file at path, beside it (mode 0600)."""
    driver = sqlcipher()
    target = Path(f"{path}{SUFFIX}")
    for leftover in (target, Path(f"{target}-wal"), Path(f"{target}-shm")):
        leftover.unlink(missing_ok=True)
    private_file(target)
    src = driver.connect(str(path), isolation_level=None)
    try:
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


def add_parser(subparsers: Any) -> Any:
    """Add `encrypt`."""
    p = subparsers.add_parser(
        "encrypt",
        help="encrypt the plaintext SQLite store in place with the configured key",
        description="Write an encrypted copy of the SQLite store (SQLCipher, the `encryption` "
        "extra) with the key encryption.enabled finds ($OPENCLAW_MEMORY_KEY, "
        "encryption.key_file, then the OS keyring), check it and swap it in. Stop the service "
        "first. A lost key is a lost store: keep the key somewhere safe before you run this.",
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
    n = encrypt_store(path, key)
    print(f"encrypted {path} ({n} records) with the key from {key.source}")
    return 0
