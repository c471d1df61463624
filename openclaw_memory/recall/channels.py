"""Candidate channels: vector, keyword (CJK-aware FTS5), recent-important, subject, profile.

Each channel proposes record ids; the pool then loads every proposed record once and gives each
the same raw signals (cosine with the query, matched query terms), whichever channel found it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol, Sequence

import numpy as np

from ..clock import DAY
from ..config import RecallConfig
from ..engine import MemoryEngine
from ..policy import type_values, types_where
from ..types import MemoryRecord, MemoryType, Scope
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
    #: the cosine an unrelated memory reaches for this request (recall/background.py); None: unknown
    background: float | None = None
    #: the same, read from the user's own store: its crowd of vector candidates (recall/gate.py)
    store_level: float | None = None
    #: the request refers to the user's own world (recall/reference.py); False: gated strictly
    personal: bool = True
    #: records holding at least half of the request's terms, two at least (recall/gate.py)
    agreeing: set[str] = field(default_factory=set)

    def propose(self, record_id: str, channel: str) -> None:
        names = self.channels.setdefault(record_id, [])
        if channel not in names:
            names.append(channel)


class Channel(Protocol):
    """A source of recall candidates: `propose` adds record ids to the pool under its `name`
    (`pool.propose(record_id, name)`); the pool loads and scores them like every other."""

    name: str

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        """Add the ids of scope's records this channel finds for the query (qvec: its vector)."""
        ...


class VectorChannel:
    name = "vector"

    def __init__(self, engine: MemoryEngine, limit: int) -> None:
        self.engine, self.limit = engine, limit

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        tiers = ("hot", "cold") if query.deep else ("hot",)
        for tier in tiers:
            for rid, cos in self.engine.semantic(scope, qvec, limit=self.limit, tier=tier):
                pool.propose(rid, self.name)
                pool.cosine[rid] = cos


class KeywordChannel:
    name = "keyword"

    def __init__(self, engine: MemoryEngine, limit: int) -> None:
        self.engine, self.limit = engine, limit

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        statuses = ("active", "archived") if query.deep else ("active",)
        for rid, score in self.engine.keyword(
            scope, query.search_text or query.text, limit=self.limit, statuses=statuses
        ):
            pool.propose(rid, self.name)
            pool.bm25[rid] = score


class RecentChannel:
    """Recent important memories (e.g. the last 3 days), whatever their wording."""

    name = "recent"

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
    if len(leaf) < 3:
        return False
    if leaf.isascii():
        return re.search(rf"(?<![a-z0-9]){re.escape(leaf)}(?![a-z0-9])", text) is not None
    return leaf in text


#: the types the profile section holds (the policy table)
_PROFILE_TYPES = type_values(types_where(section="profile"))


class ProfileChannel:
    """The profile whitelist, injected every turn (docs/design.md seed 001 §5.1): stable profile facts and
    standing preferences (reply language, format, allergies), bounded by the profile budget."""

    name = "profile"

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

    def __init__(self, engine: MemoryEngine, count: int) -> None:
        self.engine, self.count = engine, count

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        if self.count <= 0:
            return
        for r in self.engine.store.latest_summaries(scope, self.count):
            pool.records[r.id] = r
            pool.propose(r.id, self.name)
            pool.recent_summaries.append(r.id)


def load(engine: MemoryEngine, scope: Scope, qvec: np.ndarray, pool: Pool) -> None:
    """Fetch every proposed record and its vectors; give each its cosine with the query: that of
    its whole text or of its nearest sentence part, whichever is higher (as the vector channel
    scores it, so a memory found by any channel gets the same semantic signal)."""
    missing = [i for i in pool.channels if i not in pool.records]
    pool.records.update(engine.get_many(scope, missing))
    for gone in [i for i in pool.channels if i not in pool.records]:  # index ahead of a purge
        pool.channels.pop(gone)
    episode_turns = [
        t for r in pool.records.values() if r.type is MemoryType.EPISODE for t in r.source.turn_ids
    ]
    store = engine.store
    pool.vectors, parts = store.vectors_with_parts(list(pool.records))
    pool.tokens = store.search_tokens(list(pool.records))
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


def build_channels(engine: MemoryEngine, cfg: RecallConfig, summaries: int) -> Sequence[Channel]:
    n = cfg.candidates_per_channel
    return (
        VectorChannel(engine, n),
        KeywordChannel(engine, n),
        RecentChannel(engine, cfg),
        SubjectChannel(engine),
        ProfileChannel(engine, cfg),
        SummaryChannel(engine, summaries),
    )


TYPES_WITHOUT_DECAY = types_where(decays=False)  # the policy table
