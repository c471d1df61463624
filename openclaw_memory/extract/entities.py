"""Entities: the people, places, organisations, products and dates a text names, without an LLM.

Chinese: jieba's part-of-speech tags (nr person, ns place, nt organisation, nz other proper
noun). English: capitalised spans (a sentence's first word only when it is no common word) and
a small gazetteer that also finds lower-case mentions ("paris", "ikea"). Dates in both languages
("May 7, 2023", "7 May", 2023年5月7日, 5月7日). Codes such as PRD-223 are names too.

Names are compared by their key (`normalise`: Unicode-folded, lower-cased, single-spaced, no
leading "the" or trailing possessive). `aliases` reads the statements that make two names one
("Mel is short for Melanie", 小王就是王伟, 大家叫我小王); `nickname_of` is the one alias the
names themselves imply: a short English name that begins a longer one (Mel, Melanie). A name the
text gives with its language's naming words, or shows as the speaker's (叫汤圆, 喂芝麻, 开个米粉店,
"named Biscuit": extract/naming.py), is a name even when it is an ordinary word.

Pure functions over text; the structured store (store/entities.py) links what they find.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from ..lang import all_on
from ..lang.pack import NEVER
from ..lang.text import STOPWORDS, _jieba
from .naming import world_names

#: kinds an entity can have
PERSON, PLACE, ORG, PRODUCT, DATE, NAME = "person", "place", "org", "product", "date", "name"

_TABLE = "entities"


@functools.lru_cache(maxsize=None)
def _words(name: str) -> frozenset[str]:
    """The word list `name` of every pack's entities table, together."""
    return frozenset(w for p in all_on().all() for w in p.table(_TABLE).entry(name).wordset)


#: a small gazetteer (each pack's entries with a `kind`): names often written in lower case, and
#: the kind a capitalised span has
GAZETTEER: dict[str, str] = {
    w: str(e.setting("kind"))
    for e in all_on().entries(_TABLE)
    if e.setting("kind")
    for w in e.words
}
_GAZ_MULTI = sorted((k for k in GAZETTEER if " " in k), key=len, reverse=True)
_MONTHS = _words("months")
#: words that are capitalised for their place in the sentence, not for being names
_COMMON = STOPWORDS | _words("common")


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


def extract(text: str, given: tuple[str, ...] = ()) -> list[Entity]:
    """Entities of text, first mention first, one per key; `given`: names a writer already
    attached (a speaker, an LLM's entities), kept as names."""
    found: list[Entity] = [Entity(g, NAME) for g in given if _named(g)]
    found += [Entity(n, NAME) for n in world_names(text)]
    found += _dates(text)
    found += [Entity(m.group(), NAME) for m in all_on().any_of(_TABLE, "code").finditer(text)]
    found += _english(text)
    found += _gazetteer(text)
    found += _tagged(text)
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


def _dates(text: str) -> list[Entity]:
    """Dates in every language: each pack's `date` (a month, with a day or a year where the
    entry names the groups it `needs_any_of`)."""
    out = []
    for p in all_on().all():
        table = p.table(_TABLE)
        date = table.entry("date")
        needs = date.setting("needs_any_of", ())
        for m in date.regex(month=table.entry("month").source or "(?!)").finditer(text):
            if not needs or any(m.group(g) for g in needs):
                out.append(Entity(m.group(), DATE))
    return out


def _english(text: str) -> list[Entity]:
    out = []
    for m in _capitalised().finditer(text):
        words = m.group().split()
        first_in_sentence = _starts_sentence(text, m.start())
        while words and (
            words[0].lower() in _COMMON
            or (first_in_sentence and words[0].lower().rstrip("'s") in _COMMON)
            or words[0].lower() in _MONTHS
        ):
            words = words[1:]
            first_in_sentence = False
        while words and words[-1].lower() in _words("span_joiners"):
            words = words[:-1]
        if not words:
            continue
        span = " ".join(words)
        key = normalise(span)
        if len(words) == 1 and (key in _COMMON or _contraction(key)):
            continue
        weak = first_in_sentence and len(words) == 1 and key not in GAZETTEER
        out.append(Entity(span, GAZETTEER.get(key, NAME), weak))
    return out


def _contraction(key: str) -> bool:
    """you've, they're, life's: a word with a clitic, not a name (a possessive is normalised)."""
    return bool(all_on().any_of(_TABLE, "contraction").search(key))


def _capitalised() -> re.Pattern[str]:
    """A span of capitalised words (the pack that has one: English)."""
    for p in all_on().all():
        span = p.table(_TABLE).entry("capitalised_span")
        if span.on:
            return span.regex(word=str(span.setting("word")))
    return NEVER


def _starts_sentence(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t\"'“‘(")
    return not before or before[-1] in ".!?:\n"


def _gazetteer(text: str) -> list[Entity]:
    low = text.lower()
    out = [Entity(k, GAZETTEER[k]) for k in _GAZ_MULTI if k in low]
    for w in all_on().any_of(_TABLE, "gazetteer_word").findall(low):
        if w in GAZETTEER:
            out.append(Entity(w, GAZETTEER[w]))
    return out


def _tagged(text: str) -> list[Entity]:
    """Names the segmenter of the text's language tags (the pack's `tags`: jieba's nr, ns, ...)."""
    table = all_on().of(text).table(_TABLE)
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


def _alias_rules() -> list[re.Pattern[str]]:
    """Every pack's alias statements (`alias_*`), the name pattern of its language filled in:
    group `a` is the alias, group `n` the name it stands for."""
    out = []
    for p in all_on().all():
        table = p.table(_TABLE)
        name = table.entry("alias_name").source or "(?!)"
        for entry in table.values():
            if entry.name.startswith("alias_") and entry.name != "alias_name":
                out.append(entry.regex(name=name))
    return out


def aliases(text: str) -> list[tuple[str, str]]:
    """(alias, name) pairs the text states: "Mel is short for Melanie", 小王就是王伟."""
    out = []
    for pattern in _alias_rules():
        for m in pattern.finditer(text):
            alias, name = _trim(m.group("a")), _trim(m.group("n"))
            if alias and name and normalise(alias) != normalise(name):
                out.append((alias, name))
    return out


def _trim(name: str) -> str:
    """A name captured with a particle around it (王伟。 / 是小王) keeps the name only: the first
    word the segmenter tags as a name or that a name prefix leads."""
    if name.isascii():
        return name
    table = all_on().of(name).table(_TABLE)
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


def nickname_of(short: str, names: list[str]) -> str | None:
    """The longer single-word English name that `short` begins (Mel -> Melanie), if exactly
    one of `names` does; three letters at least, and never a common word."""
    s = normalise(short)
    if len(s) < 3 or not s.isalpha() or not s.isascii() or s in _COMMON or " " in s:
        return None
    hits = {
        n
        for n in names
        if (k := normalise(n)).isascii() and " " not in k and len(k) > len(s) and k.startswith(s)
    }
    return hits.pop() if len(hits) == 1 else None
