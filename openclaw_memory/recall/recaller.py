"""Recall: query -> candidates from every channel -> fused, filtered ranking (the read path's head)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Mapping, Sequence

from ..config import RecallConfig
from ..embedding import calibration_for
from ..engine import MemoryEngine
from ..types import MemoryRecord, ScoredMemory, Scope
from .channels import Channel, Pool, build_channels, load
from ..text import has_cjk, search_tokens
from .background import Background
from .context import attach_context
from .cover import cover_sessions, names_several
from .gate import agreeing, store_level
from .reference import memory_names, refers_to_user, unquoted
from .query import RecallQuery, build_query
from .rank import Calibration, keyword_hits, score_pool


#: episodes (in rank order) that get their neighbouring turns attached
CONTEXT_UNITS = 20


@dataclass(frozen=True)
class RecallResult:
    query: RecallQuery
    ranked: Sequence[ScoredMemory]  # every candidate, best first, kept or dropped with a reason

    @property
    def kept(self) -> list[ScoredMemory]:
        return [s for s in self.ranked if s.kept]

    @property
    def to_confirm(self) -> list[MemoryRecord]:
        return [s.record for s in self.ranked if s.reason.startswith("low confidence")]


class Recaller:
    def __init__(
        self,
        engine: MemoryEngine,
        cfg: RecallConfig,
        *,
        summaries: int = 3,
        channels: Sequence[Channel] | None = None,
    ) -> None:
        self.engine = engine
        self.cfg = cfg
        self.calibration = Calibration.resolve(cfg, calibration_for(engine.embedder))
        # channels: built by the factory (the built-in ones and a user's own); None: the built-in
        self.channels = (
            build_channels(engine, cfg, summaries) if channels is None else tuple(channels)
        )
        self.background = Background(engine.embedder) if cfg.background_margin is not None else None

    def recall(
        self, scope: Scope, current: str, recent: Sequence[Mapping] = (), *, deep: bool = False
    ) -> RecallResult:
        """Rank every candidate for this request. Reads only: reinforcing what gets injected is
        the caller's (the middleware queues it off the request path)."""
        query = build_query(current, recent, context_turns=self.cfg.context_turns)
        if deep and not query.deep:
            query = dataclasses.replace(query, deep=True)
        qvec = self.engine.embed_query(query.text or current)
        pool = Pool()
        if self.background is not None:
            pool.background = self.background.level(qvec, has_cjk(query.text or current))
        for channel in self.channels:
            channel.propose(scope, query, qvec, pool)
        load(self.engine, scope, qvec, pool)
        if self.background is not None:
            self._gate_signals(current or query.text, query, pool)
        ranked = score_pool(pool, query, self.engine.clock.now(), self.cfg, self.calibration)
        if names_several(current or query.text):
            ranked = cover_sessions(ranked)
        ranked = attach_context(
            self.engine,
            scope,
            ranked,
            before=self.cfg.episode_context_before,
            after=self.cfg.episode_context_after,
            units=CONTEXT_UNITS,
        )
        return RecallResult(query, ranked)

    def _gate_signals(self, text: str, query: RecallQuery, pool: Pool) -> None:
        """What relevance gating reads besides the cosines (recall/gate.py): the store's level for
        this request, whether it refers to the user's world, and which memories agree in terms."""
        vector = [
            pool.cosine[rid]
            for rid, chans in pool.channels.items()
            if "vector" in chans and rid in pool.cosine
        ]
        pool.store_level = store_level(vector, self.cfg.candidates_per_channel)
        memories = [r.text for r in pool.records.values()]
        pool.personal = refers_to_user(text, _names(pool), memories)
        if not pool.personal:
            # quoted text of such a request is material to work on (translate 'see you tomorrow'),
            # not its topic: its words are no keyword evidence
            terms = topic_terms(query, text)
            for rid, r in pool.records.items():
                hits = keyword_hits(query, r, pool.tokens.get(rid), terms)
                if terms and agreeing(hits / len(terms), hits, len(terms)):
                    pool.agreeing.add(rid)


def topic_terms(query: RecallQuery, text: str) -> list[str]:
    """The request's terms outside quoted text."""
    outside = set(search_tokens(unquoted(text)))
    return [t for t in query.terms if t in outside]


def _names(pool: Pool) -> set[str]:
    """Speakers, entities and written-out names (identifiers, quoted names) of the pooled
    memories: names a request may use."""
    out: set[str] = set()
    for r in pool.records.values():
        out.update(t.split(":", 1)[1] for t in r.tags if t.lower().startswith("speaker:"))
        # an English entity in lower case ("short" of a reply-length preference) is a word, not a name
        out.update(e for e in r.entities if len(e) <= 40 and (not e.isascii() or e != e.lower()))
        out.update(memory_names(r.text))
    return out
