"""The attributes a text names, and the head of an attribute phrase.

- The attributes: their general words and the values of each (pets, exercise, marital status,
  宠物, 运动, 婚姻), each language's `attribute` table. A claim and the change of it may share no
  word ("I don't exercise at all" / "I started going to the gym", 没有养宠物 / 领养了一只猫): the
  write path reads them to tell when a change contradicts an old claim, recall as evidence that
  a memory speaks of what a request asks ("Do I have pets?" / "We adopted a cat").
- The head of an attribute phrase and the subject a statement of it is filed under: the write
  side keys a slot by the head noun of what it names ("watching sci-fi movies a lot": sci-fi
  movie; 我最喜欢的科幻电影: 科幻电影) and a role by its key ("boss" and 老板 are the manager);
  the read side reads a request's attributes by the same keys. The words are each language's
  `lexicon` and `change` tables; the head of a phrase is read by the reader of its pack's
  tokenizer (`HEADS`: jieba's parts of speech for a language it segments, the last words for one
  written with spaces).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Collection
from . import LanguagePack, Languages, Table, all_on
from .text import _jieba
from dataclasses import dataclass
from .pack import one_of

# The head of an attribute phrase and the subject a statement of it is filed under.
#
# The write side keys a slot by the head noun of what it names ("watching sci-fi movies a lot": sci-fi
# movie; 我最喜欢的科幻电影: 科幻电影) and a role by its key ("boss" and 老板 are the manager); the read
# side reads a request's attributes by the same keys (recall/query.py). Both read them here, below
# either: the words are each language's `lexicon` and `change` tables; the head of a phrase is read
# by the reader of its pack's tokenizer (`HEADS`: jieba's parts of speech for a language it segments,
# the last words for one written with spaces).

_TABLE_lexicon = "lexicon"
#: the change grammar's table, whose `role_keys` key the roles
_TABLE_change = "change"


@functools.lru_cache(maxsize=1)
def _han() -> Table:
    """The lexicon of Han text (Chinese), every rule on."""
    return all_on().of_han(True).table(_TABLE_lexicon)


@functools.lru_cache(maxsize=1)
def _plain() -> Table:
    """The lexicon of text with no marked script (English), every rule on."""
    return all_on().of_han(False).table(_TABLE_lexicon)


@functools.lru_cache(maxsize=1)
def _generic_heads() -> frozenset[str]:
    """Heads too general to key a like, in every language (a phrase may mix them)."""
    return frozenset(
        w for p in all_on().all() for w in p.table(_TABLE_lexicon).entry("generic_heads").words
    )


def _posseg():
    """jieba's part-of-speech tagger over the shared, once-loaded dictionary.

    Never `jieba.posseg.dt.initialize()`: it empties the tagger's word-tag table and refills it,
    and every thread tagging meanwhile (entity extraction on a write) gets "x" for known words.
    Importing the module loads the table once, under the import lock.
    """
    import jieba.posseg

    _jieba()
    return jieba.posseg


def singular(word: str) -> str:
    """A rough English singular: movies -> movie, stories -> story, peanuts -> peanut."""
    table = _plain()
    endings = table.entry("singular_endings")
    if len(word) <= 3 or word.endswith(endings.words) or word in table.entry("uncounted").wordset:
        return word
    if word in table.entry("ie_plurals").wordset:
        return word[:-1]
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(tuple(endings.setting("es_endings", ()))):
        return word[:-2]
    return word.removesuffix("s")


def zh_head(text: str) -> str:
    """The trailing noun compound of a Chinese phrase, by jieba part of speech."""
    text = _han().entry("trail").pattern.sub("", text.strip(), count=1)
    pairs = _posseg().lcut(text)
    run: list[str] = []
    for pair in reversed(pairs):
        is_noun = pair.flag.startswith("n") or pair.flag in ("vn", "eng", "nz")
        if is_noun:
            run.insert(0, pair.word)
        elif run:
            break
    head = "".join(run[-2:])
    if not head or head in _generic_heads():
        head = text
    return head[:12]


def en_head(text: str) -> str:
    """The object noun of an English phrase: "watching sci-fi movies a lot" -> "sci-fi movie"."""
    table = _plain()
    text = re.sub(r"[^\w\s'\-]", " ", text.lower()).strip()
    text = table.entry("cut").pattern.sub("", text, count=1)
    text = table.entry("lead").pattern.sub("", text, count=1).strip()
    words = [singular(w) for w in text.split()][-2:]
    if words and words[-1] in _generic_heads():
        words = [singular(w) for w in text.split()][-3:]
    return " ".join(words)[:40]


#: the head reader of each tokenizer a pack names (a language with no reader keys a phrase whole)
HEADS: dict[str, Callable[[str], str]] = {"jieba": zh_head, "words": en_head}


def role_keys(lp: LanguagePack) -> Mapping[str, str]:
    """The slot key of each attribute word that has one (`role_keys` of the language's change
    table, as switched in `lp`: "boss" and 老板 are the manager)."""
    entry = lp.table(_TABLE_change).entry("role_keys")
    return entry.setting("keys", {}) if entry.on else {}


def role_subject(key: str, roles: Mapping[str, str], head: Callable[[str], str]) -> str:
    """The slot key of an attribute word: a role ("boss" is the manager), else `fact/<head>`."""
    key = key.strip().lower()
    return roles.get(key) or f"fact/{head(key)}"


def subject_of_role(key: str, langs: Languages | None = None) -> str:
    """The subject a statement of the speaker's `key` is filed under, in the key's language (a
    role that passes to a new holder, "my landlord", keeps one subject whoever holds it)."""
    found = (langs or all_on()).of(key)
    head = HEADS.get(found.tokenizer_name, str.strip)
    return role_subject(key, role_keys(found), head)


# The attributes a text names: the general words and the values of each (pets, exercise,
# marital status, 宠物, 运动, 婚姻).
#
# A claim and the change of it may share no word ("I don't exercise at all" / "I started going to
# the gym", 没有养宠物 / 领养了一只猫): each language's `attribute` table holds the words of such
# attributes. The write path reads them to tell when a change contradicts an old claim
# (`extract.statement.contradicts`); recall reads them as evidence that a memory speaks of what a
# request asks ("Do I have pets?" / "We adopted a cat").


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


@functools.lru_cache(maxsize=8)
def _attributes(langs: Languages) -> tuple[Attribute, ...]:
    """The attributes of every pack's attribute table: an entry with `exclusive` is an
    attribute's general words, an entry `of` it one of its values (the words of every language
    in one pattern); read once per set of packs (`Languages` is hashed by identity)."""
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


#: the attributes, each with its general words and values in every language, every rule on
ATTRIBUTES: tuple[Attribute, ...] = _attributes(all_on())


@dataclass(frozen=True)
class Mention:
    """What a statement says of one attribute: its general word, and which values it names."""

    attribute: Attribute
    general: bool
    values: frozenset[str]


def mentions(text: str, langs: Languages | None = None) -> dict[str, Mention]:
    """The attributes a statement names, by name (`langs`: the packs read, every rule on by
    default)."""
    out = {}
    for a in _attributes(langs or all_on()):
        if not a.named.search(text):
            continue
        values = frozenset(v for v, p in a.values if p.search(text))
        general = bool(a.general.search(text))
        if values or general:
            out[a.name] = Mention(a, general, values)
    return out


def names_any(text: str, names: Collection[str], langs: Languages | None = None) -> bool:
    """Whether text names one of these attributes: `names & mentions(text, langs).keys()`,
    searching only the attributes asked about."""
    return any(a.named.search(text) for a in _attributes(langs or all_on()) if a.name in names)
