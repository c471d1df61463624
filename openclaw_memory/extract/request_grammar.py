"""Is a turn only a request for help? The grammar of requests, English and Chinese.

A user of an agent mostly asks it for things: questions to the assistant ("What's the capital
of Egypt?", 火星离太阳有多远？), small talk ("Hello, how are you today?"), commands addressed to
it ("Translate 'good luck' into French", 帮我算一下 12 加 30). Such a turn says nothing about the
user or their world: it is not a memory, is not summarised as one and is not delivered as one.
A turn that mixes a request with a statement ("I just adopted a puppy, which food is best?",
我下周去成都出差，帮我查下天气) is not only a request: its statement is evidence.

The decision reads the turn clause by clause: a clause is a request when it is interrogative
(a question mark, a question word or particle) or an imperative addressed to the assistant (a
verb of asking for work at its head, 帮我 / 给我 / 请); fillers (greetings, thanks) are nothing.
The turn is a request only when every clause is a request or a filler: one declarative clause
(first person or not) keeps it. The tables below are the only language knowledge here.
"""

from __future__ import annotations

import re

from ..text import has_cjk
from .filter import is_contentless

_I = re.IGNORECASE

#: per language: interrogative heads, interrogative ends, imperative heads (verbs of asking the
#: assistant for work, with the words a request opens with), and first-person request frames
#: that ask rather than tell ("I was wondering ...", "tell me ...")
REQUEST_GRAMMAR: dict[str, dict[str, re.Pattern[str]]] = {
    "en": {
        "ask_head": re.compile(
            r"^(?:what|what's|whats|how|how's|why|when|where|which|who|whom|whose|is|are|am|was|"
            r"were|do|does|did|can|could|would|will|should|shall|may|might|have|has|any)\b",
            _I,
        ),
        "ask_end": re.compile(r"[?]\s*$"),
        "command_head": re.compile(
            r"^(?:translate|explain|write|tell|give|list|show|compute|calculate|convert|"
            r"summari[sz]e|recommend|suggest|describe|find|help|make|create|generate|draft|"
            r"compare|rewrite|rephrase|check|fix|define|teach|search|look up|proofread|edit|"
            r"improve|solve|name|brainstorm|outline|simplify|sort|count|estimate|guess|"
            r"let's|let me know)\b",
            _I,
        ),
        "ask_frame": re.compile(
            r"^(?:i (?:was|am|'m) wondering|i wonder|i(?:'d| would) like to know|i want to know|"
            r"i need (?:you|help)|i'd like you to|i want you to)\b",
            _I,
        ),
        # words a request opens with before its head: "please", "hey", "ok so", "quick question:"
        "opener": re.compile(
            r"^(?:(?:please|pls|hey|hi|hello|ok|okay|so|and|also|now|quick question|"
            r"one more thing)[\s,:]+)+",
            _I,
        ),
    },
    "zh": {
        "ask_head": re.compile(
            r"^(?:为什么|为啥|怎么|怎样|如何|哪|谁|什么|几|多少|是否|能否|能不能|可不可以|可以|有没有)"
        ),
        "ask_end": re.compile(r"(?:[?？]|(?:[吗呢嘛]|(?<![什怎多这那])么)[。！!～~]?)\s*$"),
        "ask_word": re.compile(
            r"什么|怎么|怎样|如何|为什么|为啥|哪|谁|几[个点岁次天]|多少|多大|多远|多久|多长|是不是|有没有|要不要"
        ),
        "command_head": re.compile(
            r"^(?:请|麻烦|劳驾|帮我|帮忙|给我|替我|告诉我|提醒我|你|把|用|写|讲|说说|列|列出|推荐|"
            r"解释|翻译|算|计算|换算|总结|概括|介绍|查|查下|查一下|搜|搜索|比较|对比|生成|画|改写|"
            r"润色|整理|分析|举|教我|来|讲讲|聊聊)"
        ),
        "ask_frame": re.compile(r"^(?:我想知道|我想问|我想请教|请问|想问一下|问一下)"),
        "opener": re.compile(r"^(?:(?:那|那么|嗯|好|好的|对了|另外|还有|哎|喂|嘿)[，,\s]*)+"),
    },
}
#: the tag of a logged turn that only asked the assistant for something: kept for audit, never
#: delivered as a memory nor as another turn's context (recall/context.py)
REQUEST_TAG = "request"


def asked_only(tags: tuple[str, ...] | list[str]) -> bool:
    """Whether a logged turn's tags say it only asked for help (its first tag is its speaker)."""
    return REQUEST_TAG in tags[1:]


_CLAUSE_END = re.compile(r"(?<=[?？!！。；;])|(?<=\.)\s+|[\n]+")
_COMMA = re.compile(r"[,，、:：]\s*")


def _lang(text: str) -> str:
    return "zh" if has_cjk(text) else "en"


def _clauses(text: str) -> list[str]:
    """The clauses of a text, in order (a sentence's question mark stays with its last clause)."""
    return [
        c.strip()
        for sentence in _CLAUSE_END.split(text)
        if sentence and sentence.strip()
        for c in _COMMA.split(sentence.strip())
        if c.strip()
    ]


def _is_request(clause: str) -> bool:
    g = REQUEST_GRAMMAR[_lang(clause)]
    body = g["opener"].sub("", clause).strip(" '\"“”‘’")
    if not body:
        return True
    if g["ask_frame"].match(body) or g["command_head"].match(body):
        return True
    if g["ask_end"].search(body):
        return True
    if g["ask_head"].match(body) and ("ask_word" not in g or not body.startswith(("我", "咱"))):
        return body[-1:] in "?？" or _lang(body) == "en" or bool(g["ask_end"].search(body))
    return (
        "ask_word" in g and bool(g["ask_word"].search(body)) and not body.startswith(("我", "咱"))
    )


def request_only(text: str) -> bool:
    """Whether the turn only asks the assistant for something (a question, a command, small
    talk) and states nothing: every clause is a request or a filler, and one at least asks."""
    text = (text or "").strip()
    if not text or is_contentless(text):
        return False
    asked = False
    for clause in _clauses(text):
        if is_contentless(clause):
            continue
        if not _is_request(clause):
            return False
        asked = True
    return asked


def statement_part(text: str) -> str:
    """The clauses of a text that state something, its requests left out ("I'm flying to
    Chengdu next week, what's the weather like there?" -> "I'm flying to Chengdu next week");
    "" when it only asks."""
    clauses = _clauses(text)
    kept = [c for c in clauses if not is_contentless(c) and not _is_request(c)]
    if not kept:
        return ""
    if not any(_is_request(c) for c in clauses):
        return text
    sep = "，" if has_cjk(text) else ", "
    return sep.join(c.rstrip("?？。.!！;；") for c in kept)
