"""Profile classifiers: name, nickname, birthday, location, hometown, employer, job, allergies,
age and education.

Each reads one clause in Chinese or English and returns a `Slot` keyed by the profile field
(`name`, `location`, `allergy/<thing>` ...), or None. Only what is stated is read: "我朋友住在北京"
and "I work from home" are not the user's location or employer.
"""

# ruff: noqa: SIM905  (word lists read best as one string)

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..text import has_cjk
from ..types import MemoryType
from .lexicon import singular
from .slot import FUTURE, PROFILE, I, Slot, say, value_of

_ALLERGY = (
    re.compile(r"我(?:对|吃)?(?P<x>[^，,。我]{1,12}?)(?:有点|有些|很|非常|严重|比较|轻微|会)?过敏"),
    re.compile(r"\bi(?:'m| am)\s+(?:\w+\s+)?allergic to\s+(?P<x>[^,.;!?]+)", I),
    re.compile(r"\bi have (?:an?\s+)?(?:severe\s+|mild\s+)?(?P<x>[a-z][a-z ]{1,30}?) allergy", I),
)


_NOT_ALLERGIC = re.compile(r"\bnot\b|n't\b|\bno longer\b|(?:不|没|没有|并不)$")


def _allergy(clause: str, cjk: bool) -> Slot | None:
    """ "I'm allergic to peanuts", 我对花生过敏; "I'm not allergic to penicillin after all" /
    我其实对青霉素不过敏 is a change of the same key (the old allergy is retired)."""
    for pattern in _ALLERGY:
        m = pattern.search(clause)
        if not m:
            continue
        raw = re.sub(r"(?:有点|有些|很|非常|严重|比较|轻微)$", "", m.group("x"))
        raw = re.sub(r"^(?:其实|真的|确实|原来|并)*(?:对|吃)?", "", raw) if cjk else raw
        before = clause[: m.start("x")] if not cjk else raw
        negative = (
            bool(_NOT_ALLERGIC.search(before))
            if not cjk
            else bool(re.search(r"(?:不|没|没有|并不)$", raw))
        )
        raw = (
            re.sub(r"(?:并不|没有|不|没)$", "", raw)
            if cjk
            else re.sub(r"\s+(?:after all|anymore|any more)$", "", raw, flags=I)
        )
        thing = value_of(raw, cjk)
        if not thing or thing.startswith(("不", "没", "有点")):
            return None
        key = thing if cjk else " ".join(singular(w) for w in thing.lower().split())
        if negative:
            summary = say(cjk, "用户对{t}不过敏", "The user is not allergic to {t}", t=thing)
            return Slot(
                PROFILE,
                f"allergy/{key}",
                summary,
                ("allergy", "health", "switch"),
                (thing,),
                0.9,
                thing,
            )
        summary = say(cjk, "用户对{t}过敏", "The user is allergic to {t}", t=thing)
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
        "name",
        "用户名叫{v}",
        "The user's name is {v}",
        (
            re.compile(
                r"(?:我叫|我的名字是|我的名字叫|我名字叫|我名叫|本人叫)(?P<x>[^，,。！!？?\s]{1,16})"
            ),
            re.compile(
                r"\b[Mm]y name(?:'s| is)\s+(?P<x>[A-Za-z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,3})"
            ),
            re.compile(r"\bI(?:'m| am) called\s+(?P<x>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,3})"),
        ),
        frozenset(["了", "过", "外卖", "车", "醒", "他", "她", "你", "人", "啥"]),
    ),
    _Pattern(
        "nickname",
        "用户希望被称呼为{v}",
        "The user wants to be called {v}",
        (
            re.compile(r"^(?:你)?(?:可以|请)?(?:叫我|称呼我|喊我)(?P<x>[^，,。！!？?\s]{1,12})"),
            re.compile(
                r"\b(?<!n't )(?<!not )(?<!never )(?:please\s+)?call me\s+(?P<x>[A-Za-z][\w'\-]*(?:\s+[A-Z][\w'\-]*)?)",
                I,
            ),
        ),
        frozenset(
            """later tomorrow back when if at on asap soon now tonight anytime again before after around
            between until during every""".split()
        ),
    ),
    _Pattern(
        "birthday",
        "用户的生日是{v}",
        "The user's birthday is {v}",
        (
            re.compile(r"我的生日是(?P<x>[^，,。]{2,16})"),
            re.compile(r"\bmy birthday is\s+(?P<x>[^,.;!?]+)", I),
            re.compile(r"\bI was born on\s+(?P<x>[^,.;!?]+)", I),
        ),
    ),
    _Pattern(
        "location",
        "用户住在{v}",
        "The user lives in {v}",
        (
            re.compile(
                r"我(?:现在|目前|已经|刚|刚刚|下个月|下周|明年|今年|马上|要|将|准备|打算|会)*(?:家)?"
                r"(?:住在|家住在|家住|定居在|生活在|家在|搬到了|搬到|搬去了|搬去)(?P<x>[^，,。！!？?\s]{1,20})"
            ),
            re.compile(
                r"\bi(?:'m| am|'ve been| have been)?\s*(?:currently |now )?(?:live|living|reside|residing) in\s+(?P<x>[^,.;!?]+)",
                I,
            ),
            re.compile(r"\bi(?:'m| am) based in\s+(?P<x>[^,.;!?]+)", I),
            # "we packed up and moved to Phoenix": a place is a name ("moved to the search team" is no move)
            re.compile(
                r"\b(?:i|we)(?:'m| am|'ve| have|'re| are)?\s*(?:just |recently |finally )?(?:packed up and )?"
                r"(?:moved|moving|relocated) (?:back )?to\s+(?P<x>(?-i:[A-Z])[^,.;!?]*)",
                I,
            ),
        ),
        frozenset(["的", "哪", "哪里", "不", "院", "校", "宿"]),
    ),
    _Pattern(
        "hometown",
        "用户来自{v}",
        "The user is from {v}",
        (
            re.compile(r"我(?:来自|的老家(?:是|在)|老家(?:是|在))(?P<x>[^，,。！!？?\s]{1,12})"),
            re.compile(r"^我是(?P<x>[\u4e00-\u9fff]{2,6})人$"),
            re.compile(r"\bi(?:'m| am) from\s+(?P<x>[A-Z][^,.;!?]*)", I),
            re.compile(r"\bi (?:come from|grew up in)\s+(?P<x>[^,.;!?]+)", I),
        ),
        frozenset(["个好", "好", "坏", "本地", "中年", "年轻", "老"]),
    ),
    _Pattern(
        "employer",
        "用户在{v}工作",
        "The user works at {v}",
        (
            re.compile(
                r"^(?:我)?(?:现在|目前)?在(?P<x>[^，,。\s想找换要考虑准备打算份]{2,20}?)"
                r"(?:工作|上班|任职|实习|就职)(?:了)?$"
            ),
            re.compile(r"我(?:现在|目前)?就职于(?P<x>[^，,。\s]{2,20})"),
            re.compile(r"\bi (?:currently |now )?work (?:at|for)\s+(?P<x>[^,.;!?]+)", I),
            re.compile(
                r"\bi(?:'m| am) (?:employed (?:at|by)|working (?:at|for))\s+(?P<x>[^,.;!?]+)", I
            ),
        ),
        frozenset(
            """家 家里 公司 远程 这 那 这里 那里 home from home remotely the moment""".split()
        ),
    ),
)
_CITIES = re.compile(
    r"(?:北京|上海|广州|深圳|杭州|成都|南京|武汉|西安|重庆|天津|苏州|香港|纽约|伦敦|东京|新加坡|[市省区县国])$"
)
_JOBS_ZH = """工程师 程序员 设计师 经理 老师 教师 医生 护士 律师 会计 学生 研究员 分析师 架构师 教授 作家 记者 厨师 司机 销售 运营 总监 主管 顾问 科学家 创始人 开发者
    博士生 研究生 大学生 高中生 测试 翻译 编辑 公务员 警察 自由职业者 产品经理""".split()  # noqa: E501 - a word list
_JOBS_EN = """engineer developer programmer designer teacher doctor nurse lawyer accountant student
    manager scientist researcher analyst architect consultant writer journalist chef driver
    professor founder pharmacist dentist artist musician photographer marketer intern freelancer
    entrepreneur translator editor tester administrator officer pilot mechanic electrician
    plumber farmer librarian therapist psychologist economist banker trader recruiter
    specialist coordinator director executive representative supervisor strategist""".split()
_JOB_ZH = re.compile(
    r"^我(?:现在|目前)?(?:是|的职业是|的工作是|做|当)(?:一名|一个|一位|个|名)?"
    r"(?P<x>[^，,。\s]{0,10}(?:" + "|".join(_JOBS_ZH) + r"))$"
)
_JOB_EN = (
    re.compile(
        r"\bi(?:'m| am) (?:a|an)\s+(?P<x>(?:[\w\-]+\s+){0,3}(?:" + "|".join(_JOBS_EN) + r"))s?\b",
        I,
    ),
    re.compile(r"\bi work as (?:a|an)?\s*(?P<x>[^,.;!?]+)", I),
)
#: "As a Senior Marketing Specialist (in the company)", 作为一名护士: the lead of a clause of the
#: speaker's, their role (`as_role`; words without digits: a role of an age, "as a 32-year-old
#: ...", is the age rule's)
_AS_ROLE = re.compile(
    r"^as an? (?:[a-z\-]+\s+){0,3}(?:" + "|".join(_JOBS_EN) + r")"
    r"(?:\s+(?:in|at|for|with)\s+.{1,40})?$",
    I,
)
_AS_ROLE_ZH = re.compile(
    r"^作为(?:一名|一个|一位|个|名)?(?P<x>[^，,。\s\d]{0,10}(?:" + "|".join(_JOBS_ZH) + r"))$"
)


def as_role(lead: str, following: str) -> str | None:
    """ "As a nurse", then a clause of the speaker's ("I work nights"), says "I am a nurse"
    (作为一名护士，我… says 我是护士): that statement, else None ("As a teacher, how would you
    ..." asks a role of the assistant; "as a kid" is no job)."""
    lead, following = lead.strip(), following.strip()
    if m := _AS_ROLE_ZH.match(lead):
        return f"我是{m.group('x')}" if following.startswith("我") else None
    if not _AS_ROLE.match(lead) or not re.match(r"I\b", following):
        return None
    return f"I am {lead[3:]}"


def _profile(clause: str, cjk: bool) -> Slot | None:
    for p in _PROFILE_PATTERNS:
        for regex in p.regexes:
            m = regex.search(clause)
            value = value_of(m.group("x"), cjk) if m else None
            if not value:
                continue
            if value.lower() in p.bad_values or any(
                value.startswith(b) for b in p.bad_values if has_cjk(b)
            ):
                return None
            tags: tuple[str, ...] = ()
            subject, conf = p.subject, 0.85
            if p.subject == "employer" and cjk and _CITIES.search(value):
                subject = "work_location"
            summary = say(cjk, p.zh, p.en, v=value)
            if p.subject == "location" and FUTURE.search(clause):
                tags, conf = ("planned",), 0.6
                summary = say(cjk, "用户计划搬到{v}", "The user plans to move to {v}", v=value)
            return Slot(p.type, subject, summary, tags, (value,), conf)
    return None


def _article(word: str) -> str:
    """ "a" or "an" as the word is said: an engineer, an MBA (em-), a Bachelor's degree."""
    vowel = word[:1].lower() in "aeiou" or (word[:2].isupper() and word[0] in "FHLMNRSX")
    return "an" if vowel else "a"


def _job(clause: str, cjk: bool) -> Slot | None:
    regexes = (_JOB_ZH,) if cjk else _JOB_EN
    for regex in regexes:
        m = regex.search(clause)
        value = value_of(m.group("x"), cjk) if m else None
        if value:
            summary = say(cjk, "用户是{v}", "The user is {a} {v}", v=value, a=_article(value))
            return Slot(PROFILE, "job", summary, (), (value,), 0.85)
    return None


#: how old the speaker is now: "I'm 32", "I'm a 32-year-old nurse", "I just turned 40", 我今年32岁.
#: Not an age of the past (我20岁的时候, "when I was 20"), nor "I'm 5 minutes away", "I'm 100%" or
#: "I'm 12.5% Irish".
_AGE_END = (
    r"(?=\s*(?:$|[,;!?]|\.(?!\d)|and\b|but\b|so\b|now\b|this year\b|today\b|last\b|yesterday\b))"
)
_AGE_EN = (
    re.compile(
        r"\bI(?:'m| am) (?:now |just |only |already )?(?P<x>\d{1,3})(?: years? old| yrs? old)?"
        + _AGE_END
    ),
    re.compile(r"\bI(?:'m| am) (?:now )?an? (?P<x>\d{1,3})[- ]years?[- ]old\b"),
    # "As a 32-year-old Digital Marketing Specialist ...": an adult's present role ("as a
    # 10-year-old I loved trains" is a childhood)
    re.compile(r"^[Aa]s an? (?P<x>[1-9]\d)[- ]years?[- ]old (?!I\b|me\b|my\b)\w"),
    re.compile(r"\bI (?:just |recently |finally )?turned (?P<x>\d{1,3})" + _AGE_END),
)
_AGE_ZH = re.compile(
    r"我(?:今年|现在|目前|已经|刚|刚刚|才|都|也)*(?:满)?(?P<x>\d{1,3}|[一二三四五六七八九十两]{1,4})(?:周)?岁"
    r"(?!的时候|那年|时|以前|之前|生日)"
)


def _age(clause: str, cjk: bool) -> Slot | None:
    m = (
        _AGE_ZH.search(clause)
        if cjk
        else next((m for r in _AGE_EN if (m := r.search(clause))), None)
    )
    if not m or (m.group("x").isdigit() and not 10 <= int(m.group("x")) <= 110):
        return None
    if not cjk and re.search(r"\b(?:when|was|used to)\b", clause[: m.start()], I):
        return None
    value = m.group("x")
    summary = say(cjk, "用户今年{v}岁", "The user is {v} years old", v=value)
    return Slot(PROFILE, "age", summary, (), (value,), 0.85)


#: degrees by level, in both languages: the key's leaf (a master's does not replace a bachelor's)
_LEVELS = (
    (
        "bachelor",
        r"(?i:bachelor(?:'s|s)?(?: degree)?)|B\.?A\.?|B\.?S\.?c?\.?|学士(?:学位)?|本科学位",
    ),
    ("master", r"(?i:master(?:'s|s)?(?: degree)?)|M\.?A\.?|M\.?S\.?c?\.?|MBA|硕士(?:学位)?"),
    ("doctorate", r"(?i:doctorate|doctoral degree)|Ph\.?D\.?|博士(?:学位)?"),
    ("associate", r"(?i:associate(?:'s)? degree)"),
)
_FIELD = r"(?: (?:in|of) (?P<f>[A-Za-z][\w&\- ]{1,40}?))?(?=\s+(?:from|at|with|which|that|and)\b|[,.;!?]|$)"
_DEGREE_EN = tuple(
    (
        level,
        re.compile(
            r"\bI (?:have|hold|earned|got|received|completed|finished|did) (?:a |an |my )?"
            rf"(?P<d>{words})(?!\w){_FIELD}"
        ),
    )
    for level, words in _LEVELS
)
_DEGREE_ZH = tuple(
    (level, re.compile(rf"我(?:有|拿到了|拿到|获得了|获得|拿了|读了|是)(?:一个)?(?:{words})"))
    for level, words in _LEVELS
    if level != "associate"
)
_MAJOR = (
    re.compile(
        r"\bI (?:majored|specialized|specialised) in (?P<x>[^,.;!?]+?)(?=\s+(?:at|in \d|from|and)\b|[,.;!?]|$)"
    ),
    re.compile(
        r"我(?:的)?(?:本科|大学|研究生|硕士|博士)?(?:学的|读的|专业)是(?P<x>[^，,。！!？?\s]{2,12})"
    ),
    re.compile(r"^我是(?P<x>[^，,。！!？?\s的]{2,10})专业(?:毕业)?的"),
)
_SCHOOL = (
    re.compile(
        r"\bI graduated from (?P<x>(?-i:[A-Z])[^,.;!?]+?)(?=\s+(?:in|with|and)\b|[,.;!?]|$)"
    ),
    re.compile(
        r"我(?:是)?(?:\d{2,4}年)?(?:本科|硕士|研究生|博士)?毕业于(?P<x>[^，,。！!？?\s]{2,20})"
    ),
)


def _education(clause: str, cjk: bool) -> Slot | None:
    """Degrees, majors and schools: each degree and school its own key, since having one does not
    undo another; "I have a bachelor's in history" and 我毕业于浙江大学."""
    for level, regex in _DEGREE_ZH if cjk else _DEGREE_EN:
        if m := regex.search(clause):
            field = m.groupdict().get("f")
            zh_level = {"bachelor": "学士", "master": "硕士", "doctorate": "博士"}.get(level, level)
            written = (m.groupdict().get("d") or "").replace("’", "'")
            en = f"The user has {_article(written)} {written}" + (f" in {field}" if field else "")
            summary = say(cjk, "用户有{v}学位", en, v=zh_level)
            return Slot(
                PROFILE, f"degree/{level}", summary, ("education",), (field or level,), 0.85
            )
    for regex in _MAJOR:
        if (m := regex.search(clause)) and (value := value_of(m.group("x"), cjk)):
            summary = say(cjk, "用户的专业是{v}", "The user majored in {v}", v=value)
            return Slot(PROFILE, "major", summary, ("education",), (value,), 0.85)
    for regex in _SCHOOL:
        if (m := regex.search(clause)) and (value := value_of(m.group("x"), cjk)):
            if value.lower() in {"high school", "college", "university", "school"}:
                return None
            summary = say(cjk, "用户毕业于{v}", "The user graduated from {v}", v=value)
            return Slot(PROFILE, f"school/{value.lower()}", summary, ("education",), (value,), 0.85)
    return None


#: Profile classifiers in the order they are tried.
CLASSIFIERS: tuple[Callable[[str, bool], Slot | None], ...] = (
    _allergy,
    _profile,
    _job,
    _age,
    _education,
)
