"""The pool of a request's recall candidates, the channel protocol that fills it, and its load.

The load: every proposed record, its vectors and search tokens, read once.
"""

from __future__ import annotations

import numpy as np
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Protocol, Iterable, Sequence
from ..store.ports import StageStore, VectorSearch
from ..types import MemoryRecord, Scope, MemoryType
from .query import RecallQuery

if TYPE_CHECKING:
    from ..lang import Languages
    from .channels import EntityReads

# The pool of a request's recall candidates and the channel protocol that fills it.
#
# Each channel proposes record ids into the pool; the pool then loads every proposed record once
# and gives each the same raw signals (cosine with the query, matched query terms), whichever
# channel found it (recall/pool.py). The pool also carries the request-scoped reads the channels
# share: its entity reads and its prepared vector searches.


class SharedSearch:
    """A tier's `VectorSearch` shared by the channels of one request: searched once per query
    vector, as deep as any channel asked for beforehand (`widen`, while the query is embedded),
    and each caller given the first k it asks for; a caller asking deeper than was searched
    searches again. (A Chroma query for 120 records costs little more than one for 30; two
    queries cost nearly twice one.)"""

    def __init__(self, search: VectorSearch) -> None:
        self.search = search
        # what the search read of its records' vectors (`VectorSearch`): the same maps
        self.vectors, self.parts = search.vectors, search.parts
        self.depth = 0
        self._asked: tuple[np.ndarray, int] | None = None
        self._hits: list[tuple[str, float]] = []

    def widen(self, k: int) -> None:
        """Search at least k deep."""
        self.depth = max(self.depth, k)

    def __call__(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        if self._asked is None or self._asked[0] is not vector or self._asked[1] < k:
            depth = max(k, self.depth)
            self._hits = list(self.search(vector, depth))
            self._asked = (vector, depth)
        return self._hits[:k]


@dataclass
class Pool:
    """Raw signals per proposed record."""

    records: dict[str, MemoryRecord] = field(default_factory=dict)
    cosine: dict[str, float] = field(default_factory=dict)
    bm25: dict[str, float] = field(default_factory=dict)
    channels: dict[str, list[str]] = field(default_factory=dict)
    #: record id -> its vector and (when it has them) its sentence parts' vectors: filled by
    #: `load`, and beforehand by a channel that read them to choose what it proposes (the date
    #: channel), so that `load` does not read them again
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    parts: dict[str, np.ndarray] = field(default_factory=dict)
    #: search tokens per record, read from the keyword index (no re-segmenting on the read path)
    tokens: dict[str, frozenset[str]] = field(default_factory=dict)
    recent_summaries: list[str] = field(default_factory=list)
    #: the request asks about the conversations themselves (`Analysis.recap`): the recent
    #: summaries answer it
    recap: bool = False
    #: turn id -> inactive curated record distilled from it: its episode is an outdated version
    retired: dict[str, str] = field(default_factory=dict)
    #: record id -> (index, count) of the sentence part whose cosine beat the whole memory's
    sentence: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: the cosine an unrelated memory reaches for this request (background.py); None: unknown
    background: float | None = None
    #: the same for a memory written in the other language than the request (its bank in that
    #: language): a translation and an unrelated text both score lower across languages
    background_across: float | None = None
    #: the same, read from the user's own store: its crowd of vector candidates (recall/gate.py)
    store_level: float | None = None
    #: the request refers to the user's own world (recall/reference.py); False: gated strictly
    personal: bool = True
    #: the request is written in a language without spaces between words (Chinese: the pack of
    #: its text, `lang.text.unspaced`); None: not read (recall/gate.py, across languages)
    request_unspaced: bool | None = None
    #: records holding at least half of the request's terms, two at least; for a request about the
    #: user's world, those naming an attribute it names (recall/gate.py)
    agreeing: set[str] = field(default_factory=set)
    #: the request asks nothing (a thanks, a greeting: `lang.utterance`): no
    #: retrieved memory answers it (recall/gate.py)
    asks_nothing: bool = False
    #: the request is about the user's world, but nothing pooled speaks of what it asks: no
    #: retrieved memory answers it (recall/gate.py `unheld`)
    unheld: bool = False
    #: the request's entity reads, shared by its embedding text and the entity channel
    entities: "EntityReads | None" = None
    #: the language packs the request is read with (`Analysis.langs`); None: every rule on
    langs: "Languages | None" = None
    #: tier -> its vector search, prepared while the query is embedded (`VectorChannel.prepare`)
    searches: dict[str, SharedSearch] = field(default_factory=dict)

    def search(self, tier: str, open_search: Callable[[str], VectorSearch]) -> SharedSearch:
        """The request's search of a tier, shared by its channels: the one prepared (or opened
        first), else `open_search(tier)`'s, kept for the channels after."""
        if tier not in self.searches:
            self.searches[tier] = SharedSearch(open_search(tier))
        return self.searches[tier]

    def propose(self, record_id: str, channel: str) -> None:
        names = self.channels.setdefault(record_id, [])
        if channel not in names:
            names.append(channel)


class Channel(Protocol):
    """A source of recall candidates: `propose` adds record ids to the pool under its `name`
    (`pool.propose(record_id, name)`); the pool loads and scores them like every other."""

    name: str
    # Optional `uses_vector = False`: the channel neither reads qvec (it gets an empty array) nor
    # the pool's other entries, so it runs while the query is embedded (recall/recaller.py).
    # Optional `prepare(scope, query, pool)` on a channel that reads them: the reads its
    # `propose` will make that need neither, done then too, their results kept in the pool's
    # request-scoped reads (`pool.entities`, `pool.searches`), where `propose` finds them.

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        """Add the ids of scope's records this channel finds for the query (qvec: its vector)."""
        ...


# The pool's load: every proposed record, its vectors and search tokens, read once, and each
# memory's cosine with the query (after the channels, before fusion: recall/recaller.py).
#
# Part of it is read early: the early channels' proposals are read in their thread while the query
# is embedded (`read_ahead`), and `load` reads only what the later channels added.


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
    store: StageStore,
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
    found = store.get_many(scope, list(dict.fromkeys(asked)))
    ids = list(dict.fromkeys([*held, *found]))
    vectors: dict[str, np.ndarray] = {}
    parts: dict[str, np.ndarray] = {}
    for search in searches:
        vectors.update(search.vectors)
        parts.update(search.parts)
    unread = [i for i in ids if i not in vectors]
    read, read_parts = store.vectors_with_parts(unread)
    vectors.update(read)
    parts.update(read_parts)
    tokens = store.search_tokens(ids)
    return Ahead(set(asked), found, set(ids), vectors, parts, tokens)


def load(
    store: StageStore, scope: Scope, qvec: np.ndarray, pool: Pool, ahead: Ahead | None = None
) -> None:
    """Fetch every proposed record and its vectors; give each its cosine with the query: that of
    its whole text or of its nearest sentence part, whichever is higher (as the vector channel
    scores it, so a memory found by any channel gets the same semantic signal). `ahead`: what
    was read already (`read_ahead`); only the rest is read here."""
    ahead = ahead or Ahead()
    missing = [i for i in pool.channels if i not in pool.records]
    pool.records.update((i, ahead.records[i]) for i in missing if i in ahead.records)
    pool.records.update(store.get_many(scope, [i for i in missing if i not in ahead.asked]))
    for gone in [i for i in pool.channels if i not in pool.records]:  # index ahead of a purge
        pool.channels.pop(gone)
    episode_turns = [
        t for r in pool.records.values() if r.type is MemoryType.EPISODE for t in r.source.turn_ids
    ]
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
