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

Who and what a statement is about (its content words, its owner, one statement or several, a
judgement or a request) is `statement.py`.
"""

from __future__ import annotations

import re

from ..lang.text import has_cjk
from .statement import EN_SELF, QUESTION, ZH_SELF, said

_I = re.IGNORECASE

_EN_STRONG = re.compile(
    r"\b(?:no longer|any ?more|instead|after all(?=\s*(?:[,.;!?]|$))|turns? out|used to|not any longer|"
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
_EN_ADDITIVE = re.compile(r"\b(?:also|too|as well|in addition|another|still)\b", _I)
#: "now" of a mind catching up ("I remember now", "I see now") and "get started" (beginning a
#: task: "I hope this helps you get started") change no value
_EN_NOT_A_CHANGE = re.compile(
    r"\b(?:right now|just now|for now|now and then|every now|"
    r"(?:remember|recall|see|understand|realize|realise|know|get it) now|get(?:ting)? started)\b",
    _I,
)
#: how the speaker feels or what they now recall ("I feel better prepared now", 我现在感觉好多了,
#: 我现在想起来了): a state of mind, no value replaced, when only a weak marker (now, lately)
#: says it is new
_EN_FEELING = re.compile(r"\bi(?: feel| felt|'m feeling| am feeling)\b", _I)
_ZH_FEELING = re.compile(
    r"我[^，,。]{0,4}?(?:感觉|觉得|想起来|记起来|想起|明白|懂了|知道了|意识到)"
)

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
_ZH_ADDITIVE = re.compile(r"也|还|另外|另一")


#: a clause of what the speaker will or means to do: a plan changes nothing yet ("I think I'll
#: start with Breaking Bad", "I'm going to quit smoking", 我打算下个月搬到上海); a standing
#: decision does ("from now on I'll drink tea", 以后请叫我小王)
_EN_FUTURE = re.compile(
    r"\b(?:i|we)(?:'ll| will|'m going to| am going to|'re going to| are going to|'m gonna|"
    r" plan to|'m planning to| hope to| want to|'d like to| might| may)\b"
    # a claim says it in the third person: "The user will try them", "the user plans to"
    r"|\bthe user (?:will|is going to|plans to|is planning to|hopes to|wants to|would like to|"
    r"might|may)\b",
    _I,
)
#: a clause about another thing than the speaker, by its subject
_EN_OTHER_SUBJECT = re.compile(
    r"(?:it|it's|this|that|that's|there|there's|he|he's|she|she's|they|they're)\b", _I
)
#: a prediction about another thing ("hopefully, the colleague's behaviour won't affect me
#: anymore", 希望同事以后不会再影响我了): "won't", 不会, said of something not the speaker
_EN_PREDICTION = re.compile(r"\b(?:won't|will not|will no longer)\b", _I)
_EN_SPEAKER_SUBJECT = re.compile(r"\s*(?:\w+ly,?\s+)?(?:i|we|the user)\b", _I)
_ZH_PREDICTION = re.compile(r"不会")
_ZH_SPEAKER_SUBJECT = re.compile(r"\s*(?:希望|但愿|估计|可能|应该)?(?:我|用户)(?!的)")
_EN_STANDING = re.compile(r"\b(?:from now on|going forward|starting today)\b", _I)
_ZH_FUTURE = re.compile(r"打算|准备|计划|想要|将要|要去|明天|下周|下个月|下个星期|明年")
_ZH_STANDING = re.compile(r"以后|从今|今后")


def _done(text: str) -> str:
    """The statement without its clauses of plans (`_EN_FUTURE`, `_ZH_FUTURE`; kept when the
    statement is a standing decision) and of predictions about another thing."""
    cjk = has_cjk(text)
    future, standing, predicts, speaker = (
        (_ZH_FUTURE, _ZH_STANDING, _ZH_PREDICTION, _ZH_SPEAKER_SUBJECT)
        if cjk
        else (_EN_FUTURE, _EN_STANDING, _EN_PREDICTION, _EN_SPEAKER_SUBJECT)
    )
    if not (future.search(text) or predicts.search(text)):
        return text
    decided = bool(standing.search(text))

    def plan(clause: str) -> bool:
        if predicts.search(clause) and not speaker.match(clause):
            return True
        return not decided and bool(future.search(clause))

    clauses = re.split(r"[,.;!，。；！]+|\s+(?:but|and|so)\s+", text)
    if not any(plan(c) for c in clauses):
        return text
    return "，".join(c for c in clauses if c.strip() and not plan(c))


def states_change(text: str) -> bool:
    """Whether the statement says a value changed (see the module docstring). A question
    ("怎么换了？", "did you switch?") states nothing, nor does a plan ("I'll start with ...")."""
    text = said(text or "")
    if not text or QUESTION.search(text):
        return False
    text = _done(text)
    if not text:
        return False
    if has_cjk(text):
        if _ZH_STRONG.search(text):
            return True
        return bool(
            _ZH_WEAK.search(text)
            and ZH_SELF.search(text)
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
        and EN_SELF.search(text)
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
    if not text or QUESTION.search(text) or states_change(text):
        return False
    weak, self_ = (_ZH_WEAK, ZH_SELF) if has_cjk(text) else (_EN_WEAK, EN_SELF)
    return bool(weak.search(text) and self_.search(text) and additive(text))


def additive(text: str) -> bool:
    """The statement adds a value beside the ones before ("I also like tea", 我也喜欢茶)."""
    return bool((_ZH_ADDITIVE if has_cjk(text) else _EN_ADDITIVE).search(text)) and not (
        _ZH_STRONG if has_cjk(text) else _EN_STRONG
    ).search(text)
