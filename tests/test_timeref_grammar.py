"""The time-expression table, built from the grammar (count x unit x frame, calendar words, order
words) in both languages, not from any data set's questions."""

from __future__ import annotations

import itertools

import pytest

from openclaw_memory.recall.query import build_query, explicit_dates
from openclaw_memory.recall.timeref import time_reference

EN_COUNTS = [("2", 2), ("two", 2), ("three", 3), ("a couple of", 2), ("ten", 10), ("twenty", 20)]
EN_UNITS = [("day", 1.0), ("week", 7.0), ("month", 31.0), ("year", 366.0)]
ZH_COUNTS = [("2", 2), ("两", 2), ("三", 3), ("十", 10), ("二十", 20)]
ZH_UNITS = [("天", 1.0), ("周", 7.0), ("个星期", 7.0), ("个月", 31.0), ("年", 366.0)]


def en_plural(unit: str, n: int) -> str:
    return unit if n == 1 else unit + "s"


def window(n: int, days: float) -> float | None:
    """N units back, plus today; years are too coarse to look back on (no window)."""
    return None if days >= 366.0 else n * days + 1.0


LOOK_BACK = [
    (f"what did I do {frame} {word} {en_plural(unit, n)}", window(n, days))
    for (word, n), (unit, days), frame in itertools.product(
        EN_COUNTS, EN_UNITS, ["in the past", "over the last", "during the previous"]
    )
] + [
    (f"{frame}{word}{unit}我做了什么", window(n, days))
    for (word, n), (unit, days), frame in itertools.product(
        ZH_COUNTS, ZH_UNITS, ["最近", "过去", "近"]
    )
]


@pytest.mark.parametrize("text, days", LOOK_BACK)
def test_a_count_and_a_unit_after_past_or_last_look_back(text, days):
    ref = time_reference(text)
    assert ref.window_days == days
    assert ref.spans  # and the words are no content


POINTS = [
    (f"what did I do {word} {en_plural(unit, n)} {frame}", frame)
    for (word, n), (unit, _), frame in itertools.product(
        EN_COUNTS, EN_UNITS, ["ago", "later", "after", "earlier"]
    )
] + [
    (f"{word}{unit}{frame}我做了什么", frame)
    for (word, n), (unit, _), frame in itertools.product(
        ZH_COUNTS, ZH_UNITS, ["前", "之前", "以前", "后", "之后", "以后"]
    )
]


@pytest.mark.parametrize("text, frame", POINTS)
def test_a_duration_that_points_back_or_forward_makes_no_window(text, frame):
    ref = time_reference(text)
    assert ref.window_days is None
    blanked = ref.strip(text)
    assert frame not in blanked.split() and frame not in blanked.replace(" ", "")[:4]


LASTING = [
    f"{verb} {word} {en_plural(unit, n)}"
    for (word, n), (unit, _), verb in itertools.product(
        EN_COUNTS, EN_UNITS, ["we stayed for", "the course lasted", "it took"]
    )
] + [
    f"{verb}{word}{unit}"
    for (word, n), (unit, _), verb in itertools.product(
        ZH_COUNTS, ZH_UNITS, ["持续了", "花了", "用了"]
    )
]


@pytest.mark.parametrize("text", LASTING)
def test_a_duration_that_lasts_is_a_time_word_not_a_window(text):
    ref = time_reference(text)
    assert ref.window_days is None and ref.spans
    assert ref.strip(text).split()[-1:] != [text.split()[-1]]


@pytest.mark.parametrize(
    "text, days",
    [
        # calendar words: the unit before this one, counted back from now
        ("today", 1.0),
        ("今天", 1.0),
        ("yesterday", 2.0),
        ("昨天", 2.0),
        ("the day before yesterday", 3.0),
        ("前天", 3.0),
        ("大前天", 4.0),
        ("last week", 14.0),
        ("上周", 14.0),
        ("上个星期", 14.0),
        ("the week before last", 21.0),
        ("上上周", 21.0),
        ("上上个星期", 21.0),
        ("last month", 62.0),
        ("上个月", 62.0),
        ("the month before last", 93.0),
        ("上上个月", 93.0),
        ("last weekend", 9.0),
        ("上周末", 9.0),
    ],
)
def test_calendar_words(text, days):
    request = f"what happened {text}" if text.isascii() else f"{text}发生了什么"
    assert time_reference(request).window_days == days


@pytest.mark.parametrize(
    "text", ["what did I do last year", "this year", "in the past year", "去年", "今年春天", "前年"]
)
def test_a_year_is_a_time_word_without_a_window(text):
    ref = time_reference(text)
    assert ref.window_days is None and ref.spans


@pytest.mark.parametrize(
    "text, relation",
    [
        ("what did she do before the concert", ("before", "the concert")),
        ("where did they live prior to the move", ("before", "the move")),
        ("what changed after her divorce", ("after", "her divorce")),
        ("what has he painted since the trip", ("after", "the trip")),
        ("what did we eat following the hike", ("after", "the hike")),
        ("搬家之前住在哪里", ("before", "搬家")),
        ("毕业以后去了哪", ("after", "毕业")),
        ("爬山那天吃了什么", ("on", "爬山")),
        ("what did we eat", None),
        ("我们吃了什么", None),
    ],
)
def test_order_words_relate_the_request_to_another_event(text, relation):
    ref = time_reference(text)
    assert ref.relation == relation
    assert ref.window_days is None


@pytest.mark.parametrize(
    "text, gone, left",
    [
        ("how long did the course last", {"long"}, {"cours", "last"}),
        ("what year did she graduate", {"year"}, {"graduat"}),
        ("what did she do before the concert", {"befor"}, {"concert"}),
        ("我们什么时候去的杭州", set(), {"时候", "杭州"}),  # kept: dated memories share it
        ("搬家之前住在哪里", {"之前"}, {"搬家"}),
        ("那天吃了什么", {"那天"}, set()),
        ("持续了三个月的项目", {"三个", "个月"}, {"项目"}),
        ("我在这家公司干了多久", {"多久"}, {"公司"}),  # the question of how long, as "how long"
        ("学钢琴多长时间了", {"多长", "时间", "长时间", "多长时间"}, {"钢琴"}),
    ],
)
def test_time_words_are_not_keyword_terms(text, gone, left):
    terms = set(build_query(text).terms)
    assert not gone & terms and left <= terms, terms


WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
ZH_WEEKDAYS = ["一", "二", "三", "四", "五", "六", "日"]
WEEKDAY_ROWS = [
    (f"what did I do {frame} {day}", 14.0)
    for frame, day in itertools.product(["last", "this past", "past", "this"], WEEKDAYS)
] + [
    (f"{frame}{day}我做了什么", 14.0)
    for frame, day in itertools.product(["上周", "这周", "上个星期", "本周"], ZH_WEEKDAYS)
]


@pytest.mark.parametrize("text, days", WEEKDAY_ROWS)
def test_a_weekday_of_this_week_or_the_last_looks_back_two_weeks(text, days):
    """ "last Tuesday" as 上周二 (the calendar week before this one, as "last week" is)."""
    ref = time_reference(text)
    assert ref.window_days == days
    assert not {"last", "tuesday", "monday", "friday"} & set(build_query(text).terms)


@pytest.mark.parametrize(
    "text", ["this morning", "this afternoon", "this evening", "tonight", "今天早上", "今晚"]
)
def test_the_parts_of_today_look_back_one_day(text):
    request = f"what did I eat {text}" if text.isascii() else f"{text}我吃了什么"
    assert time_reference(request).window_days == 1.0


MORE_THAN = [
    (f"{word}{unit}{frame}我去了哪", frame)
    for (word, _), unit, frame in itertools.product(
        [("一", 1), ("两", 2), ("三", 3)], ["个多月", "个多星期", "年多"], ["前", "之前"]
    )
] + [
    (f"what did I do {word} {en_plural(unit, n)} back", "back")
    for (word, n), (unit, _) in itertools.product(EN_COUNTS, EN_UNITS)
]


@pytest.mark.parametrize("text, frame", MORE_THAN)
def test_more_than_a_count_and_back_point_back_like_ago(text, frame):
    """一个多月前 ("more than a month ago") and "three weeks back" are "N units ago": no window,
    and the words say when."""
    ref = time_reference(text)
    assert ref.window_days is None and ref.spans
    assert not {"多月", "个多", "week", "back", "day"} & set(build_query(text).terms)


@pytest.mark.parametrize(
    "text, days",
    [("最近一个多月", 32.0), ("过去两个多星期", 15.0), ("近一个多月", 32.0), ("最近三个月", 94.0)],
)
def test_more_than_a_count_looks_back_at_least_that_long(text, days):
    assert time_reference(f"{text}我在忙什么").window_days == days


@pytest.mark.parametrize(
    "text",
    [
        "the other day",
        "the other week",
        "a while ago",
        "a while back",
        "前阵子",
        "前段时间",
        "前些日子",
    ],
)
def test_vague_past_words_say_when_without_a_window(text):
    request = f"what did I buy {text}" if text.isascii() else f"{text}我买了什么"
    ref = time_reference(request)
    assert ref.window_days is None and ref.spans


NOW = 1_764_892_800.0  # 2025-12-05, UTC
DAY = 86_400.0
MAY_23 = (1_747_958_400.0, 1_747_958_400.0 + DAY)  # 2025-05-23
DEC_25 = (1_735_084_800.0, 1_735_084_800.0 + DAY)  # 2024-12-25: 2025's has not come by NOW
MARCH = (1_740_787_200.0, 1_743_465_600.0)  # 2025-03
DECEMBER = (1_764_547_200.0, 1_767_225_600.0)  # 2025-12: it has begun by NOW


@pytest.mark.parametrize(
    "text, dates",
    [
        ("what did I do on May 23", MAY_23),
        ("what did I do on the 23rd of May", MAY_23),
        ("what did I do on 23 May", MAY_23),
        ("5月23日我做了什么", MAY_23),
        ("5月23号我做了什么", MAY_23),
        ("what happened on December 25", DEC_25),
        ("12月25日发生了什么", DEC_25),
        ("what did I do in March", MARCH),
        ("what did I do in early March", MARCH),
        ("what did I do mid-March", MARCH),
        ("三月份我做了什么", MARCH),
        ("3月我做了什么", MARCH),
        ("三月初我做了什么", MARCH),
        ("what did I do in December", DECEMBER),
        ("十二月我做了什么", DECEMBER),
    ],
)
def test_a_day_or_month_without_its_year_is_the_latest_up_to_now(text, dates):
    assert explicit_dates(text, NOW) == (dates,)
    assert explicit_dates(text) == ()  # without now, nothing to date it by


@pytest.mark.parametrize(
    "text",
    [
        "三个月前我做了什么",  # three months, not March
        "May I ask you something?",
        "you may 2x the recipe",
        "we may 3D print it",
        "中秋节吃五月饼",
    ],
)
def test_no_day_or_month_where_the_words_name_none(text):
    assert explicit_dates(text, NOW) == ()


@pytest.mark.parametrize(
    "text", ["on December 1,2023", "on December 1, 2023", "on 1 December,2023", "in December,2023"]
)
def test_a_year_after_a_comma_with_or_without_a_space(text):
    assert explicit_dates(f"what did I do {text}")
