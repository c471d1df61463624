"""Loaders for LoCoMo and LongMemEval, on tiny hand-made files in tmp_path."""

from __future__ import annotations

import gzip
import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from openclaw_memory.errors import ValidationError
from openclaw_memory_bench.evaluate.datasets import (
    format_locomo_date,
    load_locomo,
    load_longmemeval,
    normalize_dia_id,
    normalize_evidence,
    parse_locomo_date,
    parse_longmemeval_date,
    user_turns_only,
)


def _utc(*args: int) -> float:
    return datetime(*args, tzinfo=timezone.utc).timestamp()


def _turn(speaker: str, dia_id: str, text: str, **extra: str) -> dict:
    return {"speaker": speaker, "dia_id": dia_id, "text": text, **extra}


# (question, raw evidence, category): every evidence normalisation case, category 5, junk.
LOCOMO_QA = [
    ("When did Caroline go to the group?", ["D1:3"], 2),
    ("Which two?", ["D1:1; D2:2"], 1),
    ("Pottery?", ["D30:05"], 4),
    ("Adversarial?", ["D1:1"], 5),
    ("No evidence?", [], 3),
    ("Unresolvable?", ["D9:99"], 4),
    ("Colon form?", ["D:1:2", "D", "D1:2"], 1),
    ("Spaces?", ["D2:1 D2:2 D1:1"], 3),
]


def _qa(text: str, evidence: list[str], category: int) -> dict:
    answer_key = "adversarial_answer" if category == 5 else "answer"
    return {"question": text, answer_key: "x", "evidence": evidence, "category": category}


def locomo_sample() -> dict:
    """One LoCoMo-shaped sample: sessions 1, 2 and 30; questions covering every evidence case."""
    conversation = {
        "speaker_a": "Caroline",
        "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            _turn("Caroline", "D1:1", "I went to a support group yesterday."),
            _turn(
                "Melanie",
                "D1:2",
                "Look at this!",
                blip_caption="a photo of a sunset over a lake",
                img_url="http://x/y.jpg",
                query="sunset",
            ),
            _turn("Caroline", "D1:3", "我下周去杭州出差。"),
        ],
        "session_2_date_time": "10:37 am on 27 June, 2023",
        "session_2": [
            _turn("Melanie", "D2:1", "I painted a lake last week."),
            _turn("Caroline", "D2:2", "Adoption agencies called me back."),
        ],
        "session_30_date_time": "12:09 am on 13 September, 2023",
        "session_30": [_turn("Caroline", "D30:5", "Pottery class starts Monday.")],
        "session_31_date_time": "1:00 pm on 14 September, 2023",  # a date with no session
    }
    qa = [_qa(text, evidence, category) for text, evidence, category in LOCOMO_QA]
    leak = "LEAKED-SUMMARY"
    return {
        "sample_id": "conv-a",
        "conversation": conversation,
        "qa": qa,
        "observation": {"session_1_observation": [[leak, "D1:1"]]},
        "session_summary": {"session_1_summary": leak},
        "event_summary": {"events_session_1": {"Caroline": [leak]}},
    }


def write_json(path: Path, data: object) -> Path:
    if path.name.endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            json.dump(data, fh)
    else:
        path.write_text(json.dumps(data), encoding="utf-8")
    return path


def lme_entry(
    qid: str, sessions: list[tuple[str, list[dict]]], qtype: str = "single-session-user"
) -> dict:
    return {
        "question_id": qid,
        "question_type": qtype,
        "question": f"question {qid}?",
        "answer": "x",
        "question_date": "2023/06/23 (Fri) 07:31",
        "haystack_session_ids": [sid for sid, _ in sessions],
        "haystack_dates": [f"2023/05/{10 + i:02d} (Wed) 0{i}:15" for i in range(len(sessions))],
        "haystack_sessions": [turns for _, turns in sessions],
        "answer_session_ids": [sid for sid, _ in sessions if "answer" in sid],
    }


def u(text: str, has_answer: bool | None = None) -> dict:
    turn = {"role": "user", "content": text}
    if has_answer is not None:
        turn["has_answer"] = has_answer
    return turn


def a(text: str, has_answer: bool | None = None) -> dict:
    turn = {"role": "assistant", "content": text}
    if has_answer is not None:
        turn["has_answer"] = has_answer
    return turn


def lme_data() -> list[dict]:
    return [
        lme_entry(
            "q1",
            [
                ("sharegpt_x", [u("Tell me about chess openings."), a("The Sicilian is popular.")]),
                (
                    "answer_a1",
                    [
                        u("Hi there", False),
                        a("Hello", False),
                        u("I keep my sneakers in the closet rack.", True),
                    ],
                ),
                ("answer_a2", [u("我喜欢喝美式咖啡。", True), a("好的", False)]),
            ],
        ),
        lme_entry("q2_abs", [("answer_b", [u("I moved to Paris.", True)])]),
        lme_entry(
            "q3",
            [("answer_c", [u("What is a good gift?", False), a("A scarf.", True)])],
            qtype="single-session-assistant",
        ),
        lme_entry("q4", [("ultrachat_1", [u("Marked but not an answer session.", True)])]),
    ]


# ---------------------------------------------------------------------------- evidence


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["D1:3"], ["D1:3"]),
        (["D8:6; D9:17"], ["D8:6", "D9:17"]),
        (["D9:1 D4:4 D4:6"], ["D9:1", "D4:4", "D4:6"]),
        (["D:11:26"], ["D11:26"]),
        (["D30:05"], ["D30:5"]),
        (["D1:2, D1:3"], ["D1:2", "D1:3"]),
        (["D", "", "  "], []),
        (["session 3", "D3"], []),
        (["D1:2", "D:1:2", "D01:02"], ["D1:2"]),
    ],
)
def test_normalize_evidence(raw, expected):
    assert normalize_evidence(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("D1:1", "D1:1"), ("d2:07", "D2:7"), ("D:3:4", "D3:4"), ("D3", None), ("X1:1", None)],
)
def test_normalize_dia_id(raw, expected):
    assert normalize_dia_id(raw) == expected


# ---------------------------------------------------------------------------- dates


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", _utc(2023, 5, 8, 13, 56)),
        ("10:37 am on 27 June, 2023", _utc(2023, 6, 27, 10, 37)),
        ("12:09 am on 13 September, 2023", _utc(2023, 9, 13, 0, 9)),
        ("12:30 pm on 1 January, 2024", _utc(2024, 1, 1, 12, 30)),
        ("9:05 AM on 3 february 2023", _utc(2023, 2, 3, 9, 5)),
    ],
)
def test_parse_locomo_date(text, expected):
    assert parse_locomo_date(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "8 May, 2023",
        "13:00 pm on 8 May, 2023",
        "1:56 pm on 31 February, 2023",
        "1:56 pm on 8 Mai, 2023",
        None,
    ],
)
def test_parse_locomo_date_rejects_bad_input_naming_the_field(text):
    with pytest.raises(ValidationError, match="session_4_date_time"):
        parse_locomo_date(text, where="session_4_date_time")


def test_format_locomo_date_round_trips():
    for text in [
        "1:56 pm on 8 May, 2023",
        "12:09 am on 13 September, 2023",
        "12:30 pm on 1 January, 2024",
    ]:
        assert format_locomo_date(parse_locomo_date(text)) == text


def test_parse_longmemeval_date():
    assert parse_longmemeval_date("2023/05/20 (Sat) 02:21") == _utc(2023, 5, 20, 2, 21)
    assert parse_longmemeval_date("2023/12/05 (Tue) 23:59") == _utc(2023, 12, 5, 23, 59)
    with pytest.raises(ValidationError, match="question_date"):
        parse_longmemeval_date("May 20, 2023", where="question_date")


# ---------------------------------------------------------------------------- LoCoMo


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    return write_json(tmp_path / "locomo.json", [locomo_sample()])


def test_load_locomo_conversation_shape(locomo_file):
    conversations, _ = load_locomo(locomo_file)
    (conv,) = conversations
    assert conv.id == "conv-a"
    assert [s.id for s in conv.sessions] == ["session_1", "session_2", "session_30"]
    assert conv.sessions[0].date == _utc(2023, 5, 8, 13, 56)
    assert conv.sessions[2].turns[0].id == "D30:5"
    speakers = {t.speaker for s in conv.sessions for t in s.turns}
    assert speakers == {"Caroline", "Melanie"}
    assert {t.role for s in conv.sessions for t in s.turns} == {"user"}


def test_load_locomo_appends_image_caption_and_keeps_chinese(locomo_file):
    (conv,), _ = load_locomo(locomo_file)
    turns = {t.id: t.text for s in conv.sessions for t in s.turns}
    assert turns["D1:2"] == "Look at this! [shares a photo: a photo of a sunset over a lake]"
    assert turns["D1:1"] == "I went to a support group yesterday."
    assert turns["D1:3"] == "我下周去杭州出差。"


def test_load_locomo_never_reads_generated_summaries(locomo_file):
    (conv,), questions = load_locomo(locomo_file)
    texts = [t.text for s in conv.sessions for t in s.turns] + [q.text for q in questions]
    assert not any("LEAKED-SUMMARY" in text for text in texts)


def test_load_locomo_questions_evidence_and_categories(locomo_file):
    _, questions = load_locomo(locomo_file)
    got = {q.text: (q.category, q.evidence, q.evidence_sessions) for q in questions}
    assert got == {
        "When did Caroline go to the group?": ("temporal", ("D1:3",), ("session_1",)),
        "Which two?": ("multi-hop", ("D1:1", "D2:2"), ("session_1", "session_2")),
        "Pottery?": ("single-hop", ("D30:5",), ("session_30",)),
        "Colon form?": ("multi-hop", ("D1:2",), ("session_1",)),
        "Spaces?": ("open-domain", ("D2:1", "D2:2", "D1:1"), ("session_2", "session_1")),
    }
    assert all(q.conversation_id == "conv-a" and q.date is None for q in questions)
    assert len({q.id for q in questions}) == len(questions)


def test_load_locomo_drops_category_5_empty_and_unresolvable(locomo_file):
    _, questions = load_locomo(locomo_file)
    texts = {q.text for q in questions}
    assert "Adversarial?" not in texts
    assert "No evidence?" not in texts
    assert "Unresolvable?" not in texts


def test_load_locomo_rejects_unknown_category(tmp_path):
    sample = locomo_sample()
    sample["qa"] = [{"question": "?", "answer": "x", "evidence": ["D1:1"], "category": 7}]
    path = write_json(tmp_path / "bad.json", [sample])
    with pytest.raises(ValidationError, match="category"):
        load_locomo(path)


def test_load_locomo_rejects_missing_session_date(tmp_path):
    sample = locomo_sample()
    del sample["conversation"]["session_2_date_time"]
    path = write_json(tmp_path / "bad.json", [sample])
    with pytest.raises(ValidationError, match="session_2_date_time"):
        load_locomo(path)


def test_loaders_reject_missing_and_non_json_files(tmp_path):
    with pytest.raises(ValidationError, match="path"):
        load_locomo(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValidationError, match="expected JSON"):
        load_longmemeval(bad)
    obj = write_json(tmp_path / "obj.json", {"a": 1})
    with pytest.raises(ValidationError, match="JSON list"):
        load_locomo(obj)


# ---------------------------------------------------------------------------- LongMemEval


@pytest.mark.parametrize("name", ["lme.json", "lme.json.gz"])
def test_load_longmemeval_skips_abs_and_no_user_evidence(tmp_path, name):
    items = load_longmemeval(write_json(tmp_path / name, lme_data()))
    assert [q.id for _, q in items] == ["q1"]


def test_load_longmemeval_gold_turns_and_sessions(tmp_path):
    ((conv, q),) = load_longmemeval(write_json(tmp_path / "lme.json", lme_data()))
    assert q.evidence == ("answer_a1#3", "answer_a2#1")
    assert q.evidence_sessions == ("answer_a1", "answer_a2")
    assert q.category == "single-session-user"
    assert q.conversation_id == conv.id == "q1"
    assert q.date == _utc(2023, 6, 23, 7, 31)


def test_load_longmemeval_sessions_turn_ids_roles_dates(tmp_path):
    ((conv, _),) = load_longmemeval(write_json(tmp_path / "lme.json", lme_data()))
    assert [s.id for s in conv.sessions] == ["sharegpt_x", "answer_a1", "answer_a2"]
    assert [t.id for t in conv.sessions[1].turns] == ["answer_a1#1", "answer_a1#2", "answer_a1#3"]
    assert [t.role for t in conv.sessions[1].turns] == ["user", "assistant", "user"]
    assert conv.sessions[2].turns[0].text == "我喜欢喝美式咖啡。"
    assert conv.sessions[0].date == _utc(2023, 5, 10, 0, 15)
    assert conv.session_of()["answer_a2#2"] == "answer_a2"


def test_user_turns_only_keeps_ids_and_sessions(tmp_path):
    ((conv, q),) = load_longmemeval(write_json(tmp_path / "lme.json", lme_data()))
    users = user_turns_only(conv)
    assert [s.id for s in users.sessions] == [s.id for s in conv.sessions]
    ids = [t.id for s in users.sessions for t in s.turns]
    assert ids == ["sharegpt_x#1", "answer_a1#1", "answer_a1#3", "answer_a2#1"]
    assert set(q.evidence) <= users.turn_ids()


def test_load_longmemeval_rejects_mismatched_lengths_and_roles(tmp_path):
    entry = lme_data()[0]
    entry["haystack_dates"] = entry["haystack_dates"][:1]
    with pytest.raises(ValidationError, match="equal length"):
        load_longmemeval(write_json(tmp_path / "a.json", [entry]))
    entry = lme_data()[0]
    entry["haystack_sessions"][1][1]["role"] = "system"
    with pytest.raises(ValidationError, match="role"):
        load_longmemeval(write_json(tmp_path / "b.json", [entry]))


# ---------------------------------------------------------------------------- real data (optional)

DATA = Path(os.environ.get("OPENCLAW_EVAL_DATA", "/work/shared/data"))


@pytest.mark.slow
@pytest.mark.skipif(
    not (DATA / "locomo" / "locomo_dev5.json").is_file(), reason="benchmark data not present"
)
def test_real_locomo_dev5_counts():
    conversations, questions = load_locomo(DATA / "locomo" / "locomo_dev5.json")
    assert [c.id for c in conversations] == ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"]
    assert len(questions) == 760
    assert any("D11:26" in q.evidence for q in questions)
