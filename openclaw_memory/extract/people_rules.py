"""Whose fact is it? A statement about another person of the user's world is a fact about them.

"My daughter Lina is 7", "My wife Sara works as a pilot", 我女儿Lina对芒果过敏, 同事小王喜欢羽毛球:
each speaks of a person the user names by relation (and often by name). It is filed under that
person, never as a profile fact of the user ("用户对女儿Lina对芒果过敏" is wrong twice): a fact with
the subject `<relation>/<name>/<attribute>` (`daughter/lina/age`, `daughter/lina/allergy/mango`),
so a later age replaces the age and leaves the allergy alone; the person's name as its entity;
and the relation in both languages as its unshown detail, so "how old is my daughter?" and
我女儿多大了？ both find it, by word and by meaning.

The relations are data (each language's `lexicon` table, `relations`); the person frame and the attributes a predicate
names (age, allergy, job, likes) are each language's `people` table (`lang/<code>/people.yaml`).
"""

from __future__ import annotations

import functools

from ..lang import LanguagePack, Languages, all_on
from ..lang.pack import Table
from .lexicon import relation_names, relation_words
from .slot import FACT, Slot, third_person


def _alternation(pack: LanguagePack) -> str:
    """The relation words of a language as one alternation, longest first."""
    return _longest_first(tuple(relation_words(pack)))


@functools.lru_cache(maxsize=8)
def _longest_first(words: tuple[str, ...]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


def _attribute(pred: str, table: Table) -> str:
    """The attribute a predicate names; another predicate is keyed by its own first words, so
    two different things said of one person never replace each other (是本科毕业的 / 是医生)."""
    for entry in table.values():
        key = entry.setting("attribute")
        m = entry.pattern.search(pred) if key else None
        if m:
            return str(key).format(x=(m.groupdict().get("x") or "").strip().lower())
    head = table.entry("person").setting("key_head", {})
    words = pred[: head["chars"]] if "chars" in head else " ".join(pred.split()[: head["words"]])
    return "said/" + words.strip(" ，,。.!！").lower()


def person_fact(clause: str, cjk: bool, langs: Languages | None = None) -> Slot | None:
    """The fact a clause states about a person of the user's world, or None."""
    pack = (langs or all_on()).of(clause)
    table = pack.table("people")
    person = table.entry("person")
    relations = _alternation(pack)
    if not relations:
        return None
    m = person.regex(relations=relations).match(clause.strip(" 。.!！"))
    if not m or not m.group("pred").strip():
        return None
    word = m.group("rel")
    relation = relation_words(pack)[word.lower()]
    name = m.group("name") or ""
    who = f"{relation}/{name.lower()}" if name else relation
    attribute = _attribute(m.group("pred").strip(), table)
    body = table.entry("remember").pattern.sub("", clause.strip(), count=1)
    owner = table.entry("owner")  # 我女儿 / 同事小王 -> 我的女儿 / 我的同事小王
    body = owner.pattern.sub(str(owner.setting("replacement", "")), body, count=1)
    detail = " ".join(
        dict.fromkeys([relation, *relation_names(relation), *([name] if name else [])])
    )
    return Slot(
        FACT,
        f"{who}/{attribute}",
        third_person(body, cjk),
        ("person", relation),
        tuple(x for x in (name, word) if x),
        person.confidence or 0.0,
        detail=detail,
    )
