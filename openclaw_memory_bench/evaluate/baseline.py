"""A BM25 baseline over single turns: the sanity check for the metrics and the runner.

Each turn is one document (turn-level index); tokens are lower-cased words, with Chinese
segmented by jieba (`openclaw_memory.lang.text.tokenize`), unless another tokenizer is passed.
Scoring is Okapi BM25 with the non-negative idf ln(1 + (N - n + 0.5) / (n + 0.5)).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable

from openclaw_memory.errors import ValidationError
from openclaw_memory.lang.text import tokenize
from openclaw_memory.core.tokens import count_tokens
from .datasets import Conversation, EvalTurn, Question


class BM25Index:
    """An in-memory BM25 index over a list of texts; `search` returns (position, score) pairs."""

    def __init__(
        self,
        texts: list[str],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        tokenizer: Callable[[str], list[str]] = tokenize,
    ) -> None:
        self._k1, self._b, self._tokenize = k1, b, tokenizer
        self._postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self._lengths: list[int] = []
        for pos, text in enumerate(texts):
            counts = Counter(tokenizer(text))
            self._lengths.append(sum(counts.values()))
            for term, tf in counts.items():
                self._postings[term].append((pos, tf))
        n = len(self._lengths)
        self._avg = (sum(self._lengths) / n) if n else 0.0
        self._idf = {
            t: math.log(1.0 + (n - len(p) + 0.5) / (len(p) + 0.5))
            for t, p in self._postings.items()
        }

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """The k best positions for query, best first (ties in index order), no zero scores."""
        scores: dict[int, float] = defaultdict(float)
        for term in self._tokenize(query):
            idf = self._idf.get(term)
            if idf is None:
                continue
            for pos, tf in self._postings[term]:
                norm = 1.0 - self._b + self._b * self._lengths[pos] / (self._avg or 1.0)
                scores[pos] += idf * tf * (self._k1 + 1.0) / (tf + self._k1 * norm)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return [(pos, s) for pos, s in ranked[:k] if s > 0]


class BM25System:
    """`EvalSystem` over turns with BM25; injects its top `inject_k` turns as speaker lines."""

    name = "bm25"

    def __init__(
        self,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        inject_k: int = 10,
        tokenizer: Callable[[str], list[str]] = tokenize,
    ) -> None:
        if inject_k < 1:
            raise ValidationError(f"inject_k: expected an integer >= 1, found {inject_k!r}")
        self._k1, self._b, self._inject_k, self._tokenizer = k1, b, inject_k, tokenizer
        self._turns: list[EvalTurn] = []
        self._index = BM25Index([])

    def reset(self, conversation_id: str) -> None:
        """Drop the index."""
        self._turns = []
        self._index = BM25Index([])

    def ingest(self, conversation: Conversation, *, user_only: bool) -> int:
        """Index every turn with text (user turns only when asked); return how many."""
        self._turns = [
            t
            for s in conversation.sessions
            for t in s.turns
            if t.text.strip() and (t.role == "user" or not user_only)
        ]
        self._index = BM25Index(
            [t.text for t in self._turns], k1=self._k1, b=self._b, tokenizer=self._tokenizer
        )
        return len(self._turns)

    def retrieve(self, question: Question, k: int) -> list[frozenset[str]]:
        """The k best turns for the question text, one turn id per entry."""
        return [frozenset({self._turns[pos].id}) for pos, _ in self._index.search(question.text, k)]

    def injected(self, question: Question) -> tuple[list[frozenset[str]], int]:
        """The top `inject_k` turns rendered as `Speaker said, "text"` lines, and their tokens."""
        hits = self._index.search(question.text, self._inject_k)
        block = "\n".join(
            f'{self._turns[p].speaker} said, "{self._turns[p].text}"' for p, _ in hits
        )
        return [frozenset({self._turns[p].id}) for p, _ in hits], count_tokens(block)
