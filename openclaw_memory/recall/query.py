"""The request read for recall: the query, and what it asks about as keys.

Query construction: the current input plus the last few turns, compressed to the intent. A
request that talks around its question and then points at it ("what I really want to know
is ...", 我真正想问的是：...) is read by the question it points at (`focus`, each language's
`focus` table). A request of several questions carries each (`questions`, each language's
`questions` table: recall/head.py gives each its share of the head).

What recall and relevance gating read of the request's text besides its terms is read once here
too, when the query is built (`analysis`: recall/analyse.py); what a request asks about as keys
that do not depend on wording is recall/analyse.py.
"""

from __future__ import annotations

import functools
import re
from datetime import datetime, timezone
from dataclasses import dataclass, field
from typing import Mapping, Sequence
from ..core.clock import DAY
from ..store.ports import TIER_STATUS
from ..lang import Languages, all_on
from ..lang.pack import LanguagePack
from ..lang.text import message_text
from ..core.tokens import ends, truncate_tokens
from ..config.tuning import tuned_int
from ..types import MemoryType
from .analyse import Analysis, analyse, content_terms
from .kinds import Kind, kinds_named, names_several
from .timeref import TABLE as TIME_TABLE, asks_duration, time_reference

# Query construction: the current input plus the last few turns, compressed to the intent.
#
# A request that talks around its question and then points at it ("what I really want to know
# is ...", 我真正想问的是：...) is read by the question it points at (`focus`, each language's
# `focus` table). A request of several questions carries each (`questions`, each language's
# `questions` table: recall/head.py gives each its share of the ranking's head). A request that
# describes the one it asks about by one attribute and asks another
# ("the person whose email is X: what is their job?", 那个邮箱地址是…的人，职位是什么？) carries each
# description and what is asked of it (`described`, each language's `describe` table: read by
# recall/head.py). Also reads what the request implies about structure: a time window ("last week", 上周; see
# `timeref`), a memory type ("my preferences", 偏好), or an explicit ask for deep recall ("search
# all history", 仔细回忆).

#: the language pack table of what a request asks of recall beyond its words (types, deep recall)
TABLE = "query"
#: a date written as numbers, year first (2023-05-01): a shape of no language
_ISO_DATE = re.compile(r"(?P<year>(?:19|20)\d\d)-(?P<month>\d{1,2})-(?P<day>\d{1,2})")


@dataclass(frozen=True)
class _Dates:
    """One pack's date patterns (its `time` table): with their year, and without it."""

    months: Mapping[str, int]
    dated: tuple[re.Pattern[str], ...]
    undated: tuple[re.Pattern[str], ...]
    #: a month name that is also a verb, and the words before it that make it one
    verb: str | None = None
    subject_before: re.Pattern[str] | None = None


def _dates_of(pack: LanguagePack) -> _Dates:
    table = pack.table(TIME_TABLE)
    months = table.entry("months")
    names = dict(months.setting("values", {})) if months.on else {}
    short = dict(months.setting("short", {})) if months.on else {}
    every = {**names, **short}
    fill = {
        "mon": "(?P<mon>" + ("|".join(sorted(every, key=len, reverse=True)) or "(?!)") + r")\.?",
        "month_name": "(?P<mon>" + ("|".join(names) or "(?!)") + ")",
    }
    verb = table.entry("month_as_verb")
    return _Dates(
        every,
        tuple(e.regex(**fill) for e in table.values() if e.setting("reads") == "date"),
        tuple(e.regex(**fill) for e in table.values() if e.setting("reads") == "day"),
        verb.setting("word") if verb.on else None,
        verb.pattern,
    )


@functools.lru_cache(maxsize=8)
def _dates(langs: Languages) -> tuple[_Dates, ...]:
    """The date patterns of every pack (a request may name a date in any language)."""
    return tuple(_dates_of(p) for p in langs.all())


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
    #: what recall and relevance gating read of `text` and `current` (recall/analyse.py), read
    #: once: given by `build_query`, read from them when a query is made by hand
    analysis: Analysis = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.analysis is None:
            # a query made by hand carries no packs: it is read with every rule on, as before
            # (`build_query` hands the stage's analysis)
            read = analyse(self.text, self.current, self.questions)
            object.__setattr__(self, "analysis", read)

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
    langs = langs or all_on()
    current = focus(ends(current, max_tokens), langs)
    earlier: list[str] = []  # the last context_turns user turns that say something else, in order
    for m in reversed(recent if context_turns else ()):
        if len(earlier) == context_turns:
            break
        if m.get("role") == "user":
            t = ends(message_text(m), max_tokens)
            if t and t.strip() != current.strip():
                earlier.insert(0, t)
    text = truncate_tokens("\n".join([current, *reversed(earlier)]).strip(), max_tokens)
    dates = explicit_dates(current, now, langs)
    when = time_reference(current, names_a_date=bool(dates), langs=langs)
    content = when.strip(current)
    search_text = (
        truncate_tokens("\n".join([content, *reversed(earlier)]).strip(), max_tokens)
        if when.spans
        else text
    )
    terms = content_terms(content)
    several_questions = questions(current, langs)
    return RecallQuery(
        text=text,
        terms=terms,
        window_days=when.window_days,
        types=_types(current, langs),
        deep=any(p.table(TABLE).entry("deep").pattern.search(current) for p in langs.all()),
        dates=dates,
        search_text=search_text,
        several=names_several(current or text, langs),
        kinds=kinds_named(content, langs) if kinds else (),
        duration=asks_duration(current, langs),
        current=current,
        described=described(current, langs),
        questions=several_questions,
        analysis=analyse(text, current, several_questions, langs),
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


def explicit_dates(
    text: str, now: float | None = None, langs: Languages | None = None
) -> tuple[tuple[float, float], ...]:
    """(start, end) UTC epoch ranges of the dates and months a request names explicitly; with
    `now`, also those it names without their year (the latest such day or month up to now):
    the date patterns of each language's `time` table."""
    out: list[tuple[float, float]] = []
    spans: list[tuple[int, int]] = []
    # most specific first; a match inside another is skipped
    grammars = _dates(langs or all_on())
    patterns: list[tuple[re.Pattern[str], _Dates | None, float | None]] = [(_ISO_DATE, None, None)]
    patterns += [(p, g, None) for g in grammars for p in g.dated]
    if now is not None:
        patterns += [(p, g, now) for g in grammars for p in g.undated]
    for pattern, g, at in patterns:
        months = g.months if g else {}
        for m in pattern.finditer(text):
            if g and _a_verb(m, g, text):
                continue  # "you may 2x the recipe": the verb
            found = (
                _range(m.groupdict(), months) if at is None else _latest(m.groupdict(), at, months)
            )
            if found and not any(a < m.end() and m.start() < b for a, b in spans):
                out.append(found)
                spans.append(m.span())
    return tuple(out)


def _a_verb(m: re.Match[str], g: _Dates, text: str) -> bool:
    """The month name matched is the verb it may also be (a subject right before it)."""
    named = (m.groupdict().get("mon") or "").lower()
    return bool(
        g.verb
        and named == g.verb
        and g.subject_before
        and g.subject_before.search(text, 0, m.start())
    )


#: days after a named day or month a memory of it may still be written ("yesterday I ...")
DAYS_LOGGED_AFTER = tuned_int("query.days_logged_after")


def dated_stretch(start: float, end: float) -> tuple[float, float]:
    """When a memory of a day or month a request names was written: from a day before it to
    `DAYS_LOGGED_AFTER` after (a day's talk may be logged up to a week later: "yesterday I ...")."""
    return start - DAY, end + DAYS_LOGGED_AFTER * DAY


def _latest(
    g: Mapping[str, str | None], now: float, months: Mapping[str, int]
) -> tuple[float, float] | None:
    """The range of a day or month named without its year: this year's, or last year's when
    this year's has not begun by now."""
    year = datetime.fromtimestamp(now, timezone.utc).year
    for y in (year, year - 1):
        found = _range({**g, "year": str(y)}, months)
        if found and found[0] <= now:
            return found
    return None


def _range(g: Mapping[str, str | None], months: Mapping[str, int]) -> tuple[float, float] | None:
    """The range of a named day or month (groups year, month or its name mon, day)."""
    named = g.get("month") or g.get("mon") or ""
    month = int(named) if named.isdigit() else months.get(named.lower())
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


def _types(text: str, langs: Languages | None = None) -> frozenset[MemoryType]:
    """The memory types a request names (the entries of each language's `query` table that say
    which `type` they read)."""
    return frozenset(
        MemoryType(e.setting("type"))
        for p in (langs or all_on()).all()
        for e in p.table(TABLE).values()
        if e.setting("type") and e.pattern.search(text)
    )


def window_start(query: RecallQuery, now: float) -> float | None:
    return None if query.window_days is None else now - query.window_days * DAY
