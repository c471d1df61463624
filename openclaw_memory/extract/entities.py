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

import re
import unicodedata
from dataclasses import dataclass

from ..lang.text import STOPWORDS, _jieba
from .naming import world_names

#: kinds an entity can have
PERSON, PLACE, ORG, PRODUCT, DATE, NAME = "person", "place", "org", "product", "date", "name"

#: jieba tag -> kind (nrt: transliterated names, nrfg: other names)
_ZH_TAGS = {"nr": PERSON, "nrt": PERSON, "nrfg": PERSON, "ns": PLACE, "nt": ORG, "nz": PRODUCT}

#: a small gazetteer: names often written in lower case, and the kind a capitalised span has
GAZETTEER: dict[str, str] = {
    **dict.fromkeys(
        "paris london tokyo beijing shanghai berlin rome madrid sydney toronto "
        "hangzhou shenzhen boston chicago seattle".split(),
        PLACE,
    ),
    **dict.fromkeys(
        ["new york", "los angeles", "san francisco", "hong kong", "united states"], PLACE
    ),
    **dict.fromkeys(
        "china japan france germany italy spain canada mexico brazil india england "
        "australia sweden korea".split(),
        PLACE,
    ),
    **dict.fromkeys(
        "google apple microsoft amazon ikea netflix tesla starbucks github openai".split(), ORG
    ),
    **dict.fromkeys(
        "iphone android ipad macbook kindle playstation xbox nintendo spotify youtube".split(),
        PRODUCT,
    ),
}
_GAZ_MULTI = sorted((k for k in GAZETTEER if " " in k), key=len, reverse=True)

_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_EN_DATE = re.compile(
    rf"\b(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<m1>{_MONTH})\.?(?:,?\s+(?P<y1>\d{{4}}))?"
    rf"|(?P<m2>{_MONTH})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<y2>\d{{4}}))?"
    rf"|(?P<m3>{_MONTH})\s+(?P<y3>\d{{4}}))\b"
)
_ZH_DATE = re.compile(r"(?:(?P<y>\d{4})年)?(?P<m>\d{1,2})月(?:(?P<d>\d{1,2})[日号])?")
_CODE = re.compile(r"\b[A-Z][A-Z0-9]*-\d+\b")
#: a capitalised word (McDonald's, O'Neil, Jean-Luc), optionally joined by of/de/the/&
_CAP_WORD = r"[A-Z][\w'’]*(?:-[A-Z][\w'’]*)*"
_CAP_SPAN = re.compile(rf"\b{_CAP_WORD}(?:\s+(?:(?:of|de|la|the|&)\s+)?{_CAP_WORD})*(?![\w'’]*-\d)")
#: words that are capitalised for their place in the sentence, not for being names
_COMMON = STOPWORDS | frozenset(
    """hi hey hello oh wow yeah yep nope thanks thank sorry please well sure great cool nice
    awesome okay ok lol haha hmm yes no also but so and or then now today tonight tomorrow
    yesterday let lets let's i'm i've i'd i'll it's that's what's there's he's she's we're
    they're you're don't can't won't didn't isn't anyway actually really maybe definitely
    absolutely totally good glad happy love like just sounds speaking btw by mr mrs ms dr
    congrats congratulations last next this every
    monday tuesday wednesday thursday friday saturday sunday
    mon tue tues wed thu thur thurs fri sat sun""".split()
)
_ZH_STOP = frozenset("小时 大家 我们 你们 他们 人家".split())


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
    found += [Entity(m.group(), NAME) for m in _CODE.finditer(text)]
    found += _english(text)
    found += _gazetteer(text)
    if any("\u4e00" <= ch <= "\u9fff" for ch in text):
        found += _chinese(text)
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
    out = []
    for m in _EN_DATE.finditer(text):
        month = m.group("m1") or m.group("m2") or m.group("m3")
        if month == "May" and not (m.group("d1") or m.group("d2") or m.group("y3")):
            continue
        out.append(Entity(m.group(), DATE))
    for m in _ZH_DATE.finditer(text):
        if m.group("y") or m.group("d"):
            out.append(Entity(m.group(), DATE))
    return out


def _english(text: str) -> list[Entity]:
    out = []
    for m in _CAP_SPAN.finditer(text):
        words = m.group().split()
        first_in_sentence = _starts_sentence(text, m.start())
        while words and (
            words[0].lower() in _COMMON
            or (first_in_sentence and words[0].lower().rstrip("'s") in _COMMON)
            or words[0].lower() in _MONTHS
        ):
            words = words[1:]
            first_in_sentence = False
        while words and words[-1].lower() in ("of", "de", "la", "the", "&", "i"):
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
    return bool(re.search(r"'(?:ve|re|ll|d|m|t)$", key))


def _starts_sentence(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t\"'“‘(")
    return not before or before[-1] in ".!?:\n"


def _gazetteer(text: str) -> list[Entity]:
    low = text.lower()
    out = [Entity(k, GAZETTEER[k]) for k in _GAZ_MULTI if k in low]
    for w in re.findall(r"[a-z][a-z0-9']+", low):
        if w in GAZETTEER:
            out.append(Entity(w, GAZETTEER[w]))
    return out


def _chinese(text: str) -> list[Entity]:
    import jieba.posseg as pseg

    _jieba()  # the dictionary, loaded once
    out = []
    for word, flag in pseg.cut(text):
        kind = _ZH_TAGS.get(flag)
        if kind and len(word) >= 2 and word not in _ZH_STOP and not word.isascii():
            out.append(Entity(word, kind))
    return out


_NAME = r"[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?"
_ZH_NAME = r"[\u4e00-\u9fff]{2,4}"
#: (pattern, group of the alias, group of the name it stands for)
_ALIAS_RULES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(rf"\b(?P<a>{_NAME}) is short for (?P<n>{_NAME})"), "a", "n"),
    (
        re.compile(
            rf"\b(?P<n>{_NAME}),? (?:aka|a\.k\.a\.|also known as|also called|or) (?P<a>{_NAME})\b(?! \w)"
        ),
        "a",
        "n",
    ),
    (re.compile(rf"\b(?P<n>{_NAME}) \((?P<a>{_NAME})\)"), "a", "n"),
    (
        re.compile(
            rf"\b(?:my|his|her) name is (?P<n>{_NAME})[^.!?]{{0,40}}?\bcall (?:me|him|her) (?P<a>{_NAME})"
        ),
        "a",
        "n",
    ),
    (
        re.compile(
            rf"\b(?P<n>{_NAME}),? (?:but )?(?:everyone|people|friends) calls? (?:me|him|her) (?P<a>{_NAME})"
        ),
        "a",
        "n",
    ),
    (re.compile(rf"(?P<a>{_ZH_NAME}?)(?:就是|也就是|又名|也叫|即)(?P<n>{_ZH_NAME})"), "a", "n"),
    (
        re.compile(
            rf"(?:我|他|她)叫(?P<n>{_ZH_NAME})[，,。；;\s]*"
            rf"(?:大家|朋友们?|别人|同事们?)?(?:都)?叫(?:我|他|她)(?P<a>{_ZH_NAME})"
        ),
        "a",
        "n",
    ),
)


def aliases(text: str) -> list[tuple[str, str]]:
    """(alias, name) pairs the text states: "Mel is short for Melanie", 小王就是王伟."""
    out = []
    for pattern, a, n in _ALIAS_RULES:
        for m in pattern.finditer(text):
            alias, name = _trim_zh(m.group(a)), _trim_zh(m.group(n))
            if alias and name and normalise(alias) != normalise(name):
                out.append((alias, name))
    return out


def _trim_zh(name: str) -> str:
    """A Chinese name captured with a particle around it (王伟。 / 是小王) keeps the name only."""
    if name.isascii():
        return name
    import jieba.posseg as pseg

    _jieba()
    for word, flag in pseg.cut(name):
        if flag in _ZH_TAGS or word.startswith(("小", "老", "阿")):
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
