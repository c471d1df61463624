"""Query construction: the current input plus the last few turns, compressed to the intent.

A request that talks around its question and then points at it ("what I really want to know
is ...", 我真正想问的是：...) is read by the question it points at (`focus`, each language's
`focus` table). A request of several questions carries each (`questions`, each language's
`questions` table: recall/head.py gives each its share of the ranking's head). A request that
describes the one it asks about by one attribute and asks another
("the person whose email is X: what is their job?", 那个邮箱地址是…的人，职位是什么？) carries each
description and what is asked of it (`described`, each language's `describe` table: read by
recall/head.py). Also reads what the request implies about structure: a time window ("last week", 上周; see
`timeref`), a memory type ("my preferences", 偏好), or an explicit ask for deep recall ("search
all history", 仔细回忆).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from ..core.clock import DAY
from ..store.ports import TIER_STATUS
from ..lang import Languages, all_on
from ..lang.text import STOPWORDS, message_text, search_tokens
from ..core.tokens import ends, truncate_tokens
from ..config.tuning import tuned_int
from ..types import MemoryType
from .kinds import Kind, kinds_named
from .kinds import names_several
from .timeref import asks_duration, time_reference

_TYPES: tuple[tuple[re.Pattern[str], MemoryType], ...] = (
    (
        re.compile(r"偏好|喜好|喜欢什么|习惯|prefer|preference|favou?rite", re.I),
        MemoryType.PREFERENCE,
    ),
    (
        re.compile(r"决定|决策|为什么选|decid|decision|why did we (?:choose|pick)", re.I),
        MemoryType.DECISION,
    ),
    (re.compile(r"任务|待办|进度|todo|task|status of", re.I), MemoryType.TASK),
    (re.compile(r"报错|错误|失败|出错|error|fail|crash|exception", re.I), MemoryType.EVENT),
)
_DEEP = re.compile(
    r"仔细回忆|完整历史|全部历史|所有记录|翻一下历史|deep recall|search (?:all|the whole) history|full history",
    re.I,
)  # noqa: E501


_MONTHS = {
    m: i
    for i, m in enumerate(
        "january february march april may june july august september october november december".split(),
        start=1,
    )
}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MON = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_SEP = r"(?:,\s*|\s+)"  # "May 1, 2023", "December 1,2023", "May 2023"
_DATES = (
    re.compile(
        _MON + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?" + _SEP + r"(?P<year>(?:19|20)\d\d)", re.I
    ),
    re.compile(
        r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON + _SEP + r"(?P<year>(?:19|20)\d\d)",
        re.I,
    ),
    re.compile(
        r"(?P<year>(?:19|20)\d\d)\s*年\s*(?P<month>\d{1,2})\s*月(?:\s*(?P<day>\d{1,2})\s*[日号])?"
    ),
    re.compile(r"(?P<year>(?:19|20)\d\d)-(?P<month>\d{1,2})-(?P<day>\d{1,2})"),
    re.compile(_MON + _SEP + r"(?P<year>(?:19|20)\d\d)", re.I),
)
_MONTH_NAME = r"(?P<mon>" + "|".join(m for m in _MONTHS if len(m) > 3 or m == "may") + r")"
#: a subject before "may" makes it the verb
_MODAL = re.compile(r"\b(?:i|you|we|they|he|she|it|who|which|that|this)\s+$", re.I)
_ZH_MONTHS = {
    n: i for i, n in enumerate("一 二 三 四 五 六 七 八 九 十 十一 十二".split(), start=1)
}
#: a day or a month named without its year ("on May 23", "the 5th of June", "in early March",
#: 5月23日, 三月份): the latest such day or month up to now. A month name alone is a month only
#: after a word of time ("in May", "mid-June": "may" is a verb too); 三月 is March, 三个月 is not
_DATES_NO_YEAR = (
    re.compile(_MON + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?\b", re.I),
    re.compile(r"\b(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON + r"\b", re.I),
    re.compile(r"(?P<month>1[0-2]|[1-9])\s*月\s*(?P<day>[1-3]?\d)\s*[日号]"),
    re.compile(
        r"\b(?:in|during|since|early|mid|late|(?:the\s+)?(?:end|beginning|start|middle)\s+of)"
        r"[\s-]+" + _MONTH_NAME + r"\b",
        re.I,
    ),
    re.compile(
        r"(?<![\d个多年])(?P<month>1[0-2]|[1-9]|十[一二]?|[一二三四五六七八九])\s*月"
        r"(?:份|初|中旬|上旬|下旬|底|中)?(?![饼亮光球])"
    ),
)


@dataclass(frozen=True)
class Described:
    """One subject a request describes rather than names, and what it asks of it."""

    #: the description ("whose email is x@y.com", 邮箱地址是x@y.com)
    said: str
    #: its sentence without the description: what is asked of the one described
    asked: str
    #: the description's search terms (as `RecallQuery.terms`)
    terms: tuple[str, ...]
    #: those of its value ("x@y.com" of "whose email is x@y.com"): all of them when it names no
    #: attribute ("who lives in Porto")
    value_terms: tuple[str, ...] = ()


@dataclass(frozen=True)
class RecallQuery:
    text: str
    terms: tuple[str, ...] = ()
    window_days: float | None = None
    types: frozenset[MemoryType] = field(default_factory=frozenset)
    deep: bool = False
    #: an explicit date or month the request names ("May 23, 2023", 2023年5月): (start, end)
    dates: tuple[tuple[float, float], ...] = ()
    #: the text the keyword channel searches: `text` without the words that only say when
    #: ("in the past three months" is a window, not content to match)
    search_text: str = ""
    #: the request asks for several things (a list question: `listing.names_several`)
    several: bool = False
    #: the kinds of things it names ("martial arts", 乐器) and their members (`kinds.py`)
    kinds: tuple[Kind, ...] = ()
    #: it asks for a length of time ("how long have I been ...", 多久): memories that state one
    #: are of the form of its answer (`timeref.states_duration`)
    duration: bool = False
    #: the current request as recall reads it: a long one by its head and its tail (`tokens.ends`)
    current: str = ""
    #: the subjects it describes by an attribute and asks another of (`described`)
    described: tuple[Described, ...] = ()
    #: its questions, when it asks two or more (`questions`); () otherwise
    questions: tuple[str, ...] = ()

    @property
    def tiers(self) -> tuple[str, ...]:
        """The vector index's tiers searched: the archive too for deep recall."""
        return ("hot", "cold") if self.deep else ("hot",)

    @property
    def statuses(self) -> tuple[str, ...]:
        """The record statuses searched (as `tiers`, in the record store)."""
        return tuple(TIER_STATUS[t] for t in self.tiers)


#: tokens of a request (and of each recent turn) that recall reads: a longer one is read by its
#: head and its tail (`tokens.ends`)
QUERY_TOKENS = 256


def build_query(
    current: str,
    recent: Sequence[Mapping] = (),
    *,
    context_turns: int = tuned_int("recall.context_turns"),
    max_tokens: int = QUERY_TOKENS,
    now: float | None = None,
    kinds: bool = True,
    langs: Languages | None = None,
) -> RecallQuery:
    """The current input first (it carries the intent), then recent user turns as context.
    `now` dates a day or month the request names without its year (`explicit_dates`); `kinds`:
    whether the kinds the request names are read (recall/kinds.py; off with `channel.kind`);
    `langs`: the language packs under the config's switches (all rules on by default)."""
    current = focus(ends(current, max_tokens), langs or all_on())
    earlier: list[str] = []  # the last context_turns user turns that say something else, in order
    for m in reversed(recent if context_turns else ()):
        if len(earlier) == context_turns:
            break
        if m.get("role") == "user":
            t = ends(message_text(m), max_tokens)
            if t and t.strip() != current.strip():
                earlier.insert(0, t)
    text = truncate_tokens("\n".join([current, *reversed(earlier)]).strip(), max_tokens)
    dates = explicit_dates(current, now)
    when = time_reference(current, names_a_date=bool(dates))
    content = when.strip(current)
    search_text = (
        truncate_tokens("\n".join([content, *reversed(earlier)]).strip(), max_tokens)
        if when.spans
        else text
    )
    terms = content_terms(content)
    return RecallQuery(
        text=text,
        terms=terms,
        window_days=when.window_days,
        types=_types(current),
        deep=bool(_DEEP.search(current)),
        dates=dates,
        search_text=search_text,
        several=names_several(current or text),
        kinds=kinds_named(content) if kinds else (),
        duration=asks_duration(current),
        current=current,
        described=described(current, langs or all_on()),
        questions=questions(current, langs or all_on()),
    )


def focus(text: str, langs: Languages) -> str:
    """The questions a request points at, in order, or the request itself when it points at none.

    A speaker who talks around a question and then points at it ("..., anyway, what I really
    want to know is: where does Tom work?", 我真正想问的是：...) asks what follows the pointer, to
    the end of its sentence; everything else is talk. Each pointer counts (a request may point
    at two questions). The pointers are each language's `focus` table."""
    found: list[tuple[int, str]] = []
    for pack in langs.all():
        table = pack.table("focus")
        end = table.entry("end").pattern
        for m in table.entry("marker").pattern.finditer(text):
            stop = end.search(text, m.end())
            question = text[m.end() : stop.end() if stop else len(text)].strip()
            if question:
                found.append((m.start(), question))
    return " ".join(q for _, q in sorted(found)) if found else text


def described(text: str, langs: Languages) -> tuple[Described, ...]:
    """The subjects a request describes by one attribute and asks another of, in order.

    A relative clause names the one meant by what is true of it ("the friend who lives in
    Porto", 那个生日是1月17日的人); the rest of its sentence asks something else of it ("what
    does ... do?", 家乡是什么？). Each language's `describe` table holds the clause (`marker`,
    its group `said`), the value in a description that names an attribute (`value`) and where a
    sentence ends (`end`)."""
    found: list[tuple[int, Described]] = []
    for pack in langs.all():
        table = pack.table("describe")
        end, value = table.entry("end").pattern, table.entry("value").pattern
        for m in table.entry("marker").pattern.finditer(text):
            said = m.group("said").strip()
            terms = content_terms(said)
            if not terms:
                continue
            named = value.search(said)
            values = content_terms(named.group("value")) if named else ()
            starts = [e.end() for e in end.finditer(text, 0, m.start())]
            stop = end.search(text, m.end())
            head = text[starts[-1] if starts else 0 : m.start()]
            tail = text[m.end() : stop.end() if stop else len(text)]
            asked = " ".join((head + tail).split())
            found.append((m.start(), Described(said, asked, terms, values or terms)))
    return tuple(d for _, d in sorted(found, key=lambda f: f[0]))


def questions(text: str, langs: Languages) -> tuple[str, ...]:
    """The questions of a request that asks two or more, in order ("Where does Tom work? Also,
    when did he move?", ……？另外，……？); () for a request of one question. A question starts
    where each language's `questions` table (`another`) says the next one starts; a part with
    no content term is no question."""
    marks = sorted(
        m.span()
        for pack in langs.all()
        for m in pack.table("questions").entry("another").pattern.finditer(text)
    )
    parts, at = [], 0
    for start, end in marks:  # the words that open a question belong to neither
        parts.append(text[at:start].strip())
        at = max(at, end)
    parts.append(text[at:].strip())
    asked = tuple(p for p in parts if content_terms(p))
    return asked if len(asked) > 1 else ()


def content_terms(text: str) -> tuple[str, ...]:
    """The content terms of text: its search tokens without stopwords, single Latin letters and
    single CJK characters."""
    return tuple(
        dict.fromkeys(
            t
            for t in search_tokens(text, drop_stopwords=True)  # before stemming: does -> doe
            if t not in STOPWORDS and len(t) > 1 or _cjk_word(t)
        )
    )


def explicit_dates(text: str, now: float | None = None) -> tuple[tuple[float, float], ...]:
    """(start, end) UTC epoch ranges of the dates and months a request names explicitly; with
    `now`, also those it names without their year (the latest such day or month up to now)."""
    out: list[tuple[float, float]] = []
    spans: list[tuple[int, int]] = []
    # most specific first; a match inside another is skipped
    patterns: list[tuple[re.Pattern[str], float | None]] = [(p, None) for p in _DATES]
    if now is not None:
        patterns += [(p, now) for p in _DATES_NO_YEAR]
    for pattern, at in patterns:
        for m in pattern.finditer(text):
            if (m.groupdict().get("mon") or "").lower() == "may" and _MODAL.search(
                text, 0, m.start()
            ):
                continue  # "you may 2x the recipe": the verb
            found = _range(m.groupdict()) if at is None else _latest(m.groupdict(), at)
            if found and not any(a < m.end() and m.start() < b for a, b in spans):
                out.append(found)
                spans.append(m.span())
    return tuple(out)


#: days after a named day or month a memory of it may still be written ("yesterday I ...")
DAYS_LOGGED_AFTER = tuned_int("query.days_logged_after")


def dated_stretch(start: float, end: float) -> tuple[float, float]:
    """When a memory of a day or month a request names was written: from a day before it to
    `DAYS_LOGGED_AFTER` after (a day's talk may be logged up to a week later: "yesterday I ...")."""
    return start - DAY, end + DAYS_LOGGED_AFTER * DAY


def _latest(g: Mapping[str, str | None], now: float) -> tuple[float, float] | None:
    """The range of a day or month named without its year: this year's, or last year's when
    this year's has not begun by now."""
    year = datetime.fromtimestamp(now, timezone.utc).year
    for y in (year, year - 1):
        found = _range({**g, "year": str(y)})
        if found and found[0] <= now:
            return found
    return None


def _range(g: Mapping[str, str | None]) -> tuple[float, float] | None:
    named = g.get("month") or ""
    month = (
        (int(named) if named.isdigit() else _ZH_MONTHS.get(named))
        if named
        else _MONTHS.get((g.get("mon") or "").lower())
    )
    if not month or not 1 <= month <= 12:
        return None
    year, day = int(g["year"] or 0), int(g["day"] or 0) if g.get("day") else None
    try:
        if day:
            start = datetime(year, month, day, tzinfo=timezone.utc).timestamp()
            return start, start + DAY
        start = datetime(year, month, 1, tzinfo=timezone.utc).timestamp()
        end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=timezone.utc).timestamp()
        return start, end
    except ValueError:
        return None


def _cjk_word(tok: str) -> bool:
    return len(tok) >= 2 and not tok.isascii() and tok not in STOPWORDS


def _types(text: str) -> frozenset[MemoryType]:
    return frozenset(t for pattern, t in _TYPES if pattern.search(text))


def window_start(query: RecallQuery, now: float) -> float | None:
    return None if query.window_days is None else now - query.window_days * DAY
