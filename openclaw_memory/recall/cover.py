"""Covering sessions: a request that names several things gets the best of several sessions first.

A question about one thing ("where did I park?") is answered by one memory, and the session
component (recall/rank.py) rightly lifts the turns around the best one. A question that names
several things, or asks for a list ("what books has she read?", "which places did we visit",
"how many times", 哪些, 几次) is answered by memories spread over sessions;
a ranking that fills its head with one session's turns misses the others. For such a request the
head of the ranking (its first HEAD kept places) is re-ordered by how many memories of the same
session stand above each one, then by rank: every session's best comes before any session's
second. Beyond the head nothing moves, and nothing is added or dropped.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from ..types import ScoredMemory
from .listing import names_several
from .rank import session_of

__all__ = ["HEAD", "cover_sessions", "names_several"]

#: how many of the first kept places are re-ordered: twice the ten a reader looks at
HEAD = 20


def cover_sessions(ranked: Sequence[ScoredMemory], head_size: int = HEAD) -> list[ScoredMemory]:
    """The ranking with its head (the first kept memories) ordered session by session."""
    kept = [s for s in ranked if s.kept]
    head = kept[:head_size]
    if len(head) <= 1:
        return list(ranked)
    layer: dict[str, int] = {}
    keyed = []
    for s in head:
        session = session_of(s.record) or s.record.id
        keyed.append((layer.get(session, 0), s.rank, s))
        layer[session] = layer.get(session, 0) + 1
    order = [s for _, _, s in sorted(keyed, key=lambda t: (t[0], t[1]))]
    ranks = sorted(s.rank for s in head)
    moved = {id(s): r for s, r in zip(order, ranks)}
    out = [dataclasses.replace(s, rank=moved[id(s)]) if id(s) in moved else s for s in ranked]
    return sorted(out, key=lambda s: (s.rank <= 0, s.rank))
