"""Change classifiers: a value the user says has changed, and attribute facts ("my X is Y").

Tried before the profile and preference classifiers. A change is a slot tagged `switch` (the
user corrects their own earlier words: explicit channel) whose `replaces` names the old value
when the sentence does ("I left Acme and joined Globex", 我已经从阿里跳槽到腾讯了), so that
consolidation can retire the memory that still states it. Phrasings, per language:

- English: switched / moved / changed (over) to, replaced A with B, sold A and bought B, left A
  and joined B, joined / started at, my new X is, now my X is, X is my favourite Y now / these
  days, no longer, don't ... anymore, stopped, quit, gave up, I'm X now, I became X.
- Chinese: 换成 / 改成 / 改为 / 改用 / 改喝, 把A换成B, 从A跳槽到B, 跳槽到, 去了B上班, 搬到, 不再,
  已经不…了, 戒掉, 我的新X是Y, 现在X是Y, 现在最喜欢的X是Y.

Time words are never a value ("switched to a Pixel 8 yesterday" names the Pixel 8).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from .lexicon import en_head, object_subject, zh_head
from .preference_rules import _favorite_slot
from .slot import FACT, PREFERENCE, PROFILE, I, QUESTION_WORDS, Slot, say, third_person

#: time and manner words trailing a value: "a Pixel 8 yesterday", "Rust these days", "腾讯了"
_EN_TAIL = re.compile(
    r"(?:\s*,)?\s+(?:yesterday|today|last (?:week|month|year|night|weekend)|this (?:week|month|year|morning|semester|spring|"
    r"summer|autumn|fall|winter)|recently|lately|now|these days|nowadays|anymore|any more|again|instead(?: of .+)?|"
    r"in (?:january|february|march|april|may|june|july|august|september|october|november|december|\d{4})|"
    r"(?:a|an|one|two|three|four|five|six|\d+) (?:days?|weeks?|months?|years?) ago|for (?:coding|work)|at work|"
    r"after all|completely|entirely|full[- ]time)\b.*$",
    I,
)
_ZH_TAIL = re.compile(r"(?:了|啦|呢|吧|啊|哦|的)+$")
_ZH_TIME = (
    r"(?:上个月|上周|上星期|去年|今年|昨天|前天|前几天|最近|刚刚|刚|已经|现在|目前|如今|这段时间|后来|早就|又|也|都|就|"
    r"[一二三四五六七八九十\d]{1,2}月份?|春天|夏天|秋天|冬天|年初|年底|月初|月底)*"
)
#: the start of a change clause: time words before or after the speaker (上周我调到了…, 我们春天搬去…)
_ZH_LEAD = r"^" + _ZH_TIME + r"(?:我们|我)?" + _ZH_TIME


def _en_value(raw: str) -> str | None:
    value = _EN_TAIL.sub("", raw.strip(" .,!;")).strip(" .,!;")
    value = re.sub(r"^(?:a|an|the|my|our)\s+", "", value, flags=I)
    if not value or len(value.split()) > 6 or QUESTION_WORDS.search(value):
        return None
    return value


def _zh_value(raw: str) -> str | None:
    value = _ZH_TAIL.sub("", raw.strip(" ，,。！!；;"))
    value = re.sub(r"^(?:了|成|为|到|一辆|一台|一部|一只|一个|一家)", "", value)
    value = _ZH_TAIL.sub("", value)
    if not value or len(value) > 20 or QUESTION_WORDS.search(value):
        return None
    return value


def _switch(subject: str, summary: str, value: str, replaces: str = "", kind=PROFILE) -> Slot:
    return Slot(kind, subject, summary, ("switch",), (value,), 0.9, replaces)


# ---- employer -----------------------------------------------------------------------------

_EN_JOB_CHANGE = (
    re.compile(
        r"^i (?:left|quit)\s+(?:my (?:old )?job(?: at (?P<old>[^,]+?))?|(?P<old2>[A-Z][\w&.\- ]*?))"
        r"(?:,|\s+and|\s+to)?\s+(?:joined|moved to|started (?:a new job )?at|now work (?:at|for)|went to)\s+(?P<new>.+)$",
        I,
    ),
    re.compile(
        r"^i(?:'ve| have)?\s+(?:just\s+)?(?:joined|started (?:a new job|working) (?:at|for)|started at)\s+(?P<new>.+)$",
        I,
    ),
    re.compile(r"^i(?:'m| am) (?:at|with) (?P<new>[A-Z][\w&.\- ]+?) now$"),
    re.compile(r"^(?:now|these days) i work (?:at|for) (?P<new>.+)$", I),
)
_ZH_JOB_CHANGE = (
    re.compile(_ZH_LEAD + r"从(?P<old>[^，,。]{1,12}?)跳槽(?:到|去)了?(?P<new>[^，,。]{1,12})$"),
    re.compile(_ZH_LEAD + r"跳槽(?:到|去)了?(?P<new>[^，,。]{1,12})$"),
    re.compile(
        r"^(?:我)?"
        + _ZH_TIME
        + r"(?:去了|进了|到了|换到了|换到)(?P<new>[^，,。]{2,12}?)(?:上班|工作)$"
    ),
    re.compile(
        r"^(?:实习结束后|毕业后|辞职后)?我?"
        + _ZH_TIME
        + r"(?:去了|进了)(?P<new>[^，,。]{2,12}?)(?:上班|工作)$"
    ),
)


_ZH_CAREER = re.compile(_ZH_LEAD + r"(?:改行|转行)(?:当|做)?了?(?P<new>[^，,。]{1,10}?)了?$")
_EN_CAREER = re.compile(
    r"^i (?:switched|changed) careers?(?:,| and)?\s+(?:i'm|i am|now i'm|became)\s+(?:a |an )?(?P<new>[a-z][a-z ]{1,30}?)"
    r"(?: now)?$",
    I,
)


_EN_TRANSFER = re.compile(
    r"^i (?:transferred|switched schools|changed schools) to (?P<v>(?-i:[A-Z])[\w.&' \-]{1,40}?)"
    r"(?P<term> this (?:semester|term|fall|spring|year))?$",
    I,
)
_SCHOOL_WORD = re.compile(r"\b(?:university|college|school|institute|academy|MIT)\b", I)


def _school_change(clause: str, cjk: bool) -> Slot | None:
    """ "I transferred to MIT this semester": a school is named by a school word or a term."""
    m = None if cjk else _EN_TRANSFER.match(clause)
    if not m or not (m.group("term") or _SCHOOL_WORD.search(m.group("v"))):
        return None
    value = m.group("v").strip()
    return _switch("school", f"The user studies at {value}", value, kind=FACT)


def _career(clause: str, cjk: bool) -> Slot | None:
    """ "I switched careers and I'm a paramedic now", 我现在改行当律师了: the job changed."""
    m = (_ZH_CAREER if cjk else _EN_CAREER).match(clause)
    value = (_zh_value if cjk else _en_value)(m.group("new")) if m else None
    if not value:
        return None
    return _switch("job", say(cjk, "用户是{v}", "The user is a {v}", v=value), value)


def _employer_change(clause: str, cjk: bool) -> Slot | None:
    for regex in _ZH_JOB_CHANGE if cjk else _EN_JOB_CHANGE:
        m = regex.match(clause)
        if not m:
            continue
        new = (_zh_value if cjk else _en_value)(m.group("new"))
        if not new or (not cjk and not new[:1].isupper()):  # "joined a gym" is no employer
            return None
        groups = m.groupdict()
        old = (groups.get("old") or groups.get("old2") or "").strip()
        return _switch(
            "employer", say(cjk, "用户在{v}工作", "The user works at {v}", v=new), new, old
        )
    return None


# ---- "my new X is Y", "now my X is Y", favourites -------------------------------------------

#: attribute words that name a person or thing the user has one of at a time (the slot's key)
_ROLE_EN = {
    "manager": "manager",
    "boss": "manager",
    "supervisor": "manager",
    "team lead": "manager",
    "lead": "manager",
    "advisor": "advisor",
    "mentor": "advisor",
    "tutor": "advisor",
}
_ROLE_ZH = {
    "领导": "manager",
    "上司": "manager",
    "老板": "manager",
    "经理": "manager",
    "组长": "manager",
    "主管": "manager",
    "导师": "advisor",
}
_EN_MY_NEW = re.compile(
    r"^(?:and\s+)?(?:now\s+)?my (?P<new>new\s+)?(?P<k>[a-z][a-z' \-]{1,24}?) is (?:now\s+)?(?P<v>.+?)(?: now)?$",
    I,
)
_EN_NOW_MY = re.compile(
    r"^(?:so\s+)?(?:now|these days) my (?P<k>[a-z][a-z' \-]{1,24}?) is (?P<v>.+)$", I
)
#: "photography is my hobby now": the value first, the attribute after "is my"
_EN_IS_MY_NOW = re.compile(
    r"^(?P<v>[\w.+#\- ]{1,30}?) (?:is|are) my (?:new )?(?P<k>[a-z][a-z ]{1,24}?) (?:now|these days|nowadays)$",
    I,
)
_EN_REPORT = re.compile(r"^i (?:now )?report to (?P<v>.+?)(?: now)?$", I)
_EN_FAV_NOW = re.compile(
    r"^(?:(?:these days|lately|now|nowadays),?\s+)?(?P<v>[\w.+#\- ]{1,30}?) is my (?:new )?(?:favou?rite|preferred) "
    r"(?P<k>[a-z][a-z ]{1,24}?)(?: (?:now|these days|nowadays))?$",
    I,
)
_ZH_MY_NEW = re.compile(
    r"^(?:现在|如今)?(?:我的)?(?P<new>新)?(?P<k>[\u4e00-\u9fff]{1,6}?)(?:现在|如今)?(?:是|变成了|换成了|改成了)(?P<v>[^，,。]{1,16})$"
)
_ZH_NOW_IS = re.compile(
    r"^(?:现在|如今)(?:的)?(?P<k>[\u4e00-\u9fff]{1,6}?)是(?P<v>[^，,。]{1,16})$"
)
_ZH_REPORT = re.compile(_ZH_LEAD + r"(?:向|跟着?)(?P<v>[^，,。]{1,8}?)(?:汇报|干)(?:了)?$")
_ZH_FAV = re.compile(
    r"^(?P<when>现在|最近|如今|这段时间)?(?:我)?(?P<when2>现在|最近)?最(?:喜欢|爱)的(?P<k>[^，,。是]{1,8}?)"
    r"(?:(?P<changed>改成|变成|换成)了?|是)(?P<v>[^，,。]{1,16})$"
)


def _role_subject(key: str, cjk: bool) -> str:
    key = key.strip().lower()
    roles = _ROLE_ZH if cjk else _ROLE_EN
    return roles.get(key) or f"fact/{zh_head(key) if cjk else en_head(key)}"


def _my_new(clause: str, cjk: bool) -> Slot | None:
    """ "My new manager is Sara", "now my boss is Daniel", 我的新领导是李总, 现在组长是小赵."""
    if cjk:
        m = _ZH_MY_NEW.match(clause) if clause.startswith(("我的新", "现在", "如今")) else None
        m = m or _ZH_NOW_IS.match(clause)
        if not m or (
            "new" in m.groupdict()
            and not m.groupdict().get("new")
            and not clause.startswith(("现在", "如今"))
        ):
            return None
        key, value = m.group("k"), _zh_value(m.group("v"))
    else:
        m = _EN_NOW_MY.match(clause) or _EN_MY_NEW.match(clause) or _EN_IS_MY_NOW.match(clause)
        if not m or (
            m.re is _EN_MY_NEW and not m.group("new") and not re.search(r"\bnow\b", clause, I)
        ):
            return None
        key, value = m.group("k"), _en_value(m.group("v"))
    if not value or re.search(r"favou?rite|喜欢|名字|name", key, I):
        return None
    subject = _role_subject(key, cjk)
    summary = say(cjk, "用户的{k}是{v}", "The user's {k} is {v}", k=key.strip(), v=value)
    return _switch(subject, summary, value, kind=FACT)


def _report_to(clause: str, cjk: bool) -> Slot | None:
    m = (_ZH_REPORT if cjk else _EN_REPORT).match(clause)
    value = (_zh_value if cjk else _en_value)(m.group("v")) if m else None
    if not value:
        return None
    summary = say(cjk, "用户向{v}汇报", "The user reports to {v}", v=value)
    return _switch("manager", summary, value, kind=FACT)


def _favourite_now(clause: str, cjk: bool) -> Slot | None:
    """ "These days Rust is my favourite language", 现在我最喜欢的语言是Rust (keyed by category)."""
    if cjk:
        m = _ZH_FAV.match(clause)
        if not m or not (m.group("when") or m.group("when2") or m.group("changed")):
            return None
        cat, value = m.group("k"), _zh_value(m.group("v"))
    else:
        m = _EN_FAV_NOW.match(clause)
        if not m:
            return None
        cat, value = m.group("k"), _en_value(m.group("v"))
    slot = _favorite_slot(cat.strip(), value, cjk) if value else None
    return dataclasses.replace(slot, tags=(*slot.tags, "switch")) if slot else None


# ---- devices and things replaced ------------------------------------------------------------

_EN_REPLACED = (
    re.compile(
        r"^i (?:replaced|swapped) (?:my |the |our )?(?P<old>.+?) (?:with|for) (?:a |an |the )?(?P<new>.+)$",
        I,
    ),
    re.compile(
        r"^i sold (?:my |the |our )?(?P<old>.+?) and (?:bought|got) (?:a |an |the )?(?P<new>.+)$", I
    ),
    re.compile(
        r"^i(?:'ve| have)?\s+(?:now\s+|recently\s+|just\s+)?(?:switched|changed|converted|moved over|went over)\s+(?:over\s+)?"
        r"(?:from (?:the |my |a |an )?(?P<old>.+?)\s+)?to (?:a |an |the )?(?P<new>.+)$",
        I,
    ),
    re.compile(
        r"^i(?:'ve| have)?\s+(?:now\s+)?(?:moved|switched) (?:my (?P<what>[a-z ]+?) )?from (?P<old>.+?) to (?P<new>.+)$",
        I,
    ),
)
_ZH_REPLACED = (
    re.compile(
        _ZH_LEAD
        + r"把(?P<old>[^，,。]{1,16}?)(?:换成|改成|换为|改为|搬到|卖了，?买了)(?:了)?(?P<new>[^，,。]{1,16})$"
    ),
    re.compile(
        _ZH_LEAD + r"不用(?P<old>[^，,。]{1,12}?)了，?(?:改用|换成|用)(?P<new>[^，,。]{1,12})$"
    ),
    re.compile(
        _ZH_LEAD
        + r"(?:昨天|上周|上个月)?(?:换成|改成|改为|换到|换为|改用|改学|改吃|改玩|改练|改坐)了?(?P<new>[^，,。]{1,16})$"
    ),
)


def _replaced(clause: str, cjk: bool) -> Slot | None:
    """ "I switched to a Pixel 8 yesterday", "I replaced my ThinkPad with a MacBook Air", 把A换成了B."""
    text = clause.replace("’", "'")
    for regex in _ZH_REPLACED if cjk else _EN_REPLACED:
        m = regex.match(text)
        if not m:
            continue
        value = (_zh_value if cjk else _en_value)(m.group("new"))
        if not value:
            return None
        old = ((m.groupdict().get("old") or "").strip(" ，,")) or ""
        old = (_zh_value(old) if cjk else _en_value(old)) or "" if old else ""
        subject, head = object_subject(value, cjk)
        if cjk:
            summary = f"用户把{old}换成了{value}" if old else f"用户换成了{value}"
        else:
            summary = (
                f"The user switched from {old} to {value}"
                if old
                else f"The user switched to {value}"
            )
        return Slot(PREFERENCE, subject, summary, ("switch",), (value, head), 0.9, old)
    return None


# ---- stopped, started, "I'm X now" -----------------------------------------------------------

_EN_STOPPED = (
    re.compile(
        r"^i(?:'m| am)?\s*(?:have\s+|'ve\s+)?(?:no longer|not)\s+(?P<what>.+?)(?:\s+(?:anymore|any more))?$",
        I,
    ),
    re.compile(r"^i (?:don'?t|do not|no longer) (?P<what>.+?)\s+(?:anymore|any more)$", I),
    re.compile(r"^i(?:'ve| have)?\s+(?:stopped|quit|gave up|given up|quitted)\s+(?P<what>.+)$", I),
)
_ZH_STOPPED = (
    re.compile(_ZH_LEAD + r"(?:不再|再也不)(?P<what>[^，,。]{1,16})$"),
    re.compile(r"^我?(?:已经|早就|现在|如今)(?:也)?不(?P<what>[\u4e00-\u9fff][^，,。]{1,12}?)了$"),
    re.compile(
        r"^我?不(?P<what>(?:住|用|学|打|玩|当|做|吃|喝|抽|坐|开|画|弹|集)[^，,。]{1,10}?)了$"
    ),
    re.compile(
        _ZH_LEAD
        + r"(?:两个月前|上个月|去年|前几天)?(?:戒掉了|戒掉|戒了|放弃了|退出了|退出|辞掉了)(?P<what>[^，,。]{1,12})$"
    ),
    re.compile(_ZH_LEAD + r"(?:两个月前|上个月|去年|前几天)?(?P<what>戒[\u4e00-\u9fff]{1,4})了$"),
)
_NOT_STOPPED = re.compile(
    r"^(?:sure|sorry|feeling|tired|hungry|going|able|allowed|ready|interested|worried|afraid|happy|sad|a |an |the |that |"
    r"so |too |very |really |exactly|quite|yet|知道|确定|清楚|记得|太|很|想|会|能|要|用|是|好|错|行|对|一样|喜欢)",
    I,
)

#: what is left after "quit" / 戒了 when the thing is left unsaid and only the time is: "I quit
#: two months ago", 戒了四个多月了 (it was named earlier; a duration is no habit the user stopped)
_EN_TIME = (
    r"(?:(?:for|since)\s+)?(?:(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|"
    r"several|some|\d+)\s+(?:days?|weeks?|months?|years?)(?:\s+ago)?|last\s+(?:week|month|year)|"
    r"a while(?:\s+ago)?|recently|yesterday|today)"
)
_ONLY_TIME = re.compile(
    r"^(?:[\d一二三四五六七八九十两几半]+个?多?(?:年|个月|月|天|日|周|星期|礼拜|小时|钟头)多?|"
    r"去年|上个月|上周|前几天|前阵子|好久|很久|一阵子?|一段时间)了?$|^" + _EN_TIME + "$",
    re.I,
)
#: "I quit smoking two months ago": the time is not the habit
_EN_TRAILING_TIME = re.compile(r"\s+" + _EN_TIME + "$", re.I)


def _stopped(clause: str, cjk: bool) -> Slot | None:
    """ "I don't play tennis anymore", "I quit smoking", 我已经不打网球了, 我不再坐公交了, 我戒烟了."""
    for regex in _ZH_STOPPED if cjk else _EN_STOPPED:
        m = regex.match(clause.replace("’", "'"))
        if not m:
            continue
        what = m.group("what").strip(" ，,。.")
        if (
            _NOT_STOPPED.match(what)
            or (not cjk and len(what.split()) > 8)
            or _ONLY_TIME.match(what)
        ):
            return None
        what = what if cjk else _EN_TRAILING_TIME.sub("", what)
        if cjk and not what.startswith("戒") and re.search(r"戒", clause):
            what = "戒" + what if not what.startswith("戒") else what
        subject, head = object_subject(re.sub(r"^戒(?:掉)?", "", what) if cjk else what, cjk)
        summary = third_person(clause, cjk)
        return Slot(PREFERENCE, subject, summary, ("switch", "stopped"), (head,), 0.9, head)
    return None


_DIETS_EN = r"vegetarian|vegan|pescatarian|pescetarian|flexitarian|omnivore|keto|paleo|gluten[- ]free|dairy[- ]free|halal|kosher"
_EN_DIET = (
    re.compile(
        r"^i(?:'m| am) (?:now |also )?(?:a |an )?(?:strict )?(?P<v>"
        + _DIETS_EN
        + r")(?P<now> now)?$",
        I,
    ),
    re.compile(
        r"^i (?:became|went|turned|have become|'ve become|started eating) (?:a |an )?(?P<v>"
        + _DIETS_EN
        + r")\b.*$",
        I,
    ),
    re.compile(r"^i follow (?:a |an )?(?P<v>" + _DIETS_EN + r") diet$", I),
    re.compile(r"^(?:so )?i(?:'m| am) (?P<v>" + _DIETS_EN + r") now$", I),
)
_ZH_DIET = (re.compile(_ZH_LEAD + r"(?:开始)?(?P<v>吃素|吃全素|不吃肉|生酮饮食|素食)(?:了)?$"),)


def _diet(clause: str, cjk: bool) -> Slot | None:
    for regex in _ZH_DIET if cjk else _EN_DIET:
        m = regex.match(clause)
        if not m:
            continue
        value = m.group("v").lower()
        changed = bool(re.search(r"\bnow\b|became|went|turned|started|开始|了$", clause, I))
        summary = say(cjk, "用户{v}", "The user is {v}", v=value) if cjk else f"The user is {value}"
        if cjk and value == "吃素":
            summary = "用户吃素"
        tags = ("switch", "diet") if changed else ("diet",)
        return Slot(PROFILE, "diet", summary, tags, (value,), 0.9 if changed else 0.85)
    return None


# ---- attribute facts: "my X is Y", 我的X是Y ---------------------------------------------------

_EN_MY_IS = re.compile(
    r"^my (?P<k>[a-z][a-z' \-]{1,24}?) (?:is|are) (?:called |named )?(?P<v>[^,;]{1,40})$", I
)
_ZH_MY_IS = re.compile(
    r"^我(?:的|家的?)(?P<k>[\u4e00-\u9fff]{1,6}?)(?:是|叫)(?P<v>[^，,。]{1,16})$"
)
_EN_ATTR_VERBS = (
    (
        re.compile(r"^i drive (?:a |an )?(?P<v>[A-Z][\w\- ]{1,30})$"),
        "car",
        "The user drives a {v}",
        "用户开{v}",
    ),
    (
        re.compile(r"^i(?:'m| am) on the (?P<v>[\w\- ]{1,20}) team$", I),
        "team",
        "The user is on the {v} team",
        "",
    ),
    (
        re.compile(r"^i (?:study|am studying|'m studying) at (?P<v>.{2,40})$", I),
        "school",
        "The user studies at {v}",
        "",
    ),
    (
        re.compile(r"^i(?:'m| am) studying (?P<v>[a-z ]{3,30})$", I),
        "major",
        "The user studies {v}",
        "",
    ),
    (
        re.compile(
            r"^i (?:use|code in|write my notes in|read on) (?:a |an )?(?P<v>[A-Z][\w.\- ]{1,24})"
            r"(?: (?:for work|as my browser|for coding))?$"
        ),
        "",
        "The user uses {v}",
        "",
    ),
    (
        re.compile(r"^i (?:commute|go to work|get to work) by (?P<v>[a-z ]{2,20})$", I),
        "commute",
        "The user commutes by {v}",
        "",
    ),
)
_ZH_ATTR_VERBS = (
    (re.compile(r"^我(?:现在)?开的是(?P<v>[^，,。]{1,16})$"), "car", "", "用户开的是{v}"),
    (re.compile(r"^我(?:现在)?在(?P<v>[^，,。]{1,10}?组)$"), "team", "", "用户在{v}"),
    (
        re.compile(
            r"^我(?:现在)?在(?P<v>[^，,。]{2,12}?(?:大学|学院|中学|小学))(?:读书|上学|念书)$"
        ),
        "school",
        "",
        "用户在{v}读书",
    ),
    (
        re.compile(r"^我(?:现在)?(?:用|开车|坐|骑车)(?P<v>[^，,。]{1,12}?)(?:上班|通勤)$"),
        "commute",
        "",
        "用户{v}上班",
    ),
    (
        re.compile(
            r"^我(?:平时|一般|现在)?用(?P<v>[A-Za-z][\w.\- ]{1,20}|[^，,。]{1,8}?)(?:写代码|记笔记|看书|浏览器)$"
        ),
        "",
        "",
        "用户用{v}",
    ),
)


def _attribute(clause: str, cjk: bool) -> Slot | None:
    """Plain attribute facts the user states about themselves; the key is the attribute."""
    m = (_ZH_MY_IS if cjk else _EN_MY_IS).match(clause)
    if m:
        key, value = m.group("k"), (_zh_value if cjk else _en_value)(m.group("v"))
        if not value or re.search(
            r"favou?rite|preferred|喜欢|爱好|name|名字|生日|birthday", key, I
        ):
            return None
        return Slot(FACT, _role_subject(key, cjk), third_person(clause, cjk), (), (value,), 0.85)
    for regex, subject, en, zh in _ZH_ATTR_VERBS if cjk else _EN_ATTR_VERBS:
        m = regex.match(clause)
        if m:
            value = (
                (_zh_value if cjk else _en_value)(m.group("v"))
                if not subject == "team"
                else m.group("v")
            )
            if not value:
                return None
            key = subject or object_subject(value, cjk)[0]
            summary = (
                (zh or "用户" + clause[1:]).format(v=value)
                if cjk
                else (en or third_person(clause, cjk)).format(v=value)
            )
            return Slot(FACT, key, summary, (), (value,), 0.85)
    return None


_EN_TEAM = re.compile(
    r"^i(?:'ve| have)?\s+(?:just\s+|recently\s+)?(?:moved|switched|transferred|changed|joined|went)\s+(?:over\s+)?"
    r"(?:to\s+)?the (?P<v>[\w\- ]{1,24}?) team\b.*$",
    I,
)
_ZH_TEAM = re.compile(
    _ZH_LEAD
    + r"(?:调到了|调到|转到了|转到|换到了|换到|去了|进了|加入了|加入)(?P<v>[^，,。]{1,10}?组)了?$"
)


def _team(clause: str, cjk: bool) -> Slot | None:
    """ "I moved to the search team in March", 我调到了支付组: the team changed (key "team")."""
    m = (_ZH_TEAM if cjk else _EN_TEAM).match(clause)
    if not m:
        return None
    value = m.group("v").strip()
    return _switch(
        "team", say(cjk, "用户在{v}", "The user is on the {v} team", v=value), value, kind=FACT
    )


_ZH_MOVE = re.compile(
    r"^(?:我们?|我家)?"
    + _ZH_TIME
    + r"(?:搬到了|搬到|搬去了|搬去|搬回了|搬回)(?P<v>[^，,。！!？?\s]{1,20})$"
)


def _move(clause: str, cjk: bool) -> Slot | None:
    """搬到/搬去 with the time words before it (我上个月搬到上海浦东了); English moves are location rules."""
    m = _ZH_MOVE.match(clause) if cjk else None
    value = _zh_value(m.group("v")) if m else None
    if not value:
        return None
    # a move is a new location: the location key supersedes the old one without a "switch" tag
    return Slot(PROFILE, "location", f"用户住在{value}", (), (value,), 0.85)


#: Change classifiers in the order they are tried (before profile and preference rules).
CLASSIFIERS: tuple[Callable[[str, bool], Slot | None], ...] = (
    _move,
    _team,
    _career,
    _school_change,
    _employer_change,
    _report_to,
    _favourite_now,
    _my_new,
    _diet,
    _replaced,
    _stopped,
    _attribute,
)
