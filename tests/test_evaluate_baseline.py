"""The BM25 baseline: ranking, user-only ingest, CJK queries, and a run through the runner."""

from __future__ import annotations

import json

import pytest

from openclaw_memory.errors import ValidationError
from openclaw_memory_bench.evaluate.baseline import BM25Index, BM25System
from openclaw_memory_bench.evaluate.datasets import Conversation, EvalSession, EvalTurn, Question
from openclaw_memory_bench.evaluate.runner import EvalSystem, run_longmemeval

TURNS = [
    ("s1#1", "user", "I adopted a grey cat named Miso last spring."),
    ("s1#2", "assistant", "Congratulations on adopting Miso the cat!"),
    ("s1#3", "user", "My sister lives in Lisbon and teaches piano."),
    ("s2#1", "user", "我下周去杭州出差，住在西湖旁边。"),
    ("s2#2", "assistant", "杭州的西湖很美。"),
    ("s2#3", "user", "The weather was fine today."),
]


def conversation() -> Conversation:
    sessions = []
    for sid in ("s1", "s2"):
        turns = tuple(
            EvalTurn(tid, role, role, text) for tid, role, text in TURNS if tid.startswith(sid)
        )
        sessions.append(EvalSession(sid, 1_700_000_000.0, turns))
    return Conversation("c1", tuple(sessions))


def question(text: str, evidence: tuple[str, ...] = ("s1#1",)) -> Question:
    return Question("q", "c1", text, "single-hop", evidence, ("s1",), None)


def test_bm25_index_ranks_by_term_overlap_and_drops_zero_scores():
    index = BM25Index(["the cat sat", "a dog ran", "cat and cat food"])
    hits = index.search("cat food", 5)
    assert [pos for pos, _ in hits] == [2, 0]
    assert hits[0][1] > hits[1][1] > 0
    assert index.search("unicorn", 5) == []
    assert BM25Index([]).search("cat", 3) == []


def test_bm25_index_keeps_index_order_on_ties():
    index = BM25Index(["blue sky", "blue sea", "green"])
    assert [pos for pos, _ in index.search("blue", 5)] == [0, 1]


def test_bm25_index_accepts_another_tokenizer():
    index = BM25Index(["Cat!", "cat"], tokenizer=lambda s: s.split(" "))
    assert [pos for pos, _ in index.search("cat", 5)] == [1]


def test_bm25_system_is_an_eval_system():
    assert isinstance(BM25System(), EvalSystem)


def test_ingest_user_only_skips_assistant_turns():
    system = BM25System()
    assert system.ingest(conversation(), user_only=False) == 6
    assert system.ingest(conversation(), user_only=True) == 4
    hits = system.retrieve(question("Congratulations on the cat Miso"), 5)
    assert frozenset({"s1#2"}) not in hits
    assert hits[0] == frozenset({"s1#1"})


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What is the name of the grey cat I adopted?", "s1#1"),
        ("Where does my sister live?", "s1#3"),
        ("我什么时候去杭州出差？", "s2#1"),
        ("西湖", "s2#1"),
    ],
)
def test_retrieve_finds_the_turn_in_english_and_chinese(query, expected):
    system = BM25System()
    system.ingest(conversation(), user_only=True)
    assert system.retrieve(question(query), 1) == [frozenset({expected})]


def test_injected_block_counts_tokens_and_reset_empties():
    system = BM25System(inject_k=2)
    system.ingest(conversation(), user_only=False)
    sets, tokens = system.injected(question("Miso cat"))
    assert len(sets) == 2 and sets[0] in (frozenset({"s1#1"}), frozenset({"s1#2"}))
    assert tokens > 5
    system.reset("c2")
    assert system.retrieve(question("Miso cat"), 5) == []
    assert system.injected(question("Miso cat")) == ([], 0)


def test_bm25_system_rejects_bad_inject_k():
    with pytest.raises(ValidationError, match="inject_k"):
        BM25System(inject_k=0)


def lme_entry(qid: str, question_text: str) -> dict:
    return {
        "question_id": qid,
        "question_type": "single-session-user",
        "question": question_text,
        "answer": "x",
        "question_date": "2023/06/23 (Fri) 07:31",
        "haystack_session_ids": ["noise", "answer_x"],
        "haystack_dates": ["2023/05/01 (Mon) 10:00", "2023/05/02 (Tue) 11:00"],
        "haystack_sessions": [
            [
                {"role": "user", "content": "Recommend a sci-fi novel."},
                {
                    "role": "assistant",
                    "content": "Try sneakers and closet novels about a piano.",
                },
            ],
            [
                {
                    "role": "user",
                    "content": "I store my old sneakers on the closet rack.",
                    "has_answer": True,
                },
                {"role": "user", "content": "我的钢琴老师叫李老师。", "has_answer": True},
            ],
        ],
        "answer_session_ids": ["answer_x"],
    }


def test_bm25_through_runner_on_longmemeval_shape(tmp_path):
    path = tmp_path / "lme.json"
    path.write_text(
        json.dumps(
            [lme_entry("q1", "Where are my old sneakers?"), lme_entry("q2", "我的钢琴老师是谁？")]
        ),
        encoding="utf-8",
    )
    result = run_longmemeval(BM25System(), path, ks=(1, 2))
    o = result["overall"]
    assert o["session.recall_all@1"] == 1.0
    assert o["turn.recall_any@1"] == 1.0  # the assistant decoy is not indexed
    assert o["turn.recall_all@2"] == 0.0  # the other gold turn shares no word with the question
    assert o["turn.evidence_recall@1"] == 0.5
    assert result["retriever"] == "bm25"
