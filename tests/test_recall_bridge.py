"""A request that describes the one it asks about by one attribute and asks another is read in
two hops (recall/head.py), English and Chinese side by side: the memory stating the described
attribute is the bridge, and the memory of the same holder that answers joins the ranking right
after it, though it shares no word with the request."""

from __future__ import annotations

import pytest

from openclaw_memory.core import switches_from
from openclaw_memory.lang import languages
from openclaw_memory.recall.head import NAME
from openclaw_memory.recall.head import holder_words
from openclaw_memory.recall.channels import channel_switch
from openclaw_memory.recall.head import ranked_place
from openclaw_memory.recall.query import build_query
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of

ALICE = Scope("alice")

#: (request, its description, words of what it asks): the relative clause's forms
DESCRIBED = {
    "en": [
        (
            "The person whose email is anna.lee@example.com - what is their job?",
            "whose email is anna.lee@example.com",
            "job",
        ),
        ("What does the friend who lives in Porto do?", "who lives in Porto", "What does"),
        ("Where does the colleague who likes hiking work?", "who likes hiking", "Where does"),
    ],
    "zh": [
        ("那个邮箱地址是li@example.com的人，职位是什么？", "邮箱地址是li@example.com", "职位"),
        ("那个规模是七千人的活动，我要参加的活动是什么？", "规模是七千人", "我要参加"),
        ("那个当翻译员的，他是哪里人啊？", "当翻译员", "哪里人"),
    ],
}

#: requests that describe no one: a noun after 的, a possessive, a clause of the user's own
UNDESCRIBED = {
    "en": ["What is my sister's job?", "Who is the person I met in Porto?"],
    "zh": ["那个项目的进度怎么样？", "我参观的那个医院叫什么来着？", "我表姐是做什么的？"],
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_described_subject_is_read_with_what_is_asked_of_it(lang):
    for request, said, asked in DESCRIBED[lang]:
        (found,) = build_query(request).described
        assert found.said.startswith(said)
        assert asked in found.asked and said not in found.asked
        assert found.terms


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_request_describing_no_one_carries_no_description(lang):
    for request in UNDESCRIBED[lang]:
        assert build_query(request).described == ()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_describe_table_switched_off_reads_no_description(lang):
    request = DESCRIBED[lang][0][0]
    off = languages(switches_from([f"{lang}.describe.marker"]))
    assert build_query(request, langs=off).described == ()


def test_two_questions_each_describe_their_own_subject_in_order():
    request = "那个当翻译员的，他是哪里人啊？另外，那个持续时间是八天的活动，主要内容是什么？"
    first, second = build_query(request).described
    assert (first.said, second.said) == ("当翻译员", "持续时间是八天")
    assert "主要内容" in second.asked and "主要内容" not in first.asked


@pytest.mark.parametrize(
    ("bridge", "asking", "holder"),
    [
        (
            "My cousin's email is li@example.com.",
            "the person whose email is li@example.com",
            "cousin",
        ),
        ("我表姐的邮箱是li@example.com。", "那个邮箱是li@example.com的人", "表姐"),
    ],
)
def test_the_holder_is_the_bridges_words_the_request_does_not_have(bridge, asking, holder):
    from openclaw_memory.lang.text import search_tokens

    words = holder_words(search_tokens(bridge), frozenset(search_tokens(asking)))
    assert words == (holder,)


#: (bridge, answer, request, filler): the answer shares no word with the request; the fillers
#: share one with it, so that without the bridge they outrank the answer in every channel
STORES = {
    "en": (
        "My cousin's email is anna.lee@example.com.",
        "My cousin has worked as a nurse at the city hospital since 2019.",
        "The person whose email is anna.lee@example.com - what is their job?",
        "A job fair on street number {i} had a stand for bakers.",
    ),
    "zh": (
        "我表姐的邮箱地址是wangli@example.com。",
        "我表姐在市医院当护士。",
        "那个邮箱地址是wangli@example.com的人，职位是什么？",
        "第{i}场职位招聘会在市中心举行。",
    ),
}


def _stock(engine, lang: str) -> tuple[str, str, str]:
    bridge, answer, request, filler = STORES[lang]
    writer_of(engine).write(ALICE, [Candidate(MemoryType.EPISODE, bridge, turn_ids=("s1#1",))])
    writer_of(engine).write(ALICE, [Candidate(MemoryType.EPISODE, answer, turn_ids=("s2#1",))])
    fillers = [
        Candidate(MemoryType.EPISODE, filler.format(i=i), turn_ids=(f"s{3 + i}#1",))
        for i in range(engine.config.recall.candidates_per_channel + 5)
    ]
    writer_of(engine).write(ALICE, fillers)
    return bridge, answer, request


def _places(ranked) -> list[str]:
    return [s.record.text for s in ranked if ranked_place(s)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_described_ones_memory_joins_right_after_the_bridge(engine, lang):
    bridge, answer, request = _stock(engine, lang)
    ranked = Recaller(read_ports(engine), engine.config.recall).recall(ALICE, request).ranked
    places = _places(ranked)
    assert places.index(answer) == places.index(bridge) + 1 < 10
    joined = next(s for s in ranked if s.record.text == answer)
    assert NAME in joined.channels
    bridged = next(s for s in ranked if s.record.text == bridge)
    assert joined.kept == bridged.kept
    assert [s.rank for s in ranked] == list(range(1, len(ranked) + 1))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_with_the_bridge_switched_off_the_answer_is_not_in_the_top_ten(engine, lang):
    _, answer, request = _stock(engine, lang)
    off = Recaller(
        read_ports(engine), engine.config.recall, switches=switches_from([channel_switch("bridge")])
    )
    ranked = off.recall(ALICE, request).ranked
    assert answer not in _places(ranked)[:10]
    assert not any(NAME in s.channels for s in ranked)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_request_naming_its_subject_is_ranked_as_before(engine, lang):
    _stock(engine, lang)
    request = {"en": "What is my cousin's email?", "zh": "我表姐的邮箱地址是什么？"}[lang]
    on = Recaller(read_ports(engine), engine.config.recall).recall(ALICE, request).ranked
    off = Recaller(
        read_ports(engine), engine.config.recall, switches=switches_from([channel_switch("bridge")])
    ).recall(ALICE, request)
    assert [s.record.id for s in on] == [s.record.id for s in off.ranked]


def test_channel_bridge_is_a_switch_the_config_may_name(make_config, tmp_path, clock):
    from openclaw_memory.runtime.factory import build_middleware

    cfg = make_config(tmp_path, rules={"disabled": ["channel.bridge"]})
    mw = build_middleware(cfg, clock=clock, background=False)
    try:
        assert mw.recaller.bridge is None
    finally:
        mw.close()
