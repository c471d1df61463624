"""The vector index by a scope's size: small tiers are searched exactly from the record store,
larger ones by their Chroma collection.

A Chroma collection costs about 3 MB of resident memory once opened, whatever it holds (hnswlib's
per-index arrays, 65,536 locks among them): at 100 users of 100 memories, a third of the
process. Users sharing one collection is no way out: Chroma's where-filter for one user's 1% of
a 21k-vector collection costs 11-16 ms a search. The record store keeps every vector anyway (the
index is rebuilt from it), and reading one user's 200 vectors there and scoring every one takes
0.65 ms (p50), under a Chroma search, and misses none (docs/benchmark-history.md, "Small scopes searched
exactly").

So a tier of at most `exact_below` records has no collection: its searches read its vectors from
the store (always current: they are written in the record's own transaction) and its writes
cost no Chroma write. A tier that outgrows it gets its collection, built whole from the store
(`ChromaIndex.fill`); from then on its writes go there too. A collection left from before, or
by a tier that has shrunk below half the bound, is dropped at its next write, so memory
follows what the tiers hold now. `exact_below: 0` keeps every tier in Chroma.

Reads decide by the tier's size in the store, writes by the collection's existence, so a
collection built by another process is written to by this one from its next write on. A tier
over the bound whose collection is missing or far from whole is searched exactly meanwhile,
with a warning, and rebuilt in the background (index_watch.py).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from ..errors import ConfigError
from ..types import Scope
from .index_watch import IndexWatch
from .port_values import Scored, TierVector
from .record_ports import RecordReads
from .vector_ports import IndexSearch

if TYPE_CHECKING:
    from .vector import ChromaIndex

log = logging.getLogger(__name__)

TIERS = ("hot", "cold")


class TieredIndex:
    """A `ManagedVectorIndex`: Chroma for tiers of more than `exact_below` records, an exact
    search of the store's vectors for the rest. Everything else is Chroma's (delegated)."""

    def __init__(self, chroma: "ChromaIndex", store: RecordReads, exact_below: int) -> None:
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

    def upsert(
        self,
        scope: Scope,
        tier: str,
        items: Sequence[tuple[str, np.ndarray, dict]],
        parts: Mapping[str, np.ndarray] | None = None,
    ) -> None:
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

    _conforms: type[ManagedVectorIndex] = TieredIndex
