"""A brute-force vector index in numpy: `ports.ManagedVectorIndex` beside Chroma, for tests and
examples that need no vector database. Exact cosine over every vector of a tier, the same
layout as Chroma's (a collection per scope and tier, sentence parts beside their record).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from ..errors import IndexMismatchError
from ..types import Scope
from .ports import Scored
from .vector_ids import part_ids, record_of


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

    def upsert(
        self,
        scope: Scope,
        tier: str,
        items: Sequence[tuple[str, np.ndarray, dict]],
        parts: Mapping[str, np.ndarray] | None = None,
    ) -> None:
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
