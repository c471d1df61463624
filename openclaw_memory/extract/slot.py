"""The Slot value and the helpers every slot classifier shares.

A slot is what one clause states: a memory type, a stable subject key (so a restated or changed
value consolidates), a third-person summary in the user's language, tags, entities and a base
confidence. Helpers here cut values out of clauses and phrase summaries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..types import MemoryType

PROFILE, PREFERENCE, FACT = MemoryType.PROFILE, MemoryType.PREFERENCE, MemoryType.FACT


@dataclass(frozen=True)
class Slot:
    """What one clause states: type, subject key, summary, tags, entities and base confidence."""

    type: MemoryType
    subject: str
    summary: str
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    confidence: float = 0.85
    #: a change: the old value it replaces, when the clause names it ("" when it does not)
    replaces: str = ""
    #: indexed and embedded with the memory, never shown: the words that find it in the other
    #: language ("daughter 女儿 Lina" for a fact about the user's daughter)
    detail: str = ""


I = re.IGNORECASE
QUESTION_WORDS = re.compile(r"什么|谁|哪|多少|几|怎么|\b(?:what|who|where|which|how)\b", I)
_ZH_VALUE_END = re.compile(
    r"(?:了|啦|呢|哦|呀|吧|的|就行|就好|就可以|好了|而且.*|并且.*|但是.*|所以.*)$"
)
_EN_VALUE_END = re.compile(
    r"\s+(?:and|but|since|because|so|for|with|who|which|where|now|currently|these days|"
    r"at the moment|right now|next|last|this|in \d{4}|as well|too|after all|anymore|"
    r"in the (?:spring|summer|autumn|fall|winter)|in (?:january|february|march|april|may|june|july|august|"
    r"september|october|november|december))\b.*$",
    I,
)
STANDING = re.compile(
    r"以后|今后|默认|一直|总是|每次|都|一律|统一|所有|\b(?:always|by default|every time|all)\b", I
)
ONE_OFF = re.compile(
    r"这|那个|下面|以下|上面|刚才|翻译|怎么说|\b(?:this|these|that|the following|above|below|translate)\b",
    I,
)
FUTURE = re.compile(
    r"下个月|明年|下周|打算|准备|将要|要搬|会搬|\b(?:next|will|going to|plan(?:ning)? to|soon)\b",
    I,
)


def value_of(raw: str, cjk: bool) -> str | None:
    """A slot value cut out of a clause: trailing particles and clauses dropped; None when
    empty, a question word, or too long to be a value."""
    raw = raw.strip(" ，,。.!！?？;；:：\"'“”")
    value = _ZH_VALUE_END.sub("", raw) if cjk else _EN_VALUE_END.sub("", raw)
    value = value.strip(" ，,。.!！?？")
    if not value or QUESTION_WORDS.search(value) or len(value) > 40:
        return None
    return value


def say(cjk: bool, zh: str, en: str, **values: str) -> str:
    """The Chinese or the English template, filled."""
    return (zh if cjk else en).format(**values)


def third_person(clause: str, cjk: bool) -> str:
    """Rewrites first person so the memory reads from outside: 我 -> 用户, my -> the user's."""
    if cjk:
        return outside(clause.strip(" 。.!！"), cjk)
    out = outside(clause.strip(" .!"), cjk)
    return out[:1].upper() + out[1:]


def outside(text: str, cjk: bool) -> str:
    """`third_person` inside a sentence (the object of a like: "painting with my kids" -> "painting
    with the user's kids"), its first letter left as it was."""
    if cjk:
        return re.sub(r"我(?!们)", "用户", text)
    out = text
    for pattern, repl in (
        (r"\bI'm\b|\bI am\b", "the user is"),
        (r"\bI've\b|\bI have\b", "the user has"),
        (r"\bI'll\b", "the user will"),
        (r"\bI'd(?= (?:been|had|better|already|just|never)\b)", "the user had"),
        (r"\bI'd\b", "the user would"),
        (r"\bmyself\b", "themselves"),
        (r"\bmy\b", "the user's"),
        (r"\bme\b", "the user"),
        (r"\bmine\b", "the user's"),
        (r"\bI\b", "the user"),
    ):
        out = re.sub(pattern, repl, out, flags=I)
    return out


_FIRST_PERSON = re.compile(r"^(?:我|\b(?:i|i'm|my)\b)", re.IGNORECASE)


#: the subject keys of instructions to the assistant (`instruction_rules`)
_INSTRUCTION_KEYS = ("reply_", "prohibition/")
_INSTRUCTION_HEADS = ("The user asked: ", "用户要求：")


def is_instruction(subject: str | None, summary: str) -> bool:
    """Whether a stored claim is a standing instruction to the assistant (reply language, format,
    a prohibition, "The user asked: ..."), not a fact of the user's life."""
    return (subject or "").startswith(_INSTRUCTION_KEYS) or summary.startswith(_INSTRUCTION_HEADS)


def instruction_summary(clause: str, cjk: bool) -> str:
    """How a standing instruction is remembered: "用户要求：不要用表情" / "The user asked: ...";
    a clause that already speaks of the user ("我不太喜欢长回答") is just put in third person."""
    if _FIRST_PERSON.match(clause.strip()):
        return third_person(clause, cjk)
    return say(cjk, "用户要求：{c}", "The user asked: {c}", c=third_person(clause, cjk))
