"""Recall reads its language knowledge from each language's tables: each entry switchable on its
own, one language's switch leaving the other's rule acting, and the script of a text decided by
its pack. English and Chinese side by side."""

from __future__ import annotations

import pytest

from openclaw_memory.core import switches_from
from openclaw_memory.lang import Languages
from openclaw_memory.lang.attributes import subject_of_role
from openclaw_memory.lang.text import unspaced
from openclaw_memory.recall.analyse import request_keys
from openclaw_memory.recall.kinds import kinds_named, names_several
from openclaw_memory.recall.query import build_query, explicit_dates
from openclaw_memory.recall.timeref import asks_duration, time_reference

EN, ZH = "en", "zh"
NOW = 1_700_000_000.0  # 2023-11-14


@pytest.mark.parametrize(
    "text,flat",
    [("where do I live?", False), ("我住在哪里？", True), ("東京に住んでいますか", True)],
)
def test_a_text_is_unspaced_by_its_pack(text, flat):
    """Chinese and Japanese write words without spaces; English with them."""
    assert unspaced(text) is flat


@pytest.mark.parametrize(
    "lang,text,rule,window",
    [
        (EN, "what did I eat yesterday?", "en.time.yesterday", 2.0),
        (ZH, "我昨天吃了什么？", "zh.time.yesterday", 2.0),
        (EN, "what did I read in the past three months?", "en.time.span", 94.0),
        (ZH, "我最近三个月读了什么书？", "zh.time.span", 94.0),
    ],
)
def test_a_time_word_switched_off_makes_no_window_in_its_language_only(lang, text, rule, window):
    assert time_reference(text).window_days == window
    off = Languages(switches_from([rule]))
    assert time_reference(text, langs=off).window_days is None
    other = "zh" if lang == EN else "en"
    kept = Languages(switches_from([rule.replace(f"{lang}.", f"{other}.", 1)]))
    assert time_reference(text, langs=kept).window_days == window


@pytest.mark.parametrize(
    "text,rule",
    [
        ("how long have I been learning piano?", "en.time.asks_duration"),
        ("我学钢琴多久了？", "zh.time.asks_duration"),
    ],
)
def test_a_question_of_how_long_is_read_by_its_languages_entry(text, rule):
    assert asks_duration(text)
    assert not asks_duration(text, Languages(switches_from([rule])))


@pytest.mark.parametrize(
    "text,rule",
    [
        ("What did I do on May 23, 2023?", "en.time.month_day_year"),
        ("我2023年5月23日做了什么？", "zh.time.year_month_day"),
    ],
)
def test_a_named_date_is_read_by_its_languages_date_entry(text, rule):
    assert explicit_dates(text) == ((1684800000.0, 1684886400.0),)
    assert explicit_dates(text, langs=Languages(switches_from([rule]))) == ()


@pytest.mark.parametrize(
    "text,rule",
    [("What pets do I have?", "en.category.pet"), ("我养了什么宠物？", "zh.category.pet")],
)
def test_a_kind_switched_off_in_one_language_is_still_named_in_the_other(text, rule):
    assert [k.name for k in kinds_named(text)] == ["pet"]
    assert kinds_named(text, Languages(switches_from([rule]))) == ()
    members = kinds_named("What pets do I have? 宠物")[0].members
    assert {"dog", "猫"} <= members  # a memory may name a member in either language


@pytest.mark.parametrize(
    "text,several",
    [
        ("Which books did I read?", True),
        ("我读过哪些书？", True),
        ("How many years older am I?", False),
    ],
)
def test_a_list_question_by_each_languages_table(text, several):
    assert names_several(text) is several


@pytest.mark.parametrize(
    "text,rule,kind",
    [
        ("my preferences for coffee", "en.query.preference", "preference"),
        ("我的饮食偏好", "zh.query.preference", "preference"),
    ],
)
def test_the_type_a_request_names_is_a_switchable_entry(text, rule, kind):
    assert {t.value for t in build_query(text).types} == {kind}
    assert build_query(text, langs=Languages(switches_from([rule]))).types == frozenset()


@pytest.mark.parametrize(
    "word,subject",
    [
        ("boss", "manager"),
        ("老板", "manager"),
        ("car", "car"),
        ("车", "car"),
        ("gym", "fact/gym"),
        ("健身房", "fact/健身房"),
    ],
)
def test_an_attribute_word_is_keyed_in_its_own_language(word, subject):
    """The role table of the word's language keys it ("boss", 老板: the manager; "car", 车: the
    car), else its head."""
    assert subject_of_role(word) == subject


@pytest.mark.parametrize(
    "text,key",
    [
        ("what did caroline do last week?", "caroline"),
        ("刘婷学车经历了哪些阶段？", "刘婷"),
        ('对，"エビアレルギーです"我说了不下二十次', "二十次"),
    ],
)
def test_a_request_names_entities_by_the_words_of_its_language(text, key):
    """English by runs of words, Chinese by jieba's words, a Japanese quotation in a Chinese
    request aside."""
    assert key in request_keys(text)


def test_a_japanese_request_is_not_cut_by_the_chinese_dictionary():
    assert request_keys("東京に行きました") == frozenset()
