"""The in-memory store's state and transactions, and its keyword search (BM25 as FTS5 computes it)."""

from __future__ import annotations

import contextlib
import copy
import threading
import math
import numpy as np
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence
from ...types import MemoryRecord, Scope
from ...lang.text import search_tokens
from ..ports import TIER_STATUS, TierVector

# The in-memory record store's state and transactions (see `store/memory/__init__.py`).


@dataclass
class EntityState:
    """Entity memory (memory/entities.py). entities: id -> row; aliases: (user, agent, alias)
    -> (entity id, record rid); links: (entity id, record rid) -> (user, agent, seen at)."""

    entities: dict[int, dict[str, Any]] = field(default_factory=dict)
    aliases: dict[tuple[str, str, str], tuple[int, int]] = field(default_factory=dict)
    links: dict[tuple[int, int], tuple[str, str, float]] = field(default_factory=dict)
    seq: int = 0


@dataclass
class State:
    """Everything the store holds; copied whole at the start of a transaction (a fake: small)."""

    records: dict[str, MemoryRecord] = field(default_factory=dict)  # in written order
    rids: dict[str, int] = field(default_factory=dict)
    tokens: dict[str, list[str]] = field(default_factory=dict)
    vectors: dict[str, dict[str, Any]] = field(default_factory=dict)
    versions: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    audit: list[dict[str, Any]] = field(default_factory=list)
    outbox: list[dict[str, Any]] = field(default_factory=list)
    sessions: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    leases: dict[str, dict[str, Any]] = field(default_factory=dict)
    runs: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    seq: int = 0
    entities: EntityState = field(default_factory=lambda: EntityState())

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq


def in_scope(r: MemoryRecord, scope: Scope) -> bool:
    """A record of the scope's user and agent; a workspace scope also sees the shared ones."""
    if r.scope.user_id != scope.user_id or r.scope.agent_id != scope.agent_id:
        return False
    return scope.workspace is None or r.scope.workspace in (scope.workspace, None)


class MemoryBase:
    """State behind one re-entrant lock; a transaction restores the state it began with when
    it fails, so a failed batch leaves nothing half-written (as SQLite's rollback does)."""

    def __init__(self) -> None:
        self.s = State()
        self._lock = threading.RLock()
        self._depth = 0

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            saved = copy.deepcopy(self.s)
            self._depth = 1
            try:
                yield
            except BaseException:
                self.s = saved
                raise
            finally:
                self._depth = 0

    def in_transaction(self) -> bool:
        with self._lock:
            return self._depth > 0

    def _scoped(self, scope: Scope) -> list[MemoryRecord]:
        """The scope's records in written order."""
        return [r for r in self.s.records.values() if in_scope(r, scope)]

    def vacuum(self) -> None:
        """Nothing to give back: deleted rows are gone with their objects."""

    def close(self) -> None:
        """Nothing to release."""


# Keyword search (BM25 as FTS5 computes it) and the stored vectors of records, in dicts.

_K1, _B = 1.2, 0.75  # FTS5's BM25 constants


class SearchMixin(MemoryBase):
    def keyword_search(
        self, scope: Scope, text: str, *, statuses: Sequence[str] = ("active",), limit: int = 30
    ) -> list[tuple[str, float]]:
        """BM25 over the same jieba and Snowball tokens, with statistics of the (user, agent)
        partition alone, normalised to the best hit."""
        terms = list(dict.fromkeys(search_tokens(text, drop_stopwords=True)))[:32]
        if not terms:
            return []
        part = Scope(scope.user_id, scope.agent_id)
        docs = {r.id: self.s.tokens[r.id] for r in self._scoped(part)}
        n = len(docs)
        avgdl = sum(len(t) for t in docs.values()) / n if n else 0.0
        df = {t: sum(1 for toks in docs.values() if t in toks) for t in terms}
        wanted = set(statuses)
        scored = []
        for r in self._scoped(scope):
            toks = docs[r.id]
            if r.status.value not in wanted or not set(terms) & set(toks):
                continue
            score = 0.0
            for t in terms:
                tf = toks.count(t)
                if tf:
                    idf = max(math.log((n - df[t] + 0.5) / (df[t] + 0.5)), 1e-6)  # FTS5's
                    norm = tf + _K1 * (1 - _B + _B * len(toks) / (avgdl or 1.0))
                    score += idf * tf * (_K1 + 1) / norm
            scored.append((r.id, score))
        scored.sort(key=lambda x: -x[1])
        scored = scored[:limit]
        best = max((s for _, s in scored), default=0.0)
        return [(i, s / best) for i, s in scored] if best > 0 else scored

    def search_tokens(self, ids: Sequence[str]) -> dict[str, frozenset[str]]:
        return {i: frozenset(self.s.tokens[i]) for i in ids if i in self.s.tokens}

    def vectors_with_parts(
        self, ids: Sequence[str]
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        vecs = {i: self.s.vectors[i]["vec"] for i in ids if i in self.s.vectors}
        parts = {}
        for i in vecs:
            row = self.s.vectors[i]
            if row["parts"] is not None:
                parts[i] = row["parts"].reshape(-1, row["dim"])
        return vecs, parts

    def tier_vectors(
        self, scope: Scope, tier: str, at_most: int | None = None
    ) -> list[TierVector] | None:
        part = Scope(scope.user_id, scope.agent_id)
        held = [r for r in self._scoped(part) if r.status.value == TIER_STATUS[tier]]
        if at_most is not None and len(held) > at_most:
            return None
        out = []
        for r in held:
            row = self.s.vectors.get(r.id)
            if row is None:
                continue
            parts = None if row["parts"] is None else row["parts"].reshape(-1, row["dim"])
            out.append(TierVector(r.id, r.type.value, r.scope.workspace or "", row["vec"], parts))
        return out
