"""Keyword search (BM25 as FTS5 computes it) and the stored vectors of records, in dicts."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ...lang.text import search_tokens
from ...types import Scope
from ..port_values import TIER_STATUS, TierVector
from .base import MemoryBase

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

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        return {i: self.s.vectors[i]["vec"] for i in ids if i in self.s.vectors}

    def vectors_with_parts(
        self, ids: Sequence[str]
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        vecs, parts = self.vectors(ids), {}
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
