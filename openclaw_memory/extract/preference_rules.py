"""Preference classifiers: reply language, reply format and length, prohibitions, likes.

Each reads one clause (`standing` is true inside a "from now on" / 以后 instruction) and returns
a preference `Slot` or None. One-off requests ("用英文写这封邮件", "translate this") and
questions are not standing preferences and yield nothing. A like and a later dislike of the
same object share one subject key (see `lexicon.object_subject`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from ..text import has_cjk, tokenize
from .lexicon import en_head, object_subject, zh_head
from .slot import (
    ONE_OFF,
    PREFERENCE,
    QUESTION_WORDS,
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


def _reply_language(clause: str, cjk: bool, standing: bool) -> Slot | None:
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


def _reply_format(clause: str, cjk: bool, standing: bool) -> Slot | None:
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


# --- prohibitions and likes ------------------------------------------------------------------

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


def _prohibition(clause: str, cjk: bool, standing: bool) -> Slot | None:
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


_FAVORITE = (
    re.compile(r"^我(?:最)?喜欢的(?P<cat>[^，,。是]{1,8})是(?P<obj>.+)$"),
    re.compile(
        r"^my (?:favou?rite|preferred) (?P<cat>[\w\s\-]{1,20}?) (?:is|are)\s+(?P<obj>.+)$", I
    ),
)
_LIKE_ZH = re.compile(
    r"^(?:比起(?P<other>.+?)[，,]?)?我(?P<adv>(?:最|比较|更|很|挺|特别|非常|超|真的|其实|一直|还是|也|都|就|"
    r"本来|向来|平时|一般|个人|从小|一向|最近|现在|已经|目前|如今|早就|再也)*)(?P<verb>不太喜欢|不怎么喜欢|不喜欢|一点也不喜欢|"
    r"很不喜欢|讨厌|厌恶|受不了|反感|最喜欢|更喜欢|比较喜欢|喜欢|偏好|偏爱|喜爱|钟爱|更爱|最爱|爱|不爱|不吃|不喝)(?P<obj>.+)$"
)
_LIKE_EN = re.compile(
    r"^(?:i|we)\s+(?P<adv>(?:now|these days|nowadays|really|much|also|still|definitely|do|kind of|sort of|probably|"
    r"actually|usually|generally|totally|absolutely|truly|just)\s+)*(?P<verb>prefer|like|love|enjoy|adore|hate|dislike|detest|"
    r"don'?t (?:really )?like|do not like|can'?t stand|don'?t enjoy|don'?t eat|don'?t drink|never eat|never drink|"
    r"(?:'d|would) rather(?: have)?)\s+(?P<obj>.+)$",
    I,
)
_NEG_VERB = re.compile(r"不|讨厌|厌恶|受不了|反感|hate|dislike|detest|don|do not|can'?t|never", I)
_BAD_OBJECT = re.compile(
    r"^(?:你|他|她|它|这|那|第[一二三四五六七八九十\d]+个|上一个|下一个|前者|后者|it\b|that\b|this\b|"
    r"these\b|those\b|you\b|him\b|her\b|them\b|your\b|"
    r"the (?:first|second|third|last|other|former|latter|next|previous|new|old)\b)",
    I,
)


#: A switch names the new value: "改喝绿茶", "换成Python", "I switched to tea", "I drink tea now".
_SWITCH_ZH = re.compile(
    r"^(?:我)?(?:最近|现在|已经|目前|如今|后来)*(?:(?:改|换)(?P<verb>喝|吃|用|听|看|玩)|改成|改为|换成)(?P<obj>.+)$"
)
_SWITCH_EN = re.compile(
    r"^i(?:'ve| have)?\s+(?:now\s+|recently\s+)?(?:switched|moved|changed|converted)\s+(?:over\s+)?"
    r"(?:from\s+.+?\s+)?to\s+(?P<obj>.+)$",
    I,
)


def _switch(clause: str, cjk: bool) -> Slot | None:
    m = (_SWITCH_ZH if cjk else _SWITCH_EN).match(clause.replace("’", "'"))
    if not m:
        return None
    obj = ((m.groupdict().get("verb") or "") + m.group("obj")).rstrip("了啦 ")
    slot = _like_slot(obj, cjk, False, "prefer")
    # The user states their own change: a correction in their own words, not an inference.
    return dataclasses.replace(slot, tags=(*slot.tags, "switch")) if slot else None


def _preference(clause: str, cjk: bool, standing: bool) -> Slot | None:
    switched = _switch(clause, cjk)
    if switched:
        return switched
    for regex in _FAVORITE:
        m = regex.match(clause)
        if m and has_cjk(clause) == cjk:
            return _favorite_slot(m.group("cat").strip(), m.group("obj"), cjk)
    m = (_LIKE_ZH if cjk else _LIKE_EN).match(clause.replace("’", "'"))
    if not m or _BAD_OBJECT.match(m.group("obj").strip()):
        return None
    verb = m.group("verb").lower()
    negative = bool(_NEG_VERB.search(verb))
    kind = (
        "prefer" if re.search(r"更|最|偏|prefer|rather", verb + (m.group("adv") or "")) else "like"
    )
    obj, instead = _instead(m.group("obj"), cjk)
    slot = _like_slot(obj, cjk, negative, kind)
    if slot and (instead or _NOW.search(m.group("adv") or "")):
        # "I now prefer green tea instead of coffee": the user states a change of their own
        return dataclasses.replace(slot, tags=(*slot.tags, "switch"), replaces=instead)
    return slot


_NOW = re.compile(r"now|these days|nowadays|现在|最近|如今|这段时间", I)
_INSTEAD = re.compile(
    r"\s+(?:instead of|rather than)\s+(?P<x>.+)$|(?:，|,)?(?:而不是|不再是)(?P<y>.+)$", I
)


def _instead(obj: str, cjk: bool) -> tuple[str, str]:
    """The liked object, and the one it replaces ("green tea instead of coffee")."""
    m = _INSTEAD.search(obj)
    if not m:
        return obj, ""
    return obj[: m.start()], (m.group("x") or m.group("y") or "").strip(" 。.!！")


def favourite_key(cat: str, cjk: bool) -> str:
    """A favourite's category by its head noun, so "programming language" and "language",
    编程语言 and 语言, colour and color are one key."""
    if cjk:
        head = zh_head(cat) or cat
        return head[-2:] if len(head) > 2 else head
    last = (en_head(cat) or cat).split()[-1].lower()
    return {"colour": "color", "favourite": "favorite"}.get(last, last)


def _favorite_slot(cat: str, obj: str, cjk: bool) -> Slot | None:
    """ "我最喜欢的颜色是蓝色": keyed by the category, so a new favourite replaces the old."""
    obj = obj.strip(" 。.!！~")
    if not obj or QUESTION_WORDS.search(obj):
        return None
    subject, head = object_subject(obj, cjk)
    if subject.startswith("pref/"):
        subject = f"pref/{favourite_key(cat, cjk)}"
    summary = say(cjk, "用户最喜欢的{c}是{o}", "The user's favorite {c} is {o}", c=cat, o=obj)
    return Slot(PREFERENCE, subject, summary, ("like",), (head,), 0.85)


#: a Chinese verb of consuming or using with its object left unsaid (对，还有沙茶面，我特别爱吃: the
#: object was the clause before); English says "them" there, which `_BAD_OBJECT` already refuses
_ZH_BARE_VERB = re.compile(r"^[吃喝用买看听玩穿]$")


def _like_slot(obj: str, cjk: bool, negative: bool, kind: str) -> Slot | None:
    obj = obj.strip(" 。.!！~")
    obj = (
        re.sub(r"(?:了|啦)$", "", obj)
        if cjk
        else re.sub(r"\s+(?:now|anymore|any more)$", "", obj, flags=I)
    )
    if not obj or QUESTION_WORDS.search(obj) or not tokenize(obj, drop_stopwords=True):
        return None
    if cjk and _ZH_BARE_VERB.match(obj):
        return None
    subject, head = object_subject(obj, cjk)
    verb_zh = "不喜欢" if negative else ("更喜欢" if kind == "prefer" else "喜欢")
    verb_en = "does not like" if negative else ("prefers" if kind == "prefer" else "likes")
    summary = say(cjk, "用户{v}{o}", "The user {v} {o}", v=verb_zh if cjk else verb_en, o=obj)
    tags = ("dislike",) if negative else ("like",)
    return Slot(PREFERENCE, subject, summary, tags, (head,), 0.85)


#: Preference classifiers in the order they are tried.
CLASSIFIERS: tuple[Callable[[str, bool, bool], Slot | None], ...] = (
    _reply_language,
    _reply_format,
    _prohibition,
    _preference,
)
