"""What the vector index does to one Chroma collection besides reading and writing it: create it
with the configured search breadth (or give it that breadth), build one whole, turn vectors into
its nodes, and tell which of some ids it holds (`vector.ChromaIndex`)."""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any, Mapping, Sequence

import numpy as np

from .vector_ids import part_ids

log = logging.getLogger(__name__)

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
