"""A question about a profile subject in the subject's own vocabulary finds the profile fact
filed under it ("how old am I?" -> age; 我在哪儿上班 -> employer), English and Chinese."""

from __future__ import annotations

import pytest

from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.recall.subjects import asks_about
from openclaw_memory.text import has_cjk
from openclaw_memory.types import Candidate, MemoryType, Scope

ALICE = Scope("alice")


@pytest.mark.parametrize(
    "subject,text,asked",
    [
        ("age", "How old am I now?", True),
        ("age", "How many years older am I than when I graduated from college?", True),
        ("age", "我今年多大了？", True),
        ("age", "我今年几岁", True),
        ("age", "What did my older sister say about the trip?", False),
        ("age", "我姐姐住在哪里", False),
        ("degree/bachelor", "When did I graduate from college?", True),
        ("degree/master", "What did I study?", True),
        ("degree/bachelor", "我是哪年大学毕业的", True),
        ("school/state university", "Where did I go to university?", True),
        ("major", "我的专业是什么", True),
        ("degree/bachelor", "What should I cook tonight?", False),
        ("employer", "Where do I work these days?", True),
        ("job", "How long have I been working in my current role?", True),
        ("employer", "我在哪家公司上班", True),
        ("employer", "周末去哪里爬山", False),
        ("employer", "我现在在哪家公司？", True),
        ("employer", "我的车险是哪家保险公司的？", False),  # an insurer, not the user's company
        ("job", "我的工作室在哪？", False),  # a studio
        ("job", "我现在做什么工作？", True),
        ("location", "Which city do I live in?", True),
        ("hometown", "我老家是哪里的", True),
        ("birthday", "When is my birthday?", True),
        ("birthday", "我哪天出生的", True),
        ("reply_language", "How old am I?", False),  # no vocabulary: the subject's own word
    ],
)
def test_a_question_asks_about_a_subject_in_its_vocabulary(subject, text, asked):
    assert asks_about(subject, text) is asked


FACTS = [  # one user a language: a subject holds one value
    ("age", "The user is 32 years old"),
    ("degree/bachelor", "The user has a Bachelor's degree in Business Administration"),
    ("location", "The user lives in Denver"),
    ("employer", "The user works at Acme"),
]
FACTS_ZH = [
    ("age", "用户今年32岁"),
    ("degree/bachelor", "用户有学士学位"),
    ("employer", "用户在华为工作"),
    ("location", "用户住在杭州"),
]


@pytest.mark.parametrize(
    "question,asked_for",
    [
        (
            "How many years older am I than when I graduated from college?",
            {
                "The user is 32 years old",
                "The user has a Bachelor's degree in Business Administration",
            },
        ),
        ("我今年多大了？", {"用户今年32岁"}),
        ("我在哪儿上班？", {"用户在华为工作"}),
    ],
)
def test_the_fact_a_question_asks_about_gets_the_structure_signal(engine, question, asked_for):
    for subject, text in FACTS_ZH if has_cjk(question) else FACTS:
        engine.write(ALICE, [Candidate(MemoryType.PROFILE, text, subject=subject)])
    res = Recaller(engine, engine.config.recall).recall(ALICE, question)
    structured = {s.record.summary for s in res.ranked if s.components["structure"] >= 1.0}
    assert structured == asked_for
