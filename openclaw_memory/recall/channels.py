"""Candidate channels: vector, keyword (CJK-aware FTS5), recent-important, subject, profile,
entity (the people, places and things the request names, and one hop through them).

Each channel proposes record ids; the pool then loads every proposed record once and gives each
the same raw signals (cosine with the query, matched query terms), whichever channel found it
(recall/load.py).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Protocol, Sequence

import numpy as np

from ..clock import DAY
from ..config import RecallConfig
from ..engine import MemoryEngine
from ..extract.entities import extract, normalise
from ..policy import type_values, types_where
from ..store.record_ports import EntityMemory
from ..store.vector_ports import VectorSearch
from ..types import MemoryRecord, Scope
from .query import RecallQuery


@dataclass
class Pool:
    """Raw signals per proposed record."""

    records: dict[str, MemoryRecord] = field(default_factory=dict)
    cosine: dict[str, float] = field(default_factory=dict)
    bm25: dict[str, float] = field(default_factory=dict)
    channels: dict[str, list[str]] = field(default_factory=dict)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    #: search tokens per record, read from the keyword index (no re-segmenting on the read path)
    tokens: dict[str, frozenset[str]] = field(default_factory=dict)
    recent_summaries: list[str] = field(default_factory=list)
    #: turn id -> inactive curated record distilled from it: its episode is an outdated version
    retired: dict[str, str] = field(default_factory=dict)
    #: record id -> (index, count) of the sentence part whose cosine beat the whole memory's
    sentence: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: the cosine an unrelated memory reaches for this request (background.py); None: unknown
    background: float | None = None
    #: the same, read from the user's own store: its crowd of vector candidates (recall/gate.py)
    store_level: float | None = None
    #: the request refers to the user's own world (recall/reference.py); False: gated strictly
    personal: bool = True
    #: records holding at least half of the request's terms, two at least; for a request about the
    #: user's world, those naming an attribute it names (recall/gate.py)
    agreeing: set[str] = field(default_factory=set)
    #: the request asks nothing (a thanks, a greeting: `extract.filter.is_contentless`): no
    #: retrieved memory answers it (recall/gate.py)
    asks_nothing: bool = False
    #: the request's entity reads, shared by its embedding text and the entity channel
    entities: "EntityReads | None" = None
    #: tier -> its vector search, prepared while the query is embedded (`VectorChannel.prepare`)
    searches: dict[str, VectorSearch] = field(default_factory=dict)

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


class VectorChannel:
    name = "vector"

    def __init__(self, engine: MemoryEngine, limit: int) -> None:
        self.engine, self.limit = engine, limit

    @staticmethod
    def _tiers(query: RecallQuery) -> tuple[str, ...]:
        return ("hot", "cold") if query.deep else ("hot",)

    def prepare(self, scope: Scope, query: RecallQuery, pool: Pool) -> None:
        """Read the tiers' vectors (a small tier's: the exact search's matrix) into
        `pool.searches`: run while the query is embedded."""
        for tier in self._tiers(query):
            pool.searches[tier] = self.engine.vector_search(scope, tier)

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        for tier in self._tiers(query):
            search = pool.searches.get(tier) or self.engine.vector_search(scope, tier)
            for rid, cos in search(qvec, self.limit):
                pool.propose(rid, self.name)
                pool.cosine[rid] = cos


class KeywordChannel:
    name = "keyword"
    uses_vector = False

    def __init__(self, engine: MemoryEngine, limit: int) -> None:
        self.engine, self.limit = engine, limit

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        statuses = ("active", "archived") if query.deep else ("active",)
        for rid, score in self.engine.keyword(
            scope, query.search_text or query.text, limit=self.limit, statuses=statuses
        ):
            pool.propose(rid, self.name)
            pool.bm25[rid] = score


class KindChannel:
    """Memories naming a member of a kind the request names ("martial arts": taekwondo, judo;
    乐器: 钢琴, 吉他; recall/kinds.py), found by keyword: a kind and its members share no word."""

    name = "kind"
    uses_vector = False

    def __init__(self, engine: MemoryEngine, limit: int) -> None:
        self.engine, self.limit = engine, limit

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        statuses = ("active", "archived") if query.deep else ("active",)
        for kind in query.kinds:
            found: dict[str, float] = {}
            for text in kind.searches:
                for rid, score in self.engine.keyword(
                    scope, text, limit=self.limit, statuses=statuses
                ):
                    found[rid] = max(found.get(rid, 0.0), score)
            for rid in sorted(found, key=found.__getitem__, reverse=True)[: self.limit]:
                pool.propose(rid, f"{self.name}:{kind.name}")


class RecentChannel:
    """Recent important memories (e.g. the last 3 days), whatever their wording."""

    name = "recent"
    uses_vector = False

    def __init__(self, engine: MemoryEngine, cfg: RecallConfig, limit: int = 10) -> None:
        self.engine, self.cfg, self.limit = engine, cfg, limit

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        since = self.engine.clock.now() - self.cfg.recent_days * DAY
        for r in self.engine.store.recent_important(
            scope, since, self.cfg.recent_min_importance, self.limit
        ):
            pool.records[r.id] = r
            pool.propose(r.id, self.name)


class SubjectChannel:
    """Exact subject/key matches: the query names a subject (PRD-223, coding_lang, 咖啡)."""

    name = "subject"
    uses_vector = False

    def __init__(self, engine: MemoryEngine) -> None:
        self.engine = engine

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        subjects = self.engine.store.live_subjects(scope, limit=2000)
        text = query.text.lower()
        terms = set(query.terms)
        hits = [s for s in subjects if subject_matches(s, text, terms)]
        if not hits:
            return
        for r in self.engine.store.live_by_subject(scope, hits, limit=20):
            pool.records[r.id] = r
            pool.propose(r.id, self.name)


def subject_matches(subject: str, text: str, terms: set[str]) -> bool:
    """The request names the subject's leaf: as a term, or written out (three characters at least;
    a Latin leaf as a whole word: "art" is not in "earth" or "party")."""
    leaf = subject.lower().rsplit("/", 1)[-1].strip()
    if len(leaf) < 2:
        return False
    if leaf in terms:
        return True
    if len(leaf) < 3 or leaf not in text:  # (a pattern per subject outgrows re's cache)
        return False
    if leaf.isascii():
        return re.search(rf"(?<![a-z0-9]){re.escape(leaf)}(?![a-z0-9])", text) is not None
    return leaf in text


#: the types the profile section holds (the policy table)
_PROFILE_TYPES = type_values(types_where(section="profile"))


class ProfileChannel:
    """The profile whitelist (docs/design.md seed 001 §5.1): the user's profile and preference
    memories, bounded by the profile budget; the stable facts and standing instructions among them
    (reply language, format, allergies) are injected every turn, a like read from conversation
    where it is relevant (`gate.standing`)."""

    name = "profile"
    uses_vector = False

    def __init__(self, engine: MemoryEngine, cfg: RecallConfig) -> None:
        self.engine, self.cfg = engine, cfg

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        for r in self.engine.store.profile(
            scope, _PROFILE_TYPES, list(self.cfg.profile_whitelist or ()), limit=20
        ):
            pool.records[r.id] = r
            pool.propose(r.id, self.name)


class SummaryChannel:
    """Level 1 of progressive disclosure: the most recent session summaries."""

    name = "summary"
    uses_vector = False

    def __init__(self, engine: MemoryEngine, count: int) -> None:
        self.engine, self.count = engine, count

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        if self.count <= 0:
            return
        for r in self.engine.store.latest_summaries(scope, self.count):
            pool.records[r.id] = r
            pool.propose(r.id, self.name)
            pool.recent_summaries.append(r.id)


#: channel name prefixes: "entity:Melanie" (the request names Melanie), "hop:Boston" (a strong
#: candidate names Boston); `search --explain` shows them
ENTITY, HOP = "entity", "hop"
#: an entity whose weight (store/entities.py `idf`) is below this, a name in more than total^0.7
#: of the user's memories (their own, a chat partner's), selects nothing
MIN_ENTITY_WEIGHT = 0.3


class EntityChannel:
    """Memories that name what the request names, across sessions (aliases resolved: "Mel" finds
    Melanie's), then one hop: the entities of the strongest candidates the channels before it
    found lead to other memories that name them (multi-hop questions: evidence in several
    sessions linked by a person, place or thing). The hop adds at most `hop_share` of `limit`
    and only what the pool does not hold, so single-hop ranking keeps its candidates.

    Runs after the vector and keyword channels (it reads their candidates for the hop), so it
    declares no `uses_vector = False`: the parallel recaller runs it after the early channels'
    pools are merged, on the pool of every channel before it. Reads entities through the
    store's port (`ports.EntityMemory`)."""

    name = ENTITY

    def __init__(
        self, engine: MemoryEngine, limit: int, *, seeds: int = 5, hop_share: float = 0.2
    ) -> None:
        self.engine, self.limit, self.seeds, self.hop_share = engine, limit, seeds, hop_share

    def prepare(self, scope: Scope, query: RecallQuery, pool: Pool) -> None:
        """Read what `propose` reads of the request's own entities (not the hop's, which starts
        from the other channels' candidates) into `pool.entities`: run while the query is
        embedded."""
        reads = pool.entities = pool.entities or EntityReads(self.engine.store, scope)
        named = reads.named(query.text)
        reads.naming(self._asked(named, reads.weights(sorted(named))), *self._reach(query))

    def _reach(self, query: RecallQuery) -> tuple[tuple[str, ...], int]:
        """The statuses searched and the cap of records read per entity set."""
        return ("active", "archived") if query.deep else ("active",), self.limit * 4

    @staticmethod
    def _asked(named: dict[int, str], weight: dict[int, float]) -> list[int]:
        return sorted(e for e in named if weight.get(e, 0.0) >= MIN_ENTITY_WEIGHT)

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        statuses, cap = self._reach(query)
        store = self.engine.store
        reads = pool.entities or EntityReads(store, scope)
        named = reads.named(query.text)
        seeds = self._seeds(pool)
        seed_entities = store.entities_of(scope, seeds) if seeds else {}
        hop_ids = {e for es in seed_entities.values() for e in es} - set(named)
        # an entity's weight is its own (its memories among the scope's): one read for both
        weight = hop_weight = reads.weights(sorted({*named, *hop_ids}))
        hits = reads.naming(self._asked(named, weight), statuses, cap)
        hop_ids = {e for e in hop_ids if hop_weight.get(e, 0.0) >= MIN_ENTITY_WEIGHT}
        hop_hits = store.records_naming(scope, sorted(hop_ids), statuses=statuses, limit=cap)
        hop_names = store.entity_names(scope, hop_ids)
        for rid, label in _best(hits, weight, named, self.limit):
            pool.propose(rid, f"{ENTITY}:{label}")
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
        from ..text import _jieba

        keys.update(normalise(w) for w in _jieba().lcut_for_search(text) if len(w) >= 2)
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
            self._named[text] = self.store.entities_named(self.scope, request_keys(text))
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


def build_channels(engine: MemoryEngine, cfg: RecallConfig, summaries: int) -> Sequence[Channel]:
    n = cfg.candidates_per_channel
    return (
        VectorChannel(engine, n),
        KeywordChannel(engine, n),
        KindChannel(engine, n),
        RecentChannel(engine, cfg),
        SubjectChannel(engine),
        ProfileChannel(engine, cfg),
        SummaryChannel(engine, summaries),
        EntityChannel(engine, n),  # last: its hop starts from the others' candidates
    )


TYPES_WITHOUT_DECAY = types_where(decays=False)  # the policy table
