"""Covering sessions: a request that names several things gets every session's best first."""

from __future__ import annotations

import pytest

from openclaw_memory.recall.head import cover_sessions
from openclaw_memory.recall.head import names_several
from openclaw_memory.types import MemoryRecord, MemoryType, ScoredMemory, Scope
from store_helpers import writer_of

A = Scope("alice", "main")


def scored(rid: str, session: str, rank: int, kept: bool = True) -> ScoredMemory:
    r = MemoryRecord(rid, A, MemoryType.EPISODE, f"turn {rid}", session_id=session)
    return ScoredMemory(r, 1.0 - rank / 100, {}, ("vector",), rank, kept, "" if kept else "x")


@pytest.mark.parametrize(
    "text, several",
    [
        ("What books has she read?", True),
        ("Which places did we visit?", True),
        ("What kinds of music does he like?", True),
        ("How many times did I run this month?", True),
        ("她去过哪些地方", True),
        ("我跑了几次步", True),
        ("How many magazine subscriptions do I have?", True),
        ("How many times did I go running last month?", True),
        # how many of a unit asks an amount, not several things
        ("How many years older am I than when I graduated from college?", False),
        ("How many days did the trip to Japan take?", False),
        ("How many more miles did I run this week?", False),
        ("What does Melanie do for work?", False),
        ("Where did I park the car?", False),
        ("What is his name?", False),
        ("我的车停在哪里", False),
        # a plural after modifiers, then the auxiliary: the plural is what is asked for
        ("What LGBTQ+ events has Caroline attended?", True),
        ("What martial arts has John done?", True),
        ("Which US cities does John mention visiting?", True),
        ("What musical artists/bands has Melanie seen?", True),
        # no auxiliary after the plural, or no plural
        ("What exciting news did Maria share?", False),
        ("What do the kids like?", False),
        ("What do his friends do for work?", False),
        ("What painting did Melanie finish?", False),
        # a definite plural made a set by a clause about who did them, or put in order
        ("What is the order of the concerts I attended, starting from the earliest?", True),
        ("What was the page count of the two novels I finished in January and March?", True),
        ("What are the skills that Nate has helped others learn?", True),
        ("Tell me about the trips we took.", True),
        ("按时间顺序说说我去过的城市", True),
        ("我先后在哪两家公司工作过", True),
        # one of them, or a plural no clause makes a set of someone's doings
        ("What was one of the biggest challenges John faced?", False),
        ("What are the new shoes that Melanie got used for?", False),
        ("Where did the kids that visited go?", False),
    ],
)
def test_list_questions_name_several_things(text, several):
    assert names_several(text) is several


def test_every_sessions_best_comes_before_any_sessions_second():
    ranked = [
        scored("a1", "s1", 1),
        scored("a2", "s1", 2),
        scored("x", "s9", 3, kept=False),
        scored("a3", "s1", 4),
        scored("b1", "s2", 5),
        scored("c1", "s3", 6),
        scored("b2", "s2", 7),
    ]
    out = cover_sessions(ranked)
    assert [s.record.id for s in out] == ["a1", "b1", "x", "c1", "a2", "b2", "a3"]
    assert [s.rank for s in out] == list(range(1, 8))  # the dropped one keeps its place


def test_a_strong_second_turn_stays_ahead_of_a_weak_new_session():
    def at(rid: str, session: str, rank: int, score: float, reason: str = "") -> ScoredMemory:
        r = MemoryRecord(rid, A, MemoryType.EPISODE, f"turn {rid}", session_id=session)
        return ScoredMemory(r, score, {}, ("vector",), rank, not reason, reason)

    ranked = [
        at("a1", "s1", 1, 0.60),
        at("a2", "s1", 2, 0.59),  # 0.59/0.60 - 0.15 = 0.83: ahead of b1 (0.30/0.60 = 0.5)
        at("c1", "s3", 3, 0.55, "below relevance threshold (cosine 0.79 < 0.80)"),
        at("a3", "s1", 4, 0.50),  # 0.83 - 0.30 = 0.53: ahead of b1 too
        at("b1", "s2", 5, 0.30),
        at("c2", "s3", 6, 0.54),  # c1 above it (a place below the bar counts): 0.75
        at("d1", "s4", 7, 0.55, "near-duplicate of a1"),  # dropped: keeps its place
    ]
    out = cover_sessions(ranked)
    assert [s.record.id for s in out] == ["a1", "c1", "a2", "c2", "a3", "b1", "d1"]
    assert [s.rank for s in out] == list(range(1, 8))
    # penalty 1: every session's best before any session's second
    out = cover_sessions(ranked, penalty=1.0)
    assert [s.record.id for s in out] == ["a1", "c1", "b1", "a2", "c2", "a3", "d1"]


def test_nothing_beyond_the_head_moves():
    ranked = [scored(f"a{i}", "s1", i) for i in range(1, 4)] + [scored("b1", "s2", 4)]
    out = cover_sessions(ranked, head_size=3)
    assert [s.record.id for s in out] == ["a1", "a2", "a3", "b1"]


def test_a_list_question_may_inject_more_related_memories(engine):
    from openclaw_memory.config import config_from_dict
    from openclaw_memory.recall.recaller import Recaller
    from openclaw_memory.runtime.factory import read_ports
    from openclaw_memory.types import Candidate
    from openclaw_memory.inject.assemble import BlockAssembler

    for i, title in enumerate(["Dune", "Emma", "Ulysses", "Beloved", "Middlemarch", "Persuasion"]):
        cand = Candidate(MemoryType.EPISODE, f"I read the book {title} and loved reading it")
        writer_of(engine).write(A, [cand], session_id=f"s{i}")
    cfg = config_from_dict(
        {
            "long_term": {"top_k": 2, "list_top_k": 4},
            "recall": {"episode_context_before": 0, "episode_context_after": 0},
        },
        base=engine.config,
    )
    recaller = Recaller(read_ports(engine), cfg.recall)
    assembler = BlockAssembler(engine.store, engine.clock, cfg)

    def related(text):
        plan = assembler.assemble(A, recaller.recall(A, text))
        return [c for c in plan.candidates if c.kept and c.record.type is MemoryType.EPISODE]

    assert len(related("Which books have I read?")) == 4
    assert len(related("Did I read a book I loved?")) == 2
