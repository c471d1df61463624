"""The hand-written Chinese LoCoMo-format set (tests/data/zh_locomo.json) is well formed.

It exists so Chinese recall can be measured the same way as English: same loader, same runner.
These checks keep it honest: enough turns and questions, every category, evidence that resolves,
questions that paraphrase rather than quote, and no generated summaries.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from openclaw_memory_bench.evaluate.datasets import (
    LOCOMO_CATEGORIES,
    Conversation,
    Question,
    load_locomo,
    normalize_evidence,
)

DATA = Path(__file__).parent / "data" / "zh_locomo.json"
_CJK = re.compile(r"[\u4e00-\u9fff]")
_TRAILING_PUNCT = "？?。！!，, "


def _quotes_evidence(question: str, evidence_texts: list[str]) -> bool:
    """True when the question, minus end punctuation, appears verbatim inside an evidence turn."""
    core = question.strip().rstrip(_TRAILING_PUNCT)
    return bool(core) and any(core in text for text in evidence_texts)


@pytest.fixture(scope="module")
def raw() -> list[dict]:
    return json.loads(DATA.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def loaded() -> tuple[list[Conversation], list[Question]]:
    return load_locomo(DATA)


@pytest.fixture(scope="module")
def turn_text(loaded) -> dict[tuple[str, str], str]:
    convs, _ = loaded
    return {(c.id, t.id): t.text for c in convs for s in c.sessions for t in s.turns}


def test_size_and_categories(loaded, raw) -> None:
    convs, questions = loaded
    assert [c.id for c in convs] == ["zh-1", "zh-2", "zh-3", "zh-4"]
    assert sum(len(s.turns) for c in convs for s in c.sessions) >= 400
    assert len(questions) >= 180
    # The loader drops questions whose evidence does not resolve: none may be lost.
    assert len(questions) == sum(len(sample["qa"]) for sample in raw)
    assert set(Counter(q.category for q in questions)) == set(LOCOMO_CATEGORIES.values())


def test_every_conversation_is_long_enough(loaded) -> None:
    convs, questions = loaded
    per_conv = Counter(q.conversation_id for q in questions)
    for conv in convs:
        assert 8 <= len(conv.sessions) <= 12, conv.id
        assert all(12 <= len(s.turns) <= 25 for s in conv.sessions), conv.id
        dates = [s.date for s in conv.sessions]
        assert dates == sorted(dates) and len(set(dates)) == len(dates), conv.id
        assert 40 <= per_conv[conv.id] <= 60, conv.id


def test_every_raw_evidence_id_resolves(raw) -> None:
    for sample in raw:
        conv = sample["conversation"]
        ids = {t["dia_id"] for k, v in conv.items() if isinstance(v, list) for t in v}
        for qa in sample["qa"]:
            assert qa["evidence"], qa["question"]
            assert normalize_evidence(qa["evidence"]) == qa["evidence"], qa["question"]
            missing = [e for e in qa["evidence"] if e not in ids]
            assert not missing, (sample["sample_id"], qa["question"], missing)


def test_turns_are_numbered_in_order_and_spoken_by_the_two_speakers(raw) -> None:
    for sample in raw:
        conv = sample["conversation"]
        speakers = {conv["speaker_a"], conv["speaker_b"]}
        n = 1
        while f"session_{n}" in conv:
            turns = conv[f"session_{n}"]
            assert [t["dia_id"] for t in turns] == [f"D{n}:{i}" for i in range(1, len(turns) + 1)]
            assert {t["speaker"] for t in turns} <= speakers
            n += 1


def test_questions_paraphrase_their_evidence(loaded, turn_text) -> None:
    _, questions = loaded
    for q in questions:
        texts = [turn_text[(q.conversation_id, e)] for e in q.evidence]
        assert not _quotes_evidence(q.text, texts), q.id


def test_multi_hop_spans_sessions_and_text_is_chinese(loaded, raw) -> None:
    _, questions = loaded
    for q in questions:
        assert _CJK.search(q.text), q.id
        if q.category == "multi-hop":
            assert len(q.evidence_sessions) >= 2, q.id
    for sample in raw:
        assert not any(sample.get(k) for k in ("observation", "session_summary", "event_summary"))
        assert all(isinstance(qa["answer"], str) and qa["answer"].strip() for qa in sample["qa"])


@pytest.mark.parametrize(
    ("question", "evidence", "expected"),
    [
        ("我最近迷上了攀岩", ["我最近迷上了攀岩，每周去两次"], True),
        ("林晓最近喜欢上了什么运动？", ["我最近迷上了攀岩，每周去两次"], False),
        ("I started climbing?", ["Lately I started climbing twice a week"], True),
        ("What sport does she like now?", ["Lately I started climbing twice a week"], False),
    ],
)
def test_quote_check_catches_verbatim_questions(question, evidence, expected) -> None:
    assert _quotes_evidence(question, evidence) is expected
