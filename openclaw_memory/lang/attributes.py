"""The attributes a text names: the general words and the values of each (pets, exercise,
marital status, 宠物, 运动, 婚姻).

A claim and the change of it may share no word ("I don't exercise at all" / "I started going to
the gym", 没有养宠物 / 领养了一只猫): each language's `attribute` table holds the words of such
attributes. The write path reads them to tell when a change contradicts an old claim
(`extract.statement.contradicts`); recall reads them as evidence that a memory speaks of what a
request asks ("Do I have pets?" / "We adopted a cat").
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from . import Languages, all_on
from .pack import one_of


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


#: the language pack table of the attributes
TABLE = "attribute"


def _attributes(langs: Languages) -> tuple[Attribute, ...]:
    """The attributes of every pack's attribute table: an entry with `exclusive` is an
    attribute's general words, an entry `of` it one of its values (the words of every language
    in one pattern)."""
    entries = {e.name: e for e in langs.entries(TABLE)}
    out = []
    for name in langs.names(TABLE):
        if name not in entries or entries[name].setting("exclusive") is None:
            continue
        general = langs.any_of(TABLE, name)
        values = tuple(
            (str(entries[v].setting("value")), langs.any_of(TABLE, v))
            for v in langs.names(TABLE)
            if v in entries and entries[v].setting("of") == name
        )
        named = one_of((general, *(p for _, p in values)), re.IGNORECASE)
        exclusive = bool(entries[name].setting("exclusive"))
        out.append(Attribute(name, exclusive, general, values, named))
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
