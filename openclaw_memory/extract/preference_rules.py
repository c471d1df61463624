"""Preference classifiers: the user's likes, dislikes, favourites and switches; the standing
instructions to the assistant (reply language, format, prohibitions) come first
(`instruction_rules`).

Each reads one clause (`standing` is true inside a "from now on" / 以后 instruction) and returns
a preference `Slot` or None. Questions yield nothing. A like and a later dislike of the same
object share one subject key (see `lexicon.object_subject`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from ..text import has_cjk, tokenize
from .instruction_rules import prohibition, reply_format, reply_language
from .lexicon import en_head, object_subject, zh_head
from .slot import PREFERENCE, QUESTION_WORDS, I, Slot, outside, say

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
            return favorite_slot(m.group("cat").strip(), m.group("obj"), cjk)
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


def favorite_slot(cat: str, obj: str, cjk: bool) -> Slot | None:
    """ "我最喜欢的颜色是蓝色": keyed by the category, so a new favourite replaces the old."""
    obj = obj.strip(" 。.!！~")
    if not obj or QUESTION_WORDS.search(obj):
        return None
    subject, head = object_subject(obj, cjk)
    if subject.startswith("pref/"):
        subject = f"pref/{favourite_key(cat, cjk)}"
    summary = say(
        cjk, "用户最喜欢的{c}是{o}", "The user's favorite {c} is {o}", c=cat, o=outside(obj, cjk)
    )
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
    verb = verb_zh if cjk else verb_en
    summary = say(cjk, "用户{v}{o}", "The user {v} {o}", v=verb, o=outside(obj, cjk))
    tags = ("dislike",) if negative else ("like",)
    return Slot(PREFERENCE, subject, summary, tags, (head,), 0.85)


#: Preference classifiers in the order they are tried.
CLASSIFIERS: tuple[Callable[[str, bool, bool], Slot | None], ...] = (
    reply_language,
    reply_format,
    prohibition,
    _preference,
)
