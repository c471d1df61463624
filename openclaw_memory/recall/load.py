"""The pool's load: every proposed record, its vectors and search tokens, read once, and each
memory's cosine with the query (after the channels, before fusion: recall/recaller.py).

Part of it is read early: the early channels' proposals are read in their thread while the query
is embedded (`read_ahead`), and `load` reads only what the later channels added.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from ..runtime.engine import MemoryEngine
from ..store.vector_ports import VectorSearch
from ..types import MemoryRecord, MemoryType, Scope
from .pool import Pool


@dataclass
class Ahead:
    """What `load` reads, read for some ids before it runs: the early channels' proposals, read
    in their thread while the query is embedded (recall/recaller.py)."""

    #: ids whose record was looked up (found or not: gone ahead of a purge) and those found
    asked: set[str] = field(default_factory=set)
    records: dict[str, MemoryRecord] = field(default_factory=dict)
    #: ids whose vectors and search tokens were read (held or not), and what was read (the
    #: vectors of more ids: those the prepared vector searches read)
    covered: set[str] = field(default_factory=set)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    parts: dict[str, np.ndarray] = field(default_factory=dict)
    tokens: dict[str, frozenset[str]] = field(default_factory=dict)


def read_ahead(
    engine: MemoryEngine,
    scope: Scope,
    pools: Sequence[Pool],
    searches: Iterable[VectorSearch] = (),
) -> Ahead:
    """Read what `load` will need of the records these pools proposed: the records the channels
    did not load themselves, every one's vectors and search tokens. The vectors the prepared
    searches read are kept too (those of a small tier's every record): `load` then reads no
    vector of what the vector channel finds there."""
    held = {rid: r for p in pools for rid, r in p.records.items()}
    asked = [i for p in pools for i in p.channels if i not in held]
    found = engine.get_many(scope, list(dict.fromkeys(asked)))
    ids = list(dict.fromkeys([*held, *found]))
    vectors: dict[str, np.ndarray] = {}
    parts: dict[str, np.ndarray] = {}
    for search in searches:
        vectors.update(search.vectors)
        parts.update(search.parts)
    unread = [i for i in ids if i not in vectors]
    read, read_parts = engine.store.vectors_with_parts(unread)
    vectors.update(read)
    parts.update(read_parts)
    tokens = engine.store.search_tokens(ids)
    return Ahead(set(asked), found, set(ids), vectors, parts, tokens)


def load(
    engine: MemoryEngine, scope: Scope, qvec: np.ndarray, pool: Pool, ahead: Ahead | None = None
) -> None:
    """Fetch every proposed record and its vectors; give each its cosine with the query: that of
    its whole text or of its nearest sentence part, whichever is higher (as the vector channel
    scores it, so a memory found by any channel gets the same semantic signal). `ahead`: what
    was read already (`read_ahead`); only the rest is read here."""
    ahead = ahead or Ahead()
    missing = [i for i in pool.channels if i not in pool.records]
    pool.records.update((i, ahead.records[i]) for i in missing if i in ahead.records)
    pool.records.update(engine.get_many(scope, [i for i in missing if i not in ahead.asked]))
    for gone in [i for i in pool.channels if i not in pool.records]:  # index ahead of a purge
        pool.channels.pop(gone)
    episode_turns = [
        t for r in pool.records.values() if r.type is MemoryType.EPISODE for t in r.source.turn_ids
    ]
    store = engine.store
    rest = [i for i in pool.records if i not in ahead.covered]
    # a channel may have read some vectors already (`Pool.vectors`): those are not read again
    unread = [i for i in rest if i not in ahead.vectors and i not in pool.vectors]
    vectors, parts = store.vectors_with_parts(unread)
    tokens = store.search_tokens(rest)
    vectors.update(ahead.vectors)
    parts.update(ahead.parts)
    vectors.update(pool.vectors)
    parts.update(pool.parts)
    tokens.update(ahead.tokens)
    pool.vectors = {i: vectors[i] for i in pool.records if i in vectors}
    pool.tokens = {i: tokens[i] for i in pool.records if i in tokens}
    pool.retired = store.retired_turns(scope, episode_turns) if episode_turns else {}
    for rid, vec in pool.vectors.items():  # a memory is as near as its nearest sentence
        whole = float(np.dot(vec, qvec))
        pool.cosine[rid] = whole
        if rid in parts:
            sims = parts[rid] @ qvec
            best = int(np.argmax(sims))
            if float(sims[best]) > whole:
                pool.cosine[rid] = float(sims[best])
                pool.sentence[rid] = (best, len(sims))
