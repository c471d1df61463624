"""openclaw-memory itself as an EvalSystem: the real write path, the real read path.

Each conversation is its own user scope in one store. Sessions are replayed in order with the
injected clock set to each session's date (turns a few seconds apart), through
MemoryMiddleware.ingest (filter -> extract -> consolidate -> store -> index), so TTLs, decay
and summaries see the conversation's own time. Questions go through the Recaller (ranking) and
WorkingMemory (the block that would be injected under the config's budgets). Retrieved
memories map back to turns through their provenance (source.turn_ids).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from ..clock import DAY, FakeClock
from ..config import MemoryConfig, config_from_dict
from ..types import ScoredMemory, Scope, Turn
from .datasets import Conversation, Question

RETRIEVERS = ("hybrid", "keyword", "vector")
_SAFE = re.compile(r"[^A-Za-z0-9_.:@+\-]")


def retriever_config(config: MemoryConfig, retriever: str) -> MemoryConfig:
    """Same ingestion; only the read path's weights differ (for side-by-side comparisons)."""
    if retriever == "hybrid":
        return config
    zero = {k: 0.0 for k in ("semantic", "keyword", "structure", "recency", "importance", "trust")}
    key = "keyword" if retriever == "keyword" else "semantic"
    return config_from_dict({"recall": {"weights": {**zero, key: 1.0}}}, base=config)


class MemorySystem:
    """EvalSystem over a MemoryMiddleware built from config in data_dir."""

    def __init__(self, config: MemoryConfig, data_dir: str | Path, *, retriever: str = "hybrid",
                 embedder: Any = None) -> None:
        from ..factory import build_middleware

        if retriever not in RETRIEVERS:
            raise ValueError(f"retriever: expected one of {RETRIEVERS}, found {retriever!r}")
        self.name = retriever
        self.retriever = retriever
        cfg = config_from_dict({"storage": {"data_dir": str(data_dir), "background_indexing": False}}, base=config)
        self.config = retriever_config(cfg, retriever)
        self.clock = FakeClock(0.0)
        self.mw = build_middleware(self.config, clock=self.clock, embedder=embedder)
        self.scope = Scope("eval")
        self._last = 0.0

    def reset(self, conversation_id: str) -> None:
        self.scope = Scope(_SAFE.sub("_", conversation_id)[:120] or "eval")

    def ingest(self, conversation: Conversation, *, user_only: bool) -> int:
        written = 0
        for session in conversation.sessions:
            self.clock.set(session.date)
            turns = [Turn(self.scope, _SAFE.sub("_", session.id)[:200], t.text, "", t.id, session.date, t.speaker)
                     for t in session.turns if not user_only or t.role == "user"]
            if turns:
                written += self.mw.ingest(turns)
            self._last = max(self._last, session.date)
        self.mw.engine.indexer.drain(self.scope)
        return written

    def _ask(self, question: Question) -> None:
        self.clock.set(question.date if question.date else self._last + DAY)

    def _channel_ok(self, s: ScoredMemory) -> bool:
        if self.retriever == "keyword":
            return "keyword" in s.channels
        if self.retriever == "vector":
            return "vector" in s.channels
        return True

    def retrieve(self, question: Question, k: int) -> list[frozenset[str]]:
        self._ask(question)
        result = self.mw.working.recaller.recall(self.scope, question.text, (), touch=False)
        # The system's ranking: fused score order over what passed the filters; the relevance
        # threshold decides injection (measured by injected()), not the order.
        ranked = [s for s in result.ranked if self._channel_ok(s) and (s.kept or s.reason.startswith("below relevance"))]
        ranked.sort(key=lambda s: s.rank)
        return [frozenset(s.turn_ids) for s in ranked[:k]]

    def injected(self, question: Question) -> tuple[list[frozenset[str]], int]:
        self._ask(question)
        result = self.mw.working.recaller.recall(self.scope, question.text, (), touch=False)
        if self.retriever != "hybrid":
            result = dataclasses.replace(result, ranked=[s for s in result.ranked if self._channel_ok(s)])
        plan = self.mw.working.assemble(self.scope, result)
        return [frozenset(c.turn_ids) for c in plan.candidates if c.kept], plan.tokens

    def close(self) -> None:
        self.mw.close()
