"""Who and what a statement is about (issue 16, write path): the words a change and an old memory
must share, whose thing a statement speaks of, whether it is one statement or several, and
whether it only judges its thing or asks something of the assistant.

`about(text)` gives the words a statement is about (its content words without the change words),
`owner(text)` the noun after "my" / 我的 (my *son*'s school, 我*儿子*): two statements of
different owners are about different attributes even when they share a word ("name").
Whether a statement says that something changed is `change_grammar.py`.
"""

from __future__ import annotations

import re

from ..lang.text import STOPWORDS, has_cjk, search_tokens

_I = re.IGNORECASE

#: the speaker in the first person, English and Chinese
EN_SELF = re.compile(r"\b(?:i|i'm|i've|i'd|my|me|we|we're|we've|our|us)\b", _I)
ZH_SELF = re.compile(r"我|咱")
QUESTION = re.compile(r"[?？]\s*$|[吗呢么]\s*[。!！]?\s*$")
#: "林晓: ..." - the speaker of a logged turn, not part of what was said
_SPEAKER = re.compile(r"^[^:：\s]{1,24}[:：]\s*")


def said(text: str) -> str:
    """The words of a logged turn without its "speaker:" prefix."""
    return _SPEAKER.sub("", text.strip(), count=1)


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
    body = said(text)
    clauses = [c.strip() for c in re.split(r"[,.;!，。；！]+", body) if c.strip()]
    if not clauses:
        return False
    pattern = _ZH_JUDGEMENT if has_cjk(body) else _EN_JUDGEMENT
    return all(pattern.match(c) for c in clauses)


#: a number and its measure word (一只, 三次, 每周): says how many, not what (我养了一只狗 / 领养了一只猫)
_MEASURE = re.compile(
    r"^[一二两三四五六七八九十百千几半每这那某]+[只个条件家位本台辆次回天年月周份张双块篇首部间所种]$"
)


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
    if not text or QUESTION.search(text):
        return False
    return bool((_ZH_SELF_START if has_cjk(text) else _EN_SELF_START).match(text))


def about_a_thing(text: str) -> bool:
    """A statement about the speaker, or about a thing of theirs that names no person at all
    (钢琴课换到周日了, "The weekly meeting got moved to Wednesday"): a change may be said either way."""
    text = said(text)
    if about_self(text):
        return True
    if not text or QUESTION.search(text) or _SECOND_PERSON.search(text) or _REQUEST.match(text):
        return False
    if _ENDED_THEN_SELF.match(text):
        return True  # 闪电去世了，我们又养了一只兔子: a thing of theirs ended, then the speaker
    return not (ZH_SELF.search(text) if has_cjk(text) else EN_SELF.search(text))


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
