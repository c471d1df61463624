"""The vector index's ports: what recall and the indexer ask of it, and what reindex, doctor
and purge manage (contracts in ports.py)."""

from __future__ import annotations

from typing import Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from ..types import Scope
from .port_values import Scored


@runtime_checkable
class VectorIndex(Protocol):
    """Derived from the record store (rebuildable from it at any time). Two tiers per scope:
    "hot" (live memories) and "cold" (the archive, deep recall only)."""

    embedder_name: str

    def upsert(
        self,
        scope: Scope,
        tier: str,
        items: Sequence[tuple[str, np.ndarray, dict]],
        parts: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        """Put (id, vector, metadata) into a tier with their sentence parts, replacing what the
        tier held for those ids."""

    def delete(
        self, scope: Scope, ids: Sequence[str], tiers: Sequence[str] = ("hot", "cold")
    ) -> None: ...

    def query(self, scope: Scope, vector: np.ndarray, k: int, *, tier: str = "hot") -> Scored:
        """Up to k (record id, similarity) best first; a record found by a sentence part scores
        that part's similarity if it beats its own. Similarity is the cosine (see the module
        docstring of ports.py: in [0, 1] for the package's embedders)."""

    def ids(self, scope: Scope, tier: str = "hot") -> set[str]: ...

    def count(self, scope: Scope, tier: str = "hot") -> int:
        """Vectors in the tier, sentence parts included."""

    def drop_scope(self, scope: Scope) -> None:
        """Delete both tiers of a scope (purge)."""

    def close(self) -> None: ...


class VectorSearch(Protocol):
    """One tier's search with its reads done (`searcher` of an index that offers it): called as
    `search(vector, k)`, it answers as `VectorIndex.query`. `vectors` and `parts`: the records'
    vectors and sentence parts it read, by record id (empty for an index that reads none)."""

    vectors: dict[str, np.ndarray]
    parts: dict[str, np.ndarray]

    def __call__(self, vector: np.ndarray, k: int) -> Scored: ...


class IndexSearch:
    """A `VectorSearch` that is the index's own `query` (nothing to read before the vector)."""

    def __init__(self, index: VectorIndex, scope: Scope, tier: str) -> None:
        self.index, self.scope, self.tier = index, scope, tier
        self.vectors: dict[str, np.ndarray] = {}
        self.parts: dict[str, np.ndarray] = {}

    def __call__(self, vector: np.ndarray, k: int) -> Scored:
        return self.index.query(self.scope, vector, k, tier=self.tier)


class ManagedVectorIndex(VectorIndex, Protocol):
    """A vector index with its collections named: what reindex, doctor and purge manage."""

    dim: int
    prefix: str
    #: why the index cannot be used ("" when it can); searches then return nothing
    unusable: str

    def check_embedder(self, *, allow_init: bool = True) -> None:
        """Raise `IndexMismatchError` when the index was built by another embedder."""

    def stamp_embedder(self) -> None: ...

    def collection_name(self, scope: Scope, tier: str = "hot") -> str: ...

    def scope_names(self) -> list[str]:
        """Every collection's name."""

    def collection_size(self, name: str) -> int: ...

    def drop_collection(self, name: str) -> bool: ...

    def compact(self) -> dict[str, int]:
        """Zero freed bytes in the index's files (purge); bytes zeroed per file."""
