"""Does a statement say that something changed, and what is it about? (issue 16, write path)

The slot classifiers (`change_rules/`) cut a new value out of the phrasings they know. Many
changes name an attribute no classifier keys ("I moved my gym day to Thursdays", 钢琴课换到周日了),
so consolidation also reads the plain grammar of a change, in both languages:

- strong markers say a value changed by themselves: change verbs (switched, changed, moved,
  transferred, renamed, quit, stopped, gave up, left, replaced, sold; 改成 / 换成 / 换到 / 搬到 /
  跳槽 / 转学 / 辞职 / 戒), negated continuation ("no longer", "anymore", 不再, 已经不…了,
  不…了) and corrections ("instead", "after all", "turns out", 不算);
- weak markers say so only in a statement about the speaker (I / my / we, 我 / 我们): time words
  of the present ("now", "these days", "lately", 现在, 最近, 如今) and beginnings ("started",
  "became", "joined", 开始). "Work has been busy lately" describes the week, not the user.
- an additive word (also, too, as well, another, 也, 还) makes a weak-marked statement an
  addition, not a change: "I also like tea" leaves "I like coffee" alone.

`about(text)` gives the words a statement is about (its content words without the change words),
`owner(text)` the noun after "my" / 我的 (my *son*'s school, 我*儿子*): two statements of
different owners are about different attributes even when they share a word ("name").
"""

from __future__ import annotations

import re

from ..text import STOPWORDS, has_cjk, search_tokens

_I = re.IGNORECASE

_EN_STRONG = re.compile(
    r"\b(?:no longer|any ?more|instead|after all|turns? out|used to|not any longer|"
    r"switch(?:ed|ing)?|chang(?:ed|ing)|moved|relocated|transferr?ed|renamed|re-?named|quit|quitted|stopped|"
    r"gave up|given up|left|replaced|swapped|traded|sold|upgraded|converted|cancell?ed|closed|"
    r"broke up|divorced|retired|dropped out|handed in|got rid of|gave (?:\w+ ){1,4}away|"
    r"passed away|died)\b",
    _I,
)
_EN_WEAK = re.compile(
    r"\b(?:now|these days|nowadays|lately|currently|since last \w+|from now on|"
    r"start(?:ed|ing)?|began|became|become|joined|enrolled|took up|picked up|got (?:married|engaged|promoted)|"
    r"adopted|finished|graduated)\b",
    _I,
)
_EN_SELF = re.compile(r"\b(?:i|i'm|i've|i'd|my|me|we|we're|we've|our|us)\b", _I)
_EN_ADDITIVE = re.compile(r"\b(?:also|too|as well|in addition|another|still)\b", _I)
_EN_NOT_A_CHANGE = re.compile(r"\b(?:right now|just now|for now|now and then|every now)\b", _I)
#: how the speaker feels now ("I feel better prepared now", 我现在感觉好多了): a state of mind, no
#: value replaced, when only a weak marker (now, lately) says it is new
_EN_FEELING = re.compile(r"\bi(?: feel| felt|'m feeling| am feeling)\b", _I)
_ZH_FEELING = re.compile(r"我[^，,。]{0,4}?(?:感觉|觉得)")

_ZH_STRONG = re.compile(
    r"不再|再也不|改(?:成|为|到|用|喝|吃|做|学|坐|乘|骑|开|去|叫|名|了)|换(?:成|到|为|了|[\u4e00-\u9fff]{1,4}了)|"
    r"搬到|搬去|搬家|搬回|跳槽|辞职|离职|退了|"
    r"转学|转到|转岗|转行|调到|挪到|升职|升为|分手|离婚|戒掉|戒了|戒烟|戒酒|卖了|不算|已经不|"
    r"去世|过世|病逝|"
    # a bare 不X了 only for verbs of habit (不说了 / 不行了 say nothing changed)
    r"不(?:住|用|学|打|玩|当|做|吃|喝|抽|坐|开|画|弹|集|去|养|穿|跑|练|上)[\u4e00-\u9fff]{0,8}了"
)
_ZH_WEAK = re.compile(
    r"现在|如今|最近|这段时间|这阵子|近来|开始|以后|从今|后来|结婚|领养|入职|加入|当上|成了|变成"
)
_ZH_SELF = re.compile(r"我|咱")
_ZH_ADDITIVE = re.compile(r"也|还|另外|另一")

#: words of the change itself, not of what changed ("switched", 改成): left out of `about`
_CHANGE_WORDS = frozenset(
    search_tokens(
        "no longer anymore any more instead after all turns out used switch switched changed change moved "
        "move relocated transferred renamed quit stopped gave give given up left replaced swapped traded sold "
        "upgraded converted cancelled canceled closed broke retired dropped handed got now these days nowadays "
        "lately currently since last started start began became become joined enrolled took picked adopted "
        "finished graduated really actually again mostly just recently week month year ago yesterday today "
        "user ve ll re "
        "like likes love prefer use using go going get take make have having been being"
    )
) | frozenset(
    "不再 再也 改成 改为 改到 改用 改 换成 换到 换为 换 换了 搬到 搬去 搬家 搬回 跳槽 辞职 离职 转学 转到 调到 挪到 "
    "升职 分手 离婚 戒掉 戒 卖 不算 已经 现在 如今 最近 这段 时间 这段时间 开始 以后 后来 上个月 上周 去年 今年 "
    "昨天 前天 刚 刚刚 喜欢 用 去 每天 每周 说 想 做 很 挺 太 过 来 得 着 没 再 更 人 我们 用户 我换".split()
)

#: words of how the speaker stands to what they say (hope, want, 觉得) and pronouns that stand
#: for something said before (mine, themselves): "I'm reading a book and hoping it helps" is no
#: change of "I hope so, I want to open a dance studio"; what a change is about is its object
_STANCE_WORDS = frozenset(
    search_tokens(
        "hope hoping hoped wish wished want wanted wanting think thought feel felt feeling need "
        "needed try tried trying guess believe know knew mean meant seem seems seemed "
        "mine yours ours theirs hers myself yourself himself herself ourselves themselves "
        # what the speaker thinks of it: "It's really good!" is no change of "a good book"
        "good great nice bad awesome amazing cool fun lovely wonderful terrible awful"
    )
) | frozenset("希望 想要 觉得 认为 感觉 需要 知道 好像 似乎 自己 不错 很棒 厉害".split())

#: a judgement of a thing, not a value of it: "My new job is really good", 新公寓挺不错的
_EN_JUDGED = (
    r"good|great|nice|bad|awesome|amazing|cool|fun|lovely|wonderful|terrible|awful|fine|ok|okay|"
    r"better|worse|busy|hectic|long|short|hard|easy|tough|stressful|boring|interesting|exciting|"
    r"fantastic|brilliant|perfect|horrible|crazy|intense|chill|relaxed|quiet|noisy|expensive|cheap|"
    r"annoying|friendly|strict|kind|rude|nicer|slow|fast|loud|crowded|messy|tidy|cozy|cosy|tiny|"
    r"small|big|huge|exhausting|tiring|fulfilling|rewarding|demanding"
)
_EN_JUDGEMENT = re.compile(
    r"^(?:(?:my|our|his|her|their|the user's|the|this|that|it)\s+)?(?:new\s+|current\s+)?"
    r"(?:[\w'-]+\s+){0,3}?(?:is|are|was|were|isn't|aren't|wasn't|weren't|has been|have been|"
    r"feels?|seems?|looks?|'s|'re)\s+"
    r"(?:(?:really|very|so|pretty|quite|super|too|a bit|kind of|sort of|much|way|even|actually|"
    r"just|not|not that)\s+)*(?:" + _EN_JUDGED + r")(?:\s+(?:now|lately|these days|so far|too|"
    r"here|there|then))?$",
    _I,
)
_ZH_JUDGEMENT = re.compile(
    r"^(?:我的|我们的|我们|我)?(?:新的?)?[\u4e00-\u9fff]{0,6}?(?:现在|最近|目前|这阵子)?(?:也|还|都)?"
    r"(?:真|很|挺|非常|特别|太|超|蛮|有点|比较|不太|不)?"
    r"(?:好|不错|棒|很棒|忙|累|难|远|长|贵|便宜|轻松|舒服|有意思|无聊|辛苦|方便|麻烦|安静|吵)"
    r"(?:的|了|啊|呢|哦|呀)*$"
)


def judges_only(text: str) -> bool:
    """Whether every clause of the statement only judges its thing ("My new job is really good
    now, the team is great.", 新公寓现在挺不错的): it names no value that could replace an old
    one, so meaning alone links it to nothing it would retire."""
    body = _SPEAKER.sub("", text.strip())
    clauses = [c.strip() for c in re.split(r"[,.;!，。；！]+", body) if c.strip()]
    if not clauses:
        return False
    pattern = _ZH_JUDGEMENT if has_cjk(body) else _EN_JUDGEMENT
    return all(pattern.match(c) for c in clauses)


#: a number and its measure word (一只, 三次, 每周): says how many, not what (我养了一只狗 / 领养了一只猫)
_MEASURE = re.compile(
    r"^[一二两三四五六七八九十百千几半每这那某]+[只个条件家位本台辆次回天年月周份张双块篇首部间所种]$"
)

_QUESTION = re.compile(r"[?？]\s*$|[吗呢么]\s*[。!！]?\s*$")
#: "林晓: ..." - the speaker of a logged turn, not part of what was said
_SPEAKER = re.compile(r"^[^:：\s]{1,24}[:：]\s*")


def said(text: str) -> str:
    """The words of a logged turn without its "speaker:" prefix."""
    return _SPEAKER.sub("", text.strip(), count=1)


#: a clause of what the speaker will or means to do: a plan changes nothing yet ("I think I'll
#: start with Breaking Bad", "I'm going to quit smoking", 我打算下个月搬到上海); a standing
#: decision does ("from now on I'll drink tea", 以后请叫我小王)
_EN_FUTURE = re.compile(
    r"\b(?:i|we)(?:'ll| will|'m going to| am going to|'re going to| are going to|'m gonna|"
    r" plan to|'m planning to| hope to| want to|'d like to| might| may)\b",
    _I,
)
#: a clause about another thing than the speaker, by its subject
_EN_OTHER_SUBJECT = re.compile(
    r"(?:it|it's|this|that|that's|there|there's|he|he's|she|she's|they|they're)\b", _I
)
_EN_STANDING = re.compile(r"\b(?:from now on|going forward|starting today)\b", _I)
_ZH_FUTURE = re.compile(r"打算|准备|计划|想要|将要|要去|明天|下周|下个月|下个星期|明年")
_ZH_STANDING = re.compile(r"以后|从今|今后")


def _done(text: str) -> str:
    """The statement without its clauses of plans (`_EN_FUTURE`, `_ZH_FUTURE`)."""
    cjk = has_cjk(text)
    future, standing = (_ZH_FUTURE, _ZH_STANDING) if cjk else (_EN_FUTURE, _EN_STANDING)
    if not future.search(text) or standing.search(text):
        return text
    clauses = re.split(r"[,.;!，。；！]+|\s+(?:but|and|so)\s+", text)
    return "，".join(c for c in clauses if c.strip() and not future.search(c))


def states_change(text: str) -> bool:
    """Whether the statement says a value changed (see the module docstring). A question
    ("怎么换了？", "did you switch?") states nothing, nor does a plan ("I'll start with ...")."""
    text = said(text or "")
    if not text or _QUESTION.search(text):
        return False
    text = _done(text)
    if not text:
        return False
    if has_cjk(text):
        if _ZH_STRONG.search(text):
            return True
        return bool(
            _ZH_WEAK.search(text)
            and _ZH_SELF.search(text)
            and not _ZH_ADDITIVE.search(text)
            and not _ZH_FEELING.search(text)
        )
    text = _EN_NOT_A_CHANGE.sub(" ", text)
    if _EN_STRONG.search(text):
        return True
    # a weak marker speaks of the speaker only in a clause whose subject is not another thing:
    # "... and it's become a highlight of my week" is news of the week, not of a value
    weak = any(
        _EN_WEAK.search(c) and not _EN_OTHER_SUBJECT.match(c.strip())
        for c in re.split(r"[,.;!]+|\s+(?:and|but|so)\s+", text)
    )
    return bool(
        weak
        and _EN_SELF.search(text)
        and not _EN_ADDITIVE.search(text)
        and not _EN_FEELING.search(text)
    )


#: how long something has lasted: "for about four months (now)", "for just under a year", "two
#: years now", "since 2019", "five years ago", 三年了, 学了两个月, 已经半年; a count and a unit of
#: time, not a time of day ("at 7 now", 七点)
_EN_COUNT = r"(?:\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several|many)"
_EN_LASTING = re.compile(
    r"\bfor\s+(?:(?:about|almost|nearly|over|around|more than|just under|just over|the past|"
    rf"the last)\s+)?{_EN_COUNT}\s+(?:days?|weeks?|months?|years?|decades?)\b"
    rf"|\b{_EN_COUNT}\s+(?:days?|weeks?|months?|years?|decades?)\s+(?:now|already|ago)\b"
    r"|\bsince\s+(?:\d{4}|i was|we were|childhood|high school|college)\b|\bfor a (?:while|long time)\b",
    _I,
)
_ZH_LASTING = re.compile(
    r"(?:\d{1,3}|[一二两三四五六七八九十几半]{1,3})(?:个)?(?:多)?(?:天|星期|礼拜|周|月|年)(?:多)?(?:了|以来|之久)"
    r"|已经(?:\d{1,3}|[一二两三四五六七八九十几半]{1,3})(?:个)?(?:天|星期|礼拜|周|月|年)"
    r"|(?:从小|多年来|这些年|一直)"
)


#: an activity in progress: "I'm currently reading a novel", 我最近在读一本小说; not a state
#: one holds until it is replaced ("I'm now living in Seattle", "I'm working at Acme now"), nor
#: a change told in the progressive ("I'm moving to Berlin", "I'm starting a new job")
_EN_IN_PROGRESS = re.compile(
    r"\b(?:i'm|i am|we're|we are|he's|she's|they're|is|are)\s+(?:currently|now|still|also|"
    r"just|really|actually|lately)?\s*(?!(?:living|staying|residing|working|dating|using|driving|"
    r"moving|relocating|starting|leaving|quitting|joining|retiring|becoming|going to|getting)\b)"
    r"[a-z]{3,}ing\b",
    _I,
)
_ZH_IN_PROGRESS = re.compile(
    r"正在|(?:现在|最近|目前|这阵子)(?:都)?在(?:读|看|学|写|练|听|玩|准备|研究|追)"
)


def _weak_only(text: str) -> str | None:
    """The words of a statement that reads as a change only by a weak marker (a time word of the
    present, a beginning: now, currently, started, 最近), else None."""
    text = said(text or "").replace("’", "'")
    strong = _ZH_STRONG if has_cjk(text) else _EN_STRONG
    return text if states_change(text) and not strong.search(text) else None


def in_progress(text: str) -> bool:
    """The statement reads as a change only by a weak marker (`_weak_only`) and says what the
    speaker is doing ("I'm currently reading a fantasy novel", 我最近在读科幻小说): news of an
    activity, not of a value it replaced, so only what contradicts it by attribute is evidence
    of a change ("I like fantasy stories" stays)."""
    words = _weak_only(text)
    pattern = _ZH_IN_PROGRESS if words and has_cjk(words) else _EN_IN_PROGRESS
    return words is not None and bool(pattern.search(words))


def only_lasting(text: str) -> bool:
    """The statement reads as a change only by a weak marker (a time word of the present, a
    beginning) and says how long its state has lasted ("I've been playing for about four
    months now", "I started playing guitar about five years ago", 我学钢琴三年了): a state that
    has held that long is news of what holds, not of a value it just replaced, so only what
    contradicts it by attribute (`extract.attributes`) is evidence of a value it ended."""
    words = _weak_only(text)
    pattern = _ZH_LASTING if words and has_cjk(words) else _EN_LASTING
    return words is not None and bool(pattern.search(words))


_EN_SWITCH = re.compile(
    r"\b(?:switch(?:ed|ing)?|chang(?:ed|ing) (?:to|over)|moved (?:over )?to|swapped|traded|"
    r"replaced|instead|prefer(?:s|red)? .{1,30} (?:now|these days|nowadays)|"
    r"(?:now|these days|nowadays),? i prefer|(?:changed|switched) jobs|new job)\b",
    _I,
)
_ZH_SWITCH = re.compile(
    r"改(?:成|为|到|用|喝|吃|坐|乘|骑|开|学|养)|换(?:成|到|为|了|[\u4e00-\u9fff]{1,3}了)|转(?:到|成|为)|"
    r"跳槽|更(?:喜欢|爱)"
)


#: the value a change says it left: "Linux instead of Windows", "switched from Chrome to
#: Firefox", 用Linux而不是Windows, 从美式换成了拿铁
_EN_REPLACED = re.compile(
    r"\b(?:instead of|rather than)\s+(?P<v>[^,.;!?]{2,40}?)\s*(?:$|[,.;!?]|\b(?:now|these days)\b)|"
    r"\b(?:switch(?:ed)?|chang(?:ed)?|mov(?:ed)?|went|convert(?:ed)?)\s+(?:over\s+)?from\s+"
    r"(?P<f>[^,.;!?]{2,40}?)\s+to\b",
    _I,
)
_ZH_REPLACED = re.compile(
    r"(?:而不是|不再是|不再用|不用)(?P<v>[^，,。；;！!了]{1,12})|"
    r"从(?P<f>[^，,。；;！!]{1,12}?)(?:换成|换到|改成|改为|改用|转到|跳槽到)"
)


def replaced(text: str) -> str | None:
    """The value a statement says it left for another, when it names it; else None."""
    body = said(text)
    m = (_ZH_REPLACED if has_cjk(body) else _EN_REPLACED).search(body)
    if not m:
        return None
    value = (m.group("v") or m.group("f") or "").strip()
    return value or None


def switches(text: str) -> bool:
    """The statement says one value took another's place (改喝拿铁, "switched to oat milk", a
    preference "these days" / 更喜欢), not only that something holds now: then two values of an
    attribute that add up (drinks, pets) contradict each other too
    (`extract.attributes.contradicts`)."""
    text = said(text or "")
    return bool((_ZH_SWITCH if has_cjk(text) else _EN_SWITCH).search(text))


def now_also(text: str) -> bool:
    """ "Now also" (我现在也吃牛肉了, "I eat beef now too"): a value added now. Not a change of the
    values before it, but the end of a "not" said before (不吃牛肉), which consolidation retires
    when the two are one predicate (`extract.attributes.flips`)."""
    text = said(text or "")
    if not text or _QUESTION.search(text) or states_change(text):
        return False
    weak, self_ = (_ZH_WEAK, _ZH_SELF) if has_cjk(text) else (_EN_WEAK, _EN_SELF)
    return bool(weak.search(text) and self_.search(text) and additive(text))


def additive(text: str) -> bool:
    """The statement adds a value beside the ones before ("I also like tea", 我也喜欢茶)."""
    return bool((_ZH_ADDITIVE if has_cjk(text) else _EN_ADDITIVE).search(text)) and not (
        _ZH_STRONG if has_cjk(text) else _EN_STRONG
    ).search(text)


def about(text: str, names: tuple[str, ...] = ()) -> frozenset[str]:
    """The content words a statement is about: search tokens without stopwords, change words and
    the speakers' names (a Chinese verb keeps its object: 改喝 -> 喝, 不运动 -> 运动)."""
    out = set()
    text = said(text)
    for name in names:
        text = text.replace(name, " ")
    for t in search_tokens(text, drop_stopwords=True):
        if has_cjk(t) and len(t) >= 2 and t[0] in "改换不没":
            t = t[1:]
        if (
            t not in _CHANGE_WORDS
            and t not in _STANCE_WORDS
            and t not in STOPWORDS
            and not _MEASURE.match(t)
            and (len(t) > 1 or has_cjk(t))
            and not t.isdigit()
        ):
            out.add(t)
    return frozenset(out)


def share(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two statements share a content word of two or more characters, also when one holds the
    other (周会 in 开周会: the segmenter cuts the same word differently in context)."""
    if any(
        len(t) > 1 for t in a & b
    ):  # one Chinese character (好, 了) is too common to name a thing
        return True
    long_a = [t for t in a if has_cjk(t) and len(t) >= 2]
    long_b = [t for t in b if has_cjk(t) and len(t) >= 2]
    return any(x in y or y in x for x in long_a for y in long_b)


#: a claim in the third person names the owner the same way ("The user's sister", 用户的姐姐)
#: owners that are someone else: their statements are never the speaker's own attribute
_EN_OTHERS = (
    r"son|daughter|kids?|child(?:ren)?|wife|husband|partner|mom|mother|dad|father|brother|sister|"
    r"friend|colleague|roommate|neighbou?r|boyfriend|girlfriend|boss|manager|dog|cat|pet"
)
_EN_OWNER = re.compile(
    rf"\b(?:my|our)\s+(?:new\s+|old\s+)?([a-z]+)(?:'s)?|\bthe user's\s+({_EN_OTHERS})\b", _I
)
_ZH_OWNER = re.compile(
    r"(?:我(?:们)?|用户)(?:的|家的?)?(儿子|女儿|孩子|妻子|老婆|丈夫|老公|妈妈|爸爸|母亲|父亲|哥哥|姐姐|弟弟|妹妹|"
    r"朋友|同事|室友|邻居|男朋友|女朋友|狗|猫|宠物)"
)


def someone_else(who: str) -> bool:
    """An owner that is a person or a pet (my sister, 我女儿), not a thing (my car, 我的手机)."""
    return bool(who) and bool(re.fullmatch(_EN_OTHERS, who, _I) or _ZH_OWNER.fullmatch(f"我{who}"))


def owner(text: str) -> str:
    """The noun after "my" (my son's school: "son"; 我儿子: 儿子), "" when none."""
    text = said(text)
    m = (_ZH_OWNER if has_cjk(text) else _EN_OWNER).search(text)
    return next((g.lower() for g in m.groups() if g), "") if m else ""


#: the speaker as the subject: at most a few words before it (这段时间我, 现在周末我, 以后请叫我), no
#: comma (姐，我... / 哈哈，记得给我... address someone first), no other person
_ZH_SELF_START = re.compile(r"^[^，,。！!？?；;你您他她]{0,6}?(?:我|咱)")
_EN_SELF_START = re.compile(
    r"^(?:(?:now|these days|lately|nowadays|so|and|actually|well)[,\s]+)*"
    r"(?:[A-Z]\w+ and )?(?:i|i'm|i've|i'd|my|we|we're|we've|our)\b",
    _I,
)
_SECOND_PERSON = re.compile(r"你|您|\byou\b|\byour\b", _I)


def about_self(text: str) -> bool:
    """A statement whose subject is the speaker ("I moved ...", "My car is ...", 我周六上钢琴课),
    not a question: what a change can retire, and what can state a new value of an attribute.
    Chat lines that only mention the speaker ("姐，我打算买车了", "哈哈，记得给我...") are not."""
    text = said(text)
    if not text or _QUESTION.search(text):
        return False
    return bool((_ZH_SELF_START if has_cjk(text) else _EN_SELF_START).match(text))


def about_a_thing(text: str) -> bool:
    """A statement about the speaker, or about a thing of theirs that names no person at all
    (钢琴课换到周日了, "The weekly meeting got moved to Wednesday"): a change may be said either way."""
    text = said(text)
    if about_self(text):
        return True
    if not text or _QUESTION.search(text) or _SECOND_PERSON.search(text) or _REQUEST.match(text):
        return False
    if _ENDED_THEN_SELF.match(text):
        return True  # 闪电去世了，我们又养了一只兔子: a thing of theirs ended, then the speaker
    return not (_ZH_SELF.search(text) if has_cjk(text) else _EN_SELF.search(text))


#: a request to the assistant that speaks of no person ("compare the nutrition of the converted
#: recipe to the original", "rewrite it, but instead of ..."): what it asks for is no change of
#: the speaker's things. Verbs of editing a value ("change my address to ...") are left out: a
#: user may ask that of their memory
_REQUEST = re.compile(
    r"^(?:please\s+)?(?:compare|rewrite|write|make|give|tell|list|show|convert|explain|"
    r"summari[sz]e|translate|create|generate|describe|add|remove|fix|find|suggest|recommend|"
    r"provide|calculate|draft|edit|shorten|expand|format|check)\b",
    _I,
)


#: a first clause that says a thing of the speaker's ended (a pet, a plan), then the speaker
_ENDED_THEN_SELF = re.compile(
    r"^[^，,。！!？?你您他她我]{1,12}(?:去世|过世|病逝)了?[，,]\s*(?:我|咱)|"
    r"^(?![^,;]*\b(?:he|she|his|her|they|their|them)\b)[A-Z][\w ]{0,30}\b(?:passed away|died)\b"
    r"[^,.;]*[,;]\s*(?:and )?(?:i|we)\b",
    _I,
)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[。！？!?；;])|(?<=\.)\s+", text) if s.strip()]


def single_statement(text: str) -> bool:
    """A short utterance that states one thing: a change can retire it as a whole. A long turn
    that says several things stays (retiring it would take the other things with it)."""
    text = said(text)
    size = len(re.sub(r"\s", "", text)) if has_cjk(text) else len(text.split())
    return len(_sentences(text)) <= 2 and size <= (40 if has_cjk(text) else 24)


def one_sentence(text: str) -> bool:
    """A single statement of one sentence: the only kind whose meaning alone (its clear semantic
    neighbour, no shared word, no attribute) may say which memory it changed ("I'm now living
    in Seattle"); a second sentence says something more ("Lately I've been stumped. Don't feel
    like I'm making an impact"), and the neighbour of the whole is no evidence of either."""
    return single_statement(text) and len(_sentences(said(text))) == 1
