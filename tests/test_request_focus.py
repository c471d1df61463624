"""A request that talks around its question and then points at it is read by the question it
points at (`recall.query.focus`, each language's `focus` table), English and Chinese side by
side: the talk around it neither adds search terms nor pulls in memories of its own."""

from __future__ import annotations

import pytest

from openclaw_memory.core import switches_from
from openclaw_memory.lang import all_on, languages
from openclaw_memory.recall.query import build_query, focus
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of

ALICE = Scope("alice")

#: (request, the question it points at): the pointer's forms, both languages
POINTED = {
    "en": [
        (
            "The weather is lovely today. Anyway, what I really want to know is: where does my "
            "sister work? Thanks a lot.",
            "where does my sister work?",
        ),
        (
            "So much happened this week. My real question is, when did I move to Lisbon?",
            "when did I move to Lisbon?",
        ),
        (
            "Sorry, I rambled. What I actually meant to ask was this - which gym do I go to?",
            "which gym do I go to?",
        ),
    ],
    "zh": [
        (
            "哎呀，今天天气真是不错，适合出去散步呢。实际上，我真正的问题是：我妹妹在哪里工作？",
            "我妹妹在哪里工作？",
        ),
        ("最近事情好多。我其实是想搞清楚，我是什么时候搬到杭州的？", "我是什么时候搬到杭州的？"),
        ("对了，我想问，我常去的健身房叫什么？", "我常去的健身房叫什么？"),
        ("说了半天，我本来想说的是，我的车是什么牌子？", "我的车是什么牌子？"),
    ],
}

#: requests that point at nothing: read whole (an ask frame without a pause is the question)
UNPOINTED = {
    "en": ["I really want to know how to bake bread.", "What is my sister's job?"],
    "zh": ["我想问一下怎么做红烧肉", "我妹妹是做什么工作的？", "其实我挺喜欢下雨天的。"],
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_pointed_at_question_is_what_the_request_asks(lang):
    for request, question in POINTED[lang]:
        assert focus(request, all_on()) == question
        assert build_query(request).current == question


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_request_pointing_at_nothing_is_read_whole(lang):
    for request in UNPOINTED[lang]:
        assert focus(request, all_on()) == request


def test_two_pointers_point_at_two_questions_in_order():
    request = (
        "搞错了，我实际想问的问题是：我喜欢的家电怎么样？另外，今天天气真好。哎，我真正想弄清楚的是，"
        "我爸爸的电话是多少？"
    )
    assert focus(request, all_on()) == "我喜欢的家电怎么样？ 我爸爸的电话是多少？"
    mixed = "Long day. My real question is: what did I buy? 另外，我真正想问的是：我住在哪里？"
    assert focus(mixed, all_on()) == "what did I buy? 我住在哪里？"


@pytest.mark.parametrize(
    ("lang", "text", "talk_word"),
    [
        ("en", POINTED["en"][0][0], "weather"),
        ("zh", POINTED["zh"][0][0], "天气"),
    ],
)
def test_the_talk_around_the_question_adds_no_search_terms(lang, text, talk_word):
    assert talk_word not in build_query(text).terms
    # switched off, the pointer is plain text and the talk is searched again
    off = languages(switches_from([f"{lang}.focus.marker"]))
    assert build_query(text, langs=off).current == text
    assert talk_word in build_query(text, langs=off).terms


#: the talk's memory shares words with the talk; the fact shares words with the question
STORES = {
    "en": (
        "Went for a long walk today, the weather was lovely and sunny.",
        "My sister works at a bakery in Porto.",
        "The weather is lovely today, perfect for a long walk. Anyway, what I really want to "
        "know is: where does my sister work?",
    ),
    "zh": (
        "今天天气真是不错，出去散步了很久。",
        "我妹妹在杭州的一家面包店工作。",
        "哎呀，今天天气真是不错，适合出去散步呢。实际上，我真正的问题是：我妹妹在哪里工作？",
    ),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_recall_ranks_the_fact_the_question_asks_for_above_the_talks_memory(engine, lang):
    talk, fact, request = STORES[lang]
    writer_of(engine).write(ALICE, [Candidate(MemoryType.EPISODE, talk, turn_ids=("s1#1",))])
    writer_of(engine).write(ALICE, [Candidate(MemoryType.FACT, fact, turn_ids=("s2#1",))])
    ranked = Recaller(read_ports(engine), engine.config.recall).recall(ALICE, request).ranked
    texts = [s.record.summary for s in ranked]
    assert fact in texts
    assert talk not in texts or texts.index(fact) < texts.index(talk)
    off = Recaller(
        read_ports(engine), engine.config.recall, switches=switches_from([f"{lang}.focus.marker"])
    )
    texts_off = [s.record.summary for s in off.recall(ALICE, request).ranked]
    assert talk in texts_off and texts_off.index(talk) < texts_off.index(fact)
