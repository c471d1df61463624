"""Time references in a request: look-back windows, words that only say when, dates that anchor
relative words, and a window relaxed when nothing relevant falls inside it. English and Chinese
side by side."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from openclaw_memory.embed.embedding import embed_query
from openclaw_memory.recall.pool import load
from openclaw_memory.recall.pool import Pool

from openclaw_memory.recall.query import build_query
from openclaw_memory.recall.rank import OUTSIDE_WINDOW_NOTE
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.recall.timeref import time_reference
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of

ALICE = Scope("alice")


@pytest.mark.parametrize(
    "text,days",
    [
        ("which trips did I take in the past three months", 94.0),
        ("最近三个月我去了哪些地方旅行", 94.0),
        ("how many times did I bake over the last 2 weeks", 15.0),
        ("过去两周我烤了几次蛋糕", 15.0),
        ("what did I read in the past 10 days", 11.0),
        ("近十天我读了什么书", 11.0),
        ("anything new in the past few days", 5.0),
        ("这几天有什么新消息", 5.0),
        ("what went wrong with the deploy last week", 14.0),
        ("上周的部署出了什么错", 14.0),
        ("what did I do last weekend", 9.0),
        ("上周末我做了什么", 9.0),
        ("how many plants did I buy last month", 62.0),
        ("上个月我买了几盆植物", 62.0),
        ("what did I write yesterday", 2.0),
        ("我昨天写了什么", 2.0),
        ("how many plants did I buy in the last two months", 63.0),
        ("过去二十天我跑了几次步", 21.0),
    ],
)
def test_a_request_that_looks_back_gets_a_window(text, days):
    assert time_reference(text).window_days == days


@pytest.mark.parametrize(
    "text",
    [
        "what did we do on the last day of the trip",  # a day, not a stretch of time
        "what was the social media activity I did 5 days ago",
        "我三天前参加了什么活动",
        "how many days ago did I watch the Super Bowl",
        "what should I serve for dinner this weekend",  # ahead, not back
        "这周末晚饭做什么好",
        "where did we go hiking",
        "我们去哪里徒步了",
    ],
)
def test_no_window_without_a_look_back(text):
    assert time_reference(text).window_days is None


def test_the_longest_window_named_wins():
    assert time_reference("what did I do yesterday and over the past two weeks").window_days == 15.0


@pytest.mark.parametrize(
    "text,gone,left",
    [
        (
            "What is the order of the three trips I took in the past three months?",
            {"past", "month"},
            {"three", "trip"},
        ),
        (
            "What was the social media activity I participated 5 days ago?",
            {"5", "day", "ago"},
            {"social", "media", "activ"},
        ),
        (
            "How many days ago did I watch the Super Bowl?",
            {"day", "ago", "mani"},
            {"watch", "super", "bowl"},
        ),
        ("最近三个月我去了哪几次旅行", {"三个", "个月", "最近"}, {"旅行"}),
        ("我三天前参加了什么活动", {"三天"}, {"参加", "活动"}),
    ],
)
def test_words_that_only_say_when_are_not_keyword_terms(text, gone, left):
    q = build_query(text)
    assert not gone & set(q.terms) and left <= set(q.terms), q.terms
    assert q.text == text  # the embedding still reads the whole request


@pytest.mark.parametrize(
    "text",
    [
        "What did Maria do last weekend before April 10, 2023?",
        "2023年4月10日之前的上周末玛丽亚做了什么",
    ],
)
def test_a_named_date_anchors_relative_words_instead_of_now(text):
    q = build_query(text)
    assert q.dates and q.window_days is None


def _at(year, month, day):
    return datetime(year, month, day, 12, tzinfo=timezone.utc).timestamp()


@pytest.fixture
def recaller(engine):
    return Recaller(read_ports(engine), engine.config.recall)


def put(engine, text, turn):
    return (
        writer_of(engine)
        .write(ALICE, [Candidate(MemoryType.EPISODE, text, turn_ids=(turn,))])[0]
        .record
    )


def by_summary(result, text):
    return next(s for s in result.ranked if s.record.summary == text)


@pytest.mark.parametrize(
    "memory,question",
    [
        (
            "Last weekend I volunteered at the charity race downtown",
            "What did I volunteer at last weekend before April 10, 2023?",
        ),
        ("上周末我在市中心的慈善赛跑做了志愿者", "2023年4月10日之前的上周末我在哪里做志愿者"),
    ],
)
def test_an_old_memory_on_the_named_date_is_recalled_a_year_later(
    engine, clock, recaller, memory, question
):
    clock.set(_at(2023, 4, 10))
    put(engine, memory, "s1#1")
    clock.set(_at(2024, 5, 1))
    s = by_summary(recaller.recall(ALICE, question), memory)
    assert s.kept and s.components["structure"] == 1.0


def _old_and_fresh(engine, clock, old, fresh):
    """`old` ten days before now, `fresh` half a day before now (inside a "yesterday" window)."""
    put(engine, old, "s1#1")
    clock.advance(days=10)
    put(engine, fresh, "s2#1")
    clock.advance(days=0.5)


@pytest.mark.parametrize(
    "old,fresh,question",
    [
        (
            "I wrote a poem about the harbour at night",
            "I repainted the fence in the garden",
            "what poem did I write yesterday",
        ),
        ("我写了一首关于夜晚港口的诗", "我把花园的篱笆重新刷了漆", "我昨天写了一首什么诗"),
    ],
)
def test_a_window_with_nothing_relevant_inside_is_relaxed_and_says_so(
    engine, clock, recaller, old, fresh, question
):
    _old_and_fresh(engine, clock, old, fresh)
    s = by_summary(recaller.recall(ALICE, question), old)
    assert s.kept and s.reason == OUTSIDE_WINDOW_NOTE


@pytest.mark.parametrize(
    "old,fresh,question",
    [
        (
            "I wrote a poem about the harbour at night",
            "I wrote a poem about the autumn rain",
            "what poem did I write yesterday",
        ),
        ("我写了一首关于夜晚港口的诗", "我写了一首关于秋雨的诗", "我昨天写了一首什么诗"),
    ],
)
def test_a_window_with_a_relevant_memory_inside_still_filters(
    engine, clock, recaller, old, fresh, question
):
    _old_and_fresh(engine, clock, old, fresh)
    res = recaller.recall(ALICE, question)
    assert by_summary(res, fresh).kept
    assert by_summary(res, old).reason.startswith("outside the time window")


def test_deep_recall_keeps_the_dates_the_request_names(engine, clock, recaller):
    clock.set(_at(2023, 4, 10))
    put(engine, "Last weekend I volunteered at the charity race downtown", "s1#1")
    clock.set(_at(2024, 5, 1))
    res = recaller.recall(ALICE, "What did I volunteer at on April 10, 2023?", deep=True)
    assert res.query.deep and res.query.dates
    assert (
        by_summary(res, "Last weekend I volunteered at the charity race downtown").components[
            "structure"
        ]
        == 1.0
    )


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        # a stopword is dropped before stemming: "does" would stem to "doe", "very" to "veri"
        ("What does Melanie do to destress?", ("melani", "destress")),
        ("How many years older am I than my brother?", ("year", "older", "brother")),
        ("Is Joanna very fond of both turtles?", ("joanna", "fond", "turtl")),
        ("我最喜欢的电影是什么", ("喜欢", "电影")),
    ],
)
def test_function_words_are_not_keyword_terms(text: str, terms: tuple[str, ...]) -> None:
    assert build_query(text).terms == terms


@pytest.mark.parametrize(
    "memory,question",
    [
        ("I went to the dentist for a root canal", "What did I do on March 14?"),
        ("I went to the dentist for a root canal", "What did I do in mid-March?"),
        ("我去牙医那里做了根管治疗", "3月14日我做了什么？"),
        ("我去牙医那里做了根管治疗", "三月份我做了什么？"),
    ],
)
def test_a_day_or_month_named_without_its_year_is_the_latest_one(
    engine, clock, recaller, memory, question
):
    """ "on March 14" asked in May 2024 is March 14, 2024; asked in February 2024, March 14, 2023
    (this year's has not come yet)."""
    clock.set(_at(2023, 3, 14))
    put(engine, memory, "s1#1")
    clock.set(_at(2024, 2, 1))
    s = by_summary(recaller.recall(ALICE, question), memory)
    assert s.components["structure"] == 1.0  # last year's March 14: the memory's day
    clock.set(_at(2024, 5, 1))
    s = by_summary(recaller.recall(ALICE, question), memory)
    assert s.components["structure"] == 0.0  # this year's: a year after the memory


DATED = {
    "en": (
        "What did I finish in January 2022?",
        "Woo, the first full draft of my screenplay is done at last!",
        "I finished {} at the office today and then I finished my lunch.",
        ["the report", "the budget", "the slides", "the review", "the audit", "the plan"],
    ),
    "zh": (
        "我2022年1月完成了什么？",
        "耶，剧本的第一稿终于写好了！",
        "今天在办公室完成了{}，然后完成了午饭。",
        ["报告", "预算", "幻灯片", "评审", "审计", "计划"],
    ),
}


def _fillers(engine, clock, lang, count, *, days, session="s"):
    """`count` memories of the language's filler that say "finished", `days` apart."""
    _, _, filler, things = DATED[lang]
    for i in range(count):
        put(engine, filler.format(things[i % len(things)]), f"{session}{i}#1")
        clock.advance(days=days)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_memories_of_a_named_month_are_candidates_whatever_their_words(
    engine, clock, recaller, lang
):
    """ "What did I finish in January 2022?" is answered by that month's "the first draft of my
    screenplay is done", which shares no word with it, while forty memories of other months that
    say "finished" fill the vector and keyword channels: the date channel proposes the month's."""
    question, answer, _, _ = DATED[lang]
    clock.set(_at(2021, 10, 1))
    _fillers(engine, clock, lang, 42, days=2)
    clock.set(_at(2022, 1, 20))
    put(engine, answer, "jan#1")
    clock.set(_at(2022, 6, 1))
    _fillers(engine, clock, lang, 10, days=0, session="t")
    s = by_summary(recaller.recall(ALICE, question), answer)
    assert "date" in s.channels and s.components["structure"] == 1.0
    assert s.kept


def test_a_request_that_names_no_date_reads_no_date(engine, clock, recaller, monkeypatch):
    calls = []
    real = engine.store.list_page
    monkeypatch.setattr(engine.store, "list_page", lambda *a, **k: calls.append(a) or real(*a, **k))
    put(engine, "I went to the dentist", "s1#1")
    recaller.recall(ALICE, "What did I do at the dentist?")
    assert calls == []
    recaller.recall(ALICE, "What did I do at the dentist on March 14, 2023?")
    assert calls  # the read it skips is the one a dated request makes


def test_vectors_a_channel_read_are_not_read_again_by_load(engine, clock, monkeypatch):
    """The date channel reads the vectors of a month's memories to choose the nearest and leaves
    the chosen ones in the pool (`Pool.vectors`, `Pool.parts`); `load` scores them from there
    instead of reading them a second time (a store larger than the small tier read ahead)."""
    question, answer, _, _ = DATED["en"]
    record = put(engine, answer, "jan#1")
    vectors, parts = engine.store.vectors_with_parts([record.id])
    pool = Pool()
    pool.records[record.id] = record
    pool.vectors[record.id] = vectors[record.id]
    pool.parts.update(parts)
    pool.propose(record.id, "date")
    read: list[str] = []
    real = engine.store.vectors_with_parts
    monkeypatch.setattr(
        engine.store, "vectors_with_parts", lambda ids, *a, **k: read.extend(ids) or real(ids)
    )
    qvec = embed_query(engine.embedder, question)
    load(engine.store, ALICE, qvec, pool)
    assert read == []
    assert pool.cosine[record.id] == pytest.approx(float(vectors[record.id] @ qvec))


@pytest.mark.parametrize(
    "lang, question", [("en", "What did I finish last week?"), ("zh", "我上周完成了什么？")]
)
def test_the_memories_of_a_look_back_are_candidates_whatever_their_words(
    engine, clock, recaller, lang, question
):
    answer = DATED[lang][1]
    clock.set(_at(2022, 1, 1))
    _fillers(engine, clock, lang, 42, days=1)
    clock.set(_at(2022, 3, 1))
    put(engine, answer, "mar#1")
    clock.advance(days=4)
    s = by_summary(recaller.recall(ALICE, question), answer)
    assert "date" in s.channels  # a candidate; relevance gating still decides (no shared word)


@pytest.mark.parametrize(
    "lang, question",
    [
        ("en", "What holiday falls on January 20, 2022?"),
        ("en", "What day of the week was January 20?"),
        ("zh", "2022年1月20日是什么节日？"),
        ("zh", "1月20日是星期几？"),
    ],
)
def test_a_date_of_the_world_lifts_and_lets_through_no_memory(
    engine, clock, recaller, lang, question
):
    """A request about nothing of the user's names a date of the calendar, not of the user's
    life: the memories of that day are no answer to it, and are gated like any other."""
    answer = DATED[lang][1]
    clock.set(_at(2021, 10, 1))
    _fillers(engine, clock, lang, 42, days=2)
    clock.set(_at(2022, 1, 20))
    put(engine, answer, "jan#1")
    clock.set(_at(2022, 6, 1))
    result = recaller.recall(ALICE, question)
    assert not [s.record.summary for s in result.ranked if s.kept]
    s = by_summary(result, answer)
    assert s.components["structure"] == 0.0
