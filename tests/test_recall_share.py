"""A request that asks several questions gives each its share of the ranking's head
(recall/head.py), English and Chinese side by side: the question whose words fewer memories
share still has its answers among the first places."""

from __future__ import annotations

import pytest

from openclaw_memory.core import switches_from
from openclaw_memory.lang import languages
from openclaw_memory.recall.channels import channel_switch
from openclaw_memory.recall.head import ranked_place
from openclaw_memory.recall.query import build_query
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of

ALICE = Scope("alice")

#: (request, its questions): the forms of a second question, both languages
SEVERAL = {
    "en": [
        (
            "Where does Tom work? Also, when did he move to Porto?",
            ("Where does Tom work?", "when did he move to Porto?"),
        ),
        ("What did Anna cook? Did she like it?", ("What did Anna cook?", "Did she like it?")),
    ],
    "zh": [
        (
            "有几个活动的地点在广东广州？另外，有几个人的年龄是60岁及以上呢？",
            ("有几个活动的地点在广东广州？", "有几个人的年龄是60岁及以上呢？"),
        ),
        ("我表姐在哪工作？她喜欢什么？", ("我表姐在哪工作？", "她喜欢什么？")),
    ],
}

#: requests of one question: "and" inside a question, a greeting before it
ONE = {
    "en": ["Where does Tom work and when did he move?", "Hi! Where does Tom work?"],
    "zh": ["我妹妹在哪里工作？", "你好！我妹妹在哪里工作？"],
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_request_of_several_questions_carries_each(lang):
    for request, asked in SEVERAL[lang]:
        assert build_query(request).questions == asked


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_request_of_one_question_carries_none(lang):
    for request in ONE[lang]:
        assert build_query(request).questions == ()
    off = languages(switches_from([f"{lang}.questions.another"]))
    assert build_query(SEVERAL[lang][0][0], langs=off).questions == ()


#: (request, the first question's memory, the second's): more memories share the first's words
STORES = {
    "en": (
        "Which food festivals with street music were held in Lisbon? Also, which relatives live "
        "in Porto?",
        "Food festival number {i} with street music was held in Lisbon.",
        ("My cousin lives in Porto.", "My uncle lives in Porto.", "My aunt lives in Porto."),
    ),
    "zh": (
        "有哪些带街头音乐的美食节在广州举办？另外，有几个亲戚住在杭州？",
        "第{i}届带街头音乐的美食节在广州举办。",
        ("我表姐住在杭州。", "我舅舅住在杭州。", "我叔叔住在杭州。"),
    ),
}


def _places(engine, lang: str, switches=None) -> list[str]:
    request, first, second = STORES[lang]
    for i in range(12):
        writer_of(engine).write(
            ALICE, [Candidate(MemoryType.FACT, first.format(i=i), turn_ids=(f"a{i}#1",))]
        )
    for i, text in enumerate(second):
        writer_of(engine).write(ALICE, [Candidate(MemoryType.FACT, text, turn_ids=(f"b{i}#1",))])
    kwargs = {} if switches is None else {"switches": switches}
    ranked = (
        Recaller(read_ports(engine), engine.config.recall, **kwargs).recall(ALICE, request).ranked
    )
    return [s.record.text for s in ranked if ranked_place(s)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_question_has_its_share_of_the_head(engine, lang):
    places = _places(engine, lang)
    second = STORES[lang][2]
    assert set(second) <= set(places[:6])
    assert places[0] not in second  # the first question's best still leads


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_with_share_switched_off_one_question_fills_the_head(engine, lang):
    places = _places(engine, lang, switches_from([channel_switch("share")]))
    assert not set(STORES[lang][2]) <= set(places[:10])
