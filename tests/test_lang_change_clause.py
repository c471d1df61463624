"""The phrasings of change and the fillers as language tables: each frame named and switchable,
English and Chinese side by side, a Japanese text kept out of the Chinese frames."""

import re

import pytest

from openclaw_memory import lang
from openclaw_memory.core import switches_from
from openclaw_memory.extract import change as change_rules
from openclaw_memory.extract.base import attribute
from openclaw_memory.lang.utterance import is_contentless
from openclaw_memory.lang.utterance import request_only
from openclaw_memory.extract.rules import classify
from openclaw_memory.extract.summary import dominant_language
from openclaw_memory.types import Candidate, MemoryType

CHANGES = [
    ("en", "I left Acme and joined Globex", "employer_left_and_joined", "employer", "Acme"),
    ("zh", "我已经从阿里跳槽到腾讯了", "employer_from_to", "employer", "阿里"),
    ("en", "I quit smoking two months ago", "stopped_stopped", "pref/smoking", "smoking"),
    ("zh", "我上个月戒烟了", "stopped_quit_habit", "pref/烟", "烟"),
    ("en", "My new manager is Sara", "my_new", "manager", ""),
    ("zh", "我的新领导是李总", "my_new", "manager", ""),
    (
        "en",
        "I replaced my ThinkPad with a MacBook Air",
        "replaced_with",
        "pref/macbook air",
        "ThinkPad",
    ),
    ("zh", "我把iPhone换成了Pixel", "replaced_ba", "pref/Pixel", "iPhone"),
]


@pytest.mark.parametrize(("code", "clause", "frame", "subject", "replaces"), CHANGES)
def test_a_change_frame_acts_until_it_is_switched_off(code, clause, frame, subject, replaces):
    slot = classify(clause)
    assert slot is not None and (slot.subject, slot.replaces) == (subject, replaces)
    off = lang.Languages(switches_from([f"{code}.change_clause.{frame}"]))
    switched = classify(clause, langs=off)
    assert switched is None or (switched.subject, switched.replaces) != (subject, replaces)


@pytest.mark.parametrize("code", ["en", "zh"])
def test_every_frame_names_a_known_rule_and_existing_entries(code):
    table = lang.pack(code).table("change_clause")
    fills = {n for n, e in table.items() if e.setting("fill")}
    rules = [e for e in table.values() if e.setting("rule")]
    assert rules and all(e.setting("rule") in change_rules.RULES for e in rules)
    for e in table.values():
        assert set(re.findall(r"\$\{(\w+)\}", e.source or "")) <= fills, e.name
        for key in (
            "needs",
            "needs_new",
            "bad_key",
            "bad_value",
            "changed",
            "mark",
            "cut",
            "start",
        ):
            assert e.setting(key) is None or e.setting(key) in table, (e.name, key)
        # a favourite's confidence is the favourite's own (`preference.favourite`)
        assert e.setting("rule") in (None, "favourite") or e.confidence is not None, e.name


def test_the_groups_are_tried_in_file_order():
    names = [f.__name__ for f in change_rules.classifiers(lang.pack("en"))]
    assert names[:2] == ["_home", "_team"] and names[-1] == "_attribute"
    names = [f.__name__ for f in change_rules.classifiers(lang.pack("zh"))]
    assert names[:2] == ["_move", "_team"] and names[-1] == "_attribute"


@pytest.mark.parametrize(
    ("clause", "value"),
    [("我的车是丰田", "丰田"), ("my car is a Toyota", "Toyota")],
)
def test_a_japanese_clause_does_not_go_through_the_chinese_frames(clause, value):
    slot = classify(clause)
    assert slot is not None and slot.subject == "car" and slot.entities == (value,)
    assert change_rules.classifiers(lang.pack("ja")) == ()
    japanese = classify("我的车是トヨタ")  # kana: Japanese, whatever Han it holds
    assert japanese is None or japanese.subject != "car"


@pytest.mark.parametrize(
    ("text", "empty"),
    [
        ("哈哈哈", True),
        ("hahaha", True),
        ("好的谢谢", True),
        ("ok thanks!", True),
        ("好的，我明天去杭州", False),
        ("ok, I fly to Lyon tomorrow", False),
    ],
)
def test_fillers_are_read_from_every_pack(text, empty):
    assert is_contentless(text) is empty


@pytest.mark.parametrize(("text", "empty"), [("233333", True), ("23", False)])
def test_a_laugh_of_digits_is_a_filler(text, empty):
    assert is_contentless(text) is empty


@pytest.mark.parametrize(
    ("summary", "named"),
    [("用户喜欢喝茶", "Ann喜欢喝茶"), ("The user's cat is Tom", "Ann's cat is Tom")],
)
def test_a_named_speaker_takes_the_place_of_the_user(summary, named):
    (c,) = attribute([Candidate(MemoryType.FACT, summary)], "Ann")
    assert c.summary == named


@pytest.mark.parametrize(
    ("texts", "code"),
    [
        (["我们决定下周上线", "ok"], "zh"),
        (["We ship on Monday", "好"], "en"),
        ([""], "en"),
        (["中文中文中", "two words"], "zh"),
        (["中文中", "two words"], "zh"),
        (["中文", "two words"], "en"),
    ],
)
def test_the_language_of_a_summary_weighs_each_packs_units(texts, code):
    assert dominant_language(texts) == code


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("火星离太阳有多远？帮我查一下。", True),
        ("What time is it? Tell me.", True),
        ("我下周去成都，帮我查下天气", False),
        ("I fly to Chengdu next week, check the weather", False),
    ],
)
def test_clauses_split_at_each_languages_punctuation(text, asks):
    assert request_only(text) is asks
