"""Whether a text says anything: greetings, thanks, acknowledgements and laughs say nothing.

Read on both sides: the write path logs no contentless turn, recall injects nothing for a
request that asks nothing. The words are each language's `contentless` table.
"""

from __future__ import annotations

import unicodedata

from . import all_on

# Hard filter rules that run before extraction: contentless turns are not logged at all.
#
# A turn is contentless when, once punctuation, emoji and filler particles are gone, nothing is
# left, or every clause is a greeting, a thanks, an acknowledgement or a laugh ("好的，谢谢！",
# "ok thanks 👍", "嗯嗯"). Anything with a fact in it, however short, is kept.

# What a turn says when it says nothing: each language's `contentless` table (greetings, thanks,
# acknowledgements said alone or in several words, laughs, the particles an acknowledgement may
# end on), read from every pack at once: a turn of fillers is mixed freely ("ok 谢谢").
_FILLER = "contentless"
_PHRASES = frozenset(w for p in all_on().all() for w in p.table(_FILLER).entry("phrases").words)
_MULTIWORD = tuple(w for p in all_on().all() for w in p.table(_FILLER).entry("multiword").words)
_CLAUSE = all_on().any_of(_FILLER, "split")
_LAUGH = all_on().any_of(_FILLER, "laugh", "^(?:{})$")
_PARTICLES = "".join(
    str(p.table(_FILLER).entry("particles").setting("chars", "")) for p in all_on().all()
)
_STACKABLE = sorted(_PHRASES, key=len, reverse=True)


def _is_symbolic(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat[0] in "PSZC" or cat == "Mn"  # punctuation, symbols (emoji), spaces, controls


def _clause_is_filler(clause: str) -> bool:
    c = clause.strip().lower()
    if not c:
        return True
    stripped = c.rstrip(_PARTICLES) or c
    if c in _PHRASES or stripped in _PHRASES or c in _MULTIWORD or _LAUGH.match(c):
        return True
    # Stacked acknowledgements without punctuation: "好的谢谢", "嗯好的", "ok收到".
    for phrase in _STACKABLE:
        if c.startswith(phrase) and _clause_is_filler(c[len(phrase) :]):
            return True
    return False


def is_contentless(text: str) -> bool:
    """True for greetings, thanks, acknowledgements, laughs, emoji-only and near-empty texts."""
    meaningful = "".join(ch for ch in text if not _is_symbolic(ch))
    if len(meaningful.strip()) < 2:
        return True
    lowered = text.lower().strip()
    for phrase in sorted(_MULTIWORD, key=len, reverse=True):  # they span spaces the split would cut
        lowered = lowered.replace(phrase, " thanks ")
    # the split cuts at white space too, so each piece is one word in any language
    words = [c for c in _CLAUSE.split(lowered) if c]
    clean = ["".join(ch for ch in w if not _is_symbolic(ch)) for w in words]
    return all(_clause_is_filler(w) for w in clean)
