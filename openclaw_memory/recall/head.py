"""The ranking's head re-ordered by what the request's form asks for.

A list question covers several sessions (`cover_sessions`); a request that describes the one it
asks about is read in two hops (`Bridge`); a request that asks several questions gives each its
share of the head (`share_places`).
"""

from __future__ import annotations

import dataclasses
import numpy as np
from typing import Sequence, Callable
from ..config.tuning import tuned, tuned_int
from ..types import ScoredMemory, MemoryRecord, Scope
from .kinds import names_several
from .rank import session_of
from ..lang.text import STOPWORDS, search_tokens
from .pool import Pool
from .query import Described, RecallQuery
from .channels import speakers
from ..store.ports import StageStore


# Covering sessions: a request that names several things gets the best of several sessions first.
#
# A question about one thing ("where did I park?") is answered by one memory, and the session
# component (recall/rank.py) rightly lifts the turns around the best one. A question that names
# several things, or asks for a list ("what books has she read?", "which places did we visit",
# "how many times", 哪些, 几次) is answered by memories spread over sessions;
# a ranking that fills its head with one session's turns misses the others. For such a request the
# head of the ranking (its first HEAD ranked places: kept memories and those only below the
# relevance threshold, the order a reader sees) is re-ordered by score, each memory's score taken
# against the head's best and lowered by LAYER_PENALTY for every memory of the same session that
# stands above it: a session's second turn yields to another session's best unless it scores
# clearly higher (a weak turn of a new session no longer pushes a strong one out of the head).
# Beyond the head nothing moves, and nothing is added or dropped; places of memories dropped for
# any other reason keep their rank.

__all__ = ["HEAD", "LAYER_PENALTY", "cover_sessions", "names_several"]

#: how many of the first ranked places are re-ordered: twice the ten a reader looks at
HEAD = tuned_int("cover.head")
#: what each memory of the same session ranked above costs, as a share of the head's best score
#: (1: every session's best before any session's second; 0: the fused order)
LAYER_PENALTY = tuned("cover.layer_penalty")
#: the reason of a memory that is ranked but not injected: it only missed the relevance bar
_BELOW = "below relevance"


def ranked_place(s: ScoredMemory) -> bool:
    """The memory holds a place in the ranking a reader sees: kept, or only below the bar."""
    return s.kept or s.reason.startswith(_BELOW)


def cover_sessions(
    ranked: Sequence[ScoredMemory], head_size: int = HEAD, penalty: float = LAYER_PENALTY
) -> list[ScoredMemory]:
    """The ranking with its head re-ordered so that several sessions come first (see above)."""
    head = [s for s in ranked if ranked_place(s)][:head_size]
    if len(head) <= 1:
        return list(ranked)
    top = max(s.score for s in head)
    if top <= 0:
        return list(ranked)
    layer: dict[str, int] = {}
    keyed = []
    for s in sorted(head, key=lambda s: s.rank):
        session = session_of(s.record) or s.record.id
        keyed.append((s.score / top - penalty * layer.get(session, 0), s.rank, s))
        layer[session] = layer.get(session, 0) + 1
    order = [s for _, _, s in sorted(keyed, key=lambda t: (-t[0], t[1]))]
    ranks = sorted(s.rank for s in head)
    moved = {id(s): r for s, r in zip(order, ranks)}
    out = [dataclasses.replace(s, rank=moved[id(s)]) if id(s) in moved else s for s in ranked]
    return sorted(out, key=lambda s: (s.rank <= 0, s.rank))


# The two-hop read of a request that describes the one it asks about.
#
# "The person whose email is x@y.com: what is their job?", 那个生日是1月17日的人，家乡是什么？: the
# request names its subject by one attribute and asks another (`query.described`). The memory that
# states the attribute ("My cousin's email is x@y.com", 我表姐的生日是1月17号) matches the request
# and ranks near the top; the memory that answers ("My cousin works as a nurse", 我表姐的老家在河北
# 石家庄) shares no word with the request, so no channel proposes it.
#
# After the first ranking, the ranked memory near the top that holds most of the description's
# value ("x@y.com" of "whose email is x@y.com") is the bridge (two of them when two memories hold
# it alike: two people may share what is described). Its words before the description's that the
# request does not have (stopwords, first-person words and the speakers' names aside: "cousin",
# 表姐, an event's name) are the holder: the one the request describes. The holder's
# memories, found by keyword search over those words, are ranked by their cosine with what the
# request asks of the holder (its sentence without the description), their share of the holder's
# words breaking near ties; the best of them (`bridge.joined` in the tuning table) join the ranking
# right after the bridge, with the bridge's fate (kept, or ranked but not injected). `channel.bridge` switches the read off.

#: ranked places (from the top) the bridge is looked for in
DEPTH = tuned_int("bridge.depth")
#: share of the description's terms the bridge holds at least
MIN_SHARE = tuned("bridge.min_share")
#: the holder's memories nearest to what is asked that join the ranking after its bridge
JOINED = tuned_int("bridge.joined")
#: bridges read for one description at most
BRIDGES = tuned_int("bridge.bridges")
#: what holding all of the holder's words adds to a candidate's cosine with the asked part
HOLDER_WEIGHT = tuned("bridge.holder_weight")
#: the holder's memories read by keyword search
HOLDER_READ = tuned_int("bridge.holder_read")

#: the channel name a memory the bridge brought in carries
NAME = "bridge"


class Bridge:
    """Adds, after each memory that matches a description of the request, the memories of the one
    it describes nearest to what is asked (module docstring). `embed`: the query vector of a text for a scope's owner."""

    def __init__(self, store: StageStore, embed: Callable[[Scope, str], np.ndarray]) -> None:
        self.store, self.embed = store, embed

    def __call__(
        self, scope: Scope, query: RecallQuery, ranked: Sequence[ScoredMemory], pool: Pool
    ) -> list[ScoredMemory]:
        out = list(ranked)
        # the request's words and the speakers' names name no holder
        asked = query.analysis.tokens | speaker_words(pool)
        for described in query.described:
            for bridge in bridges(out, described, pool):
                out = self._join(scope, query, described, asked, out, bridge, pool)
        return out

    def _join(
        self,
        scope: Scope,
        query: RecallQuery,
        described: Described,
        asked: frozenset[str],
        ranked: list[ScoredMemory],
        bridge: ScoredMemory,
        pool: Pool,
    ) -> list[ScoredMemory]:
        """ranked with the JOINED memories of the bridge's holder nearest to what is asked right
        after the bridge (ranked as it was when the holder has none)."""
        holder = holder_words(subject_part(bridge.record.summary, described.terms), asked)
        if not holder:
            return ranked
        found = self._holders_memories(scope, query, holder, described, bridge, pool)
        if not found:
            return ranked
        nearest = self._nearest(scope, found, described, holder, pool)[:JOINED]
        for best in reversed(nearest):  # each right after the bridge: the nearest first
            ranked = _after(ranked, bridge, best)
        return [dataclasses.replace(s, rank=i) for i, s in enumerate(ranked, start=1)]

    def _holders_memories(
        self,
        scope: Scope,
        query: RecallQuery,
        holder: tuple[str, ...],
        described: Described,
        bridge: ScoredMemory,
        pool: Pool,
    ) -> list[MemoryRecord]:
        """The holder's memories other than those restating the description."""
        hits = self.store.keyword_search(
            scope, " ".join(holder), statuses=query.statuses, limit=HOLDER_READ
        )
        ids = [rid for rid, _ in hits if rid != bridge.record.id]
        known = {rid: pool.records[rid] for rid in ids if rid in pool.records}
        read = self.store.get_many(scope, [rid for rid in ids if rid not in known])
        records = [known.get(rid) or read.get(rid) for rid in ids]
        return [
            r
            for r in records
            if r is not None and share(described.terms, _tokens(r, pool), r.text) < MIN_SHARE
        ]

    def _nearest(
        self,
        scope: Scope,
        found: list[MemoryRecord],
        described: Described,
        holder: tuple[str, ...],
        pool: Pool,
    ) -> list[MemoryRecord]:
        """The holder's memories, the nearest to what is asked of the holder first."""
        qvec = self.embed(scope, described.asked)
        unread = [r.id for r in found if r.id not in pool.vectors]
        vectors, parts = self.store.vectors_with_parts(unread)
        vectors.update((rid, v) for rid, v in pool.vectors.items())
        parts.update((rid, p) for rid, p in pool.parts.items())

        def score(r: MemoryRecord) -> float:
            vec = vectors.get(r.id)
            cos = float(vec @ qvec) if vec is not None else 0.0
            if r.id in parts:
                cos = max(cos, float((parts[r.id] @ qvec).max()))
            return cos + HOLDER_WEIGHT * share(holder, _tokens(r, pool), r.text)

        return sorted(found, key=score, reverse=True)


def bridges(ranked: Sequence[ScoredMemory], described: Described, pool: Pool) -> list[ScoredMemory]:
    """The bridges, in rank order: among the first DEPTH memories holding a place in the ranking,
    those holding the largest share of the description's value (some of it at least), then of
    all its terms (MIN_SHARE at least), BRIDGES at most (two people may share what is
    described)."""
    held: list[tuple[tuple[float, float], ScoredMemory]] = []
    for s in [s for s in ranked if ranked_place(s)][:DEPTH]:
        tokens = _tokens(s.record, pool)
        value = share(described.value_terms, tokens, s.record.text)
        whole = share(described.terms, tokens, s.record.text)
        if value > 0 and whole >= MIN_SHARE:
            held.append(((value, whole), s))
    best = max((k for k, _ in held), default=None)
    return [s for k, s in held if k == best][:BRIDGES]


def speaker_words(pool: Pool) -> frozenset[str]:
    """The search tokens of the pooled memories' speakers (a speaker names no one described)."""
    names = {name for r in pool.records.values() for name in speakers(r)}
    return frozenset(t for name in names for t in search_tokens(name))


def subject_part(text: str, terms: Sequence[str]) -> list[str]:
    """The search tokens of text before the first one of the description's terms: where a
    statement names whom it is about ("My cousin's email is ...", 我表姐的生日是...), in both
    languages' order of subject, then attribute and value."""
    tokens = search_tokens(text)
    for i, t in enumerate(tokens):
        if any(t == term or (len(term) >= 2 and term in t) for term in terms):
            return tokens[:i]
    return tokens


def holder_words(tokens: Sequence[str], asked: frozenset[str]) -> tuple[str, ...]:
    """The bridge's words that name the one described: those the request does not have, neither
    stopwords (first-person words among them) nor single characters nor numbers."""
    return tuple(
        dict.fromkeys(
            t
            for t in tokens
            if t not in asked and t not in STOPWORDS and len(t) > 1 and not t.isdigit()
        )
    )


def share(terms: Sequence[str], tokens: frozenset[str], text: str) -> float:
    """The share of terms a memory holds: as its tokens, or written out (two characters or more)."""
    if not terms:
        return 0.0
    low = text.lower()
    return sum(t in tokens or (len(t) >= 2 and t in low) for t in terms) / len(terms)


def _tokens(r: MemoryRecord, pool: Pool) -> frozenset[str]:
    held = pool.tokens.get(r.id)
    return held if held is not None else frozenset(search_tokens(r.text))


def _after(
    ranked: list[ScoredMemory], bridge: ScoredMemory, record: MemoryRecord
) -> list[ScoredMemory]:
    """ranked with record right after the bridge (as it was when record ranks above it)."""
    at = next(i for i, s in enumerate(ranked) if s.record.id == bridge.record.id)
    place = next((i for i, s in enumerate(ranked) if s.record.id == record.id), None)
    if place is not None and place < at:
        return ranked
    joined = _joining(record, bridge, None if place is None else ranked[place])
    rest = [s for i, s in enumerate(ranked) if i != place]
    return [*rest[: at + 1], joined, *rest[at + 1 :]]


def _joining(
    record: MemoryRecord, bridge: ScoredMemory, ranked: ScoredMemory | None
) -> ScoredMemory:
    """The holder's memory as it joins the ranking after its bridge: with the bridge's fate (it
    answers what the bridge was found for), its own scores when it was ranked already."""
    channels = (*ranked.channels, NAME) if ranked is not None else (NAME,)
    components = ranked.components if ranked is not None else bridge.components
    score = ranked.score if ranked is not None else bridge.score
    return ScoredMemory(
        record,
        score,
        components,
        channels,
        kept=bridge.kept,
        reason="" if bridge.kept else bridge.reason,
    )


# Each question of a request that asks several its share of the ranking's head.
#
# "有几个活动在广州？另外，有几个人超过60岁？", "Where does Tom work? Also, when did he move?": one
# ranking of both questions puts the memories of the question whose words most memories share
# first, and the other question's answers fall below the places a reader looks at. Each ranked
# memory is read as an answer to the question whose terms it holds the most of (`query.questions`);
# the ranking is then dealt question by question, each question's memories in their own order, so
# that n questions share the head about equally. A memory that holds no question's terms more than
# another's keeps its place in the dealt order (its place among all, over n). `channel.share`
# switches this off.


def share_places(
    ranked: Sequence[ScoredMemory], query: RecallQuery, pool: Pool
) -> list[ScoredMemory]:
    """ranked with its places dealt among the request's questions (module docstring); the
    memories without a place in the ranking follow, in their order."""
    asked = list(query.analysis.question_terms)
    if len(asked) < 2:
        return list(ranked)
    places = [s for s in ranked if ranked_place(s)]
    seen = [0] * len(asked)
    keyed: list[tuple[float, int, ScoredMemory]] = []
    for i, s in enumerate(places):
        q = _question_of(s, asked, pool)
        if q is None:
            key = i / len(asked)
        else:
            key, seen[q] = float(seen[q]), seen[q] + 1
        keyed.append((key, i, s))
    dealt = [s for _, _, s in sorted(keyed, key=lambda k: (k[0], k[1]))]
    rest = [s for s in ranked if not ranked_place(s)]
    return [dataclasses.replace(s, rank=i) for i, s in enumerate([*dealt, *rest], start=1)]


def _question_of(s: ScoredMemory, asked: list[tuple[str, ...]], pool: Pool) -> int | None:
    """The question whose terms the memory holds the largest share of; None on a tie."""
    tokens = pool.tokens.get(s.record.id)
    if tokens is None:
        tokens = frozenset(search_tokens(s.record.text))
    held = [share(terms, tokens, s.record.text) for terms in asked]
    best = max(held)
    if best <= 0 or held.count(best) > 1:
        return None
    return held.index(best)
