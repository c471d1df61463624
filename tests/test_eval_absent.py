"""The absent-topic instrument (evaluate/absent.py): personal requests about what no turn names."""

from __future__ import annotations

import pytest

from openclaw_memory_bench.evaluate import absent
from openclaw_memory_bench.evaluate.datasets import Conversation, EvalSession, EvalTurn
from openclaw_memory_bench.evaluate.precision import Planned
from openclaw_memory_bench.evaluate.runner import run_locomo


def _chat(*turns: tuple[str, str], role: str = "user") -> Conversation:
    rows = tuple(EvalTurn(f"D1:{i + 1}", who, role, text) for i, (who, text) in enumerate(turns))
    return Conversation("c1", (EvalSession("s1", 1_767_571_200.0, rows),))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_language_asks_the_same_topics_in_both_forms(lang):
    topics = absent.topics(lang)
    assert len(topics) == len(absent.topics("zh" if lang == "en" else "en")) >= 10
    for t in topics:
        assert "{name}" in t["named"] and "{name}" not in t["self"] and t["words"]


@pytest.mark.parametrize(
    "lang,said,name,asked,skipped",
    [
        (
            "en",
            "I lost my passport at the airport, what a day.",
            "Caroline",
            "What is Caroline's blood type?",
            "What is Caroline's passport number?",
        ),
        (
            "zh",
            "我的护照丢在机场了，真倒霉。",
            "林晓",
            "林晓的血型是什么？",
            "林晓的护照号码是多少？",
        ),
    ],
)
def test_a_chat_is_asked_about_each_speaker_and_not_about_what_a_turn_names(
    lang, said, name, asked, skipped
):
    requests = absent.absent_requests(_chat((name, said), ("Mel", "Oh no!")), lang)
    assert asked in requests and skipped not in requests
    assert any("Mel" in r for r in requests)  # the other speaker too
    assert len(requests) == 2 * (len(absent.topics(lang)) - 1)


@pytest.mark.parametrize(
    "lang,said,asked",
    [
        ("en", "I walk my dog every morning.", "What's my blood type?"),
        ("zh", "我每天早上遛狗。", "我的血型是什么？"),
    ],
)
def test_a_users_own_store_is_asked_in_the_first_person(lang, said, asked):
    requests = absent.absent_requests(_chat(("user", said)), lang)
    assert asked in requests and len(requests) == len(absent.topics(lang))


class _Shows:
    """A system whose block shows one retrieved memory for requests holding `word`."""

    def __init__(self, word: str) -> None:
        self.word, self.asked = word, []

    def reset(self, conversation_id: str) -> None:
        pass

    def ingest(self, conversation: Conversation, *, user_only: bool) -> int:
        return 1

    def plan_for(self, text: str) -> Planned:
        self.asked.append(text)
        shown = int(self.word in text)
        return Planned("- a memory" if shown else "", shown, 0)


def test_eval_precision_counts_requests_that_show_a_retrieved_memory():
    system = _Shows("blood")
    result = absent.run_absent(system)
    assert set(result["by_lang"]) == {"en", "zh"}
    en = result["by_lang"]["en"]
    # one of the English topics names blood; the personas never do
    assert en["requests"] == sum(1 for t in system.asked if t.isascii())
    assert en["rate"] == round(5 / en["requests"], 4)  # five personas, one blood-type request each
    assert result["by_lang"]["zh"]["rate"] == 0.0


def test_a_locomo_run_reports_the_absent_section(tmp_path):
    import json

    data = [
        {
            "sample_id": "x",
            "conversation": {
                "speaker_a": "Ana",
                "speaker_b": "Bo",
                "session_1_date_time": "1:00 pm on 8 May, 2023",
                "session_1": [
                    {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat named Miso."},
                    {"speaker": "Bo", "dia_id": "D1:2", "text": "Cute! What breed?"},
                ],
            },
            "qa": [{"question": "What is Ana's cat called?", "evidence": ["D1:1"], "category": 4}],
        }
    ]
    path = tmp_path / "l.json"
    path.write_text(json.dumps(data), encoding="utf-8")

    class System(_Shows):
        def retrieve(self, question, k):
            return [frozenset({"D1:1"})]

        def injected(self, question):
            return [frozenset({"D1:1"})], 10

    result = run_locomo(System("Ana"), path)
    section = result["absent"]["by_lang"]["en"]
    assert section["requests"] == 2 * len(absent.topics("en"))
    assert section["rate"] == 0.5  # every request about Ana shows a memory, none about Bo
