"""Whose fact is it? A statement about another person of the user's world is a fact about them.

"My daughter Lina is 7", "My wife Sara works as a pilot", 我女儿Lina对芒果过敏, 同事小王喜欢羽毛球:
each speaks of a person the user names by relation (and often by name). It is filed under that
person, never as a profile fact of the user ("用户对女儿Lina对芒果过敏" is wrong twice): a fact with
the subject `<relation>/<name>/<attribute>` (`daughter/lina/age`, `daughter/lina/allergy/mango`),
so a later age replaces the age and leaves the allergy alone; the person's name as its entity;
and the relation in both languages as its unshown detail, so "how old is my daughter?" and
我女儿多大了？ both find it, by word and by meaning.

The relations are data (`lexicon.RELATIONS`); the attributes a predicate names (age, allergy,
job, likes) are the table `_ATTRIBUTES` below, per language.
"""

from __future__ import annotations

import re

from .lexicon import RELATION_ALIASES, RELATIONS
from .slot import FACT, I, Slot, third_person

_ZH_WORDS = {zh: en for en, words in RELATIONS.items() for zh in words}
_EN_WORDS = {**{en: en for en in RELATIONS}, **RELATION_ALIASES}
_EN_REL = "|".join(sorted(_EN_WORDS, key=len, reverse=True))
_ZH_REL = "|".join(sorted(_ZH_WORDS, key=len, reverse=True))

#: "my daughter Lina is 7", "our son's name is Max", "my colleague Tom loves badminton"
_EN_PERSON = re.compile(
    rf"^(?:remember(?: that)?[:,]?\s+)?(?:my|our)\s+(?:little\s+|older\s+|younger\s+|best\s+)?"
    rf"(?P<rel>{_EN_REL})s?(?:,)?\s+(?P<name>(?-i:[A-Z])[a-z]+)?\s*,?\s*"
    r"(?P<pred>(?:is|was|has|had|works|worked|loves|likes|enjoys|hates|lives|lived|just|"
    r"turned|turns|got|started|plays|studies|goes|can't|cannot|doesn't|does)\b.*)$",
    I,
)
#: 我女儿Lina今年7岁了, 记住：我女儿Lina对芒果过敏, 同事小王特别喜欢羽毛球, 我老婆是飞行员
_ZH_PERSON = re.compile(
    rf"^(?:记住[:：，,]?\s*)?(?:我(?:的|家)?|咱家)?(?P<rel>{_ZH_REL})"
    r"(?P<name>[A-Za-z]+|[小老阿][\u4e00-\u9fff])?\s*"
    r"(?P<pred>(?:今年|现在|已经|对|是|在|住|喜欢|特别|很|非常|最|爱|不|会|刚|有|做|学|上).*)$"
)
#: the attribute a predicate names: (pattern, attribute key; "{x}" takes the pattern's value)
_ATTRIBUTES: dict[str, tuple[tuple[re.Pattern[str], str], ...]] = {
    "en": (
        (re.compile(r"^(?:is|turned|turns|just turned)\s+(?:now\s+)?\d{1,3}\b", I), "age"),
        (re.compile(r"\ballergic to\s+(?P<x>[a-z][a-z ]{0,30}?)\s*$", I), "allergy/{x}"),
        (
            re.compile(r"^(?:works|worked) as\b|^is an? (?:\w+ )?(?:by profession)?", I),
            "job",
        ),
        (re.compile(r"^(?:works|worked) (?:at|for|in)\b", I), "workplace"),
        (re.compile(r"^(?:loves|likes|enjoys)\s+(?P<x>[a-z][a-z ]{0,30}?)\s*$", I), "likes/{x}"),
        (re.compile(r"^(?:lives|lived)\b", I), "home"),
        (
            re.compile(
                r"\b(?:is in|is at|goes to|attends|started|entered|is starting)\s+(?:the\s+)?"
                r"(?:kindergarten|preschool|nursery|primary school|elementary school|middle school|"
                r"high school|college|university|grad school|\w+ grade)\b",
                I,
            ),
            "school",
        ),
    ),
    "zh": (
        (re.compile(r"(?:\d{1,3}|[一二两三四五六七八九十]{1,3})(?:周)?岁"), "age"),
        (re.compile(r"对(?P<x>[\u4e00-\u9fffA-Za-z]{1,10}?)(?:有点|很|严重)?过敏"), "allergy/{x}"),
        (
            re.compile(
                r"^是(?:一名|一位|个)?[\u4e00-\u9fff]{0,4}(?:师|员|生|士|家|工|长|手|官|计)$"
            ),
            "job",
        ),
        (re.compile(r"^在[\u4e00-\u9fffA-Za-z]{1,10}(?:工作|上班)"), "workplace"),
        (re.compile(r"(?:喜欢|爱)(?P<x>[\u4e00-\u9fffA-Za-z ]{1,12})$"), "likes/{x}"),
        (re.compile(r"^住在"), "home"),
        (
            re.compile(
                r"(?:读|上|念)了?(?:幼儿园|小学|初中|高中|中学|大学|研究生|博士|[一二三四五六]年级)"
            ),
            "school",
        ),
    ),
}


#: how much of a predicate no attribute names keys it: its first characters (Chinese) or words
OTHER_HEAD_CHARS = 6
OTHER_HEAD_WORDS = 3


def _attribute(pred: str, lang: str) -> str:
    """The attribute a predicate names; another predicate is keyed by its own first words, so
    two different things said of one person never replace each other (是本科毕业的 / 是医生)."""
    for pattern, key in _ATTRIBUTES[lang]:
        m = pattern.search(pred)
        if m:
            return key.format(x=(m.groupdict().get("x") or "").strip().lower())
    words = pred[:OTHER_HEAD_CHARS] if lang == "zh" else " ".join(pred.split()[:OTHER_HEAD_WORDS])
    return "said/" + words.strip(" ，,。.!！").lower()


def person_fact(clause: str, cjk: bool) -> Slot | None:
    """The fact a clause states about a person of the user's world, or None."""
    m = (_ZH_PERSON if cjk else _EN_PERSON).match(clause.strip(" 。.!！"))
    if not m or not m.group("pred").strip():
        return None
    word = m.group("rel")
    relation = _ZH_WORDS[word] if cjk else _EN_WORDS[word.lower()]
    name = m.group("name") or ""
    who = f"{relation}/{name.lower()}" if name else relation
    attribute = _attribute(m.group("pred").strip(), "zh" if cjk else "en")
    body = re.sub(r"^(?:remember(?: that)?[:,]?\s+|记住[:：，,]?\s*)", "", clause.strip(), flags=I)
    if cjk:  # 我女儿 / 同事小王 -> 用户的女儿 / 用户的同事小王
        body = re.sub(r"^(?:我(?:的|家)?|咱家)?", "我的", body, count=1)
    detail = " ".join(dict.fromkeys([relation, *RELATIONS[relation], *([name] if name else [])]))
    return Slot(
        FACT,
        f"{who}/{attribute}",
        third_person(body, cjk),
        ("person", relation),
        tuple(x for x in (name, word) if x),
        0.85,
        detail=detail,
    )
