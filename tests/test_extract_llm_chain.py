"""The LLM chain with a scripted LLM: good output, garbage, errors and timeouts fall back."""

from __future__ import annotations

import json
import logging
import sys
import time
import types
from pathlib import Path

import pytest

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.config import LLMConfig
from openclaw_memory.errors import ConfigError, ExtractionError, ValidationError
from openclaw_memory.extract.base import Extractor
from openclaw_memory.extract.llm_chain import LLMExtractor, parse_items
from openclaw_memory.extract.base import DEFAULT_PROMPTS_DIR
from openclaw_memory.extract.base import load_prompt
from openclaw_memory.extract.rules import RuleExtractor
from openclaw_memory.llm import ScriptedLLM, build_llm
from openclaw_memory.types import Channel, MemoryType, Scope, Turn

MARCH_4_2024 = 1_709_510_400.0  # 2024-03-04 00:00 UTC


def turn(text: str, assistant: str = "", turn_id: str = "t7") -> Turn:
    return Turn(Scope("u1"), "s1", text, assistant=assistant, turn_id=turn_id)


def chain(
    *replies: object, delay: float = 0.0, timeout: float | None = 2.0
) -> tuple[LLMExtractor, ScriptedLLM]:
    clock = FakeClock(MARCH_4_2024)
    llm = ScriptedLLM(replies, delay_seconds=delay)  # type: ignore[arg-type]
    return LLMExtractor(
        llm, RuleExtractor(clock), DEFAULT_PROMPTS_DIR, clock, timeout_seconds=timeout
    ), llm


GOOD = json.dumps(
    [
        {
            "type": "profile",
            "subject": "Location",
            "fact": "用户住在杭州",
            "certainty": 0.9,
            "replaces": "location",
            "entities": ["杭州"],
        },
        {
            "type": "preference",
            "subject": "drink",
            "fact": "The user prefers tea",
            "certainty": 90,
            "tags": "like",
        },
        {"type": "mood", "fact": "用户今天很开心", "certainty": 0.9},
    ],
    ensure_ascii=False,
)


def test_llm_extractor_is_an_extractor() -> None:
    assert isinstance(chain()[0], Extractor)


def test_good_json_becomes_typed_candidates() -> None:
    extractor, llm = chain(GOOD)
    found = extractor.extract(turn("我搬到杭州了，最近喜欢喝茶"))
    assert [(c.type, c.subject) for c in found] == [
        (MemoryType.PROFILE, "location"),
        (MemoryType.PREFERENCE, "drink"),
    ]  # the unknown type "mood" is dropped
    location, drink = found
    assert location.channel is Channel.IMPLICIT and location.turn_ids == ("t7",)
    assert location.replaces == "location" and location.detail is None
    assert drink.replaces is None
    assert location.entities == ("杭州",)
    assert drink.confidence == pytest.approx(0.9) and drink.tags == ("like",)
    assert len(llm.prompts) == 1


def test_prompt_is_filled_with_the_clock_date_and_the_secret_free_turn() -> None:
    extractor, llm = chain("[]")
    extractor.extract(turn("我住在杭州，密码是hunter22", assistant="好的，记下了"))
    (prompt,) = llm.prompts
    assert "2024-03-04" in prompt
    assert "我住在杭州" in prompt and "好的，记下了" in prompt
    assert "hunter22" not in prompt
    assert "{today}" not in prompt and "{conversation}" not in prompt


def test_code_fenced_json_is_accepted() -> None:
    extractor, _ = chain("Here you go:\n```json\n" + GOOD + "\n```")
    assert len(extractor.extract(turn("我搬到杭州了"))) == 2


@pytest.mark.parametrize(
    "reply",
    [
        "Sure! The user lives in Hangzhou.",
        "{not json at all",
        '[{"kind": "profile", "text": "no fact field"}]',
        '{"a": 1, "b": 2}',
    ],
)
def test_malformed_output_falls_back_to_rules(reply: str, caplog: pytest.LogCaptureFixture) -> None:
    extractor, _ = chain(reply)
    t = turn("我住在杭州")
    with caplog.at_level(logging.WARNING):
        found = extractor.extract(t)
    assert found == RuleExtractor(FakeClock()).extract(t)
    assert [c.subject for c in found] == ["location"]
    records = [r for r in caplog.records if "using the rule chain" in r.getMessage()]
    assert len(records) == 1 and "\n" not in records[0].getMessage()


def test_provider_exception_falls_back_to_rules(caplog: pytest.LogCaptureFixture) -> None:
    extractor, _ = chain(RuntimeError("HTTP 500 from provider"))
    with caplog.at_level(logging.WARNING):
        found = extractor.extract(turn("I live in Berlin"))
    assert [c.subject for c in found] == ["location"]
    assert "RuntimeError" in caplog.text


def test_timeout_falls_back_quickly() -> None:
    extractor, llm = chain(GOOD, delay=1.0, timeout=0.05)
    started = time.perf_counter()
    found = extractor.extract(turn("I prefer tea"))
    assert time.perf_counter() - started < 0.8
    assert [(c.subject, c.channel) for c in found] == [("drink", Channel.IMPLICIT)]
    assert len(llm.prompts) == 1


def test_explicit_command_survives_the_llm() -> None:
    reply = json.dumps(
        [
            {
                "type": "preference",
                "subject": "drink",
                "fact": "用户可能喜欢咖啡",
                "certainty": 0.5,
            },
            {
                "type": "task",
                "subject": "task/report",
                "fact": "用户周五要交报告",
                "certainty": 0.9,
            },
        ],
        ensure_ascii=False,
    )
    extractor, _ = chain(reply)
    found = extractor.extract(turn("记住我喜欢喝咖啡。周五要交报告"))
    explicit = [c for c in found if c.channel is Channel.EXPLICIT]
    assert [(c.subject, c.summary) for c in explicit] == [("drink", "用户喜欢喝咖啡")]
    assert [c.subject for c in found] == ["drink", "task/report"]  # the LLM's drink copy is dropped


@pytest.mark.parametrize("text", ["忘掉我喜欢喝咖啡", "Forget that I like coffee"])
def test_forget_command_survives_an_empty_llm_answer(text: str) -> None:
    extractor, _ = chain("[]")
    (c,) = extractor.extract(turn(text))
    assert c.forget and c.subject == "drink"


def test_standing_rule_survives_even_when_the_llm_disagrees() -> None:
    reply = '[{"type": "preference", "subject": "reply_language", "fact": "The user wants English", "certainty": 0.6}]'
    extractor, _ = chain(reply)
    found = extractor.extract(turn("以后用中文回复"))
    assert [(c.subject, c.channel) for c in found] == [("reply_language", Channel.EXPLICIT)]
    assert "中文" in found[0].summary


def test_items_that_repeat_a_secret_are_dropped() -> None:
    reply = json.dumps(
        [
            {"type": "fact", "fact": "The user's password is hunter22x", "certainty": 0.9},
            {
                "type": "profile",
                "subject": "name",
                "fact": "The user's name is Bob",
                "certainty": 0.9,
                "entities": ["Bob", "13812345678"],
            },
        ]
    )
    extractor, _ = chain(reply)
    (c,) = extractor.extract(turn("I'm Bob"))
    assert c.subject == "name" and c.entities == ("Bob",)


def test_contentless_turn_never_reaches_the_llm() -> None:
    extractor, llm = chain(GOOD)
    assert extractor.extract(turn("好的，谢谢")) == []
    assert extractor.extract(turn("my password is hunter22")) == []
    assert llm.prompts == [] and llm.remaining == 1


def test_parse_items_rules() -> None:
    assert parse_items("[]") == []
    assert [i.fact for i in parse_items('{"facts": [{"type": "fact", "fact": "x"}]}')] == ["x"]
    with pytest.raises(ExtractionError):
        parse_items('[{"type": "fact"}]')
    with pytest.raises(ExtractionError):
        parse_items("nothing here")


# --- the LLM adapter -------------------------------------------------------------------------


def test_scripted_llm_records_prompts_and_raises_when_empty() -> None:
    llm = ScriptedLLM(["one"])
    assert llm.complete("p1").text == "one"
    with pytest.raises(ExtractionError, match="no scripted reply"):
        llm.complete("p2")
    assert llm.prompts == ["p1", "p2"]


def test_build_llm_none_and_scripted() -> None:
    assert build_llm(LLMConfig(provider="none")) is None
    assert isinstance(build_llm(LLMConfig(provider="scripted")), ScriptedLLM)


def test_build_llm_rejects_unknown_provider_and_missing_model() -> None:
    with pytest.raises(ConfigError, match="extraction.llm.provider"):
        build_llm(LLMConfig(provider="magic"))
    with pytest.raises(ConfigError, match="extraction.llm.model"):
        build_llm(LLMConfig(provider="openai_like", model=""))


def test_build_llm_openai_like_missing_package_gives_install_hint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "llama_index.llms.openai_like", None)
    with pytest.raises(
        ConfigError, match=r"llama-index-llms-openai-like.*pip install 'openclaw-memory\[openai\]'"
    ):
        build_llm(LLMConfig(provider="openai_like", model="qwen2.5"))


def test_build_llm_openai_like_passes_timeout_and_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    class FakeOpenAILike:
        def __init__(self, **kwargs: object) -> None:
            self.kwargs = kwargs

    package = types.ModuleType("llama_index.llms")
    module = types.ModuleType("llama_index.llms.openai_like")
    module.OpenAILike = FakeOpenAILike  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "llama_index.llms", package)
    monkeypatch.setitem(sys.modules, "llama_index.llms.openai_like", module)
    cfg = LLMConfig(
        provider="openai_like",
        model="qwen2.5",
        api_base="http://127.0.0.1:8000/v1",
        api_key_env="MY_LLM_KEY",
        timeout_seconds=7.5,
    )
    llm = build_llm(cfg, env={"MY_LLM_KEY": "k-123"})
    assert isinstance(llm, FakeOpenAILike)
    assert llm.kwargs["timeout"] == 7.5 and llm.kwargs["api_key"] == "k-123"
    assert llm.kwargs["model"] == "qwen2.5" and llm.kwargs["api_base"] == "http://127.0.0.1:8000/v1"


# --- prompt files ----------------------------------------------------------------------------


def test_prompt_files_declare_their_variables() -> None:
    assert load_prompt(DEFAULT_PROMPTS_DIR, "extract_facts.txt").variables == {
        "today",
        "conversation",
    }
    assert load_prompt(DEFAULT_PROMPTS_DIR, "summarize_session.txt").variables == {
        "today",
        "conversation",
    }


def test_prompt_fill_names_missing_and_unknown_variables(tmp_path: Path) -> None:
    (tmp_path / "p.txt").write_text('Today {today}. Example: {"type": "fact"}', encoding="utf-8")
    prompt = load_prompt(tmp_path, "p.txt")
    assert prompt.fill(today="2024-03-04") == 'Today 2024-03-04. Example: {"type": "fact"}'
    with pytest.raises(ValidationError, match=r"p.txt: variable \{today\}"):
        prompt.fill()
    with pytest.raises(ValidationError, match="unknown variable 'tomorrow'"):
        prompt.fill(today="x", tomorrow="y")
    with pytest.raises(ConfigError, match="missing.txt"):
        load_prompt(tmp_path, "missing.txt")
