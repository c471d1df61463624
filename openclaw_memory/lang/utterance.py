"""What a text is as an utterance: saying nothing, only asking, or a standing instruction.

Read on both sides, in every language at once (a turn may mix them, "ok 谢谢"):

- contentless: greetings, thanks, acknowledgements and laughs say nothing (each language's
  `contentless` table); the write path logs no contentless turn, recall injects nothing for a
  request that asks nothing;
- a request for help: a turn every clause of which asks the assistant something or is a filler
  (each language's `request` table); the write path tags it (`REQUEST_TAG`) and summarises only
  what a turn states (`statement_part`), recall never delivers such a turn;
- a standing instruction to the assistant (reply language, format, a prohibition, "The user
  asked: ..."), not a fact of the user's life: filed under a subject key of its own and phrased
  by each language's `slot` table; consolidation never links a life event to one, and recall
  injects one on every request.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from . import all_on, Languages

# Whether a text says anything: greetings, thanks, acknowledgements and laughs say nothing.
#
# A turn is contentless when, once punctuation, emoji and filler particles are gone, nothing is
# left, or every clause is a greeting, a thanks, an acknowledgement or a laugh ("好的，谢谢！",
# "ok thanks 👍", "嗯嗯"). Anything with a fact in it, however short, is kept.

# What a turn says when it says nothing: each language's `contentless` table (greetings, thanks,
# acknowledgements said alone or in several words, laughs, the particles an acknowledgement may
# end on), read from every pack at once: a turn of fillers is mixed freely ("ok 谢谢").
_FILLER = "contentless"


@dataclass(frozen=True)
class _Fillers:
    """The `contentless` tables of a set of packs, the entries switched off left out."""

    phrases: frozenset[str]
    multiword: tuple[str, ...]
    clause: re.Pattern[str]
    laugh: re.Pattern[str]
    particles: str
    stackable: tuple[str, ...]


@functools.lru_cache(maxsize=8)
def _fillers(langs: Languages) -> _Fillers:
    tables = [p.table(_FILLER) for p in langs.all()]
    phrases = frozenset(w for t in tables for w in t.entry("phrases").wordset)
    multiword = tuple(
        w for t in tables if t.entry("multiword").on for w in t.entry("multiword").words
    )
    particles = "".join(
        str(t.entry("particles").setting("chars", "")) for t in tables if t.entry("particles").on
    )
    return _Fillers(
        phrases=phrases,
        multiword=tuple(sorted(multiword, key=len, reverse=True)),
        clause=langs.any_of(_FILLER, "split"),
        laugh=langs.any_of(_FILLER, "laugh", "^(?:{})$"),
        particles=particles,
        stackable=tuple(sorted(phrases, key=len, reverse=True)),
    )


def _is_symbolic(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat[0] in "PSZC" or cat == "Mn"  # punctuation, symbols (emoji), spaces, controls


def _clause_is_filler(clause: str, f: _Fillers) -> bool:
    c = clause.strip().lower()
    if not c:
        return True
    stripped = c.rstrip(f.particles) or c
    if c in f.phrases or stripped in f.phrases or c in f.multiword or f.laugh.match(c):
        return True
    # Stacked acknowledgements without punctuation: "好的谢谢", "嗯好的", "ok收到".
    for phrase in f.stackable:
        if c.startswith(phrase) and _clause_is_filler(c[len(phrase) :], f):
            return True
    return False


def is_contentless(text: str, langs: Languages | None = None) -> bool:
    """True for greetings, thanks, acknowledgements, laughs, emoji-only and near-empty texts
    (`langs`: the packs read, every rule on by default)."""
    meaningful = "".join(ch for ch in text if not _is_symbolic(ch))
    if len(meaningful.strip()) < 2:
        return True
    f = _fillers(langs or all_on())
    lowered = text.lower().strip()
    for phrase in f.multiword:  # they span spaces the split would cut (longest first)
        lowered = lowered.replace(phrase, " thanks ")
    # the split cuts at white space too, so each piece is one word in any language
    words = [c for c in f.clause.split(lowered) if c]
    clean = ["".join(ch for ch in w if not _is_symbolic(ch)) for w in words]
    return all(_clause_is_filler(w, f) for w in clean)


# Is a turn only a request for help? The grammar of requests, in every language.
#
# A user of an agent mostly asks it for things: questions to the assistant ("What's the capital
# of Egypt?", 火星离太阳有多远？), small talk ("Hello, how are you today?"), commands addressed to
# it ("Translate 'good luck' into French", 帮我算一下 12 加 30). Such a turn says nothing about the
# user or their world: it is not a memory, is not summarised as one and is not delivered as one.
# A turn that mixes a request with a statement ("I just adopted a puppy, which food is best?",
# 我下周去成都出差，帮我查下天气) is not only a request: its statement is evidence.
#
# The decision reads the turn clause by clause: a clause is a request when it is interrogative
# (a question mark, a question word or particle) or an imperative addressed to the assistant (a
# verb of asking for work at its head, 帮我 / 给我 / 请); fillers (greetings, thanks) are nothing.
# The turn is a request only when every clause is a request or a filler: one declarative clause
# (first person or not) keeps it. The grammar is each language's `request` table (`lang/<code>/
# request.yaml`); a language without one has no requests, so its turns are all kept.

#: the tag of a logged turn that only asked the assistant for something: kept for audit, never
#: delivered as a memory nor as another turn's context (recall/recaller.py)
REQUEST_TAG = "request"


def asked_only(tags: tuple[str, ...] | list[str]) -> bool:
    """Whether a logged turn's tags say it only asked for help (its first tag is its speaker)."""
    return REQUEST_TAG in tags[1:]


def _clauses(text: str, langs: Languages) -> list[str]:
    """The clauses of a text, in order (a sentence's question mark stays with its last clause):
    where a sentence ends and the commas between its clauses are each language's `request`
    table."""
    comma = langs.any_of("request", "comma")
    return [
        c.strip()
        for sentence in langs.any_of("request", "clause_end").split(text)
        if sentence and sentence.strip()
        for c in comma.split(sentence.strip())
        if c.strip()
    ]


def _is_request(clause: str, langs: Languages) -> bool:
    g = langs.of(clause).table("request")
    body = g.entry("opener").pattern.sub("", clause).strip(" '\"“”‘’")
    if not body:
        return True
    if g.entry("ask_frame").pattern.match(body) or g.entry("command_head").pattern.match(body):
        return True
    if g.entry("ask_end").pattern.search(body):
        return True
    mine = bool(g.entry("first_person").pattern.match(body))
    head = g.entry("ask_head")
    if head.pattern.match(body) and not mine:
        return bool(head.setting("asks_alone", False))
    return bool(g.entry("ask_word").pattern.search(body)) and not mine


def request_only(text: str, langs: Languages | None = None) -> bool:
    """Whether the turn only asks the assistant for something (a question, a command, small
    talk) and states nothing: every clause is a request or a filler, and one at least asks."""
    langs = langs or all_on()
    text = (text or "").strip()
    if not text or is_contentless(text, langs):
        return False
    asked = False
    for clause in _clauses(text, langs):
        if is_contentless(clause, langs):
            continue
        if not _is_request(clause, langs):
            return False
        asked = True
    return asked


def statement_part(text: str, langs: Languages | None = None) -> str:
    """The clauses of a text that state something, its requests left out ("I'm flying to
    Chengdu next week, what's the weather like there?" -> "I'm flying to Chengdu next week");
    "" when it only asks."""
    langs = langs or all_on()
    clauses = _clauses(text, langs)
    kept = [c for c in clauses if not is_contentless(c, langs) and not _is_request(c, langs)]
    if not kept:
        return ""
    if not any(_is_request(c, langs) for c in clauses):
        return text
    return langs.of(text).comma.join(c.rstrip("?？。.!！;；") for c in kept)


# Whether a stored claim is a standing instruction to the assistant, not a fact of the user's life.
#
# The write path files an instruction (reply language, format, a prohibition, "The user asked:
# ...") under a subject key of its own and phrases it by each language's `slot` table
# (`extract.slot.instruction_summary`); consolidation never links a life event to one, and recall
# injects one on every request.

#: the language pack table whose `instruction` entry phrases a remembered instruction
TABLE = "slot"
#: the subject keys of instructions to the assistant (`extract.preference_rules`)
_INSTRUCTION_KEYS = ("reply_", "prohibition/")


@functools.lru_cache(maxsize=8)
def _instruction_heads(langs: Languages) -> tuple[str, ...]:
    """How a remembered instruction starts, in every language of `langs` ("The user asked: "):
    the template of each `instruction` entry, as the writer phrases one (`extract.slot`
    `instruction_summary` reads it whether the entry is on or not)."""
    templates = (p.table(TABLE).entry("instruction").setting("template") for p in langs.all())
    return tuple(t.split("{c}")[0] for t in templates if t)


def is_instruction(subject: str | None, summary: str, langs: Languages | None = None) -> bool:
    """Whether a stored claim is a standing instruction to the assistant (reply language, format,
    a prohibition, "The user asked: ..."), not a fact of the user's life (`langs`: the packs
    read, every rule on by default)."""
    return (subject or "").startswith(_INSTRUCTION_KEYS) or summary.startswith(
        _instruction_heads(langs or all_on())
    )
