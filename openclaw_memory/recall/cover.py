"""Covering sessions: a request that names several things gets the best of several sessions first.

A question about one thing ("where did I park?") is answered by one memory, and the session
component (recall/rank.py) rightly lifts the turns around the best one. A question that names
several things, or asks for a list ("what books has she read?", "which places did we visit",
"how many times", 哪些, 几次) is answered by memories spread over sessions;
a ranking that fills its head with one session's turns misses the others. For such a request the
head of the ranking (its first HEAD ranked places: kept memories and those only below the
relevance threshold, the order a reader sees) is re-ordered by score, each memory's score taken
against the head's best and lowered by LAYER_PENALTY for every memory of the same session that
stands above it: a session's second turn yields to another session's best unless it scores
clearly higher (a weak turn of a new session no longer pushes a strong one out of the head).
Beyond the head nothing moves, and nothing is added or dropped; places of memories dropped for
any other reason keep their rank.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from ..config.tuning import tuned, tuned_int
from ..types import ScoredMemory
from .listing import names_several
from .rank import session_of

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
