"""List questions: a request that asks for several things ("what books has she read?", 哪些).

Such a request is answered by memories spread over sessions, not by one memory and the turns
around it: its ranking's head is ordered to cover several sessions (recall/cover.py), the turns
around its best one get half the session evidence (`rank.LIST_SESSION_SHARE`), each recalled
turn comes with one more turn after it (`LIST_CONTEXT_AFTER`: in a dialogue the turn after a
mention is where it is told about, "which one?" answered), and its block may hold more related
memories (`long_term.list_top_k`, working_memory.py). "How many" of a unit of measure ("how many
years older am I") asks an amount, not several things.
"""

from __future__ import annotations

import re

from ..config.tuning import tuned_int

#: "what books", "which places", "what kinds of music", "how many times", "list", "every",
#: and Chinese 哪些 / 几次 / 多少次 / 哪几 / 都有, and an order of several (先后, 顺序)
_LIST = re.compile(
    r"\b(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?(?P<noun>[a-z]+(?:ies|[^s]s))\b"
    r"|\bhow\s+many\b|\bin\s+what\s+ways\b|\blist\b|\bevery\b|\ball\s+the\b"
    r"|哪些|几次|多少次|哪几|都有|顺序|先后",
    re.I,
)
#: a plural noun after a few modifiers, then the question's auxiliary: the plural is what is asked
#: for ("what LGBTQ+ events has she joined", "which US cities does he mention", "what martial arts
#: has John done"); without the auxiliary a plural after modifiers is often a subject or a
#: description ("what exciting news ... shared"); the modifiers are no auxiliary ("what do his
#: friends do" asks for one thing)
_LIST_MODIFIED = re.compile(
    r"\b(?:what|which)\s+(?:(?!(?:has|have|had|did|do|does|is|are|was|were)\b)[\w+/-]+\s+){1,2}?"
    r"(?P<noun>[a-z]+(?:ies|[^s]s))(?:/[a-z]+)?"
    r"\s+(?:has|have|had|did|do|does)\b",
    re.I,
)
#: a definite plural that a clause about someone makes a set of that person's doings: "the trips
#: I took", "the skills that Nate has helped others learn"; and what is put in order ("the order
#: of the concerts I attended", 先后, 顺序). "One of the challenges John faced" asks for one;
#: "what are the new shoes ... used for" (no clause of someone doing) is no list here
_LIST_DEFINITE = re.compile(
    r"\b(?:order|sequence)\s+of\s+(?:the\s+)?(?:[\w+/-]+\s+){0,2}?(?P<ordered>[a-z]+(?:ies|[^s]s))\b"
    r"|(?<!\bone of )\bthe\s+(?:(?!(?:has|have|had|did|do|does|is|are|was|were)\b)[\w+/-]+\s+){0,2}?"
    r"(?P<done>[a-z]+(?:ies|[^s]s))\s+(?:that\s+)?(?:(?:I|we|you|he|she|they)\s+[a-z]+"
    r"|(?-i:[A-Z][a-z]+)\s+(?:has\s+|had\s+)?[a-z]+ed)\b",
    re.I,
)
#: turns after a recalled turn a list question's unit shows besides `recall.episode_context_after`
LIST_CONTEXT_AFTER = tuned_int("listing.context_after")
#: units a measure is counted in: "how many years older am I", "how many days did the trip take"
#: ask an amount, not several things ("how many times", "how many books" do)
_UNIT_AFTER = re.compile(
    r"\s+(?:more\s+|fewer\s+|less\s+)?(?:years?|months?|weeks?|days?|hours?|minutes?|seconds?"
    r"|dollars?|euros?|bucks|pounds?|miles?|kilometers?|kilometres?|km|kilos?|kilograms?|kg"
    r"|feet|foot|inches?|meters?|metres?|percent|calories?)\b",
    re.I,
)
#: words that end in s and are no plural nouns
_NOT_PLURAL = frozenset("does has was is this his its as us yes plus less thus always news".split())


def names_several(text: str) -> bool:
    """The request asks for several things: a list question ("what books", 哪些, how many).
    Naming two entities is not enough: most questions name a person and a place."""
    for pattern in (_LIST, _LIST_MODIFIED, _LIST_DEFINITE):
        for m in pattern.finditer(text):
            if m.group(0).lower().startswith("how") and _UNIT_AFTER.match(text, m.end()):
                continue
            noun = next((g for g in m.groupdict().values() if g), None)
            if noun is None or noun.lower() not in _NOT_PLURAL:
                return True
    return False
