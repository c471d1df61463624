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

import functools
import re
from dataclasses import dataclass
from typing import Any

from ..lang import Languages, all_on
from ..lang.pack import NEVER, Entry, LanguagePack

#: the language pack table of the time grammar (each language's `time.yaml`)
TABLE = "time"
#: a unit of a year or longer names a time, not a window: "the past two years" reaches back past
#: most of what a store holds
_YEAR = 366
#: what a fragment that is switched off stands for in a pattern built from it: nothing matches
_NOTHING = "(?!)"


@dataclass(frozen=True)
class _Grammar:
    """One pack's time grammar, compiled: its patterns by what they are read for."""

    numbers: Entry
    unit: Entry
    span: tuple[re.Pattern[str], ...] = ()
    fixed: tuple[tuple[re.Pattern[str], float], ...] = ()
    ago: tuple[re.Pattern[str], ...] = ()
    when: tuple[re.Pattern[str], ...] = ()
    order: tuple[tuple[re.Pattern[str], dict[str, str]], ...] = ()
    asks_duration: re.Pattern[str] = NEVER
    states_duration: re.Pattern[str] = NEVER

    def number(self, word: str) -> float | None:
        """The value of a count: digits, a number word (`values`), or numerals composed of
        `digits` around the `tens` numeral (十二, 二十, 三十五); None when it is none."""
        if word.isdigit():
            return int(word)
        values: dict[str, float] = self.numbers.setting("values", {})
        key = re.sub(r"\s+", " ", word.lower())
        if key in values:
            return values[key]
        digits: dict[str, int] = self.numbers.setting("digits", {})
        tens_mark = self.numbers.setting("tens")
        if tens_mark and tens_mark in word:
            tens, _, units = word.partition(tens_mark)
            if (tens and tens not in digits) or (units and units not in digits):
                return None
            return (digits[tens] if tens else 1) * 10 + (digits[units] if units else 0)
        return digits.get(word) if len(word) == 1 else None

    def days(self, unit: str, setting: str = "lengths") -> float | None:
        """The days of a unit word by the unit's `lengths` (or its `bare` look-back)."""
        for shape, days in self.unit.setting(setting, {}).items():
            if re.fullmatch(shape, unit, re.IGNORECASE):
                return float(days)
        return None


def _words(words: Any) -> str:
    """An alternation of words, longest first (a phrase before a word it starts with)."""
    found = sorted((re.escape(w) for w in words), key=len, reverse=True)
    return "|".join(found) if found else _NOTHING


def _fragment(entry: Entry, **fill: str) -> str:
    """The pattern text of an entry that is part of other patterns (`${name}` in them)."""
    if not entry.on or entry.source is None:
        return _NOTHING
    text = entry.source
    for key, value in fill.items():
        text = text.replace("${" + key + "}", value)
    return text


def _grammar_of(pack: LanguagePack) -> _Grammar:
    table = pack.table(TABLE)
    numbers = table.entry("numbers")
    words = _words(numbers.setting("values", {}) if numbers.on else ())
    count = _fragment(table.entry("count"), numbers=words)
    weekday = table.entry("weekday")
    fill = {
        "count": count,
        "numbers": words,
        "unit": _fragment(table.entry("unit")),
        "weekday": "(?:" + ("|".join(weekday.words) if weekday.on else _NOTHING) + ")",
    }
    by: dict[str, list[Entry]] = {}
    for entry in table.values():
        by.setdefault(entry.setting("reads", ""), []).append(entry)
    return _Grammar(
        numbers=numbers,
        unit=table.entry("unit"),
        span=tuple(e.regex(**fill) for e in by.get("span", [])),
        fixed=tuple((e.regex(**fill), float(e.setting("days"))) for e in by.get("fixed", [])),
        ago=tuple(e.regex(**fill) for e in by.get("ago", [])),
        when=tuple(e.regex(**fill) for e in by.get("when", [])),
        order=tuple((e.regex(**fill), dict(e.setting("orders", {}))) for e in by.get("order", [])),
        asks_duration=table.entry("asks_duration").regex(**fill),
        states_duration=table.entry("states_duration").regex(**fill),
    )


@functools.lru_cache(maxsize=8)
def _grammars(langs: Languages) -> tuple[_Grammar, ...]:
    """The time grammar of every pack (a text's time words may be in any language)."""
    return tuple(_grammar_of(pack) for pack in langs.all())


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


def time_reference(
    text: str, *, names_a_date: bool = False, langs: Languages | None = None
) -> TimeRef:
    """The look-back window and the time words of a request.

    Window (days): N units + 1 for "past/last N units" and 最近/过去/近/这 N 天/周/个月 (units:
    day 1, week 7, month 31); a bare "last week" 14, "last month" 62, today 1, yesterday 2 (a
    bare "last day" is no window: "the last day of the trip").
    The longest window named wins. `names_a_date`: the request names an explicit date, which
    anchors its relative words; no now-relative window then.
    """
    windows: list[float] = []
    spans: list[tuple[int, int]] = []
    grammars = _grammars(langs or all_on())
    for g in grammars:
        for pattern in g.span:
            for m in pattern.finditer(text):
                found = _span_window(g, m)
                if found is not None:
                    windows.extend(found)
                    spans.append(m.span())
    for g in grammars:
        for pattern, days in g.fixed:
            for m in pattern.finditer(text):
                if not any(a <= m.start() < b for a, b in spans):
                    windows.append(days)
                    spans.append(m.span())
    for g in grammars:
        for pattern in g.ago:
            spans.extend(m.span() for m in pattern.finditer(text))
    relation = _relation(text, spans, grammars)
    for g in grammars:
        for pattern in g.when:
            spans.extend(m.span() for m in pattern.finditer(text))
    window = None if names_a_date or not windows else max(windows)
    return TimeRef(window, tuple(sorted(set(spans))), relation)


def _span_window(g: _Grammar, m: re.Match[str]) -> list[float] | None:
    """The window a stretch up to now makes ([] for one of years: a time but no window), or
    None when the match names no stretch ("the last day of the trip", a count of none)."""
    unit = g.days(m.group("unit")) or 0.0
    num = m.group("num")
    if not num:
        bare = g.days(m.group("unit"), "bare")
        return None if bare is None else [bare]
    n = g.number(num)
    if not n:
        return None
    return [n * unit + 1.0] if unit < _YEAR else []


def _relation(
    text: str, spans: list[tuple[int, int]], grammars: tuple[_Grammar, ...]
) -> tuple[str, str] | None:
    """The first order word that relates the request to another event (its span is added: the
    order word says when, the event is content); None when the request names none."""
    found: list[tuple[int, int, str, str]] = []
    for g in grammars:
        for pattern, orders in g.order:
            for m in pattern.finditer(text):
                event = re.sub(r"\s+", " ", m.group("event")).strip()
                order = " ".join(m.group("order").lower().split())
                found.append((*m.span("order"), orders[order], event))
    found = [f for f in found if not any(a <= f[0] < b for a, b in spans)]
    if not found:
        return None
    found.sort()
    spans.extend((a, b) for a, b, _, _ in found)
    return found[0][2], found[0][3]


def asks_duration(text: str, langs: Languages | None = None) -> bool:
    """The request asks how long something lasted or has lasted (`asks_duration` of each
    language's time grammar)."""
    return any(g.asks_duration.search(text) for g in _grammars(langs or all_on()))


def states_duration(text: str, langs: Languages | None = None) -> bool:
    """The text states a length of time (what a question of `asks_duration` is answered by;
    `states_duration` of each language's time grammar)."""
    return any(g.states_duration.search(text) for g in _grammars(langs or all_on()))
