"""The request as the embedder reads it: without the names most of the user's memories carry.

In a store where one or two people speak or are addressed in most memories (a chat between two
friends, a replayed group conversation, a user who names a partner in every note), their names
tell nothing about which memory answers "What activities does Melanie partake in?": every
memory of hers names her. For the embedder they do worse than nothing: a short request that
names a person comes nearest to the small talk that addresses that person ("Wow, Melanie!
What's the best part?"), and the memories that say what she does ("I'm off to go swimming with
the kids") fall behind. So the vector search reads the request with each such name (an entity
whose weight is under `channels.MIN_ENTITY_WEIGHT`, the bar below which the entity channel
selects nothing by it either) written as a pronoun: "they", "their" for a possessive, and
nothing in Chinese (林晓负责的项目 -> 负责的项目), which drops a subject freely.

Only the query vector changes: keyword search, the entity channel and relevance gating's terms
and names read the request as written, and a name the store holds in few memories (a pet, a
shop, a colleague mentioned once) stays in the embedded text, where it is evidence.
"""

from __future__ import annotations

import re

from ..store.record_ports import EntityMemory
from ..lang.text import has_cjk, tokenize
from ..types import Scope
from .entity_channel import MIN_ENTITY_WEIGHT, EntityReads

#: what a dropped English name becomes: the request still reads as a sentence about someone
_PRONOUN, _POSSESSIVE = "they", "their"


def embedding_text(
    store: EntityMemory, scope: Scope, text: str, reads: EntityReads | None = None
) -> str:
    """text with the names most of scope's memories carry written as pronouns (see the module
    docstring); text itself when it names none, or when nothing but such names is left. `reads`:
    the request's entity reads, shared with the entity channel (new ones when not given)."""
    reads = reads or EntityReads(store, scope)
    named = reads.named(text) if text.strip() else {}
    if not named:
        return text
    weight = reads.weights(sorted(named))
    common = [n for e, n in named.items() if n and weight.get(e, 1.0) < MIN_ENTITY_WEIGHT]
    out = text
    for name in sorted(common, key=len, reverse=True):  # "Mary Ann" before "Mary"
        out = without_name(out, name)
    # "Melanie?" asks about her and nothing else: that request keeps its name
    return out if out != text and tokenize(out, drop_stopwords=True) else text


def without_name(text: str, name: str) -> str:
    """text with name written as a pronoun: "their" for "Name's", "they" for "Name" (as a whole
    word, in any case); a Chinese name left out."""
    if has_cjk(name):
        return text.replace(name, "")
    word = re.escape(name)
    text = re.sub(rf"(?<![\w-]){word}['’]s\b", _POSSESSIVE, text, flags=re.I)
    return re.sub(rf"(?<![\w-]){word}(?![\w-])", _PRONOUN, text, flags=re.I)
