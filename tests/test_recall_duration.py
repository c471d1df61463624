"""A question that asks how long ("How long have I been working in my current role?", 干了多久)
is answered by a memory that states a length of time ("my 3 years and 9 months in the
company", 干了三年): such a memory is of the form of its answer and gets half the structure
signal, as a memory of the type a request asks for does. Tables from the grammar (count x unit,
"since ...", the question frames), English and Chinese side by side."""

from __future__ import annotations

import itertools

import pytest

from openclaw_memory.config.schema import RecallConfig
from openclaw_memory.recall.query import build_query
from openclaw_memory.recall.rank import Calibration, components
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.recall.timeref import asks_duration, states_duration
from openclaw_memory.types import Candidate, MemoryRecord, MemoryType, Scope
from store_helpers import writer_of

ALICE = Scope("alice")

ASKS = (
    [
        f"{frame} {rest}"
        for frame, rest in itertools.product(
            ["How long", "how long", "For how long"],
            ["have I been working here?", "did the trip take?", "has Tim played the piano?"],
        )
    ]
    + [
        f"{who}{verb}{frame}？"
        for who, verb, frame in itertools.product(
            ["我", "王浩", "他"], ["干了", "学了", "等了", "推迟了"], ["多久", "多长时间"]
        )
    ]
    + ["我在这家公司工作了多少年？", "这个项目做了多少个月？"]
)
ASKS_NOT = [
    "How long ago did I move?",  # a point in time
    "When did I start working here?",
    "What is a long weekend?",
    "How far is the station?",
    "我什么时候开始上班的？",
    "多久以前的事了",  # 以前: a point
    "这条路有多长？",
]


@pytest.mark.parametrize("text", ASKS)
def test_a_question_of_how_long_asks_for_a_length_of_time(text):
    assert asks_duration(text)
    assert build_query(text).duration


@pytest.mark.parametrize("text", ASKS_NOT)
def test_other_questions_of_time_or_length_do_not(text):
    assert not asks_duration(text)


EN_COUNTS = ["2", "3", "12", "two", "three", "a few", "several", "a couple of", "an"]
EN_UNITS = ["hour", "day", "week", "month", "year"]
ZH_COUNTS = ["2", "两", "三", "十", "二十", "几", "半"]
ZH_UNITS = ["个小时", "天", "个星期", "周", "个月", "年"]


def _plural(count: str, unit: str) -> str:
    return unit if count in ("an", "a") else unit + "s"


STATES = (
    [
        f"I've been doing it for {c} {_plural(c, u)} now."
        for c, u in itertools.product(EN_COUNTS, EN_UNITS)
        if not (c == "an" and u not in ("hour",))
    ]
    + [f"我已经做了{c}{u}了。" for c, u in itertools.product(ZH_COUNTS, ZH_UNITS)]
    + [
        "I've been in marketing since 2019.",
        "We've been friends since high school.",
        "She has played since I was a kid.",
        "my 3 years and 9 months in the company",
        "我干了两个多月就走了。",
        "一年半以后我们搬了家。",
    ]
)
STATES_NOT = [
    "I moved here in March.",
    "I was born in 2019.",
    "I have four friends at work.",
    "The meeting is at 5 o'clock.",
    "我三月去了北京。",  # a month name, no length
    "我2019年毕业。",  # a year
    "我有三个朋友。",
    "我儿子上三年级了。",  # a school year
    "她喜欢八十年代的歌。",  # a decade
    "十月一号放假。",
]


@pytest.mark.parametrize("text", STATES)
def test_a_count_of_a_unit_of_time_states_a_length(text):
    assert states_duration(text)


@pytest.mark.parametrize("text", STATES_NOT)
def test_a_date_a_month_or_a_count_of_things_states_none(text):
    assert not states_duration(text)


@pytest.mark.parametrize(
    "question,memory,structure",
    [
        ("How long have I been at the bakery?", "I've been at the bakery for 3 years.", 0.5),
        ("How long have I been at the bakery?", "I love the bakery on Main Street.", 0.0),
        ("Where is the bakery?", "I've been at the bakery for 3 years.", 0.0),
        ("我在面包店干了多久？", "我在面包店干了三年。", 0.5),
        ("我在面包店干了多久？", "我喜欢那家面包店。", 0.0),
        ("面包店在哪里？", "我在面包店干了三年。", 0.0),
    ],
)
def test_a_length_of_time_is_half_the_structure_signal(question, memory, structure):
    r = MemoryRecord("m1", ALICE, MemoryType.EPISODE, memory)
    c = components(r, 0.8, build_query(question), 1_700_000_000.0, RecallConfig(), Calibration())
    assert c["structure"] == structure


CASES = {
    "en": (
        "How long have I been at the bakery?",
        "I have been at the bakery for 3 years.",
        [f"I have bought {x} at the bakery." for x in ["bread", "rolls", "a cake", "buns", "pie"]],
    ),
    "zh": (
        "我在面包店多久了？",
        "我在面包店三年了。",
        [f"我在面包店买了{x}。" for x in ["面包", "蛋糕", "饼干", "吐司", "布丁"]],
    ),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_memory_that_states_how_long_ranks_first(engine, lang):
    question, answer, fillers = CASES[lang]
    writer_of(engine).write(
        ALICE,
        [Candidate(MemoryType.EPISODE, t, turn_ids=(f"s1#{i}",)) for i, t in enumerate(fillers)],
    )
    writer_of(engine).write(ALICE, [Candidate(MemoryType.EPISODE, answer, turn_ids=("s2#1",))])
    result = Recaller(read_ports(engine), engine.config.recall).recall(ALICE, question, ())
    ranked = sorted((s for s in result.ranked if s.rank > 0), key=lambda s: s.rank)
    assert ranked[0].record.summary == answer, [(s.rank, s.record.summary[:40]) for s in ranked[:3]]
