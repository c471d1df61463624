"""Does a request refer to the user's own world? (the first half of relevance gating)

A request about the user or the people and things of their memory ("where do I live?", "what did
Caroline paint?", 我上次说的那家店叫什么？) may be answered by a memory that only loosely
resembles it, so it is gated as before (`recall.min_semantic`). A request that refers to nothing
of theirs (chit-chat with the assistant, general knowledge, coding, translation) gets a memory
only when the memory clearly stands out from the request's own background
(`recall/background.py`): otherwise the block stays empty.

Reference, per language: the user speaking of themselves (I / my / we / our; 我 as subject or
possessor, 我的, 我们, 咱们; 我 as the object of a request, 给我讲, 帮我写, does not count), or a
name the user's memories hold (a speaker, an entity, a subject) written in the request. Quoted
text is not the user speaking (translate "I am learning to swim").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|'[^']{3,}'|「[^」]*」|‘[^’]*’")
_EN_SELF = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|my|mine|myself|we|we're|we've|our|ours|us)\b", re.IGNORECASE)
#: 我 after a verb of asking is the object of the request (给我讲个笑话), not the user's life
_ZH_OBJECT = re.compile(r"(?:给|帮|替|跟|对|让|陪|教|告诉|叫|请|和|为|考考|逗)我(?!们|的|家)")
_ZH_SELF = re.compile(r"我|咱")


def speaks_of_self(text: str) -> bool:
    """The user speaks of themselves (quoted text and 给我/帮我 objects aside)."""
    bare = _QUOTED.sub(" ", text)
    if _EN_SELF.search(bare.replace("’", "'")):
        return True
    return bool(_ZH_SELF.search(_ZH_OBJECT.sub("", bare)))


def names_known(text: str, names: Iterable[str]) -> bool:
    """A name from the user's memories (two characters or more) is written in the request."""
    low = text.lower()
    for name in names:
        name = name.strip().lower()
        if len(name) >= 2 and (name in low if not name.isascii() else re.search(rf"\b{re.escape(name)}\b", low)):
            return True
    return False


def refers_to_user(text: str, names: Iterable[str] = ()) -> bool:
    return speaks_of_self(text) or names_known(text, names)
