"""Hard filter rules that run before extraction: contentless turns are not logged at all.

A turn is contentless when, once punctuation, emoji and filler particles are gone, nothing is
left, or every clause is a greeting, a thanks, an acknowledgement or a laugh ("好的，谢谢！",
"ok thanks 👍", "嗯嗯"). Anything with a fact in it, however short, is kept.
"""

# ruff: noqa: SIM905  (word lists read best as one string)

from __future__ import annotations

import re
import unicodedata

_PHRASES = frozenset(
    """hi hello hey hiya yo morning evening night bye goodbye cya thanks thank thx ty tks
    cheers ok okay k kk sure yes yeah yep yup no nope nah cool great nice good fine alright
    awesome perfect right lol lmao haha hehe wow oh ah hmm um uh gotcha noted understood
    welcome
    你好 您好 哈喽 嗨 早 早安 早上好 中午好 下午好 晚上好 晚安 拜拜 再见 回见 谢谢 谢谢你 谢谢您
    多谢 感谢 辛苦了 辛苦 好的 好 好滴 好嘞 好吧 嗯 嗯嗯 哦 噢 喔 嗯呢 对 对的 是的 是 行 可以
    没问题 收到 明白 明白了 了解 知道了 懂了 ok了 好了 不客气 没事 没关系 哈哈 呵呵 嘿嘿 厉害 棒
    赞 牛 不错 太好了 真棒 好的呢 好哒 谢啦 谢了 感谢感谢 ok的
    有帮助 很有帮助 太有帮助了 这个很有帮助 这很有帮助 很有用 帮大忙了""".split()
)
_MULTIWORD = (
    "thank you",
    "thanks a lot",
    "thank you so much",
    "thanks so much",
    "good morning",
    "good night",
    "good evening",
    "good afternoon",
    "see you",
    "see ya",
    "got it",
    "sounds good",
    "no problem",
    "all right",
    "you're welcome",
    "never mind",
    "ok thanks",
    "okay thanks",
    "ok thank you",
    "makes sense",
    # praise of the last answer: a thanks in other words ("Thanks, that was helpful!")
    "that was helpful",
    "that's helpful",
    "that is helpful",
    "this is helpful",
    "this was helpful",
    "very helpful",
    "really helpful",
    "super helpful",
    "so helpful",
    "that helps",
)
_CLAUSE = re.compile(r"[,，。.!！?？~～;；、\s]+")
_LAUGH = re.compile(r"^(?:(?:ha)+h?|(?:he)+|(?:哈)+|(?:呵)+|(?:嘿)+|(?:嘻)+|(?:lo)+l|233+)$")
_PARTICLES = "啊呀啦哦吧呢嘛哈~"
_STACKABLE = sorted(_PHRASES, key=len, reverse=True)


def _is_symbolic(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat[0] in "PSZC" or cat == "Mn"  # punctuation, symbols (emoji), spaces, controls


def _clause_is_filler(clause: str) -> bool:
    c = clause.strip().lower()
    if not c:
        return True
    stripped = c.rstrip(_PARTICLES) or c
    if c in _PHRASES or stripped in _PHRASES or c in _MULTIWORD or _LAUGH.match(c):
        return True
    # Stacked acknowledgements without punctuation: "好的谢谢", "嗯好的", "ok收到".
    for phrase in _STACKABLE:
        if c.startswith(phrase) and _clause_is_filler(c[len(phrase) :]):
            return True
    return False


def is_contentless(text: str) -> bool:
    """True for greetings, thanks, acknowledgements, laughs, emoji-only and near-empty texts."""
    meaningful = "".join(ch for ch in text if not _is_symbolic(ch))
    if len(meaningful.strip()) < 2:
        return True
    lowered = text.lower().strip()
    for phrase in sorted(_MULTIWORD, key=len, reverse=True):  # they span spaces the split would cut
        lowered = lowered.replace(phrase, " thanks ")
    clauses = [c for c in _CLAUSE.split(lowered) if c]
    words = [w for c in clauses for w in ([c] if not c.isascii() else c.split())]
    clean = ["".join(ch for ch in w if not _is_symbolic(ch)) for w in words]
    return all(_clause_is_filler(w) for w in clean)
