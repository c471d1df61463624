"""Personal requests about what no memory holds: the noise a request about the user's world meets.

`noise` (precision.py) asks requests that refer to nothing of the user's (chit-chat, general
knowledge, coding): relevance gating holds them to the request's own background. A request about
the user's world ("What's my blood type?", "What is Caroline's blood type?", 我的血型是什么？) is
gated for recall first (recall/gate.py): a memory that only loosely resembles it may answer it.
When nothing stored speaks of what it asks, every retrieved memory its block shows is unrelated.

After each conversation, each topic of `data/absent.json` in the conversation's language is asked,
unless a word of the topic occurs in one of its turns (then the store may hold it): about each
named speaker of a chat ("What is {name}'s blood type?"), or in the first person in a user's own
store. `rate` is the share of such requests whose block shows any retrieved memory, `lines_mean`
the retrieved lines per request; the profile section, shown on every turn by design, is counted
apart (`profile_rate`), as for `noise`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .datasets import Conversation
from .precision import LANGS, PrecisionSystem, _load, ask_personas

#: speakers of a user's own store (LongMemEval, the package's personas): no name to ask about
_ROLES = frozenset({"user", "assistant"})


def topics(lang: str) -> list[dict[str, Any]]:
    """The topics of one language: {"self": ..., "named": ... "{name}" ..., "words": [...]}."""
    return list(_load("absent.json")[lang])


def speakers(conv: Conversation) -> list[str]:
    """The named speakers of a chat, in order of first turn (none for a user's own store)."""
    seen: dict[str, None] = {}
    for session in conv.sessions:
        for turn in session.turns:
            if turn.speaker not in _ROLES:
                seen.setdefault(turn.speaker, None)
    return list(seen)


def absent_requests(conv: Conversation, lang: str) -> list[str]:
    """The requests about topics no turn of the conversation names (see the module docstring)."""
    said = "\n".join(t.text.lower() for s in conv.sessions for t in s.turns)
    names = speakers(conv)
    out = []
    for topic in topics(lang):
        if any(word.lower() in said for word in topic["words"]):
            continue
        if names:
            out += [topic["named"].format(name=name) for name in names]
        else:
            out.append(topic["self"])
    return out


def run_absent(system: PrecisionSystem, *, langs: Sequence[str] = LANGS) -> dict[str, Any]:
    """`eval precision`'s absent section: each persona's statements stored, then the topics of
    its language that no statement names asked in the first person."""
    return ask_personas(system, absent_requests, langs)
