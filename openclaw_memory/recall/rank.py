"""Fusion and rerank: every component in [0, 1], weights from config, reasons for every drop.

Components
- semantic:   query/passage cosine mapped linearly from [semantic_floor, semantic_ceiling] to [0, 1]
              (multilingual-e5 scores unrelated pairs around 0.75-0.85, so raw cosine is useless)
- keyword:    share of the query's content terms found in the memory (CJK-aware tokens)
- structure:  1 when the query names the memory's subject, 0.5 when it asks for its type (or
              asks how long and the memory states a length of time: recall/timeref.py)
- recency:    type-aware decay: events, episodes, tasks and summaries halve every half-life;
              active profile, preference, fact and decision memories do not age
- importance: stored importance, reinforced by access (log of access count)
- trust:      the source channel (explicit > admin > tool > summary/implicit)
- session:    the best other candidate of the memory's session, against the pool's best (a
              session that matches strongly lifts its other turns); computed in a second pass
A request that names a kind (recall/kinds.py) counts a member the memory names as the kind's
words for `keyword` and as half of `structure`; `keyword_words` (no weight) is then the keyword
component of the memory's own words, the keyword evidence relevance gating reads.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from itertools import repeat
from operator import mul
from typing import Mapping


from ..core.clock import DAY
from ..config import RecallConfig
from ..write.policy import CHANNEL_TRUST
from ..lang.text import has_cjk, search_tokens
from ..config.tuning import tuned
from ..types import MemoryRecord, MemoryType, ScoredMemory, Status
from .channels import TYPES_WITHOUT_DECAY, subject_matches
from .pool import Pool
from .gate import WORDS
from .keep import keep
from .query import RecallQuery, dated_stretch
from .subjects import asks_about
from .timeref import states_duration

COMPONENTS = ("semantic", "keyword", "structure", "recency", "importance", "trust", "session")
TRUST = {c.value: t for c, t in CHANNEL_TRUST.items()}  # the policy table's trust order
#: the trust of a source channel the policy table does not rank
UNKNOWN_TRUST = tuned("rank.unknown_trust")
#: importance a memory gains per natural log of (1 + the times it was injected)
ACCESS_BOOST = tuned("rank.access_boost")


@dataclass(frozen=True)
class Calibration:
    """Where the embedder's cosine scores mean 'unrelated' and 'same thing'."""

    floor: float = tuned("rank.calibration.floor")
    ceiling: float = tuned("rank.calibration.ceiling")
    min_semantic: float = tuned("rank.calibration.min_semantic")

    @classmethod
    def resolve(cls, cfg: RecallConfig, defaults: tuple[float, float, float]) -> "Calibration":
        floor, ceiling, minimum = defaults
        return cls(
            cfg.semantic_floor if cfg.semantic_floor is not None else floor,
            cfg.semantic_ceiling if cfg.semantic_ceiling is not None else ceiling,
            cfg.min_semantic if cfg.min_semantic is not None else minimum,
        )


def recency(r: MemoryRecord, now: float, half_life_days: float) -> float:
    if r.type in TYPES_WITHOUT_DECAY and r.status is Status.ACTIVE:
        return 1.0
    age_days = max(0.0, now - r.created_at) / DAY
    return 0.5 ** (age_days / half_life_days) if half_life_days > 0 else 1.0


def importance(r: MemoryRecord) -> float:
    return min(1.0, r.importance + ACCESS_BOOST * math.log1p(r.access_count))


def keyword_hits(
    query: RecallQuery, r: MemoryRecord, tokens: frozenset[str] | None = None
) -> tuple[int, int]:
    """How many of the query's terms the memory holds as its own words: as tokens (`tokens`: the
    record's search tokens when the caller has them) or, for terms of two characters or more, as
    substrings; and how many more only by naming a member of a kind the term names ("martial
    arts" held by "taekwondo": recall/kinds.py). (Relevance gating reads its keyword evidence by
    word instead: `gate.term_hits`.)"""
    terms = query.terms
    if not terms:
        return 0, 0
    if tokens is None:
        tokens = frozenset(search_tokens(r.text))
    text = r.text.lower()
    own = by_member = 0
    for t in terms:
        if t in tokens or (len(t) >= 2 and t in text):
            own += 1
        elif any(t in k.terms and k.named_in(tokens, text) for k in query.kinds):
            by_member += 1
    return own, by_member


def components(
    r: MemoryRecord,
    cos: float,
    query: RecallQuery,
    now: float,
    cfg: RecallConfig,
    cal: Calibration,
    bm25: float = 0.0,
    tokens: frozenset[str] | None = None,
    *,
    asked: tuple[str, set[str]] | None = None,
) -> dict[str, float]:
    """The memory's components for the query (`asked`: the query's lower-cased text and set of
    terms, when the caller scores many memories for one query)."""
    sem = (cos - cal.floor) / (cal.ceiling - cal.floor) if cal.ceiling > cal.floor else cos
    structure = 0.0
    low, terms = asked or (query.text.lower(), set(query.terms))
    if query.kinds and tokens is None:  # read once: the keyword and structure parts both ask
        tokens = frozenset(search_tokens(r.text))
    if r.subject and (
        subject_matches(r.subject, low, terms)
        or (r.type is MemoryType.PROFILE and asks_about(r.subject, low))
    ):
        structure = 1.0
    elif on_named_date(r, query):
        structure = 1.0
    elif (
        r.type in query.types
        or (tokens is not None and any(k.named_in(tokens, r.text.lower()) for k in query.kinds))
        or (query.duration and states_duration(r.text))
    ):
        # it asks for the memory's type, for a kind the memory names one of, or for a length of
        # time the memory states
        structure = 0.5
    own, by_member = keyword_hits(query, r, tokens)
    n = len(query.terms) or 1
    out = {
        "semantic": float(min(1.0, max(0.0, sem))),
        # half: which share of the query's terms the memory holds; half: BM25 against the best
        # keyword hit of this query (rare terms count more than common ones).
        "keyword": 0.5 * (own + by_member) / n + 0.5 * bm25,
        "structure": structure,
        "recency": recency(r, now, cfg.event_half_life_days),
        "importance": importance(r),
        "trust": TRUST.get(r.source.channel.value, UNKNOWN_TRUST),
    }
    if query.kinds:  # the keyword evidence of its own words, what relevance gating reads
        out[WORDS] = 0.5 * own / n + 0.5 * bm25
    return out


def on_named_date(r: MemoryRecord, query: RecallQuery) -> bool:
    """The memory dates from a day or month the request names (`query.dated_stretch`)."""
    return any(a <= r.created_at < b for a, b in (dated_stretch(*d) for d in query.dates))


#: the session component's share of its weight for a list question (recall/listing.py): its
#: answers are one mention in each of several sessions, not the turns around the best one
LIST_SESSION_SHARE = tuned("rank.list_session_share")


def session_of(r: MemoryRecord) -> str | None:
    return r.session_id or r.source.session_id


def session_evidence(
    scored: list[ScoredMemory], weights: Mapping[str, float]
) -> list[ScoredMemory]:
    """Second pass: each memory's "session" component is the best first-pass score among the
    other memories of its session, over the best first-pass score of the pool."""
    top = max((s.score for s in scored), default=0.0)
    best: dict[str, list[float]] = {}
    for s in scored:
        key = session_of(s.record)
        if key is not None:
            pair = best.setdefault(key, [0.0, 0.0])  # the two best scores of the session
            if s.score > pair[0]:
                pair[0], pair[1] = s.score, pair[0]
            elif s.score > pair[1]:
                pair[1] = s.score
    out = []
    for s in scored:
        key = session_of(s.record)
        sibling = 0.0
        if key is not None and top > 0:
            first, second = best[key]
            sibling = (second if s.score >= first else first) / top
        comp = {**s.components, "session": sibling}
        out.append(ScoredMemory(s.record, fuse(comp, weights), comp, s.channels))
    return out


def fuse(comp: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """The weighted mean of the components (a weight missing from weights is 0): each
    component times its weight, summed in the components' order."""
    total = sum(weights.values()) or 1.0
    return sum(map(mul, map(weights.get, comp, repeat(0.0)), comp.values())) / total


def score_pool(
    pool: Pool, query: RecallQuery, now: float, cfg: RecallConfig, cal: Calibration
) -> list[ScoredMemory]:
    """Score every record in the pool, rank, then apply filters and thresholds in order."""
    if query.dates and not pool.personal:
        # a request about nothing of the user's ("Is the bank open on December 25?") names a
        # date of the world, not of the user's life: no memory is lifted or let through for it
        query = dataclasses.replace(query, dates=())
    chosen = cfg.weights_cjk if cfg.weights_cjk is not None and has_cjk(query.text) else cfg.weights
    weights = {k: getattr(chosen, k) for k in COMPONENTS}
    if query.several:
        weights["session"] *= LIST_SESSION_SHARE
    scored = []
    best_bm25 = max(pool.bm25.values(), default=0.0)
    asked = (query.text.lower(), set(query.terms))
    for rid, r in pool.records.items():
        bm25 = pool.bm25.get(rid, 0.0) / best_bm25 if best_bm25 > 0 else 0.0
        channels = tuple(pool.channels.get(rid, ()))
        comp = components(
            r,
            pool.cosine.get(rid, 0.0),
            query,
            now,
            cfg,
            cal,
            bm25,
            pool.tokens.get(rid),
            asked=asked,
        )
        scored.append(ScoredMemory(r, fuse(comp, weights), comp, channels))
    if weights["session"] > 0:
        scored = session_evidence(scored, weights)
    # exact ties (common with the hash embedder) go to the newer memory, then by id: the ranking
    # does not depend on the order the channels or SQLite returned the candidates in
    scored.sort(key=lambda s: (-s.score, -s.record.updated_at, s.record.id))
    return keep(scored, pool, query, now, cfg, cal)
