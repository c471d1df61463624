"""The Slot value, the helpers every slot classifier shares, and the rule chain's words."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from ..lang import Languages, Table, all_on, LanguagePack
from ..lang.pack import EMPTY
from ..types import MemoryType
from ..lang.attributes import _posseg

# moved below both sides (recall reads them too); kept here for the write side
from ..lang.attributes import en_head as en_head
from ..lang.attributes import singular as singular
from ..lang.attributes import zh_head as zh_head
from ..config.tuning import tuned

# The Slot value and the helpers every slot classifier shares.
#
# A slot is what one clause states: a memory type, a stable subject key (so a restated or changed
# value consolidates), a third-person summary in the user's language, tags, entities and a base
# confidence. Helpers here cut values out of clauses and phrase summaries.

PROFILE, PREFERENCE, FACT = MemoryType.PROFILE, MemoryType.PREFERENCE, MemoryType.FACT


@dataclass(frozen=True)
class Slot:
    """What one clause states: type, subject key, summary, tags, entities and base confidence."""

    type: MemoryType
    subject: str
    summary: str
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    confidence: float = tuned("extract.slot_confidence")
    #: a change: the old value it replaces, when the clause names it ("" when it does not)
    replaces: str = ""
    #: indexed and embedded with the memory, never shown: the words that find it in the other
    #: language ("daughter 女儿 Lina" for a fact about the user's daughter)
    detail: str = ""


I = re.IGNORECASE
_TABLE = "slot"
# Words of any language that mark a question, a standing instruction, a one-off one, a plan,
# read through `langs`, the language packs under the config's switches (every rule on when not
# given).


def question_words(langs: Languages | None = None) -> re.Pattern[str]:
    """Words of any language that mark a question."""
    return (langs or all_on()).any_of(_TABLE, "question_words")


def standing_words(langs: Languages | None = None) -> re.Pattern[str]:
    """Words of any language that mark a standing instruction ("from now on", 以后)."""
    return (langs or all_on()).any_of(_TABLE, "standing")


def one_off_words(langs: Languages | None = None) -> re.Pattern[str]:
    """Words of any language that mark a one-off instruction ("this time", 这次)."""
    return (langs or all_on()).any_of(_TABLE, "one_off")


def future_words(langs: Languages | None = None) -> re.Pattern[str]:
    """Words of any language that mark a plan ("next month", 下个月)."""
    return (langs or all_on()).any_of(_TABLE, "future")


def _table(lang: LanguagePack) -> Table:
    """The slot table of a clause's language."""
    return lang.table(_TABLE)


def value_of(raw: str, lang: LanguagePack, langs: Languages | None = None) -> str | None:
    """A slot value cut out of a clause: trailing particles and clauses dropped; None when
    empty, a question word, or too long to be a value."""
    raw = raw.strip(" ，,。.!！?？;；:：\"'“”")
    value = _table(lang).entry("value_end").pattern.sub("", raw)
    value = value.strip(" ，,。.!！?？")
    if not value or question_words(langs).search(value) or len(value) > 40:
        return None
    return value


def third_person(clause: str, lang: LanguagePack) -> str:
    """Rewrites first person so the memory reads from outside: 我 -> 用户, my -> the user's."""
    how = _table(lang).entry("third_person")
    out = outside(clause.strip(how.setting("strip", " ")), lang)
    return out[:1].upper() + out[1:] if how.setting("capitalise") else out


def outside(text: str, lang: LanguagePack) -> str:
    """`third_person` inside a sentence (the object of a like: "painting with my kids" -> "painting
    with the user's kids"), its first letter left as it was."""
    for entry in _table(lang).values():
        if entry.setting("replacement") is not None:  # the `outside_*` entries, in order
            text = entry.pattern.sub(str(entry.setting("replacement")), text)
    return text


def instruction_summary(clause: str, lang: LanguagePack, langs: Languages | None = None) -> str:
    """How a standing instruction is remembered: "用户要求：不要用表情" / "The user asked: ...";
    a clause that already speaks of the user ("我不太喜欢长回答") is just put in third person."""
    if (langs or all_on()).any_of(_TABLE, "first_person", "^(?:{})").match(clause.strip()):
        return third_person(clause, lang)
    template = str(_table(lang).entry("instruction").setting("template", "{c}"))
    return template.format(c=third_person(clause, lang))


# Word lists and subject keys shared by the rule chain.
#
# A subject key names a slot, so a restated or changed value lands on the same key and
# consolidation updates it instead of storing a second copy: `drink` for "I prefer tea" and
# "I prefer coffee", `pref/科幻电影` for both 我喜欢科幻电影 and 我不喜欢科幻电影. The word lists
# (food and drink, activity verbs, heads too general to key anything, relations) and the patterns
# that cut an object phrase are each language's `lexicon` table (`lang/<code>/lexicon.yaml`); the
# part-of-speech functions read the lexicon whose `heads` are `posseg`, the word ones the lexicon
# whose `heads` are `words`.

_TABLE_lexicon = "lexicon"


def _headed(how: str, langs: Languages | None = None) -> Table:
    """The lexicon of the language whose heads are found `how` (`heads:` of its lexicon table);
    an empty one when no language's are."""
    return _headed_in(how, langs or all_on())


@functools.lru_cache(maxsize=8)
def _headed_in(how: str, langs: Languages) -> Table:
    found = (p.table(_TABLE_lexicon) for p in langs.all() if heads(p) == how)
    return next(found, EMPTY)


def _han(langs: Languages | None = None) -> Table:
    """The lexicon read by part of speech (Chinese: `zh_head`, `strip_zh_verb`)."""
    return _headed("posseg", langs)


def strip_zh_verb(obj: str, table: Table | None = None) -> tuple[str, str]:
    """Split a leading activity verb off a Chinese object: 喝咖啡 -> ("喝", "咖啡"); `table`: the
    lexicon read by part of speech (under every rule on when not given)."""
    table = _han() if table is None else table
    for verb in table.entry("activity_verbs").words:
        if obj.startswith(verb) and len(obj) > len(verb):
            return verb, obj[len(verb) :]
    return "", obj


def _zh_category(verb: str, rest: str, table: Table) -> str | None:
    category = table.entry("activity_verbs").setting("categories", {}).get(verb)
    if category:
        return str(category)
    drinks, foods = table.entry("drinks").wordset, table.entry("foods").wordset
    tokens = [w.word for w in _posseg().lcut(rest)]
    for tok in tokens + [rest]:
        if tok in drinks or any(tok.endswith(d) for d in drinks if len(d) > 1):
            return "drink"
        if tok in foods:
            return "food"
    return None


def _en_category(text: str, table: Table) -> str | None:
    low = text.lower()
    if table.entry("drink_verb").pattern.match(low):
        return "drink"
    if table.entry("eat_verb").pattern.match(low):
        return "food"
    cut = table.entry("cut").pattern.sub("", low, count=1)
    words = {singular(w) for w in re.findall(r"[a-z]+", cut)}
    if words & table.entry("drinks").wordset:
        return "drink"
    if words & table.entry("foods").wordset:
        return "food"
    return None


def heads(lang: LanguagePack) -> str:
    """How a language finds the head word of a phrase (`heads:` of its `lexicon` table): "posseg"
    (jieba part of speech, for unspaced words), "words" (the last words), "" (no way known)."""
    return str(lang.table(_TABLE_lexicon).settings.get("heads", ""))


def _posseg_object(obj: str, table: Table) -> tuple[str, str | None]:
    """(head, category) of an object in a language of unspaced words: a leading activity verb
    split off, the trailing noun compound by jieba part of speech."""
    obj = table.entry("contrast").pattern.split(obj)[0]
    trail = table.entry("trail").pattern
    verb, rest = strip_zh_verb(trail.sub("", obj.strip(), count=1), table)
    return (zh_head(rest) if rest else obj), _zh_category(verb, rest, table)


def _words_object(obj: str, table: Table) -> tuple[str, str | None]:
    """(head, category) of an object in a language of spaced words."""
    return en_head(obj), _en_category(obj, table)


def _whole_object(obj: str, table: Table) -> tuple[str, str | None]:
    """(head, category) in a language whose lexicon names no way to find a head: the object."""
    return obj.strip()[:40], None


#: how a language's objects are headed (`heads:` of its `lexicon` table)
_HEADS = {"posseg": _posseg_object, "words": _words_object}


def object_subject(obj: str, lang: LanguagePack) -> tuple[str, str]:
    """(subject key, head word) for a liked or disliked object.

    Food and drink collapse to one slot each (`drink`, `food`); anything else becomes
    `pref/<head noun>`, so a like and a later dislike of the same thing share the key.
    """
    table = lang.table(_TABLE_lexicon)
    head, category = _HEADS.get(heads(lang), _whole_object)(obj, table)
    if category:
        return category, head
    return f"pref/{head}", head


def normalize_subject(subject: str) -> str:
    """Lower-case, single-spaced, without surrounding punctuation; at most 64 characters."""
    s = re.sub(r"\s+", " ", subject.strip().lower())
    return s.strip(" .,;:!?，。；：！？\"'")[:64]


def relation_words(pack: LanguagePack) -> dict[str, str]:
    """Each word of a language that names a relation of the user's world -> the relation (the
    key `daughter`: 女儿, 闺女; daughter; mom -> mother)."""
    table = pack.table(_TABLE_lexicon)
    relations, aliases = table.entry("relations"), table.entry("relation_aliases")
    found = relations.setting("relations", {}) if relations.on else {}
    words = {word: rel for rel, said in found.items() for word in said}
    return {**words, **(aliases.setting("aliases", {}) if aliases.on else {})}


def relation_names(relation: str, langs: Languages | None = None) -> tuple[str, ...]:
    """The words of every language for a relation, so a request in either finds its facts
    (我女儿 ~ my daughter)."""
    return _relation_names(relation, langs or all_on())


@functools.lru_cache(maxsize=64)
def _relation_names(relation: str, langs: Languages) -> tuple[str, ...]:
    return tuple(
        word
        for pack in langs.all()
        for word in pack.table(_TABLE_lexicon)
        .entry("relations")
        .setting("relations", {})
        .get(relation, ())
    )
