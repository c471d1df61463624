"""The kind of task a request asks for: its verb and the head of its object.

"Deploy the site to production", "can you deploy the site again?" and "how do I deploy the
site" are one kind (deploy · site); 帮我把网站部署到服务器上, 再帮我部署一下网站 and 怎么部署网站
are one kind (部署 · 网站). The kind follows the grammar of a request, not a list of tasks: the
words that frame a request (please, can you, 帮我, 再, 一下) are left out, the first content word
is the verb, and the object is the noun phrase after it up to a preposition or the end (Chinese
also fronts it with 把). Its head is the phrase's last word ("the staging site" -> site,
新版本 -> 版本). A request whose object is a question word ("what should I have for lunch",
中午吃什么) asks for information, not a task: it has no kind. The function words are data, one
table per language (`EN`, `ZH`), read by the two parsers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from collections.abc import Sequence

from ..text import _jieba, has_cjk, stem
from ..types import MemoryType

# ruff: noqa: SIM905  (word lists read best as one string)


@dataclass(frozen=True)
class TaskKind:
    """A kind of task: a verb and the head of its object ("" when the request names none, as
    in "deploy it again" or 再部署一次)."""

    verb: str
    obj: str = ""

    @property
    def key(self) -> str:
        """The kind as a procedure's subject: "deploy site", "部署 网站"."""
        return f"{self.verb} {self.obj}".strip()

    @classmethod
    def from_key(cls, key: str) -> "TaskKind | None":
        """The kind a procedure's subject names (the inverse of `key`)."""
        parts = (key or "").split()
        if not parts:
            return None
        return cls(parts[0], parts[1] if len(parts) > 1 else "")

    def same_task(self, other: "TaskKind") -> bool:
        """Same verb, and the same object head (an absent or pronoun object matches any)."""
        if _norm(self.verb) != _norm(other.verb):
            return False
        return not self.obj or not other.obj or _norm(self.obj) == _norm(other.obj)


def _norm(word: str) -> str:
    return "+".join(stem(w) for w in word.lower().split("+"))


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: English: what frames a request (politeness, modals, "help me", "let's", adverbs of repetition),
#: question words that make a request a question for information, the determiners and pronouns
#: before (or instead of) an object, the words that end an object phrase, and verb particles
EN = {
    "frame": _words(
        """please pls kindly can could would will you u just now again also then so ok okay hey
        hi go ahead and let let's lets us me help i we need want like to i'd id we'd should must
        have has had try quickly quick once more one more time first next how do does did
        to"""
    ),
    "ask": _words("what where when who whom whose which why whether"),
    "det": _words(
        """the a an my our your their his her its this that these those some any all new same
        old current"""
    ),
    "pronoun": _words("it them that this everything something one"),
    "end": _words(
        """to on in for with from at again now please and then so but because once like as
        before after into onto using via by today tonight tomorrow later first too also, while
        if when"""
    ),
    "particle": _words("up down out off back over"),
    #: a sentence that starts with one of these, or whose second word is a verb of being or
    #: having, states something ("it failed again", "the site is down"): no request
    "subject": _words("it they he she there"),
    "be": _words(
        """is are was were be been being has have had does did doesn't isn't aren't wasn't won't
        can't keeps kept seems"""
    ),
}
#: endings of base-form English verbs that end in s (process, focus)
_BASE_S = ("ss", "us", "is")

#: Chinese: the words that frame a request (请, 帮我, 麻烦, 能不能, 再, 一下), the question words, the
#: words that end an object phrase (到, 在, 给 after the object; particles and punctuation), the
#: marker that fronts an object (把, 将), and jieba's part-of-speech classes that never head a
#: verb or an object (adverb, pronoun, time word, numeral, particle, auxiliary, conjunction)
ZH = {
    "frame": _words(
        """请 帮 帮忙 帮我 替 替我 给我 麻烦 麻烦你 能 能不能 可以 可不可以 会 要 想 需要 让 你 我
        我们 咱们 再 再次 又 重新 还 还是 一下 一次 下 了 吧 呢 吗 啊 怎么 如何 怎样 去 来 试试
        试着 赶紧 马上 现在 先 然后 顺便 一起 继续"""
    ),
    "ask": _words("什么 啥 哪 哪个 哪些 哪里 哪儿 谁 几 多少 为什么 为啥"),
    "end": _words(
        "到 在 给 上 里 中 于 至 往 向 从 用 以 和 并 并且 然后 的话 之后 以后 之前 以前 前"
    ),
    "front": _words("把 将"),
    "skip_pos": frozenset(
        {"d", "r", "t", "m", "mq", "q", "y", "u", "uj", "ul", "uz", "c", "e", "x", "w"}
    ),
    "modifier_pos": frozenset({"a", "ad", "an", "b", "m", "mq", "q", "uj", "u"}),
}

_ENVELOPE = re.compile(r"^\[[^\]\n]{0,80}\]\s*")
_EN_WORD = re.compile(r"[a-z][a-z0-9_\-']*|[,.;!?]")
_ZH_STOP = frozenset("，。！？；,.!?;：:")


def task_kind(request: str) -> TaskKind | None:
    """The kind of task a request asks for, or None when it asks for none."""
    # a host's envelope before the text ("[Mon 2026-12-07 09:00 UTC] deploy the site") says when
    text = _ENVELOPE.sub("", (request or "").strip())
    if not text:
        return None
    return _zh_kind(text) if has_cjk(text) else _en_kind(text)


def tool_kind(tool: str) -> TaskKind | None:
    """A kind read from a tool's name when the request gave none: names are usually verb and
    object ("deploy_site", "run-tests", "git.push" -> push)."""
    parts = [p for p in re.split(r"[_\-.\s/:]+", (tool or "").lower()) if p.isalpha()]
    if not parts:
        return None
    return TaskKind(parts[0], parts[-1] if len(parts) > 1 else "")


# ---- English -------------------------------------------------------------------------------


def _en_kind(text: str) -> TaskKind | None:
    first = re.split(r"[.!?;\n]", text.lower(), maxsplit=1)[0]
    words = [w.strip("'") for w in _EN_WORD.findall(first)]
    i = 0
    while i < len(words) and (words[i] in EN["frame"] or words[i] in EN["det"]):
        i += 1
    if i >= len(words) or words[i] in EN["ask"] or not words[i].isalpha():
        return None
    if any(w in EN["ask"] for w in words[:i]):
        return None  # "what can you do": a question word before the verb
    verb = words[i]
    if verb in EN["subject"] or (i + 1 < len(words) and words[i + 1] in EN["be"]):
        return None
    if _third_person(verb):
        return None  # "likes it quiet", "runs the tests": a statement about someone, no request
    i += 1
    if i < len(words) and words[i] in EN["particle"]:
        verb, i = f"{verb}+{words[i]}", i + 1
    phrase: list[str] = []
    for w in words[i:]:
        if w in EN["end"] or not w[0].isalpha():
            break
        if w in EN["ask"]:
            return None
        if w in EN["det"] and not phrase:
            continue
        if w in EN["pronoun"] and not phrase:
            break  # "deploy it again": the object is a pronoun, the kind names none
        phrase.append(w)
    if phrase and phrase[-1] in EN["pronoun"]:
        phrase = []
    return TaskKind(verb, phrase[-1] if phrase else "")


def _third_person(verb: str) -> bool:
    """A verb in its third-person form (-s, not -ss/-us/-is): a request uses the base form."""
    return verb.endswith("s") and not verb.endswith(_BASE_S)


# ---- Chinese -------------------------------------------------------------------------------


def _zh_tokens(text: str) -> list[tuple[str, str]]:
    _jieba()  # the dictionary loaded once, with the package's words
    import jieba.posseg as pseg

    first = re.split(r"[。！？!?；;\n]", text, maxsplit=1)[0]
    return [(w.word, w.flag) for w in pseg.lcut(first) if w.word.strip()]


def _content(word: str, flag: str) -> bool:
    return word not in ZH["frame"] and flag not in ZH["skip_pos"] and word not in _ZH_STOP


def _zh_kind(text: str) -> TaskKind | None:
    tokens = _zh_tokens(text)
    if any(w in ZH["ask"] for w, _ in tokens):
        return None
    fronted = next((i for i, (w, _) in enumerate(tokens) if w in ZH["front"]), None)
    if fronted is not None:
        # 把 X V: the span after 把 holds the object and then the verb, its last content word
        span = [t for t in _zh_span(tokens[fronted + 1 :]) if _content(*t)]
        if not span:
            return None
        return TaskKind(span[-1][0], _zh_head(span[:-1]))
    start = next((i for i, (w, f) in enumerate(tokens) if _content(w, f)), None)
    if start is None:
        return None
    return TaskKind(tokens[start][0], _zh_head(_zh_span(tokens[start + 1 :], skip=True)))


def _zh_span(tokens: list[tuple[str, str]], *, skip: bool = False) -> list[tuple[str, str]]:
    """The words at the front of tokens up to one that ends a phrase (a preposition after the
    object, a particle, punctuation); with skip, the framing words inside (一下) are passed over
    instead of ending it."""
    span: list[tuple[str, str]] = []
    for w, f in tokens:
        if w in ZH["end"] or w in _ZH_STOP or f in ("y", "w", "x", "c"):
            break
        if w in ZH["frame"] and not skip:
            break
        span.append((w, f))
    return span


def _zh_head(phrase: list[tuple[str, str]]) -> str:
    content = [w for w, f in phrase if _content(w, f) and f not in ZH["modifier_pos"]]
    return content[-1] if content else ""


def stated_procedure(
    subject: str | None, text: str, tags: Sequence[str]
) -> tuple[MemoryType, str | None, tuple[str, ...]]:
    """A procedure the user stated (the LLM chain's "procedure" items): keyed by the kind of task
    its subject (or else its text) names, and a working one unless tagged "failed"; without a
    kind (a verb and its object) it is kept as a fact under its subject."""
    kind = next((k for k in (task_kind(subject or ""), task_kind(text)) if k and k.obj), None)
    if kind is None:
        return MemoryType.FACT, subject, tuple(tags)
    state = "failed" if "failed" in tags else "worked"
    return MemoryType.PROCEDURE, kind.key, tuple(dict.fromkeys(("procedure", state, *tags)))


__all__ = ["TaskKind", "stated_procedure", "task_kind", "tool_kind"]
