"""Entities and names: what a text names, without an LLM.

The people, places, organisations, products and dates a text names, and the names a text gives
or shows as the speaker's.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from . import Languages, all_on
from .pack import Table, NEVER
from .text import (  # the package's one jieba loader (dictionary loaded once, no network)
    _jieba,
    STOPWORDS,
)
from ..types import MemoryRecord, Status
from dataclasses import dataclass
from typing import Sequence

# Names a text gives or shows as the speaker's, read at write time.
#
# A given name is often an ordinary word (芝麻 sesame, 汤圆 a dumpling, Biscuit): the naming word,
# not the dictionary, says it is a name. 一只垂耳兔，叫汤圆 -> 汤圆; 我家猫叫芝麻 -> 芝麻; 那家店名叫
# 老街面馆 -> 老街面馆; 我们叫它芝麻 -> 芝麻; "a rabbit named Biscuit" -> Biscuit; "our shop is called
# Noodle Corner" -> Noodle Corner. Not an errand (叫外卖吧), a verb that begins with the naming
# character (叫醒 wake up, 叫好 cheer), how to address the speaker (叫我小王: the alias rules of
# lang/entities.py read that), or a description ("called back").
#
# Two more ways a text shows that a word names something of the speaker's world, read the same
# way (`world_names`):
#
# - a being looked after by name: the object of a verb whose object is a living being, 喂芝麻 (feed
#   Sesame), 遛豆豆, 给汤圆洗澡; "feed Sesame", "walk Biscuit" (capitalised). A kind of being is
#   no name (喂鸽子, 喂流浪猫, 给孩子洗澡: the head of a Chinese compound names its kind, and 子,
#   猫, 孩 ... name kinds of beings); an English word in lower case is no name ("feed the cat");
# - a place of business the speaker's people open or run: 开个米粉店, 开了一家火锅店, 经营一家面馆.
#   Chinese names a business by its kind (店 / 馆 / 铺 after what it sells), and a later request
#   shortens it to the kind alone (粉店 for 米粉店): the dictionary's words inside the name that end
#   in the same head are filed with it.
#
# The write path files these names as the memory's entities (lang/entities.py `extract`, and
# the record's `entities`), so recall finds them by name and relevance gating knows a request that
# writes one speaks of the user's world, without parsing memories on the request path. The naming
# words, the verbs of care and of business and the words no name holds are each language's
# `naming` table (`lang/<code>/naming.yaml`); every language's table is read on every text.

_TABLE = "naming"


def _tables(langs: Languages | None) -> list[Table]:
    return [p.table(_TABLE) for p in (langs or all_on()).all()]


def given_names(text: str, langs: Languages | None = None) -> list[str]:
    """Names the text gives with its language's naming words, first given first, each once."""
    names: list[str] = []
    for table in _tables(langs):
        particle_end = table.entry("particle_end").pattern
        for m in table.entry("given").pattern.finditer(text):
            found = m.groupdict()
            if particle_end.search(m["name"]):
                continue
            if "word" in found and not (
                found.get("it") or _naming_word(text, m.start("word"), m["word"], table)
            ):
                continue
            names.append(m["name"])
    return list(dict.fromkeys(names))


def _naming_word(text: str, at: int, word: str, table: Table) -> bool:
    """The naming word stands as a word of its own (not 叫醒 wake up, 叫好 cheer): the
    dictionary's segmentation starts with it."""
    head = _jieba().lcut(text[at : at + len(word) + 4])
    starts = table.entry("naming_start").wordset
    return bool(head) and word.startswith(head[0]) and head[0][:1] in starts


def world_names(text: str, langs: Languages | None = None) -> list[str]:
    """Every name the text gives or shows as the speaker's (see the module docstring)."""
    return list(
        dict.fromkeys(
            [*given_names(text, langs), *cared_names(text, langs), *business_names(text, langs)]
        )
    )


def cared_names(text: str, langs: Languages | None = None) -> list[str]:
    """Beings looked after by name: 喂芝麻 -> 芝麻, "feed Sesame" -> Sesame (not 喂鸽子)."""
    out = []
    for table in _tables(langs):
        kinds, starts = table.entry("being_head").wordset, table.entry("no_name_start").wordset
        particle_end = table.entry("particle_end").pattern
        for m in table.entry("care").pattern.finditer(text):
            found = m.groupdict()
            name = found.get("name") or found.get("name2") or ""
            if name[-1] in kinds or name[0] in starts or particle_end.search(name):
                continue
            verb = found.get("verb")
            if verb and _inside_word(text, m.start("verb"), m.end("verb"), after=True):
                continue  # 喂养, 喂奶: one word with what follows
            out.append(name)
    return out


def business_names(text: str, langs: Languages | None = None) -> list[str]:
    """Places of business opened or run, with the kinds a request shortens them to:
    开个米粉店 -> 米粉店, 粉店."""
    out = []
    for table in _tables(langs):
        not_in_name = table.entry("not_in_name").pattern
        for m in table.entry("business").pattern.finditer(text):
            name, verb = m["name"], m.span("verb")
            if len(name) < 2 or not_in_name.search(name):
                continue  # 开了三年的店: a clause, not a name
            if _inside_word(text, *verb, after=m.start("name") == verb[1]):
                continue  # 离开店里, 公开: 开 ends another word
            out.append(name)
            out += [
                w
                for w in _jieba().lcut_for_search(name)
                if w != name and len(w) >= 2 and w.endswith(name[-1])
            ]
    return out


def _inside_word(text: str, start: int, end: int, *, after: bool) -> bool:
    """The verb at text[start:end] is part of a dictionary word with the character before it
    (离开, 公开) or, when `after`, the one after it (喂养, 喂奶)."""
    freq = _jieba().dt.FREQ
    if start > 0 and freq.get(text[start - 1 : end]):
        return True
    return after and bool(freq.get(text[start : end + 1]))


# Entities: the people, places, organisations, products and dates a text names, without an LLM.
#
# Chinese: jieba's part-of-speech tags (nr person, ns place, nt organisation, nz other proper
# noun). English: capitalised spans (a sentence's first word only when it is no common word) and
# a small gazetteer that also finds lower-case mentions ("paris", "ikea"). Dates in both languages
# ("May 7, 2023", "7 May", 2023年5月7日, 5月7日). Codes such as PRD-223 are names too.
#
# Names are compared by their key (`normalise`: Unicode-folded, lower-cased, single-spaced, no
# leading "the" or trailing possessive). `aliases` reads the statements that make two names one
# ("Mel is short for Melanie", 小王就是王伟, 大家叫我小王); `nickname_of` is the one alias the
# names themselves imply: a short English name that begins a longer one (Mel, Melanie). A name the
# text gives with its language's naming words, or shows as the speaker's (叫汤圆, 喂芝麻, 开个米粉店,
# "named Biscuit": lang/entities.py), is a name even when it is an ordinary word.
#
# Pure functions over text; the write path reads what a record names with them (`mentions_of`)
# and the structured store files it (store/entity_linking.py).

#: kinds an entity can have
PERSON, PLACE, ORG, PRODUCT, DATE, NAME = "person", "place", "org", "product", "date", "name"

_TABLE_entities = "entities"


def _words(langs: Languages, name: str) -> frozenset[str]:
    """The word list `name` of every pack's entities table, together."""
    return frozenset(w for p in langs.all() for w in p.table(_TABLE_entities).entry(name).wordset)


@dataclass(frozen=True)
class _Names:
    """The word lists of the entities tables of a set of packs, the entries switched off left
    out."""

    #: a small gazetteer (each pack's entries with a `kind`): names often written in lower
    #: case, and the kind a capitalised span has
    gazetteer: dict[str, str]
    #: the gazetteer's names of several words, longest first
    multi: tuple[str, ...]
    months: frozenset[str]
    #: words that are capitalised for their place in the sentence, not for being names
    common: frozenset[str]
    #: words a span of capitalised words does not end on
    joiners: frozenset[str]


@functools.lru_cache(maxsize=8)
def _names(langs: Languages) -> _Names:
    """The entities tables' word lists of `langs`, read once per set of packs (`Languages` is
    hashed by identity: a stage's packs are built once)."""
    gazetteer = {
        w: str(e.setting("kind"))
        for e in langs.entries(_TABLE_entities)
        if e.setting("kind")
        for w in e.words
    }
    return _Names(
        gazetteer=gazetteer,
        multi=tuple(sorted((k for k in gazetteer if " " in k), key=len, reverse=True)),
        months=_words(langs, "months"),
        common=STOPWORDS | _words(langs, "common"),
        joiners=_words(langs, "span_joiners"),
    )


@dataclass(frozen=True)
class Entity:
    name: str  # as first written
    kind: str
    #: a single capitalised word that opens a sentence ("Painting is...", "Oliver is..."): a
    #: name only if the store already knows it from elsewhere
    weak: bool = False

    @property
    def key(self) -> str:
        return normalise(self.name)


def normalise(name: str) -> str:
    """The key two spellings of one name share: "The  Louvre", "the louvre" -> "louvre"."""
    s = unicodedata.normalize("NFKC", name).casefold().strip()
    s = re.sub(r"\s+", " ", s.replace("’", "'"))
    s = re.sub(r"^the ", "", s)
    return re.sub(r"'s$", "", s).strip(" .,;:!?\"'")


def extract(text: str, given: tuple[str, ...] = (), langs: Languages | None = None) -> list[Entity]:
    """Entities of text, first mention first, one per key; `given`: names a writer already
    attached (a speaker, an LLM's entities), kept as names; `langs`: the packs read, every rule
    on by default."""
    langs = langs or all_on()
    found: list[Entity] = [Entity(g, NAME) for g in given if _named(g)]
    found += [Entity(n, NAME) for n in world_names(text, langs)]
    found += _dates(text, langs)
    found += [Entity(m.group(), NAME) for m in langs.any_of(_TABLE_entities, "code").finditer(text)]
    found += _english(text, langs)
    found += _gazetteer(text, langs)
    found += _tagged(text, langs)
    seen: dict[str, Entity] = {}
    for e in found:
        k = e.key
        if (
            k
            and (k not in seen or seen[k].weak and not e.weak)
            and (len(k) >= 2 or not k.isascii())
        ):
            seen[k] = e
    return list(seen.values())


def _named(value: str) -> bool:
    """A value a writer attached is a name when it is written like one: a few words, not all
    lower case ("Caroline", 王伟, PRD-223; not "hiking" or "to give kids a home")."""
    value = value.strip()
    return (
        bool(normalise(value))
        and len(value.split()) <= 4
        and (not value.isascii() or value != value.lower())
    )


def _dates(text: str, langs: Languages) -> list[Entity]:
    """Dates in every language: each pack's `date` (a month, with a day or a year where the
    entry names the groups it `needs_any_of`)."""
    out = []
    for p in langs.all():
        table = p.table(_TABLE_entities)
        date = table.entry("date")
        needs = date.setting("needs_any_of", ())
        for m in date.regex(month=table.entry("month").source or "(?!)").finditer(text):
            if not needs or any(m.group(g) for g in needs):
                out.append(Entity(m.group(), DATE))
    return out


def _english(text: str, langs: Languages) -> list[Entity]:
    names = _names(langs)
    common, gazetteer = names.common, names.gazetteer
    out = []
    for m in _capitalised(langs).finditer(text):
        words = m.group().split()
        first_in_sentence = _starts_sentence(text, m.start())
        while words and (
            words[0].lower() in common
            or (first_in_sentence and words[0].lower().rstrip("'s") in common)
            or words[0].lower() in names.months
        ):
            words = words[1:]
            first_in_sentence = False
        while words and words[-1].lower() in names.joiners:
            words = words[:-1]
        if not words:
            continue
        span = " ".join(words)
        key = normalise(span)
        if len(words) == 1 and (key in common or _contraction(key, langs)):
            continue
        weak = first_in_sentence and len(words) == 1 and key not in gazetteer
        out.append(Entity(span, gazetteer.get(key, NAME), weak))
    return out


def _contraction(key: str, langs: Languages) -> bool:
    """you've, they're, life's: a word with a clitic, not a name (a possessive is normalised)."""
    return bool(langs.any_of(_TABLE_entities, "contraction").search(key))


def _capitalised(langs: Languages) -> re.Pattern[str]:
    """A span of capitalised words (the pack that has one: English)."""
    for p in langs.all():
        span = p.table(_TABLE_entities).entry("capitalised_span")
        if span.on:
            return span.regex(word=str(span.setting("word")))
    return NEVER


def _starts_sentence(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t\"'“‘(")
    return not before or before[-1] in ".!?:\n"


def _gazetteer(text: str, langs: Languages) -> list[Entity]:
    low = text.lower()
    names = _names(langs)
    gazetteer = names.gazetteer
    out = [Entity(k, gazetteer[k]) for k in names.multi if k in low]
    for w in langs.any_of(_TABLE_entities, "gazetteer_word").findall(low):
        if w in gazetteer:
            out.append(Entity(w, gazetteer[w]))
    return out


def _tagged(text: str, langs: Languages) -> list[Entity]:
    """Names the segmenter of the text's language tags (the pack's `tags`: jieba's nr, ns, ...)."""
    table = langs.of(text).table(_TABLE_entities)
    kinds = table.entry("tags").setting("kinds")
    if not kinds:
        return []
    import jieba.posseg as pseg

    _jieba()  # the dictionary, loaded once
    out = []
    not_names = table.entry("not_names").wordset
    for word, flag in pseg.cut(text):
        kind = kinds.get(flag)
        if kind and len(word) >= 2 and word not in not_names and not word.isascii():
            out.append(Entity(word, kind))
    return out


def _alias_rules(langs: Languages) -> list[re.Pattern[str]]:
    """Every pack's alias statements (`alias_*`), the name pattern of its language filled in:
    group `a` is the alias, group `n` the name it stands for."""
    out = []
    for p in langs.all():
        table = p.table(_TABLE_entities)
        name = table.entry("alias_name").source or "(?!)"
        for entry in table.values():
            if entry.name.startswith("alias_") and entry.name != "alias_name":
                out.append(entry.regex(name=name))
    return out


def aliases(text: str, langs: Languages | None = None) -> list[tuple[str, str]]:
    """(alias, name) pairs the text states: "Mel is short for Melanie", 小王就是王伟 (`langs`:
    the packs read, every rule on by default)."""
    langs = langs or all_on()
    out = []
    for pattern in _alias_rules(langs):
        for m in pattern.finditer(text):
            alias, name = _trim(m.group("a"), langs), _trim(m.group("n"), langs)
            if alias and name and normalise(alias) != normalise(name):
                out.append((alias, name))
    return out


def _trim(name: str, langs: Languages) -> str:
    """A name captured with a particle around it (王伟。 / 是小王) keeps the name only: the first
    word the segmenter tags as a name or that a name prefix leads."""
    if name.isascii():
        return name
    table = langs.of(name).table(_TABLE_entities)
    kinds = table.entry("tags").setting("kinds")
    if not kinds:
        return name
    import jieba.posseg as pseg

    _jieba()
    lead = table.entry("name_lead").pattern
    for word, flag in pseg.cut(name):
        if flag in kinds or lead.match(word):
            return word
    return name


def nickname_of(short: str, names: list[str], langs: Languages | None = None) -> str | None:
    """The longer single-word English name that `short` begins (Mel -> Melanie), if exactly
    one of `names` does; three letters at least, and never a common word (the entities tables'
    `common` of `langs`, every rule on by default)."""
    s = normalise(short)
    common = _names(langs or all_on()).common
    if len(s) < 3 or not s.isalpha() or not s.isascii() or s in common or " " in s:
        return None
    hits = {
        n
        for n in names
        if (k := normalise(n)).isascii() and " " not in k and len(k) > len(s) and k.startswith(s)
    }
    return hits.pop() if len(hits) == 1 else None


# What a record names: read on the write side, filed by the store.
#
# The stage that writes a record reads its text and its `entities` field once (`mentions_of`)
# and hands the result to the store's write; the store only files it in its write transaction
# (store/entity_linking.py: keys resolved, entities created, aliases and nicknames merged), so
# no store runs a language's extractor. Maintenance reads the backlog of older records the
# same way (`named_in`) before the store files each batch.

#: a given name longer than this is a path or a sentence, not a name
MAX_NAME = 60


@dataclass(frozen=True)
class Mentions:
    """What a record names: the (alias, name) pairs its text states, in the order stated, and
    the entities of its text and its `entities` field, first mention first, one per key."""

    aliases: tuple[tuple[str, str], ...] = ()
    entities: tuple[Entity, ...] = ()


#: what a record that keeps no links names (a forgotten one)
NO_MENTIONS = Mentions()


def named_in(text: str, given: Sequence[str] = (), langs: Languages | None = None) -> Mentions:
    """What a text names, with `given`: the names a writer attached (a record's `entities`;
    an empty one, or one longer than MAX_NAME, is left out); `langs`: the packs read, every
    rule on by default."""
    kept = tuple(g for g in given if 0 < len(g) <= MAX_NAME)
    return Mentions(tuple(aliases(text, langs)), tuple(extract(text, kept, langs)))


def mentions_of(record: MemoryRecord, langs: Languages | None = None) -> Mentions:
    """What a record names, for the store's write of it: its text and its `entities` field
    read by `named_in` with the writer's packs (`langs`, every rule on by default); nothing for
    a forgotten record (it keeps no links, so nothing is read)."""
    if record.status is Status.INACTIVE:
        return NO_MENTIONS
    return named_in(record.text, record.entities, langs)
