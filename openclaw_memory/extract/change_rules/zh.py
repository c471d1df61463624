"""The Chinese change grammar: 换成 / 改成 / 改为 / 改用 / 改喝, 把A换成B, 从A跳槽到B, 跳槽到,
去了B上班, 改行当, 调到了X组, 搬到, 不再, 已经不…了, 戒掉, 我的新X是Y, 现在X是Y,
现在最喜欢的X是Y, 向X汇报; and attribute facts (我的X是Y, 我开的是Y). Time words before or
after the speaker are no part of the value (上周我调到了…, 我们春天搬去…, 腾讯了).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..slot import object_subject
from ..slot import zh_head
from ..slot import FACT, PREFERENCE, PROFILE, QUESTION_WORDS, Slot, third_person
from .shared import NOT_STOPPED, favourite_changed, role_keys, role_subject, switch

#: particles trailing a value: "腾讯了"
_TAIL = re.compile(r"(?:了|啦|呢|吧|啊|哦|的)+$")
_TIME = (
    r"(?:上个月|上周|上星期|去年|今年|昨天|前天|前几天|最近|刚刚|刚|已经|现在|目前|如今|这段时间|后来|早就|又|也|都|就|"
    r"[一二三四五六七八九十\d]{1,2}月份?|春天|夏天|秋天|冬天|年初|年底|月初|月底)*"
)
#: the start of a change clause: time words before or after the speaker (上周我调到了…, 我们春天搬去…)
_LEAD = r"^" + _TIME + r"(?:我们|我)?" + _TIME


def _value(raw: str) -> str | None:
    value = _TAIL.sub("", raw.strip(" ，,。！!；;"))
    value = re.sub(r"^(?:了|成|为|到|一辆|一台|一部|一只|一个|一家)", "", value)
    value = _TAIL.sub("", value)
    if not value or len(value) > 20 or QUESTION_WORDS.search(value):
        return None
    return value


# ---- employer, career -----------------------------------------------------------------------

_JOB_CHANGE = (
    re.compile(_LEAD + r"从(?P<old>[^，,。]{1,12}?)跳槽(?:到|去)了?(?P<new>[^，,。]{1,12})$"),
    re.compile(_LEAD + r"跳槽(?:到|去)了?(?P<new>[^，,。]{1,12})$"),
    re.compile(
        r"^(?:我)?"
        + _TIME
        + r"(?:去了|进了|到了|换到了|换到)(?P<new>[^，,。]{2,12}?)(?:上班|工作)$"
    ),
    re.compile(
        r"^(?:实习结束后|毕业后|辞职后)?我?"
        + _TIME
        + r"(?:去了|进了)(?P<new>[^，,。]{2,12}?)(?:上班|工作)$"
    ),
)
_CAREER = re.compile(_LEAD + r"(?:改行|转行)(?:当|做)?了?(?P<new>[^，,。]{1,10}?)了?$")


def _career(clause: str) -> Slot | None:
    """我现在改行当律师了: the job changed."""
    m = _CAREER.match(clause)
    value = _value(m.group("new")) if m else None
    if not value:
        return None
    return switch("job", f"用户是{value}", value)


def _employer_change(clause: str) -> Slot | None:
    for regex in _JOB_CHANGE:
        m = regex.match(clause)
        if not m:
            continue
        new = _value(m.group("new"))
        if not new:
            return None
        old = (m.groupdict().get("old") or "").strip()
        return switch("employer", f"用户在{new}工作", new, old)
    return None


# ---- 我的新X是Y, 现在X是Y, favourites ----------------------------------------------------------

_MY_NEW = re.compile(
    r"^(?:现在|如今)?(?:我的)?(?P<new>新)?(?P<k>[\u4e00-\u9fff]{1,6}?)(?:现在|如今)?(?:是|变成了|换成了|改成了)(?P<v>[^，,。]{1,16})$"
)
_NOW_IS = re.compile(r"^(?:现在|如今)(?:的)?(?P<k>[\u4e00-\u9fff]{1,6}?)是(?P<v>[^，,。]{1,16})$")
_REPORT = re.compile(_LEAD + r"(?:向|跟着?)(?P<v>[^，,。]{1,8}?)(?:汇报|干)(?:了)?$")
_FAV = re.compile(
    r"^(?P<when>现在|最近|如今|这段时间)?(?:我)?(?P<when2>现在|最近)?最(?:喜欢|爱)的(?P<k>[^，,。是]{1,8}?)"
    r"(?:(?P<changed>改成|变成|换成)了?|是)(?P<v>[^，,。]{1,16})$"
)


#: an attribute word is a noun (the speaker before it aside: 我开的): a pronoun or an adverb in it
#: (想起它还, 我们也) makes a clause of it
_WHEN = frozenset({"现在", "如今", "目前"})
_NOT_AN_ATTRIBUTE = re.compile(r"[它他她你我]|还|也|都|就|又")
#: a degree adverb opens a description (挺难过的, 很忙, 有点累), never the value of an attribute
_DEGREE = re.compile(r"(?:挺|很|非常|特别|比较|有点|蛮)")


def subject_of_role(key: str) -> str:
    """The subject a statement of the speaker's `key` is filed under (a role that passes to a new
    holder, "my landlord", keeps one subject whoever holds it); recall reads requests by it."""
    return role_subject(key, role_keys("zh"), zh_head)


def _my_new(clause: str) -> Slot | None:
    """我的新领导是李总, 现在组长是小赵."""
    m = _MY_NEW.match(clause) if clause.startswith(("我的新", "现在", "如今")) else None
    m = m or _NOW_IS.match(clause)
    if not m or (
        "new" in m.groupdict()
        and not m.groupdict().get("new")
        and not clause.startswith(("现在", "如今"))
    ):
        return None
    key, value = m.group("k"), _value(m.group("v"))
    if (
        not value
        or re.search(r"喜欢|名字", key)
        or _NOT_AN_ATTRIBUTE.search(key.removeprefix("我"))
        or key in _WHEN  # 现在是一名药剂师: no attribute named
        or (key.startswith("我") and not key.startswith(("我的", "我家")))  # 现在我开的是: a verb
    ):
        return None
    if _DEGREE.match(value):
        return None  # 是挺难过的 / 是很忙: how something feels or goes, not a value
    summary = f"用户的{key.strip()}是{value}"
    return switch(subject_of_role(key), summary, value, kind=FACT)


def _report_to(clause: str) -> Slot | None:
    m = _REPORT.match(clause)
    value = _value(m.group("v")) if m else None
    if not value:
        return None
    return switch("manager", f"用户向{value}汇报", value, kind=FACT)


def _favourite_now(clause: str) -> Slot | None:
    """现在我最喜欢的语言是Rust (keyed by category)."""
    m = _FAV.match(clause)
    if not m or not (m.group("when") or m.group("when2") or m.group("changed")):
        return None
    return favourite_changed(m.group("k"), _value(m.group("v")), True)


# ---- devices and things replaced ------------------------------------------------------------

_REPLACED = (
    re.compile(
        _LEAD
        + r"把(?P<old>[^，,。]{1,16}?)(?:换成|改成|换为|改为|搬到|卖了，?买了)(?:了)?(?P<new>[^，,。]{1,16})$"
    ),
    re.compile(
        _LEAD + r"不用(?P<old>[^，,。]{1,12}?)了，?(?:改用|换成|用)(?P<new>[^，,。]{1,12})$"
    ),
    re.compile(
        _LEAD
        + r"(?:昨天|上周|上个月)?(?:换成|改成|改为|换到|换为|改用|改学|改吃|改玩|改练|改坐)了?(?P<new>[^，,。]{1,16})$"
    ),
)


def _replaced(clause: str) -> Slot | None:
    """把A换成了B, 不用A了改用B, 换成了B."""
    text = clause.replace("’", "'")
    for regex in _REPLACED:
        m = regex.match(text)
        if not m:
            continue
        value = _value(m.group("new"))
        if not value:
            return None
        old = (m.groupdict().get("old") or "").strip(" ，,")
        old = (_value(old) or "") if old else ""
        subject, head = object_subject(value, True)
        summary = f"用户把{old}换成了{value}" if old else f"用户换成了{value}"
        return Slot(PREFERENCE, subject, summary, ("switch",), (value, head), 0.9, old)
    return None


# ---- stopped, started ------------------------------------------------------------------------

_STOPPED = (
    re.compile(_LEAD + r"(?:不再|再也不)(?P<what>[^，,。]{1,16})$"),
    re.compile(r"^我?(?:已经|早就|现在|如今)(?:也)?不(?P<what>[\u4e00-\u9fff][^，,。]{1,12}?)了$"),
    re.compile(
        r"^我?不(?P<what>(?:住|用|学|打|玩|当|做|吃|喝|抽|坐|开|画|弹|集)[^，,。]{1,10}?)了$"
    ),
    re.compile(
        _LEAD
        + r"(?:两个月前|上个月|去年|前几天)?(?:戒掉了|戒掉|戒了|放弃了|退出了|退出|辞掉了)(?P<what>[^，,。]{1,12})$"
    ),
    re.compile(_LEAD + r"(?:两个月前|上个月|去年|前几天)?(?P<what>戒[\u4e00-\u9fff]{1,4})了$"),
)


#: what is left after 戒了 when the thing is left unsaid and only the time is: 戒了四个多月了 (it
#: was named earlier; a duration is no habit the user stopped)
_ONLY_TIME = re.compile(
    r"^(?:[\d一二三四五六七八九十两几半]+个?多?(?:年|个月|月|天|日|周|星期|礼拜|小时|钟头)多?|"
    r"去年|上个月|上周|前几天|前阵子|好久|很久|一阵子?|一段时间)了?$"
)


def _stopped(clause: str) -> Slot | None:
    """我已经不打网球了, 我不再坐公交了, 我戒烟了."""
    for regex in _STOPPED:
        m = regex.match(clause.replace("’", "'"))
        if not m:
            continue
        what = m.group("what").strip(" ，,。.")
        if NOT_STOPPED.match(what) or _ONLY_TIME.match(what):
            return None
        if not what.startswith("戒") and re.search(r"戒", clause):
            what = "戒" + what
        subject, head = object_subject(re.sub(r"^戒(?:掉)?", "", what), True)
        summary = third_person(clause, True)
        return Slot(PREFERENCE, subject, summary, ("switch", "stopped"), (head,), 0.9, head)
    return None


_DIET = (re.compile(_LEAD + r"(?:开始)?(?P<v>吃素|吃全素|不吃肉|生酮饮食|素食)(?:了)?$"),)


def _diet(clause: str) -> Slot | None:
    for regex in _DIET:
        m = regex.match(clause)
        if not m:
            continue
        value = m.group("v").lower()
        changed = bool(re.search(r"开始|了$", clause))
        tags = ("switch", "diet") if changed else ("diet",)
        return Slot(PROFILE, "diet", f"用户{value}", tags, (value,), 0.9 if changed else 0.85)
    return None


# ---- attribute facts: 我的X是Y, 我开的是Y ------------------------------------------------------

_MY_IS = re.compile(r"^我(?:的|家的?)(?P<k>[\u4e00-\u9fff]{1,6}?)(?:是|叫)(?P<v>[^，,。]{1,16})$")
#: (pattern, subject (empty: the value's own key), summary template (empty: the clause itself))
_ATTR_VERBS = (
    (re.compile(r"^(?:现在|如今)?我(?:现在)?开的是(?P<v>[^，,。]{1,16})$"), "car", "用户开的是{v}"),
    (re.compile(r"^我(?:现在)?在(?P<v>[^，,。]{1,10}?组)$"), "team", "用户在{v}"),
    (
        re.compile(
            r"^我(?:现在)?在(?P<v>[^，,。]{2,12}?(?:大学|学院|中学|小学))(?:读书|上学|念书)$"
        ),
        "school",
        "用户在{v}读书",
    ),
    (
        re.compile(r"^我(?:现在)?(?:用|开车|坐|骑车)(?P<v>[^，,。]{1,12}?)(?:上班|通勤)$"),
        "commute",
        "用户{v}上班",
    ),
    (
        re.compile(
            r"^我(?:平时|一般|现在)?用(?P<v>[A-Za-z][\w.\- ]{1,20}|[^，,。]{1,8}?)(?:写代码|记笔记|看书|浏览器)$"
        ),
        "",
        "用户用{v}",
    ),
)


def _attribute(clause: str) -> Slot | None:
    """Plain attribute facts the user states about themselves; the key is the attribute."""
    m = _MY_IS.match(clause)
    if m:
        key, value = m.group("k"), _value(m.group("v"))
        if not value or re.search(r"喜欢|爱好|名字|生日", key):
            return None
        return Slot(FACT, subject_of_role(key), third_person(clause, True), (), (value,), 0.85)
    for regex, subject, template in _ATTR_VERBS:
        m = regex.match(clause)
        if m:
            value = _value(m.group("v")) if subject != "team" else m.group("v")
            if not value:
                return None
            key = subject or object_subject(value, True)[0]
            summary = (template or "用户" + clause[1:]).format(v=value)
            return Slot(FACT, key, summary, (), (value,), 0.85)
    return None


_TEAM = re.compile(
    _LEAD
    + r"(?:调到了|调到|转到了|转到|换到了|换到|去了|进了|加入了|加入)(?P<v>[^，,。]{1,10}?组)了?$"
)


def _team(clause: str) -> Slot | None:
    """我调到了支付组: the team changed (key "team")."""
    m = _TEAM.match(clause)
    if not m:
        return None
    value = m.group("v").strip()
    return switch("team", f"用户在{value}", value, kind=FACT)


_MOVE = re.compile(
    r"^(?:我们?|我家)?"
    + _TIME
    + r"(?:搬到了|搬到|搬去了|搬去|搬回了|搬回)(?P<v>[^，,。！!？?\s]{1,20})$"
)


def _move(clause: str) -> Slot | None:
    """搬到/搬去 with the time words before it (我上个月搬到上海浦东了)."""
    m = _MOVE.match(clause)
    value = _value(m.group("v")) if m else None
    if not value:
        return None
    # a move is a new location: the location key supersedes the old one without a "switch" tag
    return Slot(PROFILE, "location", f"用户住在{value}", (), (value,), 0.85)


#: Chinese change classifiers in the order they are tried.
CLASSIFIERS: tuple[Callable[[str], Slot | None], ...] = (
    _move,
    _team,
    _career,
    _employer_change,
    _report_to,
    _favourite_now,
    _my_new,
    _diet,
    _replaced,
    _stopped,
    _attribute,
)
