"""What a claim is about when the two values of a change share no word (issue 16, write path).

"I don't exercise at all" and "I started going to the gym" share no word, nor do 没有养宠物 and
领养了一只猫, "I'm single" and "I got married", 坐班 and 居家办公. Each pair names one attribute
(exercise, pets, marital status, work arrangement; "Where do I take classes?" and "I enrolled at
State University" name schooling): each language's `attribute` table (`lang/<code>/`) holds
the words of such attributes, and this module says when two statements about one of them
contradict each other:

- an *exclusive* attribute (marital status, work arrangement, diet) holds one value at a time: a
  change that names another value contradicts the old one (single -> married, 坐班 -> 居家办公);
- an attribute whose values add up (pets, exercise, drinks, jobs, commuting) changes only when the
  old statement negates the whole attribute by its general word and the new one states a value
  ("no pets" -> "adopted a cat", 不运动 -> 去健身房), or when the new one says it *switched*,
  to another value (改喝拿铁 after 平时喝美式) or of the general word (换工作了 after 在华为做测试);
  "I have a dog" then "we adopted a cat" adds a pet;
- without any lexicon, one predicate negated in one statement and stated in the other contradicts
  (不吃辣 -> 现在能吃辣了, "I don't eat beef" -> "I eat beef now").

`contradicts(old, new, switch=...)` is what consolidation asks; it never decides alone: the caller
has already seen that `new` states a change of the same speaker and owner.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from ..lang import Languages, all_on
from ..lang.text import negated, search_tokens


@dataclass(frozen=True)
class Attribute:
    """One attribute: its general words (negating them negates every value) and its values."""

    name: str
    exclusive: bool
    general: re.Pattern[str]
    values: tuple[tuple[str, re.Pattern[str]], ...]
    #: the general words and every value in one pattern: most texts name no attribute, and one
    #: search says so (relevance gating asks it of every pooled memory)
    named: re.Pattern[str]


_TABLE = "attribute"


def _attributes(langs: Languages) -> tuple[Attribute, ...]:
    """The attributes of every pack's attribute table: an entry with `exclusive` is an
    attribute's general words, an entry `of` it one of its values (the words of every language
    in one pattern)."""
    entries = {e.name: e for e in langs.entries(_TABLE)}
    out = []
    for name in langs.names(_TABLE):
        if name not in entries or entries[name].setting("exclusive") is None:
            continue
        general = langs.any_of(_TABLE, name)
        values = tuple(
            (str(entries[v].setting("value")), langs.any_of(_TABLE, v))
            for v in langs.names(_TABLE)
            if v in entries and entries[v].setting("of") == name
        )
        named = "|".join(f"(?:{p.pattern})" for p in (general, *(p for _, p in values)))
        exclusive = bool(entries[name].setting("exclusive"))
        out.append(Attribute(name, exclusive, general, values, re.compile(named, re.IGNORECASE)))
    return tuple(out)


#: the attributes, each with its general words and values in every language
ATTRIBUTES: tuple[Attribute, ...] = _attributes(all_on())


@dataclass(frozen=True)
class Mention:
    """What a statement says of one attribute: its general word, and which values it names."""

    attribute: Attribute
    general: bool
    values: frozenset[str]


def mentions(text: str) -> dict[str, Mention]:
    """The attributes a statement names, by name."""
    out = {}
    for a in ATTRIBUTES:
        if not a.named.search(text):
            continue
        values = frozenset(v for v, p in a.values if p.search(text))
        general = bool(a.general.search(text))
        if values or general:
            out[a.name] = Mention(a, general, values)
    return out


def names_any(text: str, names: Collection[str]) -> bool:
    """Whether text names one of these attributes: `names & mentions(text).keys()`, searching
    only the attributes asked about."""
    return any(a.named.search(text) for a in ATTRIBUTES if a.name in names)


def contradicts(old: str, new: str, *, switch: bool = False, nots_only: bool = False) -> bool:
    """Whether `new`, a change, states another value of an attribute `old` states (see the module
    docstring). `switch`: `new` says it switched (改喝, "switched to"), not only "now";
    `nots_only`: `new` is no change, only the end of a "not" counts (a predicate or a whole
    attribute negated in `old`)."""
    if flips(old, new):
        return True
    was, now = mentions(old), mentions(new)
    for name in was.keys() & now.keys():
        a, m_old, m_new = was[name].attribute, was[name], now[name]
        if negated(old) and not negated(new) and m_old.general and (m_new.values or m_new.general):
            return True  # "no pets" -> "adopted a cat", 不运动 -> 健身房
        if nots_only:
            continue
        differ = bool(m_old.values and m_new.values and m_new.values - m_old.values)
        if differ and not negated(new) and (a.exclusive or switch):
            return True  # single -> married; 美式 -> 改喝拿铁
        if switch and m_new.general and m_old.values and not negated(old):
            return True  # "I changed jobs" / 换工作了 after "I work at Acme" / 在华为做测试
    return False


def flips(old: str, new: str) -> bool:
    """One predicate negated in one statement and stated without negation in the other
    (我不吃辣 / 我现在能吃辣了, "I don't eat beef" / "I eat beef now")."""
    if negated(old) == negated(new):
        return False
    neg, pos = (old, new) if negated(old) else (new, old)
    table = all_on().of(neg).table(_TABLE)
    predicate = table.entry("negated_predicate")
    m = predicate.pattern.search(neg)
    if not m or table.entry("not_word").pattern.search(m.group(1)):
        return False  # a "not" negated ("I don't see why not") says yes: no predicate is denied
    if predicate.setting("held") == "as_written":
        return m.group(1) in pos
    words = set(search_tokens(m.group(1), drop_stopwords=True))
    return bool(words) and words <= set(search_tokens(pos, drop_stopwords=True))
