"""Structured session summaries: extractive and LLM paths, zh and en, bounded and secret-free."""

from __future__ import annotations

import json

import pytest

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.extract.base import DEFAULT_PROMPTS_DIR
from openclaw_memory.extract.summary import (
    Decision,
    StructuredSummary,
    Summarizer,
    dominant_language,
)
from openclaw_memory.llm import ScriptedLLM
from openclaw_memory.types import Message

CLOCK = FakeClock(1_709_510_400.0)  # 2024-03-04

ZH_SESSION = [
    Message("user", "我们要做一个记账小程序，预算不能超过五千元。"),
    Message("assistant", "好的。"),
    Message("assistant", "我建议采用 SQLite，因为它不用单独部署。"),
    Message("user", "那就决定用 SQLite。下一步先把表结构设计好。登录方案还没确定。"),
    Message("user", "要不要支持多币种？"),
]
EN_SESSION = [
    Message("user", "We need a budget app and it must run offline."),
    Message("assistant", "We decided to use SQLite because it needs no server."),
    Message("assistant", "Next, I will design the schema."),
    Message("user", "Should we add sync later?"),
]


def extractive() -> Summarizer:
    return Summarizer(None, "/nonexistent/prompts", CLOCK)


def test_extractive_summary_zh_fills_every_section() -> None:
    s = extractive().summarize(ZH_SESSION, ["t1", "t2", "t2", "t4"])
    assert any("预算不能超过五千元" in g for g in s.goals_constraints)
    assert any("决定用 SQLite" in d.decision for d in s.decisions)
    assert any("SQLite" in d.decision and "不用单独部署" in d.reason for d in s.decisions)
    assert any("登录方案还没确定" in q for q in s.open_questions)
    assert any("多币种" in q for q in s.open_questions)
    assert any("表结构" in n for n in s.next_steps)
    assert s.evidence_ids == ("t1", "t2", "t4")


def test_extractive_summary_en_fills_every_section() -> None:
    s = extractive().summarize(EN_SESSION, ["e1"])
    assert s.goals_constraints == ("We need a budget app and it must run offline.",)
    assert s.decisions == (Decision("We decided to use SQLite", "it needs no server"),)
    assert s.open_questions == ("Should we add sync later?",)
    assert s.next_steps == ("Next, I will design the schema.",)


def test_reason_in_the_following_sentence_attaches_to_the_decision() -> None:
    s = extractive().summarize([Message("user", "我们选用 Postgres。因为需要事务。")], [])
    assert s.decisions == (Decision("我们选用 Postgres", "需要事务"),)
    s = extractive().summarize([Message("user", "因为要离线运行，所以我们采用 SQLite。")], [])
    assert s.decisions == (Decision("我们采用 SQLite", "要离线运行"),)


@pytest.mark.parametrize(
    ("session", "headings", "absent"),
    [
        (
            ZH_SESSION,
            ("目标与约束：", "关键决策：", "未决问题：", "下一步：", "证据："),
            "Open questions",
        ),
        (
            EN_SESSION,
            (
                "Goals and constraints:",
                "Key decisions:",
                "Open questions:",
                "Next steps:",
                "Evidence: ",
            ),
            "目标",
        ),
    ],
)
def test_render_is_prose_with_headings_in_the_dominant_language(
    session: list[Message], headings: tuple[str, ...], absent: str
) -> None:
    text = extractive().summarize(session, ["t1", "t2"]).render()
    for heading in headings:
        assert heading in text
    assert absent not in text
    for leak in ("{", "}", "goals_constraints", "evidence_ids", "Decision("):
        assert leak not in text


def test_render_shows_reasons_and_omits_empty_sections() -> None:
    s = StructuredSummary(
        decisions=(Decision("Use SQLite", "no server needed"),), evidence_ids=("t9",)
    )
    assert s.render() == "Key decisions:\n- Use SQLite (reason: no server needed)\nEvidence: t9"
    zh = StructuredSummary(decisions=(Decision("采用 SQLite", "零部署"),))
    assert zh.render() == "关键决策：\n- 采用 SQLite（理由：零部署）"
    assert StructuredSummary(evidence_ids=("t1",)).render() == ""
    assert StructuredSummary().is_empty


def test_summary_is_bounded() -> None:
    long = "我们决定采用方案" + "甲乙丙丁" * 200 + "。"
    messages = [Message("user", f"我们决定采用方案{i}。") for i in range(20)] + [
        Message("user", long)
    ]
    s = Summarizer(None, "/nonexistent", CLOCK, max_items=3, max_item_tokens=20).summarize(
        messages, []
    )
    assert len(s.decisions) == 3
    assert all(len(d.decision) < 60 for d in s.decisions)
    assert s.decisions[-1].decision.endswith("…")


def test_secrets_never_reach_the_summary() -> None:
    messages = [
        Message("user", "我们决定用 Postgres，数据库密码是 Pg_pass_2024。"),
        Message("user", "Next we will rotate key sk-9aZbYcXdWeVfUgThSiRjQkPlOm8n7 tomorrow."),
    ]
    text = extractive().summarize(messages, []).render()
    assert "Pg_pass_2024" not in text and "sk-9aZb" not in text
    assert "Postgres" in text


def test_contentless_and_tool_messages_are_ignored() -> None:
    messages = [
        Message("user", "好的谢谢"),
        Message("tool", "We decided nothing; must ignore tools."),
        Message("system", "You must be helpful."),
    ]
    assert extractive().summarize(messages, ["t1"]).is_empty


def llm_summarizer(*replies: object) -> tuple[Summarizer, ScriptedLLM]:
    llm = ScriptedLLM(replies)  # type: ignore[arg-type]
    return Summarizer(llm, DEFAULT_PROMPTS_DIR, CLOCK, timeout_seconds=2.0), llm


def test_llm_summary_is_parsed_and_bounded() -> None:
    reply = json.dumps(
        {
            "goals_constraints": ["预算不超过五千元"],
            "decisions": [{"decision": "采用 SQLite", "reason": "零部署"}, "先做 Web 版"],
            "open_questions": ["是否支持多币种"],
            "next_steps": [f"步骤{i}" for i in range(9)],
        },
        ensure_ascii=False,
    )
    summarizer, llm = llm_summarizer(reply)
    s = summarizer.summarize(ZH_SESSION, ["t1"])
    assert s.decisions == (Decision("采用 SQLite", "零部署"), Decision("先做 Web 版", ""))
    assert s.goals_constraints == ("预算不超过五千元",) and len(s.next_steps) == 5
    assert s.evidence_ids == ("t1",)
    (prompt,) = llm.prompts
    assert "2024-03-04" in prompt and "记账小程序" in prompt and "{conversation}" not in prompt


@pytest.mark.parametrize(
    "reply",
    [
        "Here is a summary: we chose SQLite.",
        '{"summary": "we chose SQLite"}',
        RuntimeError("provider down"),
    ],
)
def test_llm_summary_falls_back_to_extractive(reply: object) -> None:
    summarizer, _ = llm_summarizer(reply)
    assert summarizer.summarize(EN_SESSION, ["e1"]) == extractive().summarize(EN_SESSION, ["e1"])


def test_llm_summary_output_is_secret_filtered() -> None:
    reply = '{"decisions": [{"decision": "Use key sk-9aZbYcXdWeVfUgThSiRjQkPlOm8n7", "reason": "x"}], "next_steps": ["Ship it"]}'
    summarizer, _ = llm_summarizer(reply)
    s = summarizer.summarize(EN_SESSION, [])
    assert "sk-9aZb" not in s.render() and s.next_steps == ("Ship it",)


@pytest.mark.parametrize(
    ("texts", "language"),
    [
        (["我们决定采用 PostgreSQL 数据库"], "zh"),
        (["We chose the plan 张三 proposed for the launch"], "en"),
        (["Use SQLite", "下一步设计表结构并完成接口"], "zh"),
        ([], "en"),
    ],
)
def test_dominant_language(texts: list[str], language: str) -> None:
    assert dominant_language(texts) == language
