"""Each question of a request that asks several its share of the ranking's head.

"有几个活动在广州？另外，有几个人超过60岁？", "Where does Tom work? Also, when did he move?": one
ranking of both questions puts the memories of the question whose words most memories share
first, and the other question's answers fall below the places a reader looks at. Each ranked
memory is read as an answer to the question whose terms it holds the most of (`query.questions`);
the ranking is then dealt question by question, each question's memories in their own order, so
that n questions share the head about equally. A memory that holds no question's terms more than
another's keeps its place in the dealt order (its place among all, over n). `channel.share`
switches this off.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from ..lang.text import search_tokens
from ..types import ScoredMemory
from .bridge import share
from .cover import ranked_place
from .pool import Pool
from .query import RecallQuery, content_terms


def share_places(
    ranked: Sequence[ScoredMemory], query: RecallQuery, pool: Pool
) -> list[ScoredMemory]:
    """ranked with its places dealt among the request's questions (module docstring); the
    memories without a place in the ranking follow, in their order."""
    asked = [content_terms(q) for q in query.questions]
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
