"""The vector index: Chroma, reached through LlamaIndex's ChromaVectorStore.

With Chroma's client and files on disk, and what the index does to one collection besides
reading and writing it. Over 600 lines: one index, from its files to its queries.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import struct
import time
import uuid
import numpy as np
import functools
import hashlib
import shutil
import threading
from pathlib import Path
from typing import Any, Mapping, Sequence, TYPE_CHECKING, Callable
from ..errors import StoreError, ConfigError, IndexMismatchError, OpenClawMemoryError
from .ports import Parts, VectorItems, part_ids, record_of
from ..types import Scope

# Chroma's client and its files on disk: opening a store (and forgetting one that failed to
# open), keeping its directory private, telling a collection deleted under us, and scrubbing the
# unused tail of an HNSW segment. `vector.ChromaIndex` is built on these.

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
    from .sqlite import private_dir
    from .sqlite import private_file

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


# What the vector index does to one Chroma collection besides reading and writing it: create it
# with the configured search breadth (or give it that breadth), build one whole, turn vectors into
# its nodes, and tell which of some ids it holds (`vector.ChromaIndex`).

#: vectors per add when a collection is built whole (`build_whole`)
_FILL_BATCH = 1000


def settings(search_ef: int) -> dict[str, Any]:
    """A new collection's keyword arguments: cosine space, our vectors, the search breadth."""
    return {
        "metadata": {"hnsw:space": "cosine"},
        "embedding_function": None,
        "configuration": {"hnsw": {"space": "cosine", "ef_search": search_ef}},
    }


def build_whole(client: Any, name: str, nodes: list[Any], search_ef: int) -> str | None:
    """Create the collection `name` holding these nodes, visible only once whole: filled under a
    temporary name, then renamed. None when done; when the name was taken meanwhile, the
    temporary collection's name, for the caller to drop (with its files)."""
    from llama_index.vector_stores.chroma import ChromaVectorStore

    col = client.create_collection(f"{name}_filling_{uuid.uuid4().hex[:12]}", **settings(search_ef))
    store = ChromaVectorStore(chroma_collection=col)
    for start in range(0, len(nodes), _FILL_BATCH):
        store.add(nodes[start : start + _FILL_BATCH])
    try:
        col.modify(name=name)
    except Exception:  # noqa: BLE001 - the name is taken; chromadb's errors share no base class
        return str(col.name)
    return None


def held_ids(store: Any, ids: Sequence[str]) -> list[str]:
    """The ids a collection holds, in the order given.

    Every embedded Chroma write (add or delete, even of nothing) costs 30-40 ms here and holds
    the GIL throughout, stalling the capture worker, while a read of ids costs under 1 ms; so the
    writers look first and write only what is needed. A new record then costs one add.
    """
    unique = list(dict.fromkeys(ids))
    held = set(store._collection.get(ids=unique, include=[])["ids"])
    return [i for i in unique if i in held]


def with_parts(ids: Sequence[str]) -> list[str]:
    """Record ids followed by every id their sentence parts could have."""
    return [*ids, *(p for i in ids for p in part_ids(i))]


#: seconds between the attempts to retune a collection whose SQLite is locked by a writer
_TUNE_RETRY_WAITS = (0.05, 0.2, 0.5, 1.0, 0.0)


def tune(col: Any, search_ef: int) -> None:
    """Give a collection created before the setting (or with another value) the configured HNSW
    search breadth; new collections are created with it. Chroma keeps it.

    Chroma's default ef_search of 100 is not enough here: on LoCoMo's per-user collections
    (430-710 turns) it missed one of the exact five nearest turns for 2-3% of the questions, and
    which ones changed from one process to the next, as the index is rebuilt from Chroma's log
    on every open. At 400 the search found all of them (docs/benchmark-history.md, "Vector search breadth")."""
    hnsw = (getattr(col, "configuration", None) or {}).get("hnsw") or {}
    if hnsw.get("ef_search") in (None, search_ef):
        return
    error: Exception | None = None
    for wait in _TUNE_RETRY_WAITS:
        try:
            col.modify(configuration={"hnsw": {"ef_search": int(search_ef)}})
            return
        except Exception as exc:  # noqa: BLE001 - chromadb's errors share no base class
            error = exc
            if "locked" not in str(exc):
                break
            # "database is locked" past Chroma's own busy wait (seen on a loaded machine with a
            # second client open on the same path): brief retries before searching narrower
            time.sleep(wait)
    # still busy, or refused: the search works, with the old breadth
    log.warning(
        "could not set ef_search %d on %s (searching with %s): %s",
        search_ef,
        col.name,
        hnsw.get("ef_search"),
        error,
    )


def nodes_for(
    items: Sequence[tuple[str, np.ndarray, dict]], parts: Mapping[str, np.ndarray] | None
) -> list[Any]:
    """LlamaIndex nodes for records' vectors (id, vector, metadata) and their sentence parts."""
    from llama_index.core.schema import TextNode

    rows: list[tuple[str, Any, dict]] = []
    for i, v, meta in items:
        rows.append((i, v, meta))
        vecs = (parts or {}).get(i)
        if vecs is not None:
            rows.extend((pid, pv, meta) for pid, pv in zip(part_ids(i), vecs))
    return [
        TextNode(
            id_=i,
            text="",
            embedding=np.asarray(v, dtype=np.float32).tolist(),
            metadata={k: ("" if x is None else x) for k, x in meta.items()},
            excluded_embed_metadata_keys=list(meta),
            excluded_llm_metadata_keys=list(meta),
        )
        for i, v, meta in rows
    ]


# The vector index: Chroma, reached through LlamaIndex's ChromaVectorStore.
#
# Layout: one collection per (user, agent) for live memories ("hot") and one for the cold archive,
# for the tiers the engine gives Chroma: those over `storage.vector_store.exact_below` records
# (store/tiered_index.py searches the smaller ones over the record store).
# Chroma's metadata filters dominate query time at scale (design.md: 2 ms unfiltered vs 35 ms with
# a user filter at 100k vectors), so the partition is the collection itself and a normal recall
# runs an unfiltered query over one user's vectors. Only a workspace narrows with a filter.
# Vectors are always ours (cosine space); Chroma's default embedding function is never used.

__all__ = ["REBUILD", "ChromaIndex", "VectorIndexUnusableError", "part_ids", "record_of"]


META_COLLECTION = "meta"


class ChromaIndex:
    """Per-scope Chroma collections behind LlamaIndex's ChromaVectorStore."""

    def __init__(
        self,
        *,
        kind: str = "embedded",
        path: Path | None = None,
        host: str = "127.0.0.1",
        port: int = 8000,
        prefix: str = "ocm",
        embedder_name: str,
        dim: int,
        search_ef: int = 400,
    ) -> None:
        if isinstance(search_ef, bool) or not isinstance(search_ef, int) or search_ef < 1:
            raise ConfigError(
                f"storage.vector_store.search_ef: expected an integer >= 1, found {search_ef!r}"
            )
        self.kind = kind
        self.search_ef = search_ef
        self.path = Path(path) if path is not None and kind != "http" else None  # embedded only
        self.prefix = prefix
        self.embedder_name = embedder_name
        self.dim = dim
        #: why the embedded index cannot be used ("" when it can): reads fail open (keyword
        #: search only, a warning), writes wait in the outbox, reindex and doctor rebuild it
        self.unusable = ""
        #: the embedded index's folder was not there at open (first start, or deleted): the
        #: engine checks the store at start (index_watch.py)
        self.folder_was_missing = self.path is not None and not self.path.exists()
        try:
            self._client = open_client(kind, path, host, port)
        except VectorIndexUnusableError as exc:
            self._client, self.unusable = None, str(exc)
            log.warning("%s", exc)
        self._stores: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._write_lock = threading.RLock()  # writes to Chroma, and compact() rewriting its files
        self._closed = False

    # ---- identity ---------------------------------------------------------------------------

    def _usable(self) -> Any:
        """The client, or a StoreError saying why the index cannot be used and how to fix it."""
        if self._client is None:
            raise StoreError(self.unusable)
        return self._client

    def check_embedder(self, *, allow_init: bool = True) -> None:
        """Refuse an index written by another embedder (docs/design.md invariant 4). An unusable index is not
        checked: it is rebuilt (reindex) before it is used again."""
        if self._client is None:
            return
        meta = self._client.get_or_create_collection(f"{self.prefix}_{META_COLLECTION}")
        stored = meta.metadata or {}
        name, dim = stored.get("embedder"), stored.get("dim")
        if name is None and allow_init:
            meta.modify(metadata={"embedder": self.embedder_name, "dim": int(self.dim)})
            return
        if name != self.embedder_name or int(dim or 0) != int(self.dim):
            raise IndexMismatchError(
                f"vector index was built with embedder {name!r} ({dim} dims) but the config uses "
                f"{self.embedder_name!r} ({self.dim} dims); run `openclaw-memory reindex` to rebuild it"
            )

    def stamp_embedder(self) -> None:
        meta = self._usable().get_or_create_collection(f"{self.prefix}_{META_COLLECTION}")
        meta.modify(metadata={"embedder": self.embedder_name, "dim": int(self.dim)})

    def collection_name(self, scope: Scope, tier: str = "hot") -> str:
        digest = hashlib.sha256(scope.key.encode("utf-8")).hexdigest()[:24]
        return f"{self.prefix}_{tier}_{digest}"

    def _store(self, scope: Scope, tier: str, *, create: bool = True) -> Any:
        """The tier's store; with create=False, None when its collection does not exist (there is
        nothing to delete from it, and creating one costs as much as a write)."""
        from chromadb.errors import NotFoundError
        from llama_index.vector_stores.chroma import ChromaVectorStore

        name = self.collection_name(scope, tier)
        client = self._usable()
        with self._lock:
            store = self._stores.get(name)
            if store is None:
                if create:
                    col = client.get_or_create_collection(name, **settings(self.search_ef))
                else:
                    try:
                        col = client.get_collection(name, embedding_function=None)
                    except NotFoundError:
                        return None
                    except Exception as exc:  # a Chroma server says so in its own words
                        if collection_gone(exc):
                            return None
                        raise
                tune(col, self.search_ef)
                store = ChromaVectorStore(chroma_collection=col)
                self._stores[name] = store
            return store

    # ---- writes -----------------------------------------------------------------------------

    def upsert(self, scope: Scope, tier: str, items: VectorItems, parts: Parts = None) -> None:
        """Put records' vectors (id, vector, metadata) into a tier, with their sentence-part
        vectors (`parts`: id -> (k, d)), replacing whatever the index held for those records."""
        if not items:
            return
        store = self._store(scope, tier)
        nodes = nodes_for(items, parts)
        with self._write_lock:
            try:
                self._replace(store, items, nodes)
            except Exception as exc:
                if not collection_gone(exc):
                    raise
                self._forget(scope, tier)  # dropped by another process: recreate it, once
                self._replace(self._store(scope, tier), items, nodes)

    @staticmethod
    def _replace(store: Any, items: Sequence[tuple[str, np.ndarray, dict]], nodes: list) -> None:
        present = held_ids(store, with_parts([i for i, _, _ in items]))
        if present:
            store.delete_nodes(node_ids=present)
        store.add(nodes)

    def _forget(self, scope: Scope, tier: str) -> None:
        """Drop the cached handle of a collection (it was deleted under us)."""
        with self._lock:
            self._stores.pop(self.collection_name(scope, tier), None)

    def holds(self, scope: Scope, tier: str) -> bool:
        """Whether the tier has a collection (creates none)."""
        return self._store(scope, tier, create=False) is not None

    def fill(self, scope: Scope, tier: str, items: VectorItems, parts: Parts = None) -> None:
        """Build a tier's collection holding these vectors, visible only once whole: it is
        filled under a temporary name and renamed. When a collection of that name appeared
        meanwhile (another writer built it), the vectors are upserted into that one instead."""
        name = self.collection_name(scope, tier)
        with self._write_lock:
            left = build_whole(self._usable(), name, nodes_for(items, parts), self.search_ef)
            if left is not None:  # another writer built it: add to theirs
                self.drop_collection(left)
                self.upsert(scope, tier, items, parts)
                return
        self._forget(scope, tier)  # the next use opens it under its name

    def _existing(self, scope: Scope, tier: str, action: Callable[[Any], Any], empty: Any) -> Any:
        """action(store) on the tier's collection, or `empty` when it does not exist (reads
        create nothing) or was deleted under us by another process (the handle is renewed)."""
        for _ in range(2):
            store = self._store(scope, tier, create=False)
            if store is None:
                return empty
            try:
                return action(store)
            except Exception as exc:
                if not collection_gone(exc):
                    raise
                self._forget(scope, tier)
        return empty

    def delete(
        self, scope: Scope, ids: Sequence[str], tiers: Sequence[str] = ("hot", "cold")
    ) -> None:
        if not ids:
            return

        def remove(store: Any) -> None:
            present = held_ids(store, with_parts(ids))
            if present:
                store.delete_nodes(node_ids=present)

        for tier in tiers:
            with self._write_lock:
                self._existing(scope, tier, remove, None)

    def drop_scope(self, scope: Scope) -> None:
        """Delete both collections of a scope (purge)."""
        for tier in ("hot", "cold"):
            self.drop_collection(self.collection_name(scope, tier))

    def drop_collection(self, name: str) -> bool:
        """Delete one collection by name (doctor and reindex drop hashed orphans this way).

        Embedded Chroma deletes the collection's rows but leaves its HNSW segment directories
        (the vectors, record ids and metadata) on disk, so those are removed here too.
        """
        with self._lock:
            self._stores.pop(name, None)
        with self._write_lock:
            segments = self._segment_dirs(name)
            try:
                self._usable().delete_collection(name)
            except Exception:  # absent collection: nothing to delete
                return False
            for seg in segments:
                shutil.rmtree(seg, ignore_errors=True)
        return True

    def _segment_dirs(self, name: str) -> list[Path]:
        """The on-disk segment directories of a collection of the embedded store (none for a
        server: its disk is the server's to manage)."""
        return segment_dirs(self.path, name) if self.path is not None else []

    def compact(self) -> dict[str, int]:
        """After a purge: take freed pages of the embedded Chroma's SQLite file off the disk
        and zero the unused tails of the remaining HNSW segment files (`compact_files`).
        Returns the bytes zeroed per file kind."""
        if self.path is None:
            return {}
        with self._write_lock:
            return compact_files(self.path)

    # ---- reads ------------------------------------------------------------------------------

    def query(
        self, scope: Scope, vector: np.ndarray, k: int, *, tier: str = "hot"
    ) -> list[tuple[str, float]]:
        """(record id, cosine similarity) best first, for up to k records; a record found by a
        sentence part scores that part's similarity if it beats its own.

        Writes go through LlamaIndex's ChromaVectorStore; this read asks the collection for ids
        and distances only: the store's query also fetches every hit's document and metadata and
        builds nodes from them, which cost 3x the search itself here (10 vs 3 ms at 1,000
        vectors per user)."""
        if self._client is None:  # fail open: the keyword channel still answers
            log.warning("vector search skipped: %s", self.unusable)
            return []
        where = (
            {"workspace": {"$in": [scope.workspace, ""]}} if scope.workspace is not None else None
        )

        def search(store: Any) -> Any:
            try:
                return store._collection.query(
                    query_embeddings=[np.asarray(vector, dtype=np.float32).tolist()],
                    n_results=2 * int(k),
                    where=where,
                    include=["distances"],
                )
            except Exception as exc:
                if "Number of requested results" in str(exc) or "contigious" in str(exc):
                    return {}
                raise

        res = self._existing(scope, tier, search, {})
        ids = (res.get("ids") or [[]])[0]
        distances = (res.get("distances") or [[]])[0]
        best: dict[str, float] = {}
        for i, d in zip(ids, distances):  # best first: a record keeps its first (best) score
            best.setdefault(record_of(i), 1.0 - float(d))
        return list(best.items())[: int(k)]

    def ids(self, scope: Scope, tier: str = "hot") -> set[str]:
        """The records the tier holds vectors of."""
        return self._existing(
            scope,
            tier,
            lambda s: {record_of(i) for i in s._collection.get(include=[])["ids"]},
            set(),
        )

    def scope_names(self) -> list[str]:
        return [c.name if hasattr(c, "name") else str(c) for c in self._usable().list_collections()]

    def collection_size(self, name: str) -> int:
        """Vectors in the collection called name (0 when there is none); creates nothing."""
        try:
            return int(self._usable().get_collection(name, embedding_function=None).count())
        except StoreError:
            raise
        except Exception as exc:
            if collection_gone(exc):
                return 0
            raise

    def count(self, scope: Scope, tier: str = "hot") -> int:
        """Vectors in the tier, sentence parts included (0 for a collection never written)."""
        return int(self._existing(scope, tier, lambda s: s._collection.count(), 0))

    # ---- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        """Release the client. chromadb shares one System per path (its native runtime threads,
        memory and SQLite pool) between the clients of a process and stops it when the last of
        them closes; without this every store opened and closed kept ~6 threads and ~4 MB."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._stores.clear()
        if self._client is None:
            return
        close = getattr(self._client, "close", None)
        try:
            if close is not None:
                close()
            else:  # chromadb without Client.close: stop and forget the shared System ourselves
                from chromadb.api.shared_system_client import SharedSystemClient

                system = SharedSystemClient._identifier_to_system.pop(
                    self._client._identifier, None
                )
                if system is not None:
                    system.stop()
        except Exception as exc:  # closing must not hide the caller's own error
            log.warning("closing the vector index failed: %s", exc)


def _boundary(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Chroma's own exceptions leave the index as `StoreError` (the package's errors pass)."""

    @functools.wraps(fn)
    def call(self: ChromaIndex, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except OpenClawMemoryError:
            raise
        except Exception as exc:
            raise StoreError(f"vector index: {name} failed: {exc}") from exc

    return call


#: the port's methods: what callers outside the index see
for _name in (
    "upsert",
    "fill",
    "holds",
    "delete",
    "query",
    "ids",
    "count",
    "drop_scope",
    "drop_collection",
    "scope_names",
    "collection_size",
    "compact",
    "stamp_embedder",
):
    setattr(ChromaIndex, _name, _boundary(_name, getattr(ChromaIndex, _name)))

if TYPE_CHECKING:  # the type checker holds the class to the port
    from .ports import ManagedVectorIndex

    _conforms: type[ManagedVectorIndex] = ChromaIndex
