"""Instruction classifiers: standing rules for the assistant itself. Reply language, reply
format and length, and prohibitions ("never use emojis", 以后不要加表情).

Each reads one clause (`standing` is true inside a "from now on" / 以后 instruction) and returns
a preference `Slot` or None. One-off requests ("用英文写这封邮件", "translate this") and
questions are not standing rules and yield nothing; nor is encouragement to the listener
("don't worry", 别担心).
"""

from __future__ import annotations

import re

from ..lang import Languages
from .lexicon import en_head, zh_head
from .slot import (
    ONE_OFF,
    PREFERENCE,
    STANDING,
    I,
    Slot,
    instruction_summary,
    say,
)

_LANGS = {
    "简体中文": "zh",
    "繁体中文": "zh-hant",
    "中文": "zh",
    "汉语": "zh",
    "普通话": "zh",
    "英文": "en",
    "英语": "en",
    "日语": "ja",
    "日文": "ja",
    "韩语": "ko",
    "韩文": "ko",
    "法语": "fr",
    "德语": "de",
    "西班牙语": "es",
    "粤语": "yue",
    "english": "en",
    "chinese": "zh",
    "mandarin": "zh",
    "japanese": "ja",
    "korean": "ko",
    "french": "fr",
    "german": "de",
    "spanish": "es",
    "cantonese": "yue",
}
_LANG_ZH = {
    "zh": "中文",
    "zh-hant": "繁体中文",
    "en": "英文",
    "ja": "日语",
    "ko": "韩语",
    "fr": "法语",
    "de": "德语",
    "es": "西班牙语",
    "yue": "粤语",
}
_LANG_EN = {
    "zh": "Chinese",
    "zh-hant": "Traditional Chinese",
    "en": "English",
    "ja": "Japanese",
    "ko": "Korean",
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "yue": "Cantonese",
}
_LANG_ALT = "|".join(sorted(_LANGS, key=len, reverse=True))
_REPLY_VERB = re.compile(
    r"回复|回答|回我|答复|交流|沟通|对话|聊天|说话|聊|输出|\b(?:answer|reply|respond|talk|speak|"
    r"communicate|chat|write (?:to me|your)|answers|replies|responses|format)\b",
    I,
)
_LANG_RE = re.compile(
    r"(?:用|使用|以|说|讲|改用|换成|切换到|切换成|改成|改为|\bin|\buse|\bspeak|\bswitch to)\s*"
    r"(?P<lang>" + _LANG_ALT + r")(?![a-z])",
    I,
)
_NEGATION = re.compile(
    r"不要|别|不用|不想|不太喜欢|不喜欢|讨厌|\b(?:don'?t|do not|never|stop|no|hate|dislike)\b", I
)


def _wants_reply_rule(clause: str, standing: bool, tail: str) -> bool:
    """A standing reply rule, not a one-off request: it names replies, says "always", or ends
    on the language itself ("请说中文"); "用英文写这封邮件" and translations do not count."""
    if ONE_OFF.search(clause) or clause.rstrip().endswith(("?", "？", "吗")):
        return False
    at_end = not re.sub(r"[吧哦呀啦了\s.!！。]", "", tail)
    return bool(_REPLY_VERB.search(clause) or standing or STANDING.search(clause) or at_end)


def reply_language(
    clause: str, cjk: bool, standing: bool, langs: Languages | None = None
) -> Slot | None:
    m = _LANG_RE.search(clause)
    if not m or not _wants_reply_rule(clause, standing, clause[m.end() :]):
        return None
    code = _LANGS[m.group("lang").lower()]
    if _NEGATION.search(clause[: m.start()]):
        summary = say(
            cjk,
            "用户不希望用{l}回复",
            "The user does not want replies in {l}",
            l=(_LANG_ZH if cjk else _LANG_EN)[code],
        )
        return Slot(PREFERENCE, "reply_language", summary, ("prohibition",), (code,), 0.85)
    summary = say(
        cjk,
        "用户希望用{l}回复",
        "The user wants replies in {l}",
        l=(_LANG_ZH if cjk else _LANG_EN)[code],
    )
    return Slot(PREFERENCE, "reply_language", summary, (), (code,), 0.85)


_FORMATS = (
    (
        "reply_format",
        re.compile(
            r"表格|列表|要点|分点|分条|条目|markdown|纯文本|代码块|\b(?:tables?|bullet(?:ed)?(?: points?| lists?)?|"
            r"bullets|numbered lists?|lists?|plain text|code blocks?)\b",
            I,
        ),
    ),
    (
        "reply_length",
        re.compile(
            r"简洁|简短|简单点|精简|言简意赅|详细|详尽|短一点|长一点|太长|太短|冗长|啰嗦|长篇大论|"
            r"\b(?:concise|brief|short|shorter|succinct|detailed|in detail|verbose|long|longer|"
            r"lengthy|thorough)\b",
            I,
        ),
    ),
)


#: A format or length wish speaks to the assistant: it names replies, or it is an imperative
#: ("用表格", "keep it short"); "I painted a table" or "it was a long process" are not rules.
_IMPERATIVE = re.compile(
    r"^(?:请|麻烦|你|以后|今后|默认|一律|统一|能不能|可以|用|给我|回答|回复|都用|尽量|说得?|写得?|"
    r"简洁|简短|详细|短一点|长一点|别太|不要太)|^(?:please\s+)?(?:always\s+)?(?:be|keep|use|make|give|write|stay|"
    r"format|answer|reply|respond|no more|stop being)\b",
    I,
)


#: words a terse English wish may hold besides its format or length word ("shorter please",
#: "way too long", "more detailed answers"); "Long time no see" and "Life's too short" hold others.
_TERSE_FILLER = frozenset(
    "please pls plz too more less much way a bit little lot so very be keep it them thanks thank you ok okay "
    "and use the in with no answer answers reply replies response responses make form format style only".split()
)


def _terse_en(clause: str, m: re.Match[str]) -> bool:
    rest = re.findall(r"[a-z']+", (clause[: m.start()] + " " + clause[m.end() :]).lower())
    return len(clause.split()) <= 4 and all(w in _TERSE_FILLER for w in rest)


def _names_replies(clause: str, m: re.Match[str], cjk: bool) -> bool:
    """The wish names replies near its format or length word: "keep your replies short", not "been
    running longer since our last chat" (English: at most two words apart)."""
    verbs = list(_REPLY_VERB.finditer(clause))
    if cjk or not verbs:
        return bool(verbs)
    words = lambda a, b: len(clause[a:b].split())  # noqa: E731
    return any(words(min(v.end(), m.end()), max(v.start(), m.start())) <= 2 for v in verbs)


#: English idioms whose length word says nothing about replies ("Long time no chat")
_LENGTH_IDIOM = re.compile(
    r"\b(?:long time no|so long|long story short|as long as|before long|in the long run|long[- ]term|"
    r"all (?:day|night|week|year) long)\b",
    I,
)


def reply_format(
    clause: str, cjk: bool, standing: bool, langs: Languages | None = None
) -> Slot | None:
    for subject, regex in _FORMATS:
        m = regex.search(clause)
        if not m or not _wants_reply_rule(clause, standing, tail="..."):
            continue
        if not cjk and subject == "reply_length" and _LENGTH_IDIOM.search(clause):
            continue
        terse = (
            len(clause) <= 5 if cjk else _terse_en(clause, m)
        )  # "简洁点", "太长了", "bullet points please"
        if not (_names_replies(clause, m, cjk) or _IMPERATIVE.match(clause.strip()) or terse):
            continue
        tags = ("prohibition",) if _NEGATION.search(clause[: m.start()]) else ()
        summary = instruction_summary(clause, cjk)
        return Slot(PREFERENCE, subject, summary, tags, (m.group().lower(),), 0.85)
    return None


# --- prohibitions ----------------------------------------------------------------------------

_PROHIBIT_ZH = re.compile(
    r"^(?:请|你)?(?:以后|今后)?(?:千万|永远|绝对|一定)?(?:不要|别|不准|不许|禁止|不可以|不能)(?P<rest>.+)$"
)
_PROHIBIT_EN = re.compile(
    r"^(?:please\s+)?(?:you\s+(?:should|must)\s+)?(?:never|don'?t|do not|must not|stop|avoid)\s+(?P<rest>.+)$",
    I,
)
_NOT_PROHIBITION = re.compile(
    r"^(?:忘|客气|紧|担心|着急|介意|在意|急|怕|害怕|难过|伤心|灰心|气馁|泄气|失望|放弃|自责|多想|想太多|"
    r"\s*(?:worry|mind|be sorry|know|forget|hesitate|think so|care|get me wrong|give up|quit|doubt|panic|"
    r"stress|lose (?:hope|faith|heart|sight)|miss a beat|hold back|stop (?:believing|dreaming|trying|being)|"
    r"be (?:so |too )?(?:afraid|scared|shy|sad|nervous|discouraged|hard on|down|upset|ashamed|embarrassed|"
    r"a stranger))\b)",
    I,
)
#: encouragement to the person spoken to ("don't let it get you down", "too hard on yourself"), not
#: a rule for the assistant ("do not explain what you are doing" is one)
_ABOUT_YOU = re.compile(
    r"\byoursel(?:f|ves)\b|\blet\b.*\byou\b|\b(?:get|gets|bring|brings|hold|holds|keep|keeps|stop|stops|"
    r"drag|drags|scare|scares|put|puts)\s+you\b(?!\s+(?:informed|posted|updated))",
    I,
)
#: "never had a chance", "never thought": a past tense after never/don't is a statement, not an order
_IRREGULAR_PAST = frozenset(
    "had was were did got went saw knew thought heard felt made said told took came found left ran met bought "
    "ate drank wrote spoke gave lost won been seen done gone known".split()
)


def _past_tense(rest: str) -> bool:
    word = (rest.split() or [""])[0].lower()
    return word in _IRREGULAR_PAST or (
        word.endswith("ed") and not word.endswith("eed") and len(word) > 4
    )


def prohibition(
    clause: str, cjk: bool, standing: bool, langs: Languages | None = None
) -> Slot | None:
    m = (_PROHIBIT_ZH if cjk else _PROHIBIT_EN).match(clause)
    if not m:
        return None
    rest = m.group("rest").strip(" 。.!！")
    too_short = len(rest) < 3 if cjk else len(rest.split()) < 2
    if too_short or _NOT_PROHIBITION.match(rest) or (ONE_OFF.search(rest) and not standing):
        return None
    if not cjk and (_ABOUT_YOU.search(rest) or _past_tense(rest)):
        return None
    head = (
        zh_head(re.sub(r"^(?:再|在)|给我|跟我|对我|帮我|替我", "", rest))
        if cjk
        else rule_head_en(rest)
    )
    summary = instruction_summary(clause, cjk)
    return Slot(
        PREFERENCE, f"prohibition/{head or rest[:12]}", summary, ("prohibition",), (head,), 0.85
    )


_EN_ADVERBS = re.compile(r"^(?:(?:always|please|also|just|never)\s+)+", I)
_PREPOSITION = re.compile(
    r"^(?:before|after|on|in|at|during|when|with|without|to|for|while|until|unless)\b", I
)


def rule_head_en(rest: str) -> str:
    """The object of "(never) <verb> <object>", or the verb itself when no object follows."""
    rest = _EN_ADVERBS.sub("", rest.strip())
    verb, _, obj = rest.partition(" ")
    obj = re.sub(r"^(?:me|us|him|her|them)\b\s*", "", obj, flags=I)
    if obj and not _PREPOSITION.match(obj):
        return en_head(obj)
    return verb.lower()
