"""Chroma's client and its files on disk: opening a store (and forgetting one that failed to
open), keeping its directory private, telling a collection deleted under us, and scrubbing the
unused tail of an HNSW segment. `vector.ChromaIndex` is built on these.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import struct
from pathlib import Path
from typing import Any

from ..errors import StoreError

log = logging.getLogger(__name__)

REBUILD = "run `openclaw-memory reindex` (or `openclaw-memory doctor`) to rebuild it from SQLite"


class VectorIndexUnusableError(StoreError):
    """The embedded Chroma directory cannot be opened (a damaged chroma.sqlite3, ...)."""


def open_client(kind: str, path: Path | None, host: str, port: int) -> Any:
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False, allow_reset=False)
    if kind == "http":
        try:
            return chromadb.HttpClient(host=host, port=port, settings=settings)
        except Exception as exc:  # chromadb raises bare ValueError/ConnectionError here
            raise StoreError(
                f"vector_store: cannot reach Chroma server at {host}:{port} ({exc})"
            ) from exc
    assert path is not None
    from .db import private_dir, private_file

    private_dir(path)
    client = None
    try:
        client = chromadb.PersistentClient(path=str(path), settings=settings)
        client.heartbeat()
        client.list_collections(
            limit=1
        )  # a damaged chroma.sqlite3 fails here, not at the first query
    except Exception as exc:  # chromadb raises its own, sqlite3's or Rust's errors here
        _forget_system(client, str(path))
        raise VectorIndexUnusableError(
            f"{path}: the vector index cannot be opened ({exc}); {REBUILD}"
        ) from exc
    _tighten(path)
    db = path / "chroma.sqlite3"
    if db.exists():
        private_file(db)
    return client


def _forget_system(client: Any, identifier: str) -> None:
    """Drop the System chromadb cached for a path that failed to open; a later open of the same
    path (after reindex moved the damaged directory away) would otherwise get the broken one."""
    from chromadb.api.shared_system_client import SharedSystemClient

    try:
        if client is not None:
            client.close()
    except Exception as exc:  # noqa: BLE001 - already broken; what matters is the cache below
        log.debug("closing a client that failed to open: %s", exc)
    system = SharedSystemClient._identifier_to_system.pop(identifier, None)
    SharedSystemClient._identifier_to_refcount.pop(identifier, None)
    if system is not None:
        try:
            system.stop()
        except Exception as exc:  # noqa: BLE001
            log.debug("stopping a system that failed to open: %s", exc)


def _tighten(path: Path) -> None:
    """The Chroma directory is the store's alone: mode 0700 (Chroma creates it with the umask's)."""
    try:
        if path.stat().st_uid == os.getuid() and path.stat().st_mode & 0o077:
            os.chmod(path, 0o700)
    except OSError as exc:
        log.warning("cannot make %s private: %s", path, exc)


def collection_gone(exc: BaseException) -> bool:
    """A collection deleted under us (another process purged or reindexed the store)."""
    from chromadb.errors import NotFoundError

    text = str(exc).lower()
    return isinstance(exc, NotFoundError) or "does not exist" in text or "not found" in text


#: hnswlib's persisted header as Chroma writes it: format version (int32), then offsetLevel0,
#: max_elements, cur_element_count, size_data_per_element (size_t each).
_HEADER = struct.Struct("<iQQQQ")


def scrub_segment(seg: Path) -> dict[str, int]:
    """Zero what lies past the live elements in a segment's length.bin and data_level0.bin.

    Chroma writes a new segment's files sized for max_elements (100) before any element is
    flushed into them (cur_element_count 0), and what lies past the live entries comes from
    uninitialised memory, which holds whatever the process freed before, such as the ids and
    metadata of another user's vectors (seen after a purge in a live segment's length.bin).
    Flushed segments are sized for their live elements and have no tail. hnswlib reads only the
    first cur_element_count entries, so zeroing the tail changes nothing it uses. A header this
    code does not recognise is left alone.
    """
    try:
        head = (seg / "header.bin").read_bytes()
        version, _, max_elements, current, per_element = _HEADER.unpack_from(head)
    except (OSError, struct.error):
        return {}
    plan = {"length.bin": 4, "data_level0.bin": per_element}
    if version != 1 or not 0 <= current <= max_elements or per_element <= 0:
        return {}
    zeroed: dict[str, int] = {}
    for name, width in plan.items():
        path = seg / name
        try:
            size = path.stat().st_size
            if size != max_elements * width:  # not the layout described above: leave it alone
                continue
            start = current * width
            with open(path, "r+b") as fh:
                fh.seek(start)
                tail = fh.read()
                if tail.count(0) == len(tail):
                    continue
                fh.seek(start)
                fh.write(bytes(len(tail)))
                fh.flush()
                os.fsync(fh.fileno())
            zeroed[name] = len(tail)
        except OSError as exc:
            log.warning("cannot scrub %s: %s", path, exc)
    return zeroed


def _chroma_sqlite(path: Path) -> Path | None:
    db = path / "chroma.sqlite3"
    return db if db.is_file() else None


def segment_dirs(path: Path, name: str) -> list[Path]:
    """The segment directories of the collection called name in the embedded store at path."""
    db = _chroma_sqlite(path)
    if db is None:
        return []
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=60)
        try:
            ids = [
                r[0]
                for r in con.execute(
                    "SELECT s.id FROM segments s JOIN collections c ON c.id = s.collection WHERE c.name = ?",
                    (name,),
                )
            ]
        finally:
            con.close()
    except sqlite3.Error as exc:  # another Chroma layout: the drop itself still happens
        log.warning("cannot list the segments of collection %s: %s", name, exc)
        return []
    return [path / str(i) for i in ids if str(i) and (path / str(i)).is_dir()]


def compact_files(path: Path) -> dict[str, int]:
    """Take freed pages of the embedded store's SQLite file off the disk (VACUUM) and zero the
    unused tails of its HNSW segment files (`scrub_segment`); bytes zeroed per file kind."""
    db = _chroma_sqlite(path)
    if db is None:
        return {}
    try:
        con = sqlite3.connect(str(db), timeout=60, isolation_level=None)
        try:
            con.execute("VACUUM")
        finally:
            con.close()
    except sqlite3.Error as exc:
        raise StoreError(f"{db}: cannot compact the vector index: {exc}") from exc
    zeroed: dict[str, int] = {}
    for seg in sorted(p for p in path.iterdir() if (p / "header.bin").is_file()):
        for kind, n in scrub_segment(seg).items():
            zeroed[kind] = zeroed.get(kind, 0) + n
    return zeroed
