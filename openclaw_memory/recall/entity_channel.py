"""The entity channel: memories that name what the request names, across sessions, and one hop
through the entities of the strongest candidates (multi-hop questions); the request's entity
reads it shares with the query's embedding text (recall/plain.py).
"""

from __future__ import annotations

import functools
import re
from typing import Sequence

import numpy as np

from ..runtime.engine import MemoryEngine
from ..extract.entities import extract, normalise
from ..store.record_ports import EntityMemory
from ..lang.text import has_cjk
from ..config.tuning import tuned, tuned_int
from ..types import Scope
from .pool import Pool
from .query import RecallQuery

#: channel name prefixes: "entity:Melanie" (the request names Melanie), "hop:Boston" (a strong
#: candidate names Boston); `search --explain` shows them
ENTITY, HOP = "entity", "hop"
#: an entity whose weight (store/entities.py `idf`) is below this, a name in more than total^0.7
#: of the user's memories (their own, a chat partner's), selects nothing
MIN_ENTITY_WEIGHT = tuned("entity_channel.min_weight")
#: memories read per entity set, as a multiple of the channel's candidates
REACH = tuned_int("entity_channel.reach")


class EntityChannel:
    """Memories that name what the request names, across sessions (aliases resolved: "Mel" finds
    Melanie's), then one hop: the entities of the strongest candidates the channels before it
    found lead to other memories that name them (multi-hop questions: evidence in several
    sessions linked by a person, place or thing). The hop adds at most `hop_share` of `limit`
    and only what the pool does not hold, so single-hop ranking keeps its candidates. `named`
    and `hop` switch either part off (`channel.entity`, `channel.hop`).

    Runs after the vector and keyword channels (it reads their candidates for the hop), so it
    declares no `uses_vector = False`: the parallel recaller runs it after the early channels'
    pools are merged, on the pool of every channel before it. Reads entities through the
    store's port (`ports.EntityMemory`)."""

    name = ENTITY

    def __init__(
        self,
        engine: MemoryEngine,
        limit: int,
        *,
        seeds: int = tuned_int("entity_channel.seeds"),
        hop_share: float = tuned("entity_channel.hop_share"),
        named: bool = True,
        hop: bool = True,
    ) -> None:
        self.engine, self.limit, self.seeds, self.hop_share = engine, limit, seeds, hop_share
        self.named, self.hop = named, hop

    def prepare(self, scope: Scope, query: RecallQuery, pool: Pool) -> None:
        """Read what `propose` reads of the request's own entities (not the hop's, which starts
        from the other channels' candidates) into `pool.entities`: run while the query is
        embedded."""
        reads = pool.entities = pool.entities or EntityReads(self.engine.store, scope)
        if not self.named:
            return
        named = reads.named(query.text)
        reads.naming(self._asked(named, reads.weights(sorted(named))), *self._reach(query))

    def _reach(self, query: RecallQuery) -> tuple[tuple[str, ...], int]:
        """The statuses searched and the cap of records read per entity set."""
        return query.statuses, self.limit * REACH

    @staticmethod
    def _asked(named: dict[int, str], weight: dict[int, float]) -> list[int]:
        return sorted(e for e in named if weight.get(e, 0.0) >= MIN_ENTITY_WEIGHT)

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        statuses, cap = self._reach(query)
        store = self.engine.store
        reads = pool.entities or EntityReads(store, scope)
        named = reads.named(query.text) if self.named else {}
        seeds = self._seeds(pool) if self.hop else []
        seed_entities = store.entities_of(scope, seeds) if seeds else {}
        hop_ids = {e for es in seed_entities.values() for e in es} - set(named)
        # an entity's weight is its own (its memories among the scope's): one read for both
        weight = hop_weight = reads.weights(sorted({*named, *hop_ids}))
        hits = reads.naming(self._asked(named, weight), statuses, cap) if named else []
        for rid, label in _best(hits, weight, named, self.limit):
            pool.propose(rid, f"{ENTITY}:{label}")
        if not self.hop:
            return
        hop_ids = {e for e in hop_ids if hop_weight.get(e, 0.0) >= MIN_ENTITY_WEIGHT}
        hop_hits = store.records_naming(scope, sorted(hop_ids), statuses=statuses, limit=cap)
        hop_names = store.entity_names(scope, hop_ids)
        share = max(1, int(self.limit * self.hop_share))
        counts = {e: sum(e in es for es in seed_entities.values()) for e in hop_ids}
        score = {e: counts[e] * hop_weight[e] for e in hop_ids}
        fresh = [(rid, e) for rid, e in hop_hits if rid not in pool.channels]
        for rid, label in _best(fresh, score, hop_names, share):
            pool.propose(rid, f"{HOP}:{label}")

    def _seeds(self, pool: Pool) -> list[str]:
        """The strongest first-pass candidates: best vector cosine, best keyword score."""
        vector = sorted(
            (r for r, c in pool.channels.items() if "vector" in c and r in pool.cosine),
            key=lambda r: -pool.cosine[r],
        )
        keyword = sorted(pool.bm25, key=lambda r: -pool.bm25[r])
        return list(dict.fromkeys([*vector[: self.seeds], *keyword[: max(1, self.seeds // 2)]]))


def _best(
    hits: list[tuple[str, int]], weight: dict[int, float], names: dict[int, str], limit: int
) -> list[tuple[str, str]]:
    """Records by the summed weight of the entities they share (most first), each with the
    name of its strongest one."""
    total: dict[str, float] = {}
    top: dict[str, int] = {}
    for rid, e in hits:
        w = weight.get(e, 0.0)
        total[rid] = total.get(rid, 0.0) + w
        if rid not in top or w > weight.get(top[rid], 0.0):
            top[rid] = e
    ranked = sorted(total, key=lambda r: -total[r])[:limit]
    return [(rid, names.get(top[rid], "?")) for rid in ranked]


_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


@functools.lru_cache(maxsize=256)  # read twice a request: the query's embedding text, this channel
def request_keys(text: str) -> frozenset[str]:
    """Keys a request may name an entity by: its extracted entities, and every run of one to
    three words (lower case or not: "what did caroline do") and its Chinese words."""
    # Chinese: jieba's words below hold the names; tagging them too would double the cost
    keys = {e.key for e in extract(text)} if text.isascii() else set()
    words = [w for w in _WORD.findall(text) if w.isascii()]
    for n in (1, 2, 3):
        keys.update(normalise(" ".join(words[i : i + n])) for i in range(len(words) - n + 1))
    if any("\u4e00" <= ch <= "\u9fff" for ch in text):
        from ..lang.text import _jieba

        jieba = _jieba()
        for w in jieba.lcut_for_search(text):
            if len(w) >= 2:
                keys.add(normalise(w))
            if len(w) >= 3 and not jieba.dt.FREQ.get(w):
                # a word jieba only guessed may be a name it does not know, glued to the
                # character next to it: 王伟来 of 王伟来的时候, 刘婷学 of 刘婷学车
                keys.update((normalise(w[:-1]), normalise(w[1:])))
    return frozenset(k for k in keys if k)


class EntityReads:
    """The entities a request names and their weights, read once a request: the query's
    embedding text (recall/plain.py) and the entity channel both ask (two statements each)."""

    def __init__(self, store: EntityMemory, scope: Scope) -> None:
        self.store, self.scope = store, scope
        self._named: dict[str, dict[int, str]] = {}
        self._weight: dict[int, float] = {}
        self._asked: set[int] = set()  # an entity linked to no memory has no weight
        self._naming: dict[tuple, list[tuple[str, int]]] = {}

    def named(self, text: str) -> dict[int, str]:
        """entity id -> name of the entities text names (`request_keys`)."""
        if text not in self._named:
            found = self.store.entities_named(self.scope, request_keys(text))
            # a Chinese name inside a longer one the request names is the longer one's piece
            # (李明 of 李明轩)
            self._named[text] = {
                e: n
                for e, n in found.items()
                if not any(n != m and n in m and has_cjk(n) for m in found.values())
            }
        return self._named[text]

    def naming(
        self, ids: Sequence[int], statuses: Sequence[str], limit: int
    ) -> list[tuple[str, int]]:
        """`EntityMemory.records_naming` of ids, read once a request for the same arguments."""
        key = (tuple(ids), tuple(statuses), limit)
        if key not in self._naming:
            self._naming[key] = self.store.records_naming(
                self.scope, list(ids), statuses=statuses, limit=limit
            )
        return self._naming[key]

    def weights(self, ids: Sequence[int]) -> dict[int, float]:
        """`EntityMemory.entity_weights` of ids, each entity read once (in ids' order)."""
        missing = sorted(set(ids) - self._asked)
        if missing:
            self._weight.update(self.store.entity_weights(self.scope, missing))
            self._asked.update(missing)
        return {e: self._weight[e] for e in ids if e in self._weight}
