"""Time references in a request: how far back it looks, and which of its words only say when.

"in the past three months", "last 2 weeks", 最近三个月, 过去两周 make a look-back window (the
request is about that stretch of time up to now). "5 days ago", "how many days ago", 三天前
make none (the event happened then, but the user may have told us about it any time after),
yet their words are about time, like the window's: neither is content to match by keyword.
A request that names a date ("last weekend before April 10, 2023") anchors its relative words
to that date, not to now, so it makes no now-relative window (the named date is the signal).

The grammar, not a list of phrasings: a count (digits, number words, 几, 半) and a unit (day,
week, fortnight, month, year; 天, 周, 星期, 礼拜, 个月, 年) make a duration; a duration with
"past/last/最近/过去" looks back, with "ago/前" points back, with "later/after/后" points
forward, with "for/持续/了" lasts. Calendar words name their unit before this one (last week,
上周; the one before that, 上上周; 前天, 大前天). Years are time words but no window ("this
year" when the user said it may be last year now; "the past two years" reaches back past most
of what a store holds). Order words relate the
request to another event ("before the concert", 搬家之前, 那天): `relation` keeps the order
and the event, and the order word itself is no content to match.

A question of how long ("how long have I been ...", 多久, 多长时间) asks for a length of time, and
a memory that states one (a count and a unit of time, "since 2019"; not a month name, 三月) is of
the form of its answer: `asks_duration`, `states_duration` (half the structure signal,
`rank.components`).

Pure functions over text; `query.build_query` reads the request, `rank.components` a memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EN_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "dozen": 12,
    "a dozen": 12,
    "half a": 0.5,
    "couple": 2,
    "a couple": 2,
    "a couple of": 2,
    "couple of": 2,
    "few": 4,
    "a few": 4,
    "several": 5,
}
_EN_NUM = "|".join(sorted((re.escape(k) for k in _EN_NUMBERS), key=len, reverse=True))
_EN_UNIT = {"day": 1.0, "week": 7.0, "fortnight": 14.0, "month": 31.0, "year": 366.0}
_YEAR = 366.0
_EN_UNITS = r"(?P<unit>days?|weeks?|fortnights?|months?|years?)"
_ZH_DIGITS = {
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_ZH_NUM = r"\d{1,3}|[一二两三四五六七八九十]{1,3}|几|半"
_ZH_UNITS = (
    r"多?(?P<unit>天|日|个?多?星期|个?多?礼拜|周|个?多?月|年)多?"  # 一个多月, 三年多: more than
)

_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
#: "in the past three months", "over the last 2 weeks", "past few days"
_EN_SPAN = re.compile(
    r"\b(?:(?:in|over|during|within|for)\s+)?(?:the\s+)?(?:last|past|previous)\s+"
    rf"(?:(?P<num>\d{{1,3}}|{_EN_NUM})\s+)?{_EN_UNITS}\b",
    re.I,
)
#: 最近三个月, 过去两周, 近十天, 这两周
_ZH_SPAN = re.compile(rf"(?:最近|过去|近|这)\s*(?P<num>{_ZH_NUM})\s*{_ZH_UNITS}")
#: words with a fixed look-back (days): "last week" is the calendar week before this one
_FIXED: tuple[tuple[re.Pattern[str], float], ...] = (
    (
        re.compile(
            r"今天|今晚|\btoday\b|\btonight\b|\bthis\s+(?:morning|afternoon|evening)\b", re.I
        ),
        1.0,
    ),
    (re.compile(r"大前天", re.I), 4.0),
    (re.compile(r"(?<!大)前天|\bthe\s+day\s+before\s+yesterday\b", re.I), 3.0),
    (re.compile(r"昨天|昨晚|\byesterday\b|\blast\s+night\b", re.I), 2.0),
    (re.compile(r"上上(?:个)?(?:周|星期|礼拜)(?!末)|\bthe\s+week\s+before\s+last\b", re.I), 21.0),
    (re.compile(r"上上个?月|\bthe\s+month\s+before\s+last\b", re.I), 93.0),
    (re.compile(r"\bearlier\s+this\s+(?:week|month)\b", re.I), 31.0),
    (re.compile(r"前几天|这几天", re.I), 5.0),
    (re.compile(r"上周末|上个周末|\b(?:last|past)\s+weekend\b", re.I), 9.0),
    (re.compile(r"(?<!上)(?:上|这|本)(?:个)?(?:周|星期|礼拜)(?!末)|\bthis\s+week\b", re.I), 14.0),
    # a weekday of this week or the last, as 上周二 / 这周五 name one: "last Tuesday", "this past
    # Friday", "this Monday"
    (re.compile(rf"\b(?:last|this\s+past|past|this)\s+{_WEEKDAY}\b", re.I), 14.0),
    (re.compile(r"上个月|这个月|本月|\bthis\s+month\b", re.I), 62.0),
)
#: a bare "last week" / "past month" (no number): the calendar unit before this one
_BARE = {"week": 14.0, "fortnight": 15.0, "month": 62.0}
#: "5 days ago", "a few weeks back", "how many days ago", "how long ago", 三天前, 一个多月前
_AGO = (
    re.compile(rf"\b(?:\d{{1,3}}|{_EN_NUM})\s+{_EN_UNITS}\s+(?:ago|earlier|before|back)\b", re.I),
    re.compile(r"\bhow\s+(?:long|many\s+(?:days|weeks|months|years))\s+ago\b", re.I),
    re.compile(rf"(?P<num>{_ZH_NUM})\s*{_ZH_UNITS}(?:之|以)?前"),
)
#: words that only say when, with no window: a duration forward or lasting ("three days later",
#: "for two weeks", 两天后, 持续了三个月), a question about time ("how long", 多久, 多长时间, "what
#: year"), "the other day", 那天
_WHEN_WORDS = (
    re.compile(
        rf"\b(?:\d{{1,3}}|{_EN_NUM})\s+{_EN_UNITS}\s+(?:later|after(?:wards?)?|from\s+now)\b",
        re.I,
    ),
    re.compile(
        rf"\b(?:for|lasted|lasting|took)\s+(?:about\s+)?(?:\d{{1,3}}|{_EN_NUM})\s+{_EN_UNITS}", re.I
    ),
    re.compile(
        r"\bhow\s+long\b|多久|多长时间|\bwhat\s+(?:year|month|day|date|time)\b|\bwhich\s+(?:year|month|day)\b"
        r"|\bthe\s+other\s+(?:day|week)\b|\bsince\s+when\b|\bhow\s+(?:soon|often)\b"
        r"|\ba\s+while\s+(?:ago|back)\b|前阵子|前段时间|前些(?:日子|天)",
        re.I,
    ),
    re.compile(rf"(?P<num>{_ZH_NUM})\s*{_ZH_UNITS}(?:之|以)?后"),
    re.compile(rf"(?:持续了?|花了|用了)\s*(?P<num>{_ZH_NUM})\s*{_ZH_UNITS}"),
    # 什么时候 / 哪天 stay keyword terms: taking them out cost the Chinese set a temporal question
    re.compile(r"那天|当天|那时候?"),
    # a year is too coarse to look back on: "this year's spring" was told when it was this year
    re.compile(
        r"去年|今年|前年|\b(?:last|this)\s+year\b|\b(?:the\s+)?(?:past|last)\s+year\b", re.I
    ),
)
#: order words that relate the request to another event: "before the concert", "after she
#: moved", 搬家之前, 毕业以后 (the event: the words after the English word, before the Chinese)
_EN_ORDER = re.compile(
    r"\b(?P<order>before|after|since|until|prior\s+to|following)\s+(?P<event>[^,.;?!]{2,60})",
    re.I,
)
_ZH_ORDER = re.compile(r"(?P<event>[\u4e00-\u9fff]{2,12}?)(?P<order>之前|以前|之后|以后|那天|那时)")
_ORDER = {
    "before": "before",
    "prior to": "before",
    "until": "before",
    "after": "after",
    "since": "after",
    "following": "after",
    "之前": "before",
    "以前": "before",
    "之后": "after",
    "以后": "after",
    "那天": "on",
    "那时": "on",
}


@dataclass(frozen=True)
class TimeRef:
    #: the request looks back this many days from now (None: no window)
    window_days: float | None
    #: character spans of the words that only say when
    spans: tuple[tuple[int, int], ...] = ()
    #: (order, event): the request asks about the time before / after / on another event
    #: ("before the concert": ("before", "the concert"); 搬家之前: ("before", "搬家"))
    relation: tuple[str, str] | None = None

    def strip(self, text: str) -> str:
        """The text with its time words blanked (same length elsewhere)."""
        for a, b in self.spans:
            text = text[:a] + " " * (b - a) + text[b:]
        return text


def _zh_number(s: str) -> float | None:
    if s.isdigit():
        return int(s)
    if s == "几":
        return 4
    if s == "半":
        return 0.5
    if "十" in s:
        tens, _, units = s.partition("十")
        t = _ZH_DIGITS.get(tens, 0) if tens else 1
        u = _ZH_DIGITS.get(units, 0) if units else 0
        return (
            t * 10 + u
            if (not tens or tens in _ZH_DIGITS) and (not units or units in _ZH_DIGITS)
            else None
        )
    return _ZH_DIGITS.get(s) if len(s) == 1 else None


def _en_unit(word: str) -> float:
    return _EN_UNIT[word.lower().rstrip("s")]


def _zh_unit(word: str) -> float:
    if word.endswith("月"):
        return 31.0
    return 366.0 if word == "年" else 1.0 if word in ("天", "日") else 7.0


def time_reference(text: str, *, names_a_date: bool = False) -> TimeRef:
    """The look-back window and the time words of a request.

    Window (days): N units + 1 for "past/last N units" and 最近/过去/近/这 N 天/周/个月 (units:
    day 1, week 7, month 31); a bare "last week" 14, "last month" 62, today 1, yesterday 2 (a
    bare "last day" is no window: "the last day of the trip").
    The longest window named wins. `names_a_date`: the request names an explicit date, which
    anchors its relative words; no now-relative window then.
    """
    windows: list[float] = []
    spans: list[tuple[int, int]] = []
    for m in _EN_SPAN.finditer(text):
        num = m.group("num")
        unit = _en_unit(m.group("unit"))
        if num:
            n = int(num) if num.isdigit() else _EN_NUMBERS[re.sub(r"\s+", " ", num.lower())]
            if unit < _YEAR:
                windows.append(n * unit + 1.0)
        else:
            bare = _BARE.get(m.group("unit").lower().rstrip("s"))
            if bare is None:  # "the last day of the trip" names no stretch of time
                continue
            windows.append(bare)
        spans.append(m.span())
    for m in _ZH_SPAN.finditer(text):
        zh = _zh_number(m.group("num"))
        if zh:
            if _zh_unit(m.group("unit")) < _YEAR:
                windows.append(zh * _zh_unit(m.group("unit")) + 1.0)
            spans.append(m.span())
    for pattern, days in _FIXED:
        for m in pattern.finditer(text):
            if not any(a <= m.start() < b for a, b in spans):
                windows.append(days)
                spans.append(m.span())
    for pattern in _AGO:
        spans.extend(m.span() for m in pattern.finditer(text))
    relation = _relation(text, spans)
    for pattern in _WHEN_WORDS:
        spans.extend(m.span() for m in pattern.finditer(text))
    window = None if names_a_date or not windows else max(windows)
    return TimeRef(window, tuple(sorted(set(spans))), relation)


def _relation(text: str, spans: list[tuple[int, int]]) -> tuple[str, str] | None:
    """The first order word that relates the request to another event (its span is added: the
    order word says when, the event is content); None when the request names none."""
    found: list[tuple[int, int, str, str]] = []
    for m in _EN_ORDER.finditer(text):
        event = re.sub(r"\s+", " ", m.group("event")).strip()
        order = " ".join(m.group("order").lower().split())
        found.append((*m.span("order"), _ORDER[order], event))
    for m in _ZH_ORDER.finditer(text):
        found.append((*m.span("order"), _ORDER[m.group("order")], m.group("event")))
    found = [f for f in found if not any(a <= f[0] < b for a, b in spans)]
    if not found:
        return None
    found.sort()
    spans.extend((a, b) for a, b, _, _ in found)
    return found[0][2], found[0][3]


#: a question whose answer is a length of time: "how long have I been ...", "for how long",
#: 多久, 多长时间, 多少年 (not "how long ago", 多久以前: those ask for a point in time)
_ASKS_DURATION = re.compile(
    r"\bhow\s+long\b(?!\s+ago)|(?:多久|多长时间|多少(?:年|个月|天))(?![以之]?前)", re.I
)
#: a text that states a length of time: "for 4 years", "3 years and 9 months", "a few weeks",
#: "since 2019", "3 years ago" (when it began), 三年, 两个多月, 半年 (a bare month name is no
#: length: 三月 is March; nor a school year, 三年级)
_STATES_DURATION = (
    re.compile(
        rf"\b(?:\d{{1,3}}|{_EN_NUM})\s+(?:hours?|days?|weeks?|fortnights?|months?|years?)\b"
        r"|\bsince\s+(?:(?:19|20)\d\d|i\s+was|high\s+school|college|childhood)\b",
        re.I,
    ),
    re.compile(
        r"(?<![\d一二两三四五六七八九十])(?:\d{1,3}|[一二两三四五六七八九十几半]{1,3})\s*多?(?:个多?小时|天|个多?星期|周|个多?月|年(?![级代]))"
    ),
)


def asks_duration(text: str) -> bool:
    """The request asks how long something lasted or has lasted."""
    return _ASKS_DURATION.search(text) is not None


def states_duration(text: str) -> bool:
    """The text states a length of time (what a question of `asks_duration` is answered by)."""
    return any(p.search(text) for p in _STATES_DURATION)
