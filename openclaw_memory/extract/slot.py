"""The Slot value and the helpers every slot classifier shares.

A slot is what one clause states: a memory type, a stable subject key (so a restated or changed
value consolidates), a third-person summary in the user's language, tags, entities and a base
confidence. Helpers here cut values out of clauses and phrase summaries.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ..lang import Table, all_on
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
_TABLE = "slot"
#: words of any language that mark a question, a standing instruction, a one-off one, a plan
QUESTION_WORDS = all_on().any_of(_TABLE, "question_words")
STANDING = all_on().any_of(_TABLE, "standing")
ONE_OFF = all_on().any_of(_TABLE, "one_off")
FUTURE = all_on().any_of(_TABLE, "future")


def _table(cjk: bool) -> Table:
    """The slot table of the language a caller's has-Han flag means."""
    return all_on().of_han(cjk).table(_TABLE)


def value_of(raw: str, cjk: bool) -> str | None:
    """A slot value cut out of a clause: trailing particles and clauses dropped; None when
    empty, a question word, or too long to be a value."""
    raw = raw.strip(" ，,。.!！?？;；:：\"'“”")
    value = _table(cjk).entry("value_end").pattern.sub("", raw)
    value = value.strip(" ，,。.!！?？")
    if not value or QUESTION_WORDS.search(value) or len(value) > 40:
        return None
    return value


def say(cjk: bool, zh: str, en: str, **values: str) -> str:
    """The Chinese or the English template, filled."""
    return (zh if cjk else en).format(**values)


def third_person(clause: str, cjk: bool) -> str:
    """Rewrites first person so the memory reads from outside: 我 -> 用户, my -> the user's."""
    how = _table(cjk).entry("third_person")
    out = outside(clause.strip(how.setting("strip", " ")), cjk)
    return out[:1].upper() + out[1:] if how.setting("capitalise") else out


def outside(text: str, cjk: bool) -> str:
    """`third_person` inside a sentence (the object of a like: "painting with my kids" -> "painting
    with the user's kids"), its first letter left as it was."""
    for entry in _table(cjk).values():
        if entry.setting("replacement") is not None:  # the `outside_*` entries, in order
            text = entry.pattern.sub(str(entry.setting("replacement")), text)
    return text


#: the subject keys of instructions to the assistant (`instruction_rules`)
_INSTRUCTION_KEYS = ("reply_", "prohibition/")


@functools.lru_cache(maxsize=1)
def _instruction_heads() -> tuple[str, ...]:
    """How a remembered instruction starts, in every language ("The user asked: ")."""
    templates = (p.table(_TABLE).entry("instruction").setting("template") for p in all_on().all())
    return tuple(t.split("{c}")[0] for t in templates if t)


def is_instruction(subject: str | None, summary: str) -> bool:
    """Whether a stored claim is a standing instruction to the assistant (reply language, format,
    a prohibition, "The user asked: ..."), not a fact of the user's life."""
    return (subject or "").startswith(_INSTRUCTION_KEYS) or summary.startswith(_instruction_heads())


def instruction_summary(clause: str, cjk: bool) -> str:
    """How a standing instruction is remembered: "用户要求：不要用表情" / "The user asked: ...";
    a clause that already speaks of the user ("我不太喜欢长回答") is just put in third person."""
    if all_on().any_of(_TABLE, "first_person", "^(?:{})").match(clause.strip()):
        return third_person(clause, cjk)
    template = str(_table(cjk).entry("instruction").setting("template", "{c}"))
    return template.format(c=third_person(clause, cjk))
