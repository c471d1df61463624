"""Vector indexes besides Chroma: exact search over stored vectors, and the tiers.

Records' vectors in the record store, a brute-force numpy index, and the index by a scope's size
(small tiers searched exactly from the record store).
"""

from __future__ import annotations

import numpy as np
import threading
import logging
from typing import Any, Iterable, Sequence, TYPE_CHECKING
from ..types import MemoryRecord, Scope
from .ports import (
    TIER_STATUS,
    TierVector,
    content_hash,
    Scored,
    part_ids,
    record_of,
    IndexFeed,
    IndexSearch,
    Parts,
    VectorItems,
)
from ..errors import IndexMismatchError, ConfigError
from .sql import dialect_of
from .indexer import IndexWatch

if TYPE_CHECKING:
    from .vector import ChromaIndex

# Records' vectors and sentence-part vectors in the SQL stores' `vectors` table, filed under the
# text they embed (`content_hash`).


_VECTOR_COLUMNS = ("record_id", "model", "content_hash", "dim", "vec", "parts")


def put_vector(db: Any, r: MemoryRecord, vec: np.ndarray, model: str) -> None:
    """The record's vector, replacing the one it had (and its parts)."""
    arr = np.asarray(vec, dtype=np.float32)
    db.execute(
        dialect_of(db).upsert("vectors", _VECTOR_COLUMNS, ("record_id",)),
        (r.id, model, content_hash(r), int(arr.shape[0]), arr.tobytes(), None),
    )


def put_parts(db: Any, r: MemoryRecord, parts: np.ndarray | None) -> None:
    """Attach sentence-part vectors to the record's vector row, if that row holds the vector of
    this very text (`put_vector` writes a row without parts)."""
    blob = (
        None if parts is None or not len(parts) else np.asarray(parts, dtype=np.float32).tobytes()
    )
    db.execute(
        "UPDATE vectors SET parts = ? WHERE record_id = ? AND content_hash = ?",
        (blob, r.id, content_hash(r)),
    )


def vectors_with_parts(
    db: Any, ids: Sequence[str]
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """record id -> its stored (normalised) vector and, in the same read, record id -> its
    sentence-part vectors (k, d) for the records that have parts."""
    vecs: dict[str, np.ndarray] = {}
    parts: dict[str, np.ndarray] = {}
    for chunk in _chunks(list(ids), 500):
        marks = ",".join("?" * len(chunk))
        for row in db.execute(
            f"SELECT record_id, vec, dim, parts FROM vectors WHERE record_id IN ({marks})", chunk
        ):
            vecs[row["record_id"]] = np.frombuffer(row["vec"], dtype=np.float32)
            if row["parts"] is not None:
                parts[row["record_id"]] = np.frombuffer(row["parts"], dtype=np.float32).reshape(
                    -1, row["dim"]
                )
    return vecs, parts


def tier_vectors(
    db: Any, scope: Scope, tier: str, at_most: int | None = None, mark: str = "?"
) -> list[TierVector] | None:
    """The vectors of a (user, agent)'s tier, every workspace's, or None when the tier holds more
    than `at_most` records (counted on the scope index first, reading no vector)."""
    key = (scope.user_id, scope.agent_id, TIER_STATUS[tier])
    if at_most is not None:
        (n,) = db.execute(
            "SELECT COUNT(*) FROM (SELECT 1 FROM records WHERE user_id = {m} AND agent_id = {m} "
            "AND status = {m} LIMIT {m}) AS t".format(m=mark),
            (*key, int(at_most) + 1),
        ).fetchone()
        if n > at_most:
            return None
    rows = db.execute(
        "SELECT r.id, r.type, r.workspace, v.vec, v.dim, v.parts FROM records r "
        "JOIN vectors v ON v.record_id = r.id "
        "WHERE r.user_id = {m} AND r.agent_id = {m} AND r.status = {m}".format(m=mark),
        key,
    ).fetchall()
    return [_tier_vector(*row) for row in rows]


def _tier_vector(
    rid: str, type_: str, workspace: str | None, vec: bytes, dim: int, parts: bytes | None
) -> TierVector:
    """A `TierVector` from a row's columns (every SQL backend stores vectors as float32 bytes)."""
    return TierVector(
        rid,
        type_,
        workspace or "",
        np.frombuffer(vec, dtype=np.float32),
        None if parts is None else np.frombuffer(parts, dtype=np.float32).reshape(-1, dim),
    )


def _chunks(items: list, size: int) -> Iterable[list]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


# A brute-force vector index in numpy: `ports.ManagedVectorIndex` beside Chroma, for tests and
# examples that need no vector database. Exact cosine over every vector of a tier, the same
# layout as Chroma's (a collection per scope and tier, sentence parts beside their record).


class NumpyIndex:
    """Vectors in memory, searched exhaustively (one matrix product a query)."""

    def __init__(self, embedder_name: str, dim: int, *, prefix: str = "ocm") -> None:
        self.embedder_name = embedder_name
        self.dim = int(dim)
        self.prefix = prefix
        self.unusable = ""
        self._stamp: tuple[str, int] | None = None
        #: collection name -> vector id -> (vector, metadata)
        self._cols: dict[str, dict[str, tuple[np.ndarray, dict]]] = {}
        self._lock = threading.RLock()

    def collection_name(self, scope: Scope, tier: str = "hot") -> str:
        return f"{self.prefix}_{tier}_{scope.user_id}__{scope.agent_id}"

    def check_embedder(self, *, allow_init: bool = True) -> None:
        if self._stamp is None and allow_init:
            self.stamp_embedder()
        elif self._stamp is not None and self._stamp != (self.embedder_name, self.dim):
            raise IndexMismatchError(
                f"vector index: built by {self._stamp[0]!r} ({self._stamp[1]} dims), the config "
                f"uses {self.embedder_name!r} ({self.dim} dims); run `openclaw-memory reindex`"
            )

    def stamp_embedder(self) -> None:
        self._stamp = (self.embedder_name, self.dim)

    def upsert(self, scope: Scope, tier: str, items: VectorItems, parts: Parts = None) -> None:
        if not items:
            return
        with self._lock:
            col = self._cols.setdefault(self.collection_name(scope, tier), {})
            for i, v, meta in items:
                self._remove(col, [i])
                col[i] = (_unit(v), dict(meta))
                for pid, pv in zip(part_ids(i), (parts or {}).get(i, ())):
                    col[pid] = (_unit(pv), dict(meta))

    @staticmethod
    def _remove(col: dict[str, tuple[np.ndarray, dict]], ids: Sequence[str]) -> None:
        gone = set(ids)
        for vid in [v for v in col if record_of(v) in gone]:
            del col[vid]

    def delete(
        self, scope: Scope, ids: Sequence[str], tiers: Sequence[str] = ("hot", "cold")
    ) -> None:
        with self._lock:
            for tier in tiers:
                col = self._cols.get(self.collection_name(scope, tier))
                if col:
                    self._remove(col, ids)

    def query(self, scope: Scope, vector: np.ndarray, k: int, *, tier: str = "hot") -> Scored:
        with self._lock:
            col = dict(self._cols.get(self.collection_name(scope, tier), {}))
        if scope.workspace is not None:
            col = {i: x for i, x in col.items() if x[1].get("workspace") in (scope.workspace, "")}
        if not col or k <= 0:
            return []
        ids = list(col)
        sims = np.stack([col[i][0] for i in ids]) @ _unit(vector)
        best: dict[str, float] = {}
        for n in np.argsort(-sims, kind="stable"):  # best first: a record keeps its best score
            best.setdefault(record_of(ids[n]), float(sims[n]))
            if len(best) == k:
                break
        return list(best.items())

    def ids(self, scope: Scope, tier: str = "hot") -> set[str]:
        with self._lock:
            return {record_of(i) for i in self._cols.get(self.collection_name(scope, tier), {})}

    def count(self, scope: Scope, tier: str = "hot") -> int:
        with self._lock:
            return len(self._cols.get(self.collection_name(scope, tier), {}))

    def scope_names(self) -> list[str]:
        with self._lock:
            return list(self._cols)

    def collection_size(self, name: str) -> int:
        with self._lock:
            return len(self._cols.get(name, {}))

    def drop_collection(self, name: str) -> bool:
        with self._lock:
            return self._cols.pop(name, None) is not None

    def drop_scope(self, scope: Scope) -> None:
        for tier in ("hot", "cold"):
            self.drop_collection(self.collection_name(scope, tier))

    def compact(self) -> dict[str, int]:
        """No files: nothing to zero."""
        return {}

    def close(self) -> None:
        """Nothing to release."""


def _unit(v: np.ndarray) -> np.ndarray:
    arr = np.asarray(v, dtype=np.float32)
    norm = float(np.linalg.norm(arr))
    return arr / norm if norm > 0 else arr


if TYPE_CHECKING:  # the type checker holds the class to the port
    from .ports import ManagedVectorIndex

    _conforms: type[ManagedVectorIndex] = NumpyIndex


# The vector index by a scope's size: small tiers are searched exactly from the record store,
# larger ones by their Chroma collection.
#
# A Chroma collection costs about 3 MB of resident memory once opened, whatever it holds (hnswlib's
# per-index arrays, 65,536 locks among them): at 100 users of 100 memories, a third of the
# process. Users sharing one collection is no way out: Chroma's where-filter for one user's 1% of
# a 21k-vector collection costs 11-16 ms a search. The record store keeps every vector anyway (the
# index is rebuilt from it), and reading one user's 200 vectors there and scoring every one takes
# 0.65 ms (p50), under a Chroma search, and misses none (docs/benchmark-history.md, "Small scopes searched
# exactly").
#
# So a tier of at most `exact_below` records has no collection: its searches read its vectors from
# the store (always current: they are written in the record's own transaction) and its writes
# cost no Chroma write. A tier that outgrows it gets its collection, built whole from the store
# (`ChromaIndex.fill`); from then on its writes go there too. A collection left from before, or
# by a tier that has shrunk below half the bound, is dropped at its next write, so memory
# follows what the tiers hold now. `exact_below: 0` keeps every tier in Chroma.
#
# Reads decide by the tier's size in the store, writes by the collection's existence, so a
# collection built by another process is written to by this one from its next write on. A tier
# over the bound whose collection is missing or far from whole is searched exactly meanwhile,
# with a warning, and rebuilt in the background (index_watch.py).

log = logging.getLogger(__name__)

TIERS = ("hot", "cold")


class TieredIndex:
    """A `ManagedVectorIndex`: Chroma for tiers of more than `exact_below` records, an exact
    search of the store's vectors for the rest. Everything else is Chroma's (delegated)."""

    def __init__(self, chroma: "ChromaIndex", store: IndexFeed, exact_below: int) -> None:
        if isinstance(exact_below, bool) or not isinstance(exact_below, int) or exact_below < 0:
            raise ConfigError(
                "storage.vector_store.exact_below: expected an integer >= 0 (records a tier "
                f"holds before it gets a Chroma collection; 0: always), found {exact_below!r}"
            )
        self.chroma = chroma
        self.store = store
        self.exact_below = exact_below
        #: notices a missing or stale collection on search, and rebuilds it (index_watch.py)
        self.watch = IndexWatch(self)

    def __getattr__(self, name: str) -> Any:  # embedder_name, dim, prefix, collection_name, ...
        return getattr(self.chroma, name)

    def _held(self, scope: Scope, tier: str) -> bool:
        """Whether the tier has a collection; an unusable Chroma (doctor or reindex rebuilds it)
        holds none, so the small tiers go on without it."""
        return not self.chroma.unusable and self.chroma.holds(scope, tier)

    # ---- reads ------------------------------------------------------------------------------

    def _small(self, scope: Scope, tier: str) -> list[TierVector] | None:
        """The tier's vectors when it is searched exactly, else None."""
        if not self.exact_below:
            return None
        return self.store.tier_vectors(scope, tier, at_most=self.exact_below)

    def query(self, scope: Scope, vector: np.ndarray, k: int, *, tier: str = "hot") -> Scored:
        return self.searcher(scope, tier)(vector, k)

    def searcher(self, scope: Scope, tier: str = "hot") -> "ExactSearch | IndexSearch":
        """The tier's search, its reads done before the query vector is known: a small tier's
        vectors read and stacked (`ExactSearch`), or its collection's search (recall prepares
        it while the query is embedded: recall/recaller.py)."""
        rows = self._small(scope, tier)
        if rows is None:
            held = self._held(scope, tier)
            self.watch.on_search(scope, tier, held)
            if held or (not self.exact_below and self.chroma.unusable):
                return IndexSearch(self.chroma, scope, tier)
            # its collection is missing (being rebuilt), or Chroma is unusable: exact, slower
            rows = self.store.tier_vectors(scope, tier) or []
        return ExactSearch(rows, scope.workspace, self.chroma.dim)

    def ids(self, scope: Scope, tier: str = "hot") -> set[str]:
        """The records the tier's search finds vectors of: its collection's, or the store's
        when the store serves it (a tier over the bound with no collection holds none)."""
        if not self._held(scope, tier):
            rows = self._small(scope, tier)
            return {r.id for r in rows} if rows is not None else set()
        return self.chroma.ids(scope, tier)

    def count(self, scope: Scope, tier: str = "hot") -> int:
        """Vectors in the tier, sentence parts included (as `ids`)."""
        if not self._held(scope, tier):
            rows = self._small(scope, tier)
            return sum(1 + _parts(r) for r in rows) if rows is not None else 0
        return self.chroma.count(scope, tier)

    # ---- writes -----------------------------------------------------------------------------

    def upsert(self, scope: Scope, tier: str, items: VectorItems, parts: Parts = None) -> None:
        if not items:
            return
        if not self.exact_below:
            self.chroma.upsert(scope, tier, items, parts)
            return
        if self._held(scope, tier):
            if self._shrunk(scope, tier):
                self.chroma.drop_collection(self.chroma.collection_name(scope, tier))
                return
            self.chroma.upsert(scope, tier, items, parts)
            return
        rows = self._small(scope, tier)
        if rows is None:  # outgrown: build its collection from the store, these items in it
            self._build(scope, tier)

    def _shrunk(self, scope: Scope, tier: str) -> bool:
        """Whether a tier with a collection holds no more than half the bound: searched exactly
        from now on (the half keeps a tier near the bound from building and dropping it)."""
        return self.store.tier_vectors(scope, tier, at_most=self.exact_below // 2) is not None

    def _build(self, scope: Scope, tier: str, rows: Sequence[TierVector] | None = None) -> int:
        """Build the tier's collection from the store's vectors (or these); how many records."""
        if rows is None:
            rows = self.store.tier_vectors(scope, tier) or []
        if not rows:
            return 0
        items = [(r.id, r.vec, {"type": r.type, "workspace": r.workspace}) for r in rows]
        parts = {r.id: r.parts for r in rows if r.parts is not None}
        log.info(
            "vector index: %s's %s tier holds %d records, over %d: building its collection",
            scope.key, tier, len(rows), self.exact_below,
        )  # fmt: skip
        self.chroma.fill(scope, tier, items, parts)
        return len(rows)

    def rebuild_scope(self, scope: Scope) -> int:
        """After reindex dropped every collection: build those of the scope's tiers over the
        bound; return how many records the scope's searches find."""
        found = 0
        for tier in TIERS:
            rows = self._small(scope, tier)
            found += len(rows) if rows is not None else self._build(scope, tier)
        return found

    def delete(self, scope: Scope, ids: Sequence[str], tiers: Sequence[str] = TIERS) -> None:
        if self.chroma.unusable:  # nothing to delete from: it is rebuilt from the store
            return
        self.chroma.delete(scope, ids, tiers)

    def drop_scope(self, scope: Scope) -> None:
        self.chroma.drop_scope(scope)

    def close(self) -> None:
        self.watch.close()
        self.chroma.close()


def _parts(row: TierVector) -> int:
    return 0 if row.parts is None else len(row.parts)


def exact_search(
    rows: Sequence[TierVector], vector: np.ndarray, k: int, workspace: str | None = None
) -> Scored:
    """(record id, cosine) of the k records nearest the vector, best first, each scored by its
    own vector or its nearest sentence part, whichever is nearer (as Chroma's search of the
    same vectors scores it); `workspace` keeps that workspace's records and those of none."""
    q = np.asarray(vector, dtype=np.float32).reshape(-1)
    return ExactSearch(rows, workspace, q.shape[0])(q, k)


class ExactSearch:
    """A small tier's exact search, prepared: its records' vectors and sentence parts stacked
    into one matrix, their norms taken, so a search is one product with the query vector.
    `vectors` and `parts`: the searched records', by record id (recall's load reads them no
    more)."""

    def __init__(self, rows: Sequence[TierVector], workspace: str | None, dim: int) -> None:
        # a vector of another length is stale (doctor re-embeds it): not comparable
        self.rows = [
            r
            for r in rows
            if r.vec.shape[0] == dim and (workspace is None or r.workspace in (workspace, ""))
        ]
        self.vectors = {r.id: r.vec for r in self.rows}
        self.parts = {r.id: r.parts for r in self.rows if r.parts is not None}
        self.starts = np.empty(len(self.rows), dtype=np.intp)
        blocks: list[np.ndarray] = []
        at = 0
        for i, r in enumerate(self.rows):  # each record's vector then its parts, contiguous
            self.starts[i] = at
            blocks.append(r.vec.reshape(1, -1))
            at += 1
            if r.parts is not None and len(r.parts):
                blocks.append(r.parts)
                at += len(r.parts)
        self.mat = (
            np.concatenate(blocks).astype(np.float32, copy=False)
            if blocks
            else np.empty((0, dim), dtype=np.float32)
        )
        self.norms = np.linalg.norm(self.mat, axis=1)

    def __call__(self, vector: np.ndarray, k: int) -> Scored:
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        if not self.rows or k <= 0 or q.shape[0] != self.mat.shape[1]:
            return []
        norms = self.norms * (float(np.linalg.norm(q)) or 1.0)
        sims = (self.mat @ q) / np.where(norms > 0, norms, 1.0)
        best = np.maximum.reduceat(sims, self.starts)
        top = np.argsort(-best, kind="stable")[: int(k)]
        return [(self.rows[i].id, float(best[i])) for i in top]


if TYPE_CHECKING:  # the type checker holds the class to the port
    from .ports import ManagedVectorIndex

    _conforms_tiered_index: type[ManagedVectorIndex] = TieredIndex
