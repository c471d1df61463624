"""The benchmark runner, driven by small fake systems over hand-made benchmark files."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from openclaw_memory.errors import ValidationError
from openclaw_memory_bench.evaluate.datasets import (
    Conversation,
    EvalSession,
    EvalTurn,
    Question,
    user_turns_only,
)
from openclaw_memory_bench.evaluate.progress import ProgressBar
from openclaw_memory_bench.evaluate.report import format_report
from openclaw_memory_bench.evaluate.runner import (
    EvalSystem,
    render_full_context,
    run_locomo,
    run_longmemeval,
)
from openclaw_memory.core.tokens import count_tokens

METRIC_NAMES = ("recall_all", "recall_any", "evidence_recall", "ndcg_any")
TOP_KEYS = {
    "dataset",
    "retriever",
    "questions",
    "overall",
    "by_category",
    "injected",
    "latency_ms",
    "ingest",
}


def _turn(speaker: str, dia_id: str, text: str) -> dict:
    return {"speaker": speaker, "dia_id": dia_id, "text": text}


def _sample(sample_id: str, questions: list[tuple[str, list[str], int]]) -> dict:
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                _turn("Ann", "D1:1", "I adopted a cat named Miso."),
                _turn("Bo", "D1:2", "Cute! I started pottery."),
            ],
            "session_2_date_time": "9:00 am on 2 June, 2023",
            "session_2": [
                _turn("Ann", "D2:1", "我在学做陶艺。"),
                _turn("Bo", "D2:2", "Miso knocked over my vase."),
            ],
        },
        "qa": [
            {"question": q, "answer": "x", "evidence": ev, "category": c} for q, ev, c in questions
        ],
    }


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    data = [
        _sample(
            "conv-1",
            [
                ("What cat?", ["D1:1"], 4),
                ("Cat and vase?", ["D1:1", "D2:2"], 1),
                ("Skip me", ["D1:1"], 5),
            ],
        ),
        _sample("conv-2", [("Pottery?", ["D1:2"], 2), ("陶艺?", ["D2:1"], 4)]),
    ]
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def lme_file(tmp_path: Path) -> Path:
    def entry(qid: str, qtype: str) -> dict:
        return {
            "question_id": qid,
            "question_type": qtype,
            "question": "Where are my sneakers?",
            "answer": "closet",
            "question_date": "2023/06/23 (Fri) 07:31",
            "haystack_session_ids": ["noise_1", "answer_1"],
            "haystack_dates": ["2023/05/01 (Mon) 10:00", "2023/05/02 (Tue) 11:00"],
            "haystack_sessions": [
                [
                    {"role": "user", "content": "Tell me a joke."},
                    {"role": "assistant", "content": "Knock knock."},
                ],
                [
                    {"role": "user", "content": "Hi", "has_answer": False},
                    {"role": "assistant", "content": "Hello", "has_answer": False},
                    {
                        "role": "user",
                        "content": "My sneakers are in the closet rack.",
                        "has_answer": True,
                    },
                ],
            ],
            "answer_session_ids": ["answer_1"],
        }

    path = tmp_path / "lme.json"
    path.write_text(
        json.dumps(
            [
                entry("q1", "knowledge-update"),
                entry("q2_abs", "knowledge-update"),
                entry("q3", "single-session-user"),
            ]
        ),
        encoding="utf-8",
    )
    return path


class ScriptedSystem:
    """A fake EvalSystem: the ranking scripted per question text, else the gold (an oracle)."""

    name = "scripted"

    def __init__(
        self, script: dict[str, list[set[str]]] | None = None, inject_tokens: int = 42
    ) -> None:
        self.script = script or {}
        self.inject_tokens = inject_tokens
        self.calls: list[tuple] = []
        self.conversation: Conversation | None = None

    def reset(self, conversation_id: str) -> None:
        self.calls.append(("reset", conversation_id))
        self.conversation = None

    def ingest(self, conversation: Conversation, *, user_only: bool) -> int:
        self.calls.append(("ingest", conversation.id, user_only))
        self.conversation = user_turns_only(conversation) if user_only else conversation
        return len(self.conversation.turn_ids())

    def retrieve(self, question: Question, k: int) -> list[frozenset[str]]:
        self.calls.append(("retrieve", question.id, k))
        if question.text in self.script:
            return [frozenset(s) for s in self.script[question.text]]
        return [frozenset({e}) for e in question.evidence]

    def injected(self, question: Question) -> tuple[list[frozenset[str]], int]:
        return self.retrieve(question, 2)[:2], self.inject_tokens


def _expected_keys(ks: tuple[int, ...], prefixes: tuple[str, ...] = ("",)) -> set[str]:
    return {f"{p}{m}@{k}" for p in prefixes for k in ks for m in METRIC_NAMES}


def test_fake_satisfies_protocol():
    assert isinstance(ScriptedSystem(), EvalSystem)


def test_run_locomo_json_shape(locomo_file):
    result = run_locomo(ScriptedSystem(), locomo_file)
    assert set(result) == TOP_KEYS
    assert result["dataset"] == "locomo"
    assert result["retriever"] == "scripted"
    assert result["questions"] == 4
    assert set(result["overall"]) == _expected_keys((5, 10, 20))
    assert set(result["by_category"]) == {"single-hop", "multi-hop", "temporal"}
    for row in result["by_category"].values():
        assert set(row) == set(result["overall"])
    assert set(result["injected"]) == {"recall_all", "tokens_mean", "full_context_tokens_mean"}
    assert set(result["latency_ms"]) == {"p50", "p95"}
    assert set(result["ingest"]) == {"items", "seconds"}
    assert json.loads(json.dumps(result)) == result


def test_run_locomo_oracle_scores_one_and_counts_costs(locomo_file, tmp_path):
    system = ScriptedSystem()
    result = run_locomo(system, locomo_file, ks=(1, 2))
    assert result["overall"]["recall_all@2"] == 1.0
    assert result["overall"]["recall_all@1"] == 0.75  # the two-turn question needs two places
    assert result["overall"]["evidence_recall@1"] == pytest.approx((1 + 0.5 + 1 + 1) / 4)
    assert result["injected"]["recall_all"] == 1.0
    assert result["injected"]["tokens_mean"] == 42
    assert result["ingest"]["items"] == 8
    assert result["latency_ms"]["p95"] >= result["latency_ms"]["p50"] >= 0.0
    ingests = [c for c in system.calls if c[0] == "ingest"]
    assert ingests == [("ingest", "conv-1", False), ("ingest", "conv-2", False)]
    assert {c[2] for c in system.calls if c[0] == "retrieve"} >= {2}


def test_run_locomo_hand_computed_scripted_ranking(locomo_file):
    script = {
        "What cat?": [{"D2:2"}, {"D1:1"}],  # found at rank 2
        "Cat and vase?": [{"D1:1", "D2:2"}],  # one memory covering both turns
        "Pottery?": [{"D2:1"}],  # miss
        "陶艺?": [{"D1:1"}, {"D1:2"}, {"D2:1"}],  # found at rank 3
    }
    result = run_locomo(ScriptedSystem(script), locomo_file, ks=(1, 3))
    overall = result["overall"]
    assert overall["recall_all@1"] == pytest.approx(1 / 4)
    assert overall["recall_all@3"] == pytest.approx(3 / 4)
    assert overall["ndcg_any@3"] == pytest.approx((1.0 + 0.5 + 0.0 + 1 / 1.584962500721156) / 4)
    assert result["by_category"]["temporal"]["recall_any@3"] == 0.0
    assert result["by_category"]["single-hop"]["recall_all@1"] == 0.0
    assert result["by_category"]["single-hop"]["recall_all@3"] == 1.0


def test_run_locomo_limit_ingests_only_needed_conversations(locomo_file):
    system = ScriptedSystem()
    result = run_locomo(system, locomo_file, limit=2)
    assert result["questions"] == 2
    assert [c[1] for c in system.calls if c[0] == "reset"] == ["conv-1"]


def test_run_locomo_progress_called_per_question(locomo_file):
    seen: list[tuple[int, int]] = []
    run_locomo(ScriptedSystem(), locomo_file, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_full_context_tokens_use_locomo_rendering(locomo_file):
    result = run_locomo(ScriptedSystem(), locomo_file, limit=1)
    conv = Conversation(
        id="conv-1",
        sessions=(
            EvalSession(
                "session_1",
                0.0,
                (
                    EvalTurn("D1:1", "Ann", "user", "I adopted a cat named Miso."),
                    EvalTurn("D1:2", "Bo", "user", "Cute! I started pottery."),
                ),
            ),
        ),
    )
    text = render_full_context(conv)
    assert text == (
        "DATE: 12:00 am on 1 January, 1970\nCONVERSATION:\n"
        'Ann said, "I adopted a cat named Miso."\nBo said, "Cute! I started pottery."'
    )
    assert result["injected"]["full_context_tokens_mean"] > count_tokens(text)


def test_run_longmemeval_prefixed_keys_user_only_and_reset_per_question(lme_file):
    system = ScriptedSystem()
    result = run_longmemeval(system, lme_file, ks=(5, 10))
    assert set(result) == TOP_KEYS
    assert result["dataset"] == "longmemeval"
    assert result["questions"] == 2
    assert set(result["overall"]) == _expected_keys((5, 10), ("session.", "turn."))
    assert set(result["by_category"]) == {"knowledge-update", "single-session-user"}
    assert [c for c in system.calls if c[0] in ("reset", "ingest")] == [
        ("reset", "q1"),
        ("ingest", "q1", True),
        ("reset", "q3"),
        ("ingest", "q3", True),
    ]
    assert result["ingest"]["items"] == 2 * 3  # user turns only


def test_run_longmemeval_session_level_dedupes(lme_file):
    script = {"Where are my sneakers?": [{"noise_1#1"}, {"answer_1#1"}, {"answer_1#3"}]}
    result = run_longmemeval(ScriptedSystem(script), lme_file, ks=(1, 2))
    o = result["overall"]
    assert o["turn.recall_all@2"] == 0.0
    assert o["session.recall_all@2"] == 1.0  # answer_1 is the 2nd distinct session
    assert o["session.recall_all@1"] == 0.0
    assert o["session.ndcg_any@2"] == 1.0


def test_run_longmemeval_limit(lme_file):
    result = run_longmemeval(ScriptedSystem(), lme_file, limit=1)
    assert result["questions"] == 1


@pytest.mark.parametrize(
    ("attr", "value", "match"),
    [
        ("retrieve", lambda q, k: ["D1:1"], "retrieve"),
        ("retrieve", lambda q, k: "D1:1", "retrieve"),
        ("ingest", lambda c, user_only: None, "ingest"),
        ("injected", lambda q: ([frozenset({"D1:1"})], -1), "injected"),
        ("injected", lambda q: [frozenset({"D1:1"})], "injected"),
    ],
)
def test_runner_rejects_malformed_system_output(locomo_file, attr, value, match):
    system = ScriptedSystem()
    setattr(system, attr, value)
    with pytest.raises(ValidationError, match=match):
        run_locomo(system, locomo_file)


@pytest.mark.parametrize(
    ("kwargs", "match"), [({"ks": ()}, "ks"), ({"ks": (0, 5)}, "ks"), ({"limit": 0}, "limit")]
)
def test_runner_rejects_bad_arguments(locomo_file, kwargs, match):
    with pytest.raises(ValidationError, match=match):
        run_locomo(ScriptedSystem(), locomo_file, **kwargs)


def test_format_report_lists_metrics_categories_and_costs(locomo_file, lme_file):
    text = format_report(run_locomo(ScriptedSystem(), locomo_file, ks=(5, 10)))
    assert "locomo | retriever: scripted | questions: 4" in text
    assert "recall_all" in text and "@10" in text
    for category in ("multi-hop", "single-hop", "temporal"):
        assert category in text
    assert "tokens 42" in text
    lme_text = format_report(run_longmemeval(ScriptedSystem(), lme_file))
    assert "session.ndcg_any" in lme_text and "turn.recall_all@20" in lme_text


def test_progress_bar_draws_one_line():
    stream = io.StringIO()
    bar = ProgressBar("locomo", width=10, stream=stream)
    for done in range(1, 5):
        bar(done, 4)
    out = stream.getvalue()
    assert out.endswith("locomo [##########] 4/4 100.0%\n")
    assert out.count("\n") == 1
    assert "\r" in out
    assert bar.render(1, 4) == "locomo [##........] 1/4  25.0%"
    assert ProgressBar(stream=io.StringIO()).render(0, 0).startswith("[")
