"""What the vector index does to one Chroma collection besides reading and writing it: give it
the configured search breadth, and tell which of some ids it holds (`vector.ChromaIndex`)."""

from __future__ import annotations

import logging
import time
from typing import Any, Sequence

from .vector_ids import part_ids

log = logging.getLogger(__name__)


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
    on every open. At 400 the search found all of them (BENCHMARKS.md, "Vector search breadth")."""
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
