"""Procedural memory: how a kind of task was done, from the tool calls that did it.

The kind of task a request asks for (its verb and the head of its object), and recall of
procedures by that kind and by nothing else.
"""

from __future__ import annotations

import re
import dataclasses
from dataclasses import dataclass
from collections.abc import Callable, Sequence
from ..lang import Languages, all_on
from ..lang.pack import Table
from ..lang.text import _jieba, stem
from ..types import MemoryType, MemoryRecord, ScoredMemory, Scope
from ..store.ports import StageStore


__all__ = [
    "TaskKind",
    "stated_procedure",
    "task_kind",
    "tool_kind",
    "MAX_PROCEDURES",
    "ProcedureRecall",
]

# Procedural memory: how a kind of task was done, from the tool calls that did it.
#
# kind.py         the kind of task a request asks for (its verb and object head), both languages
# distil.py       a task's tool calls -> one procedure candidate (steps, failure, fix)
# tracker.py      the open tasks of each session, and when a procedure is written
# consolidate.py  one live procedure per kind: restate, supersede a failed one, keep a working one
# recall.py       the procedures of the request's kind, and no other, for the block's section


# The kind of task a request asks for: its verb and the head of its object.
#
# "Deploy the site to production", "can you deploy the site again?" and "how do I deploy the
# site" are one kind (deploy · site); 帮我把网站部署到服务器上, 再帮我部署一下网站 and 怎么部署网站
# are one kind (部署 · 网站). The kind follows the grammar of a request, not a list of tasks: the
# words that frame a request (please, can you, 帮我, 再, 一下) are left out, the first content word
# is the verb, and the object is the noun phrase after it up to a preposition or the end (Chinese
# also fronts it with 把). Its head is the phrase's last word ("the staging site" -> site,
# 新版本 -> 版本). A request whose object is a question word ("what should I have for lunch",
# 中午吃什么) asks for information, not a task: it has no kind. The function words are data, each
# language's `kind` table (`lang/<code>/kind.yaml`), which names the parser that reads it: words in
# order (English) or jieba's parts of speech (Chinese). A language without one has no kinds.


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


_ENVELOPE = re.compile(r"^\[[^\]\n]{0,80}\]\s*")


def task_kind(request: str, langs: Languages | None = None) -> TaskKind | None:
    """The kind of task a request asks for, or None when it asks for none (or its language has
    no `kind` table)."""
    # a host's envelope before the text ("[Mon 2026-12-07 09:00 UTC] deploy the site") says when
    text = _ENVELOPE.sub("", (request or "").strip())
    if not text:
        return None
    table = (langs or all_on()).of(text).table("kind")
    parser = _PARSERS.get(str(table.settings.get("parser")))
    return parser(text, table) if parser else None


def tool_kind(tool: str) -> TaskKind | None:
    """A kind read from a tool's name when the request gave none: names are usually verb and
    object ("deploy_site", "run-tests", "git.push" -> push)."""
    parts = [p for p in re.split(r"[_\-.\s/:]+", (tool or "").lower()) if p.isalpha()]
    if not parts:
        return None
    return TaskKind(parts[0], parts[-1] if len(parts) > 1 else "")


# ---- words in order (English) -------------------------------------------------------------


def _word_kind(text: str, table: Table) -> TaskKind | None:
    frame, det, ask = (table.entry(k).wordset for k in ("frame", "det", "ask"))
    pronoun, end = table.entry("pronoun").wordset, table.entry("end").wordset
    first = table.entry("sentence_end").pattern.split(text.lower(), maxsplit=1)[0]
    words = [w.strip("'") for w in table.entry("word").pattern.findall(first)]
    i = 0
    while i < len(words) and (words[i] in frame or words[i] in det):
        i += 1
    if i >= len(words) or words[i] in ask or not words[i].isalpha():
        return None
    if any(w in ask for w in words[:i]):
        return None  # "what can you do": a question word before the verb
    verb = words[i]
    if verb in table.entry("subject").wordset or (
        i + 1 < len(words) and words[i + 1] in table.entry("be").wordset
    ):
        return None
    if _third_person(verb, table):
        return None  # "likes it quiet", "runs the tests": a statement about someone, no request
    i += 1
    if i < len(words) and words[i] in table.entry("particle").wordset:
        verb, i = f"{verb}+{words[i]}", i + 1
    phrase: list[str] = []
    for w in words[i:]:
        if w in end or not w[0].isalpha():
            break
        if w in ask:
            return None
        if w in det and not phrase:
            continue
        if w in pronoun and not phrase:
            break  # "deploy it again": the object is a pronoun, the kind names none
        phrase.append(w)
    if phrase and phrase[-1] in pronoun:
        phrase = []
    return TaskKind(verb, phrase[-1] if phrase else "")


def _third_person(verb: str, table: Table) -> bool:
    """A verb in its third-person form (-s, not -ss/-us/-is): a request uses the base form."""
    return verb.endswith("s") and not verb.endswith(tuple(table.entry("base_s").wordset))


# ---- jieba's parts of speech (Chinese) ------------------------------------------------------


def _zh_tokens(text: str, table: Table) -> list[tuple[str, str]]:
    _jieba()  # the dictionary loaded once, with the package's words
    import jieba.posseg as pseg

    first = re.split(r"[。！？!?；;\n]", text, maxsplit=1)[0]
    return [(w.word, w.flag) for w in pseg.lcut(first) if w.word.strip()]


def _content(word: str, flag: str, table: Table) -> bool:
    return (
        word not in table.entry("frame").wordset
        and flag not in table.entry("skip_pos").wordset
        and word not in table.entry("stop").wordset
    )


def _pos_kind(text: str, table: Table) -> TaskKind | None:
    tokens = _zh_tokens(text, table)
    if any(w in table.entry("ask").wordset for w, _ in tokens):
        return None
    front = table.entry("front").wordset
    fronted = next((i for i, (w, _) in enumerate(tokens) if w in front), None)
    if fronted is not None:
        # 把 X V: the span after 把 holds the object and then the verb, its last content word
        span = [t for t in _zh_span(tokens[fronted + 1 :], table) if _content(*t, table)]
        if not span:
            return None
        return TaskKind(span[-1][0], _zh_head(span[:-1], table))
    start = next((i for i, (w, f) in enumerate(tokens) if _content(w, f, table)), None)
    if start is None:
        return None
    head = _zh_head(_zh_span(tokens[start + 1 :], table, skip=True), table)
    return TaskKind(tokens[start][0], head)


def _zh_span(
    tokens: list[tuple[str, str]], table: Table, *, skip: bool = False
) -> list[tuple[str, str]]:
    """The words at the front of tokens up to one that ends a phrase (a preposition after the
    object, a particle, punctuation); with skip, the framing words inside (一下) are passed over
    instead of ending it."""
    end = table.entry("end").wordset
    span: list[tuple[str, str]] = []
    for w, f in tokens:
        if w in end or w in table.entry("stop").wordset or f in table.entry("span_end_pos").wordset:
            break
        if w in table.entry("frame").wordset and not skip:
            break
        span.append((w, f))
    return span


def _zh_head(phrase: list[tuple[str, str]], table: Table) -> str:
    modifier = table.entry("modifier_pos").wordset
    content = [w for w, f in phrase if _content(w, f, table) and f not in modifier]
    return content[-1] if content else ""


_PARSERS: dict[str, Callable[[str, Table], TaskKind | None]] = {
    "words": _word_kind,
    "jieba_pos": _pos_kind,
}


def stated_procedure(
    subject: str | None, text: str, tags: Sequence[str], langs: Languages | None = None
) -> tuple[MemoryType, str | None, tuple[str, ...]]:
    """A procedure the user stated (the LLM chain's "procedure" items): keyed by the kind of task
    its subject (or else its text) names, and a working one unless tagged "failed"; without a
    kind (a verb and its object) it is kept as a fact under its subject. `langs`: the packs
    read, every rule on by default."""
    kinds = (task_kind(subject or "", langs), task_kind(text, langs))
    kind = next((k for k in kinds if k and k.obj), None)
    if kind is None:
        return MemoryType.FACT, subject, tuple(tags)
    state = "failed" if "failed" in tags else "worked"
    return MemoryType.PROCEDURE, kind.key, tuple(dict.fromkeys(("procedure", state, *tags)))


# Procedures are recalled by the kind of task a request asks for, and by nothing else.
#
# A request that asks for a kind of task ("deploy the site again", 再帮我部署一下网站) gets the live
# procedure of that kind (same verb and object head, `kind.TaskKind.same_task`); a request with
# a verb but no object ("deploy it again", 再部署一次) gets the one procedure of that verb when
# there is exactly one. Every other request gets none, whatever the similarity channels found: a
# request about lunch never carries how the site was deployed.

#: procedures injected for one request at most
MAX_PROCEDURES = 2
#: live procedures of a scope read to find the request's kind
_POOL = 200


class ProcedureRecall:
    """Adds the procedures of the request's kind of task to the ranked candidates and takes out
    those the other channels brought for another kind."""

    def __init__(self, store: StageStore, limit: int = MAX_PROCEDURES) -> None:
        self.store = store
        self.limit = limit

    def matching(
        self, scope: Scope, request: str, langs: Languages | None = None
    ) -> list[tuple[MemoryRecord, TaskKind]]:
        """The live procedures for the request's kind of task, newest first (`langs`: the packs
        the request is read with, every rule on by default)."""
        # the scope's procedures first: most scopes have none, and then the request is not parsed
        live = self.store.live_claims(scope, [MemoryType.PROCEDURE.value], limit=_POOL)
        kind = task_kind(request, langs) if live else None
        if kind is None:
            return []
        found = []
        for r in live:
            stored = TaskKind.from_key(r.subject or "")
            if stored is not None and stored.same_task(kind):
                found.append((r, stored))
        if not kind.obj and len({k.key for _, k in found}) > 1:
            return []  # "deploy it": of several things deployed, which one is not said
        return found[: self.limit]

    def apply(
        self,
        scope: Scope,
        request: str,
        ranked: Sequence[ScoredMemory],
        langs: Languages | None = None,
    ) -> list[ScoredMemory]:
        """ranked with the request's procedures in front and every other procedure dropped."""
        out = [
            dataclasses.replace(s, kept=False, reason="procedures are recalled by kind of task")
            if s.kept and s.record.type is MemoryType.PROCEDURE
            else s
            for s in ranked
        ]
        added = [
            ScoredMemory(
                record=r,
                score=1.0,
                components={"task_kind": 1.0},
                channels=("procedure",),
                reason=f"the request asks for this kind of task ({kind.key})",
            )
            for r, kind in self.matching(scope, request, langs)
        ]
        return [*added, *out]
