"""The offline rule chain: explicit commands, standing rules, preferences and profile facts.

Reading order for one turn: strip secrets and `<private>` spans from the user side, skip
contentless turns, split into sentences, then per sentence recognise a command (忘掉/forget,
记住/remember, 以后/from now on) and classify each clause of what remains into a slot
(see `slots.py`). Only the user side is read; the assistant's words are never curated.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from ..core.clock import Clock
from ..lang import Languages, all_on
from ..lang.text import has_cjk
from ..types import Candidate, Channel, MemoryType, Turn
from .change_grammar import additive
from .filter import is_contentless
from .importance import importance_for
from .lexicon import zh_head
from .profile_rules import as_role
from .instruction_rules import rule_head_en
from .secrets import SecretFilter
from .slot import instruction_summary
from .slots import Slot, classify, third_person

_I = re.IGNORECASE
_LEAD = re.compile(
    r"^(?:(?:对了|另外|还有|而且|并且|然后|其实|顺便说一下|顺便|那么|那)[，,\s]*|"
    r"(?:嗯|哦|好的|好|ok|okay|oh|well|also|and|but|so|anyway|actually|plus|btw|by the way)[，,\s]+)+",
    _I,
)
_HEDGE = re.compile(
    r"可能|好像|也许|大概|或许|似乎|说不定|不确定|不一定|\b(?:maybe|perhaps|probably|might|i guess|"
    r"i think|not sure|kind of|sort of)\b",
    _I,
)
_ZH_HEDGE = re.compile(r"可能|好像|也许|大概|或许|似乎|说不定")
_HEDGE_LEAD = re.compile(r"^(?:(?:maybe|perhaps|probably|i think|i guess)[,\s]+)+", _I)
_FORGET = (
    re.compile(
        r"^(?:请|麻烦)?(?:你)?(?:帮我)?(?:忘掉|忘记|删除记忆|删掉记忆|删除关于|删掉关于|不要再记得|别再记着|"
        r"从记忆(?:中|里)删除)[：:，,\s]*(?:关于)?(?P<what>.+)$"
    ),
    re.compile(
        r"^(?:请)?(?:把|将)(?P<what>.+?)(?:忘掉|忘了|忘记|从记忆(?:中|里)删(?:除|掉))(?:吧)?$"
    ),
    re.compile(r"^(?:请)?删(?:除|掉)(?P<what>.+?)(?:这条|那条|的)?记忆$"),
    re.compile(
        r"^(?:please\s+)?forget\s+(?:that\s+|about\s+|what i said about\s+|the fact that\s+)?(?P<what>.+)$",
        _I,
    ),
    re.compile(
        r"^(?:please\s+)?(?:delete|erase|remove)\s+(?:the\s+memory\s+(?:about|that)\s+)?(?P<what>.+?)"
        r"(?:\s+from\s+(?:your\s+)?memory)?$",
        _I,
    ),
    # "杭州出差取消了，忘掉那件事吧": the command points back at the clause before it.
    re.compile(
        r"^(?P<what>.+?)[，,]\s*(?:请|你)?(?:把它|把这件事|把那件事)?(?:忘掉|忘了|忘记)(?:那件事|这件事|它|吧|了|哈)*$"
    ),
    re.compile(
        r"^(?P<what>.+?)[,;]\s*(?:so\s+)?(?:please\s+)?forget (?:about )?(?:it|that)(?: too)?$", _I
    ),
)
_REMEMBER = (
    re.compile(
        r"^(?:请|麻烦)?(?:你)?(?:帮我)?(?:一定|务必)?(?:要)?(?:记住|记一下|记下|记好|记着|牢记|别忘了|不要忘了|"
        r"不要忘记|千万别忘了)(?!了|吗)[：:，,\s]*(?P<what>.+)$"
    ),
    re.compile(
        r"^(?:please\s+)?(?:remember|note|keep in mind|don'?t forget|do not forget|make a note)"
        r"(?:\s+that|\s*[:,])?\s+(?P<what>.+)$",
        _I,
    ),
    # "下周三我要去杭州出差，记一下": the command closes the sentence.
    # ("这个我记住了" is the speaker remembering, not an order)
    re.compile(
        r"^(?P<what>.+?)(?<![我你他她])[，,\s]*(?:请|帮我)?(?:记一下|记住|记下来|记下|记着|记好)(?:吧|哦|啊|哈|了)*$"
    ),
    # "The code is 1234, remember that" (a comma or "please" before it: "Wow, I remember that" is no order)
    re.compile(
        r"^(?P<what>.+?)(?:[,;]\s*(?:please\s+)?|\s+please\s+)(?:remember that|note that down|"
        r"make a note of (?:it|that))$",
        _I,
    ),
)
_STANDING = (
    re.compile(
        r"^(?:从现在(?:开始|起)|从今(?:以后|往后|天起)|以后|今后|往后)[都也就请]*[，,\s]*(?P<what>.+)$"
    ),
    re.compile(
        r"^(?:from now on|going forward|in the future|henceforth|from here on)[,\s]*(?P<what>.+)$",
        _I,
    ),
    re.compile(r"^(?P<what>.+?)[,\s]*(?:from now on|going forward|in the future)[.!]?$", _I),
)
_DIRECTIVE = re.compile(
    r"请|要|都|每次|一律|总是|记得|先|叫我|称呼我|给我|帮我|用|不要|别|\b(?:please|always|use|call me|answer|"
    r"reply|respond|write|give|show|send|include|start|end|keep|put|avoid|remind)\b",
    _I,
)
_MEMORY_WORD = re.compile(r"(?:的|这条|那条|的那条)?记忆$|\s+from (?:your )?memory$", _I)
_MID_PROHIBITION = re.compile(r"不要|别|禁止|不准|不许|\b(?:never|don'?t|do not|avoid)\b", _I)
_NOT_A_TARGET = re.compile(r"^(?:it|that|this|about it|everything|all|吧|了)$", _I)
#: "forget my address": slot nouns a forget command can name without restating the value.
_SLOT_NOUNS = (
    (re.compile(r"名字|姓名|\bname\b", _I), MemoryType.PROFILE, "name"),
    (
        re.compile(r"住址|地址|住处|住在哪|\b(?:address|where i live)\b", _I),
        MemoryType.PROFILE,
        "location",
    ),
    (re.compile(r"公司|单位|雇主|\b(?:employer|company)\b", _I), MemoryType.PROFILE, "employer"),
    (re.compile(r"职业|\b(?:job|occupation)\b", _I), MemoryType.PROFILE, "job"),
    (re.compile(r"生日|\bbirthday\b", _I), MemoryType.PROFILE, "birthday"),
    (re.compile(r"回复语言|\breply language\b", _I), MemoryType.PREFERENCE, "reply_language"),
)
_MY_KEY = (
    re.compile(r"^我的(?P<k>[^，,。是]{1,10})是(?P<v>.+)$"),
    re.compile(r"^my (?P<k>[\w\s\-]{1,30}?) (?:is|are) (?P<v>.+)$", _I),
)


def _sentences(text: str) -> list[str]:
    # a title's full stop ends no sentence ("I report to Mr. Chen")
    parts = re.split(
        r"(?<=[。！？!?；;\n])|(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bProf\.)"
        r"(?<=\.)\s+",
        text,
    )
    return [p.strip() for p in parts if p and p.strip()]


def _clauses(text: str) -> list[str]:
    """Clauses to classify: split on commas and on "and I"/"but my"; leading fillers and
    hedges dropped (the hedge was already read from the whole sentence)."""
    parts = re.split(r"[，,]|\s+(?:and|but|also)\s+(?=(?:i|i'm|my)\b)|而且|并且", text, flags=_I)
    parts = _join_name_tails([p for p in parts if p])
    cleaned = (_ZH_HEDGE.sub("", _HEDGE_LEAD.sub("", _LEAD.sub("", p.strip()))) for p in parts if p)
    out = [c for c in cleaned if c]
    # "As a nurse, I ..." states the role: read as "I am a nurse"
    return [(as_role(c, out[i + 1]) if i + 1 < len(out) else None) or c for i, c in enumerate(out)]


#: a comma's tail that only names a place or a number ("12 Rua Augusta, Lisbon", ", Apt 4"): it
#: belongs to the clause before it, not a clause of its own (else the value loses its last part)
_NAME_TAIL = re.compile(
    r"^\s*(?:[A-Z][\w.'-]*|\d[\w-]*)(?:\s+(?:[A-Z][\w.'-]*|\d[\w-]*)){0,2}\s*[.!]?\s*$"
)


def _join_name_tails(parts: list[str]) -> list[str]:
    out: list[str] = []
    for p in parts:
        if out and _NAME_TAIL.match(p) and not re.match(r"^\s*I\b", p):
            out[-1] = f"{out[-1]},{p}"
        else:
            out.append(p)
    return out


def _is_question(sentence: str) -> bool:
    return sentence.rstrip().endswith(("?", "？", "吗", "么"))


class RuleExtractor:
    """Offline extraction by Chinese and English rules (`Extractor` protocol)."""

    def __init__(
        self, clock: Clock, secrets: SecretFilter | None = None, langs: Languages | None = None
    ) -> None:
        # The rules read no time today; the clock keeps one constructor shape for every chain.
        self._clock = clock
        self._secrets = secrets or SecretFilter()
        self._langs = langs or all_on()  # the language packs, some rules maybe switched off

    def extract(self, turn: Turn) -> list[Candidate]:
        """Candidates from the user side of the turn: [] for contentless or secret-only turns."""
        text = self._secrets.strip(turn.user)
        if not text or is_contentless(text):
            return []
        turn_ids = (turn.turn_id,) if turn.turn_id else ()
        out: list[Candidate] = []
        for sentence in _sentences(text):
            out.extend(self._sentence(_LEAD.sub("", sentence).strip(), turn_ids))
        return _dedupe(out)

    def _sentence(self, sentence: str, turn_ids: tuple[str, ...]) -> list[Candidate]:
        if _is_question(sentence):
            return []
        body = sentence.rstrip("。！!；;.～~ ")
        hedged = bool(_HEDGE.search(body))
        for regex in _FORGET:
            m = regex.match(body)
            if m and not _NOT_A_TARGET.match(m.group("what").strip()):
                return [self._forget(m.group("what"), turn_ids)]
        for regex in _REMEMBER:
            m = regex.match(body)
            if m:
                return self._explicit(m.group("what"), turn_ids, hedged)
        for regex in _STANDING:
            m = regex.match(body)
            if m:
                return self._standing(m.group("what"), turn_ids, hedged)
        slots = [
            _also(s, clause)
            for s, clause in ((classify(c, langs=self._langs), c) for c in _clauses(body))
            if s
        ]
        conf = 0.4 if hedged else None
        return [_candidate(s, _channel(s), conf or s.confidence, turn_ids) for s in slots]

    def _forget(self, what: str, turn_ids: tuple[str, ...]) -> Candidate:
        what = _MEMORY_WORD.sub("", what.strip(" 。.!！")) or what
        slots = [s for s in map(classify, _clauses(what)) if s]
        subject: str | None
        if slots:
            kind, subject, summary = slots[0].type, slots[0].subject, slots[0].summary
        else:
            kind, subject, noun = _slot_noun(what)
            summary = noun or third_person(what, has_cjk(what))
        return Candidate(
            type=kind,
            summary=summary,
            subject=subject,
            detail=what,
            forget=True,
            channel=Channel.EXPLICIT,
            confidence=0.95,
            turn_ids=turn_ids,
            importance=importance_for(kind, Channel.EXPLICIT),
        )

    def _explicit(self, what: str, turn_ids: tuple[str, ...], hedged: bool) -> list[Candidate]:
        """记住/remember: known slots keep their keys; whatever else was said is kept as a fact."""
        conf = 0.6 if hedged else 0.95
        slots: list[Any] = []
        rest: list[Any] = []
        for clause in _clauses(what):
            slot = classify(clause, standing=True, langs=self._langs)
            (slots if slot else rest).append(slot or clause)
        if not slots:
            rest = [what.strip(" 。.!！")]  # nothing recognised: keep the whole statement
        rest = [r for r in rest if _worth_a_fact(r, alone=not slots)]
        if rest:
            sep = "，" if has_cjk(what) else ", "
            slots.append(_free_fact(sep.join(r.strip(" 。.!！") for r in rest)))
        return [_candidate(s, Channel.EXPLICIT, conf, turn_ids) for s in slots]

    def _standing(self, what: str, turn_ids: tuple[str, ...], hedged: bool) -> list[Candidate]:
        conf = 0.4 if hedged else 0.9
        slots = [
            s for s in (classify(c, standing=True, langs=self._langs) for c in _clauses(what)) if s
        ]
        if not slots:
            slots = _free_rule(what.strip(" 。.!！"), self._langs)
        return [_candidate(s, Channel.EXPLICIT, conf, turn_ids) for s in slots]


def _also(slot: Slot, clause: str) -> Slot:
    """A value added beside the others ("I also like tea"): tagged `also`, so consolidation keeps
    the earlier value of the subject instead of reading a change."""
    return dataclasses.replace(slot, tags=(*slot.tags, "also")) if additive(clause) else slot


def _channel(slot: Slot) -> Channel:
    """A stated switch ("改喝绿茶", "I switched to tea") corrects the user's own earlier words."""
    return Channel.EXPLICIT if "switch" in slot.tags else Channel.IMPLICIT


def _free_rule(what: str, langs: Languages) -> list[Slot]:
    """A "from now on" instruction no classifier knows: kept as a standing rule, or as a
    prohibition when a 不要/don't sits mid-sentence ("代码里不要加注释")."""
    if not _DIRECTIVE.search(what) or is_contentless(what):
        return []
    cjk = has_cjk(what)
    summary = instruction_summary(what, cjk)
    m = _MID_PROHIBITION.search(what)
    inner = classify(what[m.start() :], standing=True, langs=langs) if m and m.start() > 0 else None
    if inner:
        return [dataclasses.replace(inner, summary=summary)]
    head = classify_head(what, cjk)
    return [Slot(MemoryType.PREFERENCE, f"rule/{head}", summary, ("standing_rule",), (head,))]


def classify_head(text: str, cjk: bool) -> str:
    """A short key word for a free-form rule: its head noun (the verb's object in English)."""
    return (zh_head(text) if cjk else rule_head_en(text)) or text[:12]


_CONNECTIVE = re.compile(r"^(?:而|但|不是|还是|\b(?:not|rather|instead|than|or)\b)", _I)


def _worth_a_fact(clause: str, alone: bool) -> bool:
    """A leftover clause of a remember command worth storing: a statement, not a connective
    tail ("而不是咖啡", "not coffee") or filler. Alone, two characters are enough."""
    clause = clause.strip(" 。.!！")
    if len(clause) < 2 or is_contentless(clause):
        return False
    if alone:
        return True
    long_enough = len(clause) >= 4 if has_cjk(clause) else len(clause.split()) >= 3
    return long_enough and not _CONNECTIVE.match(clause)


def _slot_noun(what: str) -> tuple[MemoryType, str | None, str | None]:
    for regex, kind, subject in _SLOT_NOUNS:
        if regex.search(what):
            return kind, subject, None
    return MemoryType.FACT, None, None


def _free_fact(what: str) -> Slot:
    """An explicit "remember X" that names no known slot: a fact, keyed by "my X is" if present."""
    cjk = has_cjk(what)
    subject = ""
    for regex in _MY_KEY:
        m = regex.match(what)
        if m:
            subject = "fact/" + m.group("k").strip().lower()
            break
    return Slot(MemoryType.FACT, subject, third_person(what, cjk), (), (), 0.95)


def _candidate(
    slot: Slot, channel: Channel, confidence: float, turn_ids: tuple[str, ...]
) -> Candidate:
    return Candidate(
        type=slot.type,
        summary=slot.summary,
        subject=slot.subject or None,
        detail=slot.detail or None,
        tags=slot.tags,
        entities=tuple(e for e in slot.entities if e),
        importance=importance_for(slot.type, channel, slot.tags, confidence),
        confidence=confidence,
        channel=channel,
        turn_ids=turn_ids,
        replaces=slot.replaces or None,
    )


def _dedupe(candidates: Iterable[Candidate]) -> list[Candidate]:
    """One candidate per subject (the last statement in the turn wins); free facts by summary.
    A stop and a new value of one subject in one turn (改喝绿茶了，不喝咖啡了) keep the new value,
    which replaces what the stop names."""
    by_key: dict[tuple[str, bool], Candidate] = {}
    for c in candidates:
        key = (c.subject or c.summary, c.forget)
        before = by_key.pop(key, None)
        if (
            before is not None
            and "stopped" in c.tags
            and "switch" in before.tags
            and "stopped" not in before.tags
        ):
            c = dataclasses.replace(before, replaces=before.replaces or c.replaces)
        by_key[key] = c
    return list(by_key.values())
