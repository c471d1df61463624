"""Slot classifiers of the rule chain: one clause in, at most one typed slot out.

Each classifier recognises one kind of statement in Chinese and English (a profile fact, a reply
language or format, a prohibition, a like or dislike) and returns a `Slot` with a stable subject
key and a third-person summary ("用户住在杭州", "The user lives in Berlin"). They only read what
is stated; nothing is inferred.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..text import has_cjk
from ..types import MemoryType
from .lexicon import en_head, object_subject, singular, zh_head

PROFILE, PREFERENCE, FACT = MemoryType.PROFILE, MemoryType.PREFERENCE, MemoryType.FACT


@dataclass(frozen=True)
class Slot:
    """What one clause states: type, subject key, summary, tags, entities and base confidence."""

    type: MemoryType
    subject: str
    summary: str
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    confidence: float = 0.85


_I = re.IGNORECASE
_QUESTION_WORDS = re.compile(r"什么|谁|哪|多少|几|怎么|\b(?:what|who|where|which|how)\b", _I)
_ZH_VALUE_END = re.compile(r"(?:了|啦|呢|哦|呀|吧|的|就行|就好|就可以|好了|而且.*|并且.*|但是.*|所以.*)$")
_EN_VALUE_END = re.compile(
    r"\s+(?:and|but|since|because|so|for|with|who|which|where|now|currently|these days|"
    r"at the moment|right now|next|last|this|in \d{4}|as well|too)\b.*$",
    _I,
)
_STANDING = re.compile(r"以后|今后|默认|一直|总是|每次|都|一律|统一|所有|\b(?:always|by default|every time|all)\b", _I)
_ONE_OFF = re.compile(r"这|那个|下面|以下|上面|刚才|翻译|怎么说|\b(?:this|these|that|the following|above|below|translate)\b", _I)
_FUTURE = re.compile(r"下个月|明年|下周|打算|准备|将要|要搬|会搬|\b(?:next|will|going to|plan(?:ning)? to|soon)\b", _I)


def _value(raw: str, cjk: bool) -> str | None:
    raw = raw.strip(" ，,。.!！?？;；:：\"'“”")
    value = _ZH_VALUE_END.sub("", raw) if cjk else _EN_VALUE_END.sub("", raw)
    value = value.strip(" ，,。.!！?？")
    if not value or _QUESTION_WORDS.search(value) or len(value) > 40:
        return None
    return value


def _say(cjk: bool, zh: str, en: str, **values: str) -> str:
    return (zh if cjk else en).format(**values)


# --- profile ---------------------------------------------------------------------------------

_ALLERGY = (
    re.compile(r"我(?:对|吃)?(?P<x>[^，,。我]{1,12}?)(?:有点|有些|很|非常|严重|比较|轻微|会)?过敏"),
    re.compile(r"\bi(?:'m| am)\s+(?:\w+\s+)?allergic to\s+(?P<x>[^,.;!?]+)", _I),
    re.compile(r"\bi have (?:an?\s+)?(?:severe\s+|mild\s+)?(?P<x>[a-z][a-z ]{1,30}?) allergy", _I),
)


def _allergy(clause: str, cjk: bool) -> Slot | None:
    for pattern in _ALLERGY:
        m = pattern.search(clause)
        if not m:
            continue
        thing = _value(re.sub(r"(?:有点|有些|很|非常|严重|比较|轻微)$", "", m.group("x")), cjk)
        if not thing or thing.startswith(("不", "没", "有点")):
            return None
        key = thing if cjk else " ".join(singular(w) for w in thing.lower().split())
        summary = _say(cjk, "用户对{t}过敏", "The user is allergic to {t}", t=thing)
        return Slot(PROFILE, f"allergy/{key}", summary, ("allergy", "health"), (thing,), 0.9)
    return None


@dataclass(frozen=True)
class _Pattern:
    subject: str
    zh: str
    en: str
    regexes: tuple[re.Pattern[str], ...]
    bad_values: frozenset[str] = frozenset()
    type: MemoryType = PROFILE


_PROFILE_PATTERNS = (
    _Pattern(
        "name", "用户名叫{v}", "The user's name is {v}",
        (re.compile(r"(?:我叫|我的名字是|我的名字叫|我名字叫|我名叫|本人叫)(?P<x>[^，,。！!？?\s]{1,16})"),
         re.compile(r"\b[Mm]y name(?:'s| is)\s+(?P<x>[A-Za-z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,3})"),
         re.compile(r"\bI(?:'m| am) called\s+(?P<x>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,3})")),
        frozenset("了 过 外卖 车 醒 他 她 你 人 啥".split()),
    ),
    _Pattern(
        "nickname", "用户希望被称呼为{v}", "The user wants to be called {v}",
        (re.compile(r"^(?:你)?(?:可以|请)?(?:叫我|称呼我|喊我)(?P<x>[^，,。！!？?\s]{1,12})"),
         re.compile(r"\b(?:please\s+)?call me\s+(?P<x>[A-Za-z][\w'\-]*(?:\s+[A-Z][\w'\-]*)?)", _I)),
        frozenset("later tomorrow back when if at on asap soon now tonight anytime again".split()),
    ),
    _Pattern(
        "birthday", "用户的生日是{v}", "The user's birthday is {v}",
        (re.compile(r"我的生日是(?P<x>[^，,。]{2,16})"),
         re.compile(r"\bmy birthday is\s+(?P<x>[^,.;!?]+)", _I),
         re.compile(r"\bI was born on\s+(?P<x>[^,.;!?]+)", _I)),
    ),
    _Pattern(
        "location", "用户住在{v}", "The user lives in {v}",
        (re.compile(r"我(?:现在|目前)?(?:家)?(?:住在|家住在|家住|定居在|生活在|家在|搬到了|搬到|搬去了|搬去)(?P<x>[^，,。！!？?\s]{1,20})"),
         re.compile(r"\bi(?:'m| am)?\s*(?:currently |now )?(?:live|living|reside|residing) in\s+(?P<x>[^,.;!?]+)", _I),
         re.compile(r"\bi(?:'m| am) based in\s+(?P<x>[^,.;!?]+)", _I),
         re.compile(r"\bi(?:'m| am)?\s*(?:just |recently )?(?:moved|moving) to\s+(?P<x>[^,.;!?]+)", _I)),
        frozenset("的 哪 哪里 不 院 校 宿".split()),
    ),
    _Pattern(
        "hometown", "用户来自{v}", "The user is from {v}",
        (re.compile(r"我(?:来自|的老家(?:是|在)|老家(?:是|在))(?P<x>[^，,。！!？?\s]{1,12})"),
         re.compile(r"^我是(?P<x>[\u4e00-\u9fff]{2,6})人$"),
         re.compile(r"\bi(?:'m| am) from\s+(?P<x>[A-Z][^,.;!?]*)", _I),
         re.compile(r"\bi (?:come from|grew up in)\s+(?P<x>[^,.;!?]+)", _I)),
        frozenset("个好 好 坏 本地 中年 年轻 老".split()),
    ),
    _Pattern(
        "employer", "用户在{v}工作", "The user works at {v}",
        (re.compile(r"^(?:我)?(?:现在|目前)?在(?P<x>[^，,。\s]{2,20}?)(?:工作|上班|任职|实习|就职)(?:了)?$"),
         re.compile(r"我(?:现在|目前)?就职于(?P<x>[^，,。\s]{2,20})"),
         re.compile(r"\bi (?:currently |now )?work (?:at|for)\s+(?P<x>[^,.;!?]+)", _I),
         re.compile(r"\bi(?:'m| am) (?:employed (?:at|by)|working (?:at|for))\s+(?P<x>[^,.;!?]+)", _I)),
        frozenset("家 家里 公司 远程 这 那 这里 那里 home from home remotely the moment".split()),
    ),
)
_CITIES = re.compile(r"(?:北京|上海|广州|深圳|杭州|成都|南京|武汉|西安|重庆|天津|苏州|香港|纽约|伦敦|东京|新加坡|[市省区县国])$")
_JOBS_ZH = (
    "工程师 程序员 设计师 经理 老师 教师 医生 护士 律师 会计 学生 研究员 分析师 架构师 教授 作家 记者 厨师 "
    "司机 销售 运营 总监 主管 顾问 科学家 创始人 开发者 博士生 研究生 大学生 高中生 测试 翻译 编辑 公务员 "
    "警察 自由职业者 产品经理"
).split()
_JOBS_EN = (
    "engineer developer programmer designer teacher doctor nurse lawyer accountant student manager "
    "scientist researcher analyst architect consultant writer journalist chef driver professor "
    "founder pharmacist dentist artist musician photographer marketer intern freelancer "
    "entrepreneur translator editor tester administrator officer pilot mechanic electrician "
    "plumber farmer librarian therapist psychologist economist banker trader recruiter"
).split()
_JOB_ZH = re.compile(
    r"^我(?:现在|目前)?(?:是|的职业是|的工作是|做|当)(?:一名|一个|一位|个|名)?"
    r"(?P<x>[^，,。\s]{0,10}(?:" + "|".join(_JOBS_ZH) + r"))$"
)
_JOB_EN = (
    re.compile(
        r"\bi(?:'m| am) (?:a|an)\s+(?P<x>(?:[\w\-]+\s+){0,3}(?:" + "|".join(_JOBS_EN) + r"))s?\b",
        _I,
    ),
    re.compile(r"\bi work as (?:a|an)?\s*(?P<x>[^,.;!?]+)", _I),
)


def _profile(clause: str, cjk: bool) -> Slot | None:
    for p in _PROFILE_PATTERNS:
        for regex in p.regexes:
            m = regex.search(clause)
            value = _value(m.group("x"), cjk) if m else None
            if not value:
                continue
            if value.lower() in p.bad_values or any(value.startswith(b) for b in p.bad_values if has_cjk(b)):
                return None
            subject, tags, conf = p.subject, (), 0.85
            if p.subject == "employer" and cjk and _CITIES.search(value):
                subject = "work_location"
            if p.subject == "location" and _FUTURE.search(clause):
                tags, conf = ("planned",), 0.6
            summary = _say(cjk, p.zh, p.en, v=value)
            return Slot(p.type, subject, summary, tags, (value,), conf)
    return None


def _job(clause: str, cjk: bool) -> Slot | None:
    regexes = (_JOB_ZH,) if cjk else _JOB_EN
    for regex in regexes:
        m = regex.search(clause)
        value = _value(m.group("x"), cjk) if m else None
        if value:
            article = "an" if value[:1].lower() in "aeiou" else "a"
            summary = _say(cjk, "用户是{v}", "The user is {a} {v}", v=value, a=article)
            return Slot(PROFILE, "job", summary, (), (value,), 0.85)
    return None


# --- reply language and format ---------------------------------------------------------------

_LANGS = {
    "简体中文": "zh", "繁体中文": "zh-hant", "中文": "zh", "汉语": "zh", "普通话": "zh", "英文": "en",
    "英语": "en", "日语": "ja", "日文": "ja", "韩语": "ko", "韩文": "ko", "法语": "fr", "德语": "de",
    "西班牙语": "es", "粤语": "yue", "english": "en", "chinese": "zh", "mandarin": "zh",
    "japanese": "ja", "korean": "ko", "french": "fr", "german": "de", "spanish": "es",
    "cantonese": "yue",
}
_LANG_ZH = {"zh": "中文", "zh-hant": "繁体中文", "en": "英文", "ja": "日语", "ko": "韩语", "fr": "法语",
            "de": "德语", "es": "西班牙语", "yue": "粤语"}
_LANG_EN = {"zh": "Chinese", "zh-hant": "Traditional Chinese", "en": "English", "ja": "Japanese",
            "ko": "Korean", "fr": "French", "de": "German", "es": "Spanish", "yue": "Cantonese"}
_LANG_ALT = "|".join(sorted(_LANGS, key=len, reverse=True))
_REPLY_VERB = re.compile(
    r"回复|回答|回我|答复|交流|沟通|对话|聊天|说话|聊|输出|\b(?:answer|reply|respond|talk|speak|"
    r"communicate|chat|write (?:to me|your)|answers|replies|responses|format)\b",
    _I,
)
_LANG_RE = re.compile(
    r"(?:用|使用|以|说|讲|改用|换成|切换到|切换成|改成|改为|\bin|\buse|\bspeak|\bswitch to)\s*"
    r"(?P<lang>" + _LANG_ALT + r")(?![a-z])",
    _I,
)
_NEGATION = re.compile(r"不要|别|不用|不想|\b(?:don'?t|do not|never|stop|no)\b", _I)


def _wants_reply_rule(clause: str, standing: bool, tail: str) -> bool:
    """A standing reply rule, not a one-off request: it names replies, says "always", or ends
    on the language itself ("请说中文"); "用英文写这封邮件" and translations do not count."""
    if _ONE_OFF.search(clause) or clause.rstrip().endswith(("?", "？", "吗")):
        return False
    at_end = not re.sub(r"[吧哦呀啦了\s.!！。]", "", tail)
    return bool(_REPLY_VERB.search(clause) or standing or _STANDING.search(clause) or at_end)


def _reply_language(clause: str, cjk: bool, standing: bool) -> Slot | None:
    m = _LANG_RE.search(clause)
    if not m or not _wants_reply_rule(clause, standing, clause[m.end() :]):
        return None
    code = _LANGS[m.group("lang").lower()]
    if _NEGATION.search(clause[: m.start()]):
        summary = _say(cjk, "用户不希望用{l}回复", "The user does not want replies in {l}",
                       l=(_LANG_ZH if cjk else _LANG_EN)[code])
        return Slot(PREFERENCE, "reply_language", summary, ("prohibition",), (code,), 0.85)
    summary = _say(cjk, "用户希望用{l}回复", "The user wants replies in {l}",
                   l=(_LANG_ZH if cjk else _LANG_EN)[code])
    return Slot(PREFERENCE, "reply_language", summary, (), (code,), 0.85)


_FORMATS = (
    ("reply_format", re.compile(
        r"表格|列表|要点|分点|分条|条目|markdown|纯文本|代码块|\b(?:tables?|bullet(?:ed)?(?: points?| lists?)?|"
        r"bullets|numbered lists?|lists?|plain text|code blocks?)\b", _I)),
    ("reply_length", re.compile(
        r"简洁|简短|简单点|精简|言简意赅|详细|详尽|短一点|长一点|\b(?:concise|brief|short|shorter|succinct|"
        r"detailed|in detail|verbose|longer|thorough)\b", _I)),
)


def _reply_format(clause: str, cjk: bool, standing: bool) -> Slot | None:
    for subject, regex in _FORMATS:
        m = regex.search(clause)
        if not m or not _wants_reply_rule(clause, standing, tail="..."):
            continue
        tags = ("prohibition",) if _NEGATION.search(clause[: m.start()]) else ()
        summary = _say(cjk, "用户要求：{c}", "The user asked: {c}", c=third_person(clause, cjk))
        return Slot(PREFERENCE, subject, summary, tags, (m.group().lower(),), 0.85)
    return None


# --- prohibitions and likes ------------------------------------------------------------------

_PROHIBIT_ZH = re.compile(r"^(?:请|你)?(?:以后|今后)?(?:千万|永远|绝对|一定)?(?:不要|别|不准|不许|禁止|不可以|不能)(?P<rest>.+)$")
_PROHIBIT_EN = re.compile(
    r"^(?:please\s+)?(?:you\s+(?:should|must)\s+)?(?:never|don'?t|do not|must not|stop|avoid)\s+(?P<rest>.+)$", _I
)
_NOT_PROHIBITION = re.compile(
    r"^(?:忘|客气|紧|担心|着急|介意|在意|急|怕|难过|\s*(?:worry|mind|be sorry|know|forget|hesitate|"
    r"think so|care|get me wrong)\b)", _I
)


def _prohibition(clause: str, cjk: bool, standing: bool) -> Slot | None:
    m = (_PROHIBIT_ZH if cjk else _PROHIBIT_EN).match(clause)
    if not m:
        return None
    rest = m.group("rest").strip(" 。.!！")
    too_short = len(rest) < 3 if cjk else len(rest.split()) < 2
    if too_short or _NOT_PROHIBITION.match(rest) or (_ONE_OFF.search(rest) and not standing):
        return None
    head = zh_head(re.sub(r"^(?:再|给我|跟我|对我|在)", "", rest)) if cjk else en_head(
        re.sub(r"^(?:\w+)\s+(?:me\s+|us\s+)?", "", rest)
    )
    summary = _say(cjk, "用户要求：{c}", "The user asked: {c}", c=third_person(clause, cjk))
    return Slot(PREFERENCE, f"prohibition/{head or rest[:12]}", summary, ("prohibition",), (head,), 0.85)


_FAVORITE = (
    re.compile(r"^我(?:最)?喜欢的(?P<cat>[^，,。是]{1,8})是(?P<obj>.+)$"),
    re.compile(r"^my (?:favou?rite|preferred) (?P<cat>[\w\s\-]{1,20}?) (?:is|are)\s+(?P<obj>.+)$", _I),
)
_LIKE_ZH = re.compile(
    r"^(?:比起(?P<other>.+?)[，,]?)?我(?P<adv>[^，,。喜不讨厌受反爱]{0,4})(?P<verb>不太喜欢|不怎么喜欢|不喜欢|一点也不喜欢|"
    r"很不喜欢|讨厌|厌恶|受不了|反感|最喜欢|更喜欢|比较喜欢|喜欢|偏好|偏爱|喜爱|钟爱|更爱|最爱|爱|不爱|不吃|不喝)(?P<obj>.+)$"
)
_LIKE_EN = re.compile(
    r"^(?:i|we)\s+(?P<adv>(?:really|much|also|still|definitely|do|kind of|sort of|probably|actually|usually|"
    r"generally|totally|absolutely|truly|just)\s+)*(?P<verb>prefer|like|love|enjoy|adore|hate|dislike|detest|"
    r"don'?t (?:really )?like|do not like|can'?t stand|don'?t enjoy|don'?t eat|don'?t drink|never eat|never drink|"
    r"(?:'d|would) rather(?: have)?)\s+(?P<obj>.+)$",
    _I,
)
_NEG_VERB = re.compile(r"不|讨厌|厌恶|受不了|反感|hate|dislike|detest|don|do not|can'?t|never", _I)
_BAD_OBJECT = re.compile(r"^(?:你|他|她|它|这|那|it\b|that\b|this\b|these\b|those\b|you\b|him\b|her\b|them\b|your\b)", _I)


def _preference(clause: str, cjk: bool, standing: bool) -> Slot | None:
    for regex in _FAVORITE:
        m = regex.match(clause)
        if m and has_cjk(clause) == cjk:
            return _like_slot(m.group("obj"), cjk, False, "prefer", cat=m.group("cat"))
    m = (_LIKE_ZH if cjk else _LIKE_EN).match(clause.replace("’", "'"))
    if not m or _BAD_OBJECT.match(m.group("obj").strip()):
        return None
    verb = m.group("verb").lower()
    negative = bool(_NEG_VERB.search(verb))
    kind = "prefer" if re.search(r"更|最|偏|prefer|rather", verb + (m.group("adv") or "")) else "like"
    return _like_slot(m.group("obj"), cjk, negative, kind)


def _like_slot(obj: str, cjk: bool, negative: bool, kind: str, cat: str | None = None) -> Slot | None:
    obj = obj.strip(" 。.!！~")
    if not obj or _QUESTION_WORDS.search(obj):
        return None
    subject, head = object_subject(obj, cjk)
    if cat and subject.startswith("pref/"):
        subject = f"pref/{zh_head(cat) if cjk else en_head(cat)}"
    verb_zh = "不喜欢" if negative else ("更喜欢" if kind == "prefer" else "喜欢")
    verb_en = "does not like" if negative else ("prefers" if kind == "prefer" else "likes")
    summary = _say(cjk, "用户{v}{o}", "The user {v} {o}", v=verb_zh if cjk else verb_en, o=obj)
    tags = ("dislike",) if negative else ("like",)
    return Slot(PREFERENCE, subject, summary, tags, (head,), 0.85)


def third_person(clause: str, cjk: bool) -> str:
    """Rewrites first person so the memory reads from outside: 我 -> 用户, my -> the user's."""
    if cjk:
        return re.sub(r"我(?!们)", "用户", clause.strip(" 。.!！"))
    out = clause.strip(" .!")
    for pattern, repl in (
        (r"\bI'm\b|\bI am\b", "the user is"), (r"\bI've\b|\bI have\b", "the user has"),
        (r"\bmy\b", "the user's"), (r"\bme\b", "the user"), (r"\bmine\b", "the user's"),
        (r"\bI\b", "the user"),
    ):
        out = re.sub(pattern, repl, out, flags=_I)
    return out


_CLASSIFIERS: tuple[Callable[[str, bool], Slot | None], ...] = (_allergy, _profile, _job)
_RULE_CLASSIFIERS: tuple[Callable[[str, bool, bool], Slot | None], ...] = (
    _reply_language,
    _reply_format,
    _prohibition,
    _preference,
)


def classify(clause: str, *, standing: bool = False) -> Slot | None:
    """The slot one clause states, or None. `standing` marks a "from now on" instruction."""
    clause = clause.strip()
    if not clause or clause.endswith(("?", "？")):
        return None
    cjk = has_cjk(clause)
    for fn in _CLASSIFIERS:
        slot = fn(clause, cjk)
        if slot:
            return slot
    for rule in _RULE_CLASSIFIERS:
        slot = rule(clause, cjk, standing)
        if slot:
            return slot
    return None

