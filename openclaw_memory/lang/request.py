"""Is a turn only a request for help? The grammar of requests, in every language.

The write path tags a logged turn that only asked the assistant for something (`REQUEST_TAG`)
and summarises only what a turn states (`statement_part`); recall reads the tag and never
delivers such a turn.
"""

from __future__ import annotations

from . import Languages, all_on
from .contentless import is_contentless

# Is a turn only a request for help? The grammar of requests, English and Chinese.
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


#: where a sentence ends, and the commas between its clauses (each language's `request` table)
_CLAUSE_END = all_on().any_of("request", "clause_end")
_COMMA = all_on().any_of("request", "comma")


def _clauses(text: str) -> list[str]:
    """The clauses of a text, in order (a sentence's question mark stays with its last clause)."""
    return [
        c.strip()
        for sentence in _CLAUSE_END.split(text)
        if sentence and sentence.strip()
        for c in _COMMA.split(sentence.strip())
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
    if not text or is_contentless(text):
        return False
    asked = False
    for clause in _clauses(text):
        if is_contentless(clause):
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
    clauses = _clauses(text)
    kept = [c for c in clauses if not is_contentless(c) and not _is_request(c, langs)]
    if not kept:
        return ""
    if not any(_is_request(c, langs) for c in clauses):
        return text
    return langs.of(text).comma.join(c.rstrip("?？。.!！;；") for c in kept)
