"""The speaker channel: what a person of the chat said, for a request about that person.

"What activities does Melanie partake in?", 刘婷从学车到能独自上高速经历了哪些阶段？ ask about one of
the people who speak in the user's memories. The answers are that person's own turns, spread over
many sessions, and the request names nothing else to find them by: the person is named in so many
memories (each turn they said, each reply to them) that the entity channel selects nothing by the
name (`entity_channel.MIN_ENTITY_WEIGHT`), and the query is embedded without it (recall/plain.py).
So for a request that names exactly one such person, the vector index is searched `SEARCH_DEPTH`
times deeper than the vector channel searches it, and the nearest memories that person *said*
that no channel proposed yet are proposed: at most `SHARE` of the channel's candidates. A memory's
speaker is its episode's first tag or a ``speaker:NAME`` tag; a reply to the person ("Thanks,
Melanie!") names them, but says what the other one thinks, so it is not theirs. At most
`READ_CAP` of the nearest memories naming the person are read to find theirs: in a chat of the
user's own, a person the user often mentions says nothing, and costs no more than that.

A request that names two such people ("What do Jon and Gina both have in common?") is left to the
other channels, whose candidates already hold both; a person named in few memories is the entity
channel's. What this channel proposes is scored like any candidate: it only widens the pool.
The ids of the memories naming the person are read while the query is embedded (`prepare`).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..runtime.engine import MemoryEngine
from ..extract.entities import normalise
from ..config.tuning import tuned, tuned_int
from ..types import MemoryRecord, MemoryType, Scope
from .entity_channel import MIN_ENTITY_WEIGHT, EntityReads
from .pool import Pool
from .query import RecallQuery

#: how many times deeper than the vector channel the index is searched for the person's turns
SEARCH_DEPTH = tuned_int("speaker_channel.search_depth")
#: the share of the channel's candidates the person's own turns may add
SHARE = tuned("speaker_channel.share")
#: the most memories naming the person that are read (newest first; ids only)
NAMING_CAP = tuned_int("speaker_channel.naming_cap")
#: the most of the nearest memories naming the person read to find those they said: a person
#: who said none of them is no speaker of this store (someone the user often mentions)
READ_CAP = tuned_int("speaker_channel.read_cap")


class SpeakerChannel:
    """What the one person a request names said (module docstring)."""

    name = "speaker"

    def __init__(
        self, engine: MemoryEngine, limit: int, *, depth: int = SEARCH_DEPTH, share: float = SHARE
    ) -> None:
        self.engine, self.limit, self.depth, self.share = engine, limit, depth, share

    def prepare(self, scope: Scope, query: RecallQuery, pool: Pool) -> None:
        """Read the ids of the memories naming the person (kept in `pool.entities`) and have the
        prepared vector searches go deep enough: run while the query is embedded."""
        reads = pool.entities = pool.entities or EntityReads(self.engine.store, scope)
        if self._theirs(reads, query) is not None:
            # the vector channel's search goes this deep at once (`SharedSearch`)
            for search in pool.searches.values():
                search.widen(self.depth * self.limit)

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        take = int(self.limit * self.share)
        if take < 1 or qvec.size == 0:
            return
        reads = pool.entities or EntityReads(self.engine.store, scope)
        found = self._theirs(reads, query)
        if found is None:
            return
        person, theirs = found
        near: list[str] = []
        for tier in query.tiers:
            search = pool.search(tier, partial(self.engine.vector_search, scope))
            near += [
                rid
                for rid, _ in search(qvec, self.depth * self.limit)
                if rid in theirs and rid not in pool.channels
            ]
        # nearest first, read a few at a time: the replies to the person among them are read,
        # then left out
        key = normalise(person)
        added = 0
        near = near[:READ_CAP]
        for at in range(0, len(near), 2 * take):
            batch = near[at : at + 2 * take]
            records = self.engine.get_many(scope, batch)
            for rid in batch:
                r = records.get(rid)
                if r is None or not any(normalise(s) == key for s in speakers(r)):
                    continue
                pool.propose(rid, f"{self.name}:{person}")
                pool.records[rid] = r
                added += 1
                if added == take:
                    return

    @staticmethod
    def _theirs(reads: EntityReads, query: RecallQuery) -> tuple[str, set[str]] | None:
        """The one person the request names whom many memories name, and those memories' ids;
        None when it names none or several."""
        named = reads.named(query.text)
        weight = reads.weights(sorted(named))
        common = [e for e in named if e in weight and weight[e] < MIN_ENTITY_WEIGHT]
        if len(common) != 1:
            return None
        naming = reads.naming(common, query.statuses, NAMING_CAP)
        return named[common[0]], {rid for rid, _ in naming}


def speakers(r: MemoryRecord) -> list[str]:
    """Who said the memory: an episode's first tag, and any "speaker:NAME" tag."""
    said = [t.split(":", 1)[1] for t in r.tags if t.lower().startswith("speaker:")]
    return [*(r.tags[:1] if r.type is MemoryType.EPISODE else ()), *said]
