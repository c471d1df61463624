"""The attribute lexicon and the change grammar it works with, Chinese and English side by side.

Each table holds pairs (an earlier statement, a later change) that must retire the earlier one,
and pairs that must not: a value added beside another, a "not" of another thing, someone else's
attribute. The end-to-end retirement (real embedder, real store) is in `test_trust.py`.
"""

from __future__ import annotations

import pytest

from openclaw_memory.extract.statement import contradicts
from openclaw_memory.extract.statement import flips
from openclaw_memory.lang.attributes import mentions
from openclaw_memory.extract.change import now_also
from openclaw_memory.extract.change import states_change
from openclaw_memory.extract.change import switches
from openclaw_memory.extract.statement import about_a_thing

# (earlier, later, later says it switched): the later statement contradicts the earlier one
CONTRADICTING = [
    # a "not" of the whole attribute, then a value of it
    ("I don't exercise at all.", "I started going to the gym three times a week.", False),
    ("我从来不运动。", "我开始每周去三次健身房了。", False),
    ("I don't have any pets.", "We adopted a cat last weekend.", False),
    ("我家没有养宠物。", "上周末我们领养了一只猫。", False),
    ("I never work out.", "These days I go swimming twice a week.", False),
    ("我平时不锻炼。", "我最近开始练瑜伽了。", False),
    # one value at a time
    ("I'm single.", "I got married in June.", False),
    ("我是单身。", "我去年结婚了。", False),
    ("I work in the office every day.", "I work from home now.", False),
    ("我每天去公司坐班。", "我现在居家办公了。", False),
    ("I eat meat every day.", "I became vegetarian this year.", False),
    ("我每天都吃肉。", "我今年开始吃素了。", False),
    # a switch between values that otherwise add up
    ("I usually drink americanos.", "Lately I switched to lattes.", True),
    ("我平时喝美式。", "最近我改喝拿铁了。", True),
    ("I take the bus to work.", "I switched to the subway.", True),
    ("我每天坐公交上班。", "我改坐地铁了。", True),
    # a switch of the general word, or a preference "these days"
    ("I work at Acme as an engineer.", "I changed jobs last month.", True),
    ("我在华为做测试。", "我换工作了，去了小米。", True),
    ("I like black tea.", "These days I prefer oolong.", True),
    ("我喜欢喝红茶。", "这段时间我更喜欢喝乌龙茶。", True),
    # one predicate, negated then stated
    ("我不吃辣。", "我现在能吃辣了。", False),
    ("我不吃牛肉。", "我现在也吃牛肉了。", False),
    ("I don't eat beef.", "I eat beef now too.", False),
    ("I don't drink coffee.", "I drink coffee every morning now.", False),
    # schooling: "not in school", then enrolled
    ("I'm not in school anymore.", "I enrolled at State University this fall.", False),
    ("我已经不上学了。", "我今年秋天又去大学读书了。", False),
]

# (earlier, later, later says it switched): the later statement leaves the earlier one current
COMPATIBLE = [
    ("I have a dog.", "We adopted a cat.", False),  # a second pet
    ("我养了一只狗。", "我们又领养了一只猫。", False),
    ("I run every morning.", "I started going to the gym.", False),  # a second sport
    ("我每天跑步。", "我开始去健身房了。", False),
    ("I don't like running.", "I started going to the gym.", False),  # "not" of another thing
    ("我不喜欢跑步。", "我开始去健身房了。", False),
    ("I like coffee.", "I drink tea now too.", False),
    ("我平时喝美式。", "我现在也喝拿铁了。", False),
    ("I'm vegetarian.", "I'm still vegetarian.", False),  # the same value
    ("我吃素。", "我现在还是吃素。", False),
    ("I don't eat beef.", "I eat chicken now.", False),  # another predicate
    ("我不吃牛肉。", "我现在吃鸡肉了。", False),
    ("I take the bus to work.", "I got a new bike.", False),  # no switch: one more thing
    ("我坐公交上班。", "我买了一辆自行车。", False),
    ("I take the bus to work.", "I changed jobs.", True),  # a job is not a way to work
    ("我每天坐公交上班。", "我换工作了。", True),
    ("I work at Acme.", "My company moved to a new office.", True),  # the company, not the job
    ("我在阿里工作。", "我们公司搬到了新园区。", False),
    ("I like tea.", "I also like green tea now.", False),
    ("我喜欢喝茶。", "我现在也喜欢喝绿茶。", False),
    ("I take classes at the community college.", "I started a course at the library.", False),
    ("我在社区大学上课。", "我开始在图书馆上一门课程。", False),
]


@pytest.mark.parametrize("old,new,switch", CONTRADICTING)
def test_a_change_contradicts_another_value_of_the_attribute(old, new, switch):
    assert switches(new) is switch
    assert contradicts(old, new, switch=switch)


@pytest.mark.parametrize("old,new,switch", COMPATIBLE)
def test_a_value_beside_the_old_one_contradicts_nothing(old, new, switch):
    assert not contradicts(old, new, switch=switches(new))


@pytest.mark.parametrize(
    "text,attribute,general,values",
    [
        ("I don't have any pets.", "pets", True, set()),
        ("我家没有养宠物。", "pets", True, set()),
        ("We adopted a cat.", "pets", False, {"cat"}),
        ("我们领养了一只猫。", "pets", False, {"cat"}),
        ("I work from home now.", "work_arrangement", False, {"remote"}),
        ("我现在居家办公了。", "work_arrangement", False, {"remote"}),
        ("I go to the gym.", "exercise", False, {"gym"}),
        ("我去健身房。", "exercise", False, {"gym"}),
        ("I like milk tea.", "drink", False, {"milk_tea"}),
        ("我喜欢喝奶茶。", "drink", False, {"milk_tea"}),
        ("Where do I take classes?", "study", True, set()),
        ("我在哪儿上课？", "study", True, set()),
    ],
)
def test_what_a_statement_says_of_an_attribute(text, attribute, general, values):
    m = mentions(text)[attribute]
    assert m.general is general and set(m.values) == values


@pytest.mark.parametrize(
    "old,new,flipped",
    [
        ("我不吃辣。", "我现在能吃辣了。", True),
        ("I don't eat spicy food.", "I eat spicy food now.", True),
        ("我吃辣。", "我现在不吃辣了。", True),  # either way round
        ("I eat spicy food.", "I don't eat spicy food anymore.", True),
        ("我不吃辣。", "我现在不吃辣了。", False),  # the same polarity
        ("I don't eat beef.", "I don't eat beef anymore either.", False),
        ("我不喜欢猫。", "我现在喜欢狗了。", False),  # another object
        ("I don't like cats.", "I like dogs now.", False),
    ],
)
def test_a_predicate_negated_then_stated_flips(old, new, flipped):
    assert flips(old, new) is flipped


@pytest.mark.parametrize(
    "text,changed,also",
    [
        ("闪电去世了，我们又养了一只叫三叶草的兔子。", True, False),  # a life event ends a state
        ("Max passed away last month, and we got a kitten.", True, False),
        ("我现在也吃牛肉了。", False, True),  # additive "now also"
        ("I eat beef now too.", False, True),
        ("我也喜欢茶。", False, False),  # additive, no "now": nothing ends
        ("I also like tea.", False, False),
        ("是啊，过敏原越来越多，烦死了。", False, False),  # 死了 after an adjective: "very"
        ("Ugh, allergies everywhere, I'm dying here.", False, False),
        ("你现在也吃牛肉了吗？", False, False),  # a question
        ("Do you eat beef now too?", False, False),
    ],
)
def test_life_events_and_now_also_in_the_grammar(text, changed, also):
    assert states_change(text) is changed
    assert now_also(text) is also


@pytest.mark.parametrize(
    "text,about",
    [
        ("闪电去世了，我们又养了一只叫三叶草的兔子。", True),  # a thing of theirs, then the speaker
        ("Max passed away last month, and we got a kitten.", True),
        ("姐，我打算买车了。", False),  # addresses someone first
        ("他的狗去世了，我很难过。", False),  # someone else's
        ("His dog died, and I was sad.", False),
    ],
)
def test_an_ending_then_the_speaker_is_about_a_thing_of_theirs(text, about):
    assert about_a_thing(text) is about


def _dataset_turns() -> list[str]:
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).parent / "data" / "zh_locomo.json").read_text("utf-8"))
    texts = [q["question"] for conv in data for q in conv["qa"]]
    for conv in data:
        for turns in conv["conversation"].values():
            if isinstance(turns, list):
                texts.extend(t["text"] for t in turns if isinstance(t, dict) and "text" in t)
    return texts


def test_one_search_per_attribute_finds_what_its_patterns_find() -> None:
    """`Attribute.named` (the patterns joined) matches a text exactly when one of its own
    patterns does: the Chinese set's turns and questions, and every table above."""
    from openclaw_memory.lang.attributes import ATTRIBUTES

    texts = [*_dataset_turns(), *(t for pair in CONTRADICTING for t in pair[:2])]
    assert len(texts) > 900
    named = 0
    for text in texts:
        for a in ATTRIBUTES:
            each = bool(a.general.search(text)) or any(p.search(text) for _, p in a.values)
            assert bool(a.named.search(text)) is each, (a.name, text)
            named += each
    assert named > 50  # the table is not vacuous: many texts name an attribute


def test_names_any_is_the_intersection_with_mentions() -> None:
    from openclaw_memory.lang.attributes import ATTRIBUTES
    from openclaw_memory.lang.attributes import names_any

    every = [a.name for a in ATTRIBUTES]
    asks = [{n} for n in every] + [set(every[:3]), set(), {"no such attribute"}]
    for text in [*_dataset_turns()[:400], *(t for pair in CONTRADICTING for t in pair[:2])]:
        found = mentions(text).keys()
        for asked in asks:
            assert names_any(text, asked) is bool(asked & found), (text, asked)


@pytest.mark.parametrize(
    "text,named",
    [
        ("Am I in a relationship?", True),
        ("我在谈恋爱吗？", True),
        ("What's my relationship status?", True),
        ("How is my relationship with my boss?", False),
        ("我和老板的关系怎么样？", False),
    ],
)
def test_being_in_a_relationship_names_the_marital_attribute(text, named):
    """ "Am I in a relationship?" asks what "I got engaged" answers: the two share no word."""
    assert ("marital" in mentions(text)) is named
