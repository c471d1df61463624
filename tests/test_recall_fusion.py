"""Session evidence: a fusion component computed from the other candidates of a memory's session."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from openclaw_memory.config import RecallConfig, RecallWeights
from openclaw_memory.recall.pool import Pool
from openclaw_memory.recall.query import RecallQuery
from openclaw_memory.recall.rank import COMPONENTS, Calibration, fuse, score_pool, session_evidence
from openclaw_memory.types import MemoryRecord, MemoryType, ScoredMemory, Scope, Source

SCOPE = Scope("alice")


def episode(rid: str, session: str | None, text: str = "something said") -> MemoryRecord:
    return MemoryRecord(
        rid,
        SCOPE,
        MemoryType.EPISODE,
        text,
        session_id=session,
        source=Source(session_id=session, turn_ids=(f"t-{rid}",)),
        created_at=1.0,
        updated_at=1.0,
    )


def pool_of(*entries: tuple[MemoryRecord, float, tuple[str, ...]]) -> Pool:
    pool = Pool()
    for r, cos, channels in entries:
        pool.records[r.id] = r
        pool.cosine[r.id] = cos
        pool.vectors[r.id] = np.eye(8, dtype=np.float32)[len(pool.vectors)]
        for c in channels:
            pool.propose(r.id, c)
    return pool


def cfg(**weights: float) -> RecallConfig:
    w = RecallWeights(
        **{
            "semantic": 1.0,
            "keyword": 0.0,
            "structure": 0.0,
            "recency": 0.0,
            "importance": 0.0,
            "trust": 0.0,
            "session": 0.0,
            **weights,
        }
    )
    return RecallConfig(weights=w, weights_unspaced=None)


QUERY = RecallQuery("where did we go hiking", ("hike",), None, frozenset(), False)
CAL = Calibration(0.0, 1.0, 0.0)


def ranked(pool: Pool, config: RecallConfig) -> list[str]:
    return [s.record.id for s in score_pool(pool, QUERY, 10.0, config, CAL)]


def test_session_evidence_lifts_the_other_turns_of_a_strongly_matching_session():
    pool = pool_of(
        (episode("top", "s1"), 0.90, ("vector",)),
        (episode("sibling", "s1"), 0.50, ("vector",)),
        (episode("loner", "s2"), 0.55, ("vector",)),
    )
    assert ranked(pool, cfg()) == ["top", "loner", "sibling"]
    assert ranked(pool, cfg(session=0.2)) == ["top", "sibling", "loner"]


def test_a_list_question_gets_half_the_session_evidence():
    """A list question is answered by one mention in each of several sessions: the turns around
    the best one are lifted by half as much (`rank.LIST_SESSION_SHARE`)."""
    pool = pool_of(
        (episode("top", "s1"), 0.90, ("vector",)),
        (episode("sibling", "s1"), 0.50, ("vector",)),
        (episode("loner", "s2"), 0.62, ("vector",)),
    )
    listing = dataclasses.replace(QUERY, several=True)
    assert ranked(pool, cfg(session=0.2)) == ["top", "sibling", "loner"]
    order = [s.record.id for s in score_pool(pool, listing, 10.0, cfg(session=0.2), CAL)]
    assert order == ["top", "loner", "sibling"]


def test_session_evidence_is_the_best_other_memory_of_the_session_over_the_pool_best():
    first = [
        ScoredMemory(episode("a", "s1"), 0.8, {"semantic": 0.8}),
        ScoredMemory(episode("b", "s1"), 0.4, {"semantic": 0.4}),
        ScoredMemory(episode("c", "s2"), 0.2, {"semantic": 0.2}),
        ScoredMemory(episode("d", None), 0.6, {"semantic": 0.6}),
    ]
    weights = {k: 0.0 for k in COMPONENTS} | {"semantic": 1.0, "session": 1.0}
    out = {s.record.id: s for s in session_evidence(first, weights)}
    assert out["a"].components["session"] == pytest.approx(0.4 / 0.8)  # its best sibling
    assert out["b"].components["session"] == pytest.approx(1.0)  # the pool's best is its sibling
    assert (
        out["c"].components["session"] == 0.0 and out["d"].components["session"] == 0.0
    )  # alone / no session
    assert out["b"].score == pytest.approx(fuse(out["b"].components, weights))


def test_without_a_session_weight_there_is_no_session_component():
    pool = pool_of((episode("a", "s1"), 0.6, ("vector",)), (episode("b", "s1"), 0.5, ("vector",)))
    assert all("session" not in s.components for s in score_pool(pool, QUERY, 10.0, cfg(), CAL))


@pytest.mark.parametrize(
    "query", [QUERY, RecallQuery("我们去哪里徒步", ("徒步",), None, frozenset(), False)]
)
def test_session_evidence_is_on_by_default_in_both_languages(query):
    pool = pool_of(
        (episode("top", "s1"), 0.90, ("vector",)),
        (episode("sibling", "s1"), 0.50, ("vector",)),
        (episode("loner", "s2"), 0.55, ("vector",)),
    )
    order = [s.record.id for s in score_pool(pool, query, 10.0, RecallConfig(), CAL)]
    assert order.index("sibling") < order.index("loner")


def test_exact_ties_do_not_depend_on_the_order_candidates_were_pooled_in():
    tied = [(episode(rid, None), 0.5, ("vector",)) for rid in ("mem_b", "mem_c", "mem_a")]
    assert (
        ranked(pool_of(*tied), cfg())
        == ranked(pool_of(*reversed(tied)), cfg())
        == ["mem_a", "mem_b", "mem_c"]
    )
