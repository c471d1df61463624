"""The vector index: Chroma, reached through LlamaIndex's ChromaVectorStore.

Layout: one collection per (user, agent) for live memories ("hot") and one for the cold archive,
for the tiers the engine gives Chroma: those over `storage.vector_store.exact_below` records
(store/tiered_index.py searches the smaller ones over the record store).
Chroma's metadata filters dominate query time at scale (design.md: 2 ms unfiltered vs 35 ms with
a user filter at 100k vectors), so the partition is the collection itself and a normal recall
runs an unfiltered query over one user's vectors. Only a workspace narrows with a filter.
Vectors are always ours (cosine space); Chroma's default embedding function is never used.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import shutil
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from ..errors import ConfigError, IndexMismatchError, OpenClawMemoryError, StoreError
from ..types import Scope
from .chroma_collections import build_whole, held_ids, nodes_for, settings, tune, with_parts
from .chroma_files import (
    REBUILD,
    VectorIndexUnusableError,
    collection_gone,
    open_client,
    compact_files,
    segment_dirs,
)
from .vector_ids import part_ids, record_of

__all__ = ["REBUILD", "ChromaIndex", "VectorIndexUnusableError", "part_ids", "record_of"]

log = logging.getLogger(__name__)

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

    def upsert(
        self,
        scope: Scope,
        tier: str,
        items: Sequence[tuple[str, np.ndarray, dict]],
        parts: Mapping[str, np.ndarray] | None = None,
    ) -> None:
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

    def fill(
        self,
        scope: Scope,
        tier: str,
        items: Sequence[tuple[str, np.ndarray, dict]],
        parts: Mapping[str, np.ndarray] | None = None,
    ) -> None:
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
