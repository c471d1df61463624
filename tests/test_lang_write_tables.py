"""The write side's tables in the language packs: read across packs, switched by name, and a
Japanese text kept out of the Chinese rules."""

import pytest

from openclaw_memory import lang
from openclaw_memory.core.clock import FakeClock
from openclaw_memory.core import switches_from
from openclaw_memory.lang import entities
from openclaw_memory.extract.rules import RuleExtractor
from openclaw_memory.types import Scope, Turn


def _said(text, langs=None):
    turn = Turn(Scope("u"), "s", text)
    return [
        (c.forget, c.subject, c.summary)
        for c in RuleExtractor(FakeClock(), langs=langs).extract(turn)
    ]


def test_entries_list_every_packs_entries_in_script_order():
    names = [e.name for e in lang.all_on().entries("command") if e.setting("command") == "forget"]
    zh = [n for n in lang.pack("zh").table("command") if n.startswith("forget_")]
    en = [n for n in lang.pack("en").table("command") if n.startswith("forget_")]
    assert names == zh + en
    assert lang.all_on().names("target")[:2] == ("name", "location")


def test_any_of_places_the_alternation_in_a_frame():
    lead = lang.all_on().any_of("clause", "lead", "^(?:{})+")
    assert lead.sub("", "对了，另外，我住在杭州") == "我住在杭州"
    assert lead.sub("", "Oh well, I live in Lyon") == "I live in Lyon"
    assert lead.sub("", "我说对了") == "我说对了"  # only a run at the start


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("忘掉我的地址", (True, "location", "用户的地址")),
        ("forget my address", (True, "location", "The user's address")),
    ],
)
def test_a_forget_command_is_read_until_its_entry_is_switched_off(text, said):
    assert _said(text) == [said]
    code = lang.detect(text)
    off = lang.Languages(switches_from([f"{code}.command.forget_lead"]))
    assert _said(text, off) == []


@pytest.mark.parametrize(
    ("text", "subject", "summary"),
    [
        ("记住，我的车牌号是浙A12345", "fact/车牌号", "用户的车牌号是浙A12345"),
        (
            "remember that my locker number is 42",
            "fact/locker number",
            "The user's locker number is 42",
        ),
    ],
)
def test_a_remembered_fact_is_keyed_by_my_key_in_either_language(text, subject, summary):
    assert _said(text) == [(False, subject, summary)]


def test_a_japanese_text_is_not_tagged_by_the_chinese_segmenter():
    assert [(e.name, e.kind) for e in entities.extract("我去东京了")] == [("东京", "place")]
    assert entities.extract("東京に行きました") == []
