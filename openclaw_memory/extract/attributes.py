"""What a claim is about when the two values of a change share no word (issue 16, write path).

"I don't exercise at all" and "I started going to the gym" share no word, nor do 没有养宠物 and
领养了一只猫, "I'm single" and "I got married", 坐班 and 居家办公. Each pair names one attribute
(exercise, pets, marital status, work arrangement; "Where do I take classes?" and "I enrolled at
State University" name schooling): this module holds a small bilingual lexicon of
such attributes and says when two statements about one of them contradict each other:

- an *exclusive* attribute (marital status, work arrangement, diet) holds one value at a time: a
  change that names another value contradicts the old one (single -> married, 坐班 -> 居家办公);
- an attribute whose values add up (pets, exercise, drinks, jobs, commuting) changes only when the
  old statement negates the whole attribute by its general word and the new one states a value
  ("no pets" -> "adopted a cat", 不运动 -> 去健身房), or when the new one says it *switched*,
  to another value (改喝拿铁 after 平时喝美式) or of the general word (换工作了 after 在华为做测试);
  "I have a dog" then "we adopted a cat" adds a pet;
- without any lexicon, one predicate negated in one statement and stated in the other contradicts
  (不吃辣 -> 现在能吃辣了, "I don't eat beef" -> "I eat beef now").

`contradicts(old, new, switch=...)` is what consolidation asks; it never decides alone: the caller
has already seen that `new` states a change of the same speaker and owner.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from ..lang.text import has_cjk, negated, search_tokens

_I = re.IGNORECASE


@dataclass(frozen=True)
class Attribute:
    """One attribute: its general words (negating them negates every value) and its values."""

    name: str
    exclusive: bool
    general: re.Pattern[str]
    values: tuple[tuple[str, re.Pattern[str]], ...]
    #: the general words and every value in one pattern: most texts name no attribute, and one
    #: search says so (relevance gating asks it of every pooled memory)
    named: re.Pattern[str]


def _attr(name: str, exclusive: bool, general: str, **values: str) -> Attribute:
    return Attribute(
        name,
        exclusive,
        re.compile(general, _I),
        tuple((v, re.compile(p, _I)) for v, p in values.items()),
        re.compile("|".join(f"(?:{p})" for p in (general, *values.values())), _I),
    )


#: Each pattern holds the English and the Chinese words; English words at word boundaries.
ATTRIBUTES: tuple[Attribute, ...] = (
    _attr(
        "exercise",
        False,
        r"\b(?:exercis\w*|work(?:ing)? ?outs?|physical activity|sports?)\b|运动|锻炼|健身(?!房)",
        gym=r"\bgym\b|健身房|撸铁",
        running=r"\b(?:run|runs|running|jog|jogging)\b|跑步|慢跑",
        swimming=r"\bswim(?:s|ming)?\b|游泳",
        yoga=r"\b(?:yoga|pilates)\b|瑜伽|普拉提",
        cycling=r"\b(?:cycling|biking)\b|骑行",
        climbing=r"\b(?:climbing|bouldering)\b|攀岩",
    ),
    _attr(
        "pets",
        False,
        r"\b(?:pets?|animals?)\b|宠物|小动物",
        cat=r"\b(?:cats?|kittens?)\b|猫",
        dog=r"\b(?:dogs?|pupp(?:y|ies)|pup)\b|狗",
        rodent=r"\b(?:hamsters?|guinea pigs?|rabbits?|bunn(?:y|ies))\b|仓鼠|兔子|豚鼠",
        bird=r"\b(?:parrots?|budgies?)\b|鹦鹉",
        reptile=r"\b(?:turtles?|tortoises?|lizards?|snakes?)\b|乌龟|蜥蜴",
    ),
    _attr(
        "marital",
        True,
        r"\b(?:marital status|relationship status|in a relationship)\b|婚姻状况|谈恋爱",
        single=r"\bsingle\b|单身",
        engaged=r"\b(?:engaged|fianc[ée]e?)\b|订婚",
        married=r"\b(?:married|newlyweds?)\b|结婚|已婚|成家",
        divorced=r"\bdivorced?\b|离婚|离异",
        widowed=r"\bwidow(?:ed|er)?\b|丧偶",
    ),
    _attr(
        "work_arrangement",
        True,
        r"\bwork arrangement\b|办公方式",
        office=r"\b(?:in|at|to|into) the office\b|\bon-?site\b|坐班|去公司|到公司|公司上班",
        remote=r"\b(?:from home|remote(?:ly)?|wfh|telecommut\w*)\b|居家办公|在家办公|在家上班|远程",
        hybrid=r"\bhybrid\b|混合办公",
    ),
    _attr(
        "diet",
        True,
        r"\bdiet\b|饮食",
        vegan=r"\bvegan\b|纯素",
        vegetarian=r"\b(?:vegetarian|veggie)\b|吃素|素食",
        pescatarian=r"\bpescatarian\b",
        meat=r"\b(?:eat(?:s|ing)? meat|meat-?eater|carnivore)\b|吃肉|荤",
        keto=r"\b(?:keto|low-?carb)\b|生酮|低碳水",
    ),
    _attr(
        "drink",
        False,
        r"\b(?:drinks?|beverages?)\b|饮料",
        coffee=r"\b(?:coffee|espresso)\b|咖啡",
        americano=r"\bamericanos?\b|美式",
        latte=r"\blattes?\b|拿铁",
        cappuccino=r"\bcappuccinos?\b|卡布奇诺",
        flat_white=r"\bflat whites?\b|澳白|馥芮白",
        tea=r"(?<!milk )(?<!bubble )(?<!green )(?<!black )\btea\b|(?<![奶红绿])(?<!乌龙)茶",
        green_tea=r"\bgreen tea\b|绿茶",
        black_tea=r"\bblack tea\b|红茶",
        oolong=r"\boolong\b|乌龙",
        milk_tea=r"\b(?:milk tea|bubble tea|boba)\b|奶茶",
    ),
    _attr(
        "job",
        False,
        r"\b(?:jobs?|employ(?:ed|er|ment)|unemployed)\b|工作(?!日)|失业|待业",
        employer=r"\b(?:work(?:s|ing|ed)? (?:at|for)|employed (?:at|by)|(?:job|position|role) at)\b|"
        r"在(?!家)[\u4e00-\u9fffA-Za-z0-9]{1,10}(?:做|工作|上班|任职|实习)",
    ),
    _attr(
        "study",
        False,
        r"\b(?:classes|courses?|school|college|universit(?:y|ies)|studying|semesters?|"
        r"enroll(?:ed|ing)?|enrolled)\b|上课|上学|读书|念书|学校|大学|课程|学院|读研",
    ),
    _attr(
        "commute",
        False,
        r"\bcommut\w*\b|通勤",
        bus=r"\bbus(?:es)?\b|公交",
        subway=r"\b(?:subway|metro|tube|train)\b|地铁",
        car=r"\bdriv(?:e|es|ing)\b|开车|自驾",
        bike=r"\b(?:bike|bikes|cycle)\b|骑车|自行车|电动车",
        walk=r"\bwalk(?:s|ing)?\b|走路|步行",
    ),
)


@dataclass(frozen=True)
class Mention:
    """What a statement says of one attribute: its general word, and which values it names."""

    attribute: Attribute
    general: bool
    values: frozenset[str]


def mentions(text: str) -> dict[str, Mention]:
    """The attributes a statement names, by name."""
    out = {}
    for a in ATTRIBUTES:
        if not a.named.search(text):
            continue
        values = frozenset(v for v, p in a.values if p.search(text))
        general = bool(a.general.search(text))
        if values or general:
            out[a.name] = Mention(a, general, values)
    return out


def names_any(text: str, names: Collection[str]) -> bool:
    """Whether text names one of these attributes: `names & mentions(text).keys()`, searching
    only the attributes asked about."""
    return any(a.named.search(text) for a in ATTRIBUTES if a.name in names)


def contradicts(old: str, new: str, *, switch: bool = False, nots_only: bool = False) -> bool:
    """Whether `new`, a change, states another value of an attribute `old` states (see the module
    docstring). `switch`: `new` says it switched (改喝, "switched to"), not only "now";
    `nots_only`: `new` is no change, only the end of a "not" counts (a predicate or a whole
    attribute negated in `old`)."""
    if flips(old, new):
        return True
    was, now = mentions(old), mentions(new)
    for name in was.keys() & now.keys():
        a, m_old, m_new = was[name].attribute, was[name], now[name]
        if negated(old) and not negated(new) and m_old.general and (m_new.values or m_new.general):
            return True  # "no pets" -> "adopted a cat", 不运动 -> 健身房
        if nots_only:
            continue
        differ = bool(m_old.values and m_new.values and m_new.values - m_old.values)
        if differ and not negated(new) and (a.exclusive or switch):
            return True  # single -> married; 美式 -> 改喝拿铁
        if switch and m_new.general and m_old.values and not negated(old):
            return True  # "I changed jobs" / 换工作了 after "I work at Acme" / 在华为做测试
    return False


_ZH_NEGATED = re.compile(
    r"(?:从来)?(?:不|没有|没)([\u4e00-\u9fff]{2,6}?)(?:了|的|过)?(?:[，,。！!；;]|$)"
)
_EN_NEGATED = re.compile(
    r"\b(?:don't|do not|doesn't|does not|didn't|never|can't|cannot|no longer)\s+([a-z ]{2,40}?)"
    r"(?:\s+(?:at all|anymore|any more|now))?\s*(?:[,.;!]|$)",
    _I,
)

_EN_NOT = re.compile(r"\b(?:not|no|never|nothing)\b|n't\b", _I)


def flips(old: str, new: str) -> bool:
    """One predicate negated in one statement and stated without negation in the other
    (我不吃辣 / 我现在能吃辣了, "I don't eat beef" / "I eat beef now")."""
    if negated(old) == negated(new):
        return False
    neg, pos = (old, new) if negated(old) else (new, old)
    if has_cjk(neg):
        m = _ZH_NEGATED.search(neg)
        return m is not None and m.group(1) in pos
    m = _EN_NEGATED.search(neg)
    if not m or _EN_NOT.search(m.group(1)):
        return False  # a "not" negated ("I don't see why not") says yes: no predicate is denied
    words = set(search_tokens(m.group(1), drop_stopwords=True))
    return bool(words) and words <= set(search_tokens(pos, drop_stopwords=True))
