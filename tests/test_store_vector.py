"""The Chroma index writes only what is needed: each embedded Chroma write costs 30-40 ms and
holds the GIL, so a new record must cost one add, and deleting what a tier does not hold, none."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from openclaw_memory.errors import ConfigError

from openclaw_memory.store.vector import open_client
from openclaw_memory.store.vector import ChromaIndex
from openclaw_memory.types import Scope

SCOPE = Scope("u1")


class CountingCollection:
    """A real Chroma collection that counts the writes made through it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.writes: list[str] = []

    def add(self, **kwargs: Any) -> Any:
        self.writes.append("add")
        return self.inner.add(**kwargs)

    def delete(self, **kwargs: Any) -> Any:
        self.writes.append("delete")
        return self.inner.delete(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _index(tmp_path) -> ChromaIndex:
    return ChromaIndex(path=tmp_path / "chroma", embedder_name="test@4", dim=4)


def _counting(index: ChromaIndex, tier: str) -> CountingCollection:
    store = index._store(SCOPE, tier)
    counter = CountingCollection(store._collection)
    store._collection = counter
    return counter


def _vec(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_a_new_vector_costs_one_add_and_a_replaced_one_a_delete_and_an_add(tmp_path):
    index = _index(tmp_path)
    try:
        hot = _counting(index, "hot")
        index.upsert(SCOPE, "hot", [("m1", _vec(1, 0, 0, 0), {"type": "fact"})])
        assert hot.writes == ["add"]
        index.upsert(
            SCOPE,
            "hot",
            [
                ("m1", _vec(0, 1, 0, 0), {"type": "fact"}),
                ("m2", _vec(0, 0, 1, 0), {"type": "fact"}),
            ],
        )
        assert hot.writes == ["add", "delete", "add"]
        assert index.ids(SCOPE) == {"m1", "m2"}
        best, sim = index.query(SCOPE, _vec(0, 1, 0, 0), 1)[0]
        assert best == "m1" and sim > 0.99  # the replaced vector, not the first one
    finally:
        index.close()


def test_deleting_what_a_tier_does_not_hold_writes_nothing_and_creates_no_collection(tmp_path):
    index = _index(tmp_path)
    try:
        index.upsert(SCOPE, "hot", [("m1", _vec(1, 0, 0, 0), {"type": "fact"})])
        index.delete(SCOPE, ["m1"], tiers=("cold",))
        assert index.collection_name(SCOPE, "cold") not in index.scope_names()
        hot = _counting(index, "hot")
        index.delete(SCOPE, ["absent"], tiers=("hot",))
        assert hot.writes == []
        index.delete(SCOPE, ["absent", "m1", "m1"], tiers=("hot",))
        assert hot.writes == ["delete"]
        assert index.ids(SCOPE) == set()
    finally:
        index.close()


def test_collections_search_with_the_configured_breadth_and_old_ones_are_retuned(tmp_path):
    index = ChromaIndex(path=tmp_path / "chroma", embedder_name="test@4", dim=4, search_ef=250)
    col = index._store(SCOPE, "hot")._collection
    assert col.configuration["hnsw"]["ef_search"] == 250
    index.close()
    # a collection created with Chroma's defaults (an older store) is retuned when opened
    client = open_client("embedded", tmp_path / "old", "127.0.0.1", 8000)
    name = index.collection_name(SCOPE, "hot")
    client.get_or_create_collection(
        name, metadata={"hnsw:space": "cosine"}, embedding_function=None
    )
    assert client.get_collection(name).configuration["hnsw"]["ef_search"] == 100
    reopened = ChromaIndex(path=tmp_path / "old", embedder_name="test@4", dim=4, search_ef=400)
    assert reopened._store(SCOPE, "hot")._collection.configuration["hnsw"]["ef_search"] == 400
    reopened.close()


@pytest.mark.parametrize("bad", [0, -5, 1.5, True, "400"])
def test_a_bad_search_breadth_names_the_key(tmp_path, bad):
    with pytest.raises(
        ConfigError, match=r"storage\.vector_store\.search_ef: expected an integer >= 1"
    ):
        ChromaIndex(path=tmp_path / "chroma", embedder_name="test@4", dim=4, search_ef=bad)
