"""Recall: query -> candidates from every channel -> fused, filtered ranking (the read path's head)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Mapping, Sequence

from ..config import RecallConfig
from ..embedding import calibration_for
from ..engine import MemoryEngine
from ..types import MemoryRecord, ScoredMemory, Scope
from .channels import Pool, build_channels, load
from .context import attach_context
from .query import RecallQuery, build_query
from .rank import Calibration, score_pool


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
    def __init__(self, engine: MemoryEngine, cfg: RecallConfig, *, summaries: int = 3) -> None:
        self.engine = engine
        self.cfg = cfg
        self.calibration = Calibration.resolve(cfg, calibration_for(engine.embedder))
        self.channels = build_channels(engine, cfg, summaries)

    def recall(self, scope: Scope, current: str, recent: Sequence[Mapping] = (), *,
               deep: bool = False) -> RecallResult:
        """Rank every candidate for this request. Reads only: reinforcing what gets injected is
        the caller's (the middleware queues it off the request path)."""
        query = build_query(current, recent, context_turns=self.cfg.context_turns)
        if deep and not query.deep:
            query = dataclasses.replace(query, deep=True)
        qvec = self.engine.embed_query(query.text or current)
        pool = Pool()
        for channel in self.channels:
            channel.propose(scope, query, qvec, pool)
        load(self.engine, scope, qvec, pool)
        ranked = score_pool(pool, query, self.engine.clock.now(), self.cfg, self.calibration)
        ranked = attach_context(self.engine, scope, ranked, before=self.cfg.episode_context_before,
                                after=self.cfg.episode_context_after, units=CONTEXT_UNITS)
        return RecallResult(query, ranked)
