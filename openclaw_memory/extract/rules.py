"""The offline rule chain: explicit commands, standing rules, preferences and profile facts.

Slot classification is its step: one clause in, at most one typed slot out.
"""

from __future__ import annotations

import dataclasses
import re
from ..lang import LanguagePack, Languages, all_on
from . import change as change_rules
from . import preference_rules
from . import profile_rules
from .profile_rules import person_fact, as_role
from .slot import Slot, heads, third_person, zh_head, instruction_summary
from collections.abc import Iterable
from typing import Any
from ..core.clock import Clock
from ..types import Candidate, Channel, MemoryType, Turn
from .change import additive
from .base import importance_for
from ..lang.utterance import is_contentless
from .preference_rules import rule_head_en
from .secrets import SecretFilter
from ..config.tuning import tuned

#: confidences: a statement or instruction said with a hedge, a request to remember (plain and
#: hedged), a standing instruction said plainly
_HEDGED = tuned("extract.hedged_confidence")
_EXPLICIT = tuned("write.explicit.confidence")
_HEDGED_EXPLICIT = tuned("extract.hedged_explicit_confidence")
_STANDING = tuned("extract.standing_confidence")

# Slot classification for the rule chain: one clause in, at most one typed slot out.
#
# A statement about another person of the user's world runs first (`people_rules`: filed under
# that person, never the user's profile). Change classifiers come next (`change_rules`: a value the user says has changed,
# attribute
# facts), then the profile ones (`profile_rules`), then the preference ones (`preference_rules`):
# reply language and format, prohibitions, likes and dislikes. Each returns a `Slot` with a
# stable subject key and a third-person summary ("用户住在杭州", "The user lives in Berlin"). They
# read only what is stated; nothing is inferred.

__all__ = ["Slot", "classify", "third_person"]


def classify(clause: str, *, standing: bool = False, langs: Languages | None = None) -> Slot | None:
    """The slot one clause states, or None. `standing` marks a "from now on" instruction;
    `langs` are the language packs read (every rule on by default)."""
    clause = clause.strip()
    if not clause or clause.endswith(("?", "？")):
        return None
    lang = (langs or all_on()).of(clause)
    # a statement about another person is theirs, whatever it says (an age, an allergy, a job)
    slot = person_fact(clause, lang, langs)
    if slot:
        return slot
    for change in change_rules.classifiers(lang, langs):
        slot = change(clause)
        if slot:
            return slot
    for profile in profile_rules.CLASSIFIERS:
        slot = profile(clause, lang, langs)
        if slot:
            return slot
    for preference in preference_rules.CLASSIFIERS:
        slot = preference(clause, lang, standing, langs)
        if slot:
            return slot
    return None


# The offline rule chain: explicit commands, standing rules, preferences and profile facts.
#
# Reading order for one turn: strip secrets and `<private>` spans from the user side, skip
# contentless turns, split into sentences, then per sentence recognise a command (忘掉/forget,
# 记住/remember, 以后/from now on) and classify each clause of what remains into a slot
# (see `slots.py`). Only the user side is read; the assistant's words are never curated.

_COMMAND = "command"
_CLAUSE = "clause"
_TARGET = "target"


def _sentences(text: str, langs: Languages) -> list[str]:
    parts = langs.any_of(_CLAUSE, "sentence_end").split(text)
    return [p.strip() for p in parts if p and p.strip()]


def _clauses(text: str, langs: Languages) -> list[str]:
    """Clauses to classify: split on commas and on "and I"/"but my"; leading fillers and
    hedges dropped (the hedge was already read from the whole sentence)."""
    parts = langs.any_of(_CLAUSE, "clause_split").split(text)
    parts = _join_name_tails([p for p in parts if p], langs)
    lead, hedge_lead = _lead(langs), langs.any_of(_CLAUSE, "hedge_lead")
    hedge_word = langs.any_of(_CLAUSE, "hedge_word")
    cleaned = (hedge_word.sub("", hedge_lead.sub("", lead.sub("", p.strip()))) for p in parts if p)
    out = [c for c in cleaned if c]
    # "As a nurse, I ..." states the role: read as "I am a nurse"
    return [
        (as_role(c, out[i + 1], langs) if i + 1 < len(out) else None) or c
        for i, c in enumerate(out)
    ]


def _lead(langs: Languages) -> re.Pattern[str]:
    """A run of fillers leading a sentence (对了，另外 / oh well,)."""
    return langs.any_of(_CLAUSE, "lead", "^(?:{})+")


def _join_name_tails(parts: list[str], langs: Languages) -> list[str]:
    """A comma's tail that only names a place or a number joins the clause before it (else the
    value loses its last part)."""
    tail, not_tail = langs.any_of(_CLAUSE, "name_tail"), langs.any_of(_CLAUSE, "not_a_name_tail")
    out: list[str] = []
    for p in parts:
        if out and tail.match(p) and not not_tail.match(p):
            out[-1] = f"{out[-1]},{p}"
        else:
            out.append(p)
    return out


def _command(body: str, command: str, langs: Languages) -> re.Match[str] | None:
    """The first command entry of kind `command` (forget, remember, standing) that matches."""
    for entry in langs.entries(_COMMAND):
        if entry.setting("command") == command:
            m = entry.pattern.match(body)
            if m and (command != "forget" or not _no_target(m.group("what"), langs)):
                return m
    return None


def _no_target(what: str, langs: Languages) -> bool:
    return bool(langs.any_of(_COMMAND, "not_a_target").match(what.strip()))


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
        if not text or is_contentless(text, self._langs):
            return []
        turn_ids = (turn.turn_id,) if turn.turn_id else ()
        out: list[Candidate] = []
        for sentence in _sentences(text, self._langs):
            out.extend(self._sentence(_lead(self._langs).sub("", sentence).strip(), turn_ids))
        return _dedupe(out)

    def _sentence(self, sentence: str, turn_ids: tuple[str, ...]) -> list[Candidate]:
        langs = self._langs
        if langs.any_of(_CLAUSE, "question_end").search(sentence):
            return []
        body = sentence.rstrip("。！!；;.～~ ")
        hedged = bool(langs.any_of(_CLAUSE, "hedge").search(body))
        m = _command(body, "forget", langs)
        if m:
            return [self._forget(m.group("what"), turn_ids)]
        m = _command(body, "remember", langs)
        if m:
            return self._explicit(m.group("what"), turn_ids, hedged)
        m = _command(body, "standing", langs)
        if m:
            return self._standing(m.group("what"), turn_ids, hedged)
        slots = [
            _also(s, clause, langs)
            for s, clause in ((classify(c, langs=langs), c) for c in _clauses(body, langs))
            if s
        ]
        conf = _HEDGED if hedged else None
        return [_candidate(s, _channel(s), conf or s.confidence, turn_ids) for s in slots]

    def _forget(self, what: str, turn_ids: tuple[str, ...]) -> Candidate:
        langs = self._langs
        what = langs.any_of(_COMMAND, "memory_word").sub("", what.strip(" 。.!！")) or what
        slots = [s for s in (classify(c, langs=langs) for c in _clauses(what, langs)) if s]
        subject: str | None
        if slots:
            kind, subject, summary = slots[0].type, slots[0].subject, slots[0].summary
        else:
            kind, subject = _slot_noun(what, langs)
            summary = third_person(what, langs.of(what))
        return Candidate(
            type=kind,
            summary=summary,
            subject=subject,
            detail=what,
            forget=True,
            channel=Channel.EXPLICIT,
            confidence=_EXPLICIT,
            turn_ids=turn_ids,
            importance=importance_for(kind, Channel.EXPLICIT),
        )

    def _explicit(self, what: str, turn_ids: tuple[str, ...], hedged: bool) -> list[Candidate]:
        """记住/remember: known slots keep their keys; whatever else was said is kept as a fact."""
        conf = _HEDGED_EXPLICIT if hedged else _EXPLICIT
        slots: list[Any] = []
        rest: list[Any] = []
        for clause in _clauses(what, self._langs):
            slot = classify(clause, standing=True, langs=self._langs)
            (slots if slot else rest).append(slot or clause)
        if not slots:
            rest = [what.strip(" 。.!！")]  # nothing recognised: keep the whole statement
        rest = [r for r in rest if _worth_a_fact(r, self._langs, alone=not slots)]
        if rest:
            sep = self._langs.of(what).comma
            slots.append(_free_fact(sep.join(r.strip(" 。.!！") for r in rest), self._langs))
        return [_candidate(s, Channel.EXPLICIT, conf, turn_ids) for s in slots]

    def _standing(self, what: str, turn_ids: tuple[str, ...], hedged: bool) -> list[Candidate]:
        conf = _HEDGED if hedged else _STANDING
        slots = [
            s
            for s in (
                classify(c, standing=True, langs=self._langs) for c in _clauses(what, self._langs)
            )
            if s
        ]
        if not slots:
            slots = _free_rule(what.strip(" 。.!！"), self._langs)
        return [_candidate(s, Channel.EXPLICIT, conf, turn_ids) for s in slots]


def _also(slot: Slot, clause: str, langs: Languages | None = None) -> Slot:
    """A value added beside the others ("I also like tea"): tagged `also`, so consolidation keeps
    the earlier value of the subject instead of reading a change."""
    return dataclasses.replace(slot, tags=(*slot.tags, "also")) if additive(clause, langs) else slot


def _channel(slot: Slot) -> Channel:
    """A stated switch ("改喝绿茶", "I switched to tea") corrects the user's own earlier words."""
    return Channel.EXPLICIT if "switch" in slot.tags else Channel.IMPLICIT


def _free_rule(what: str, langs: Languages) -> list[Slot]:
    """A "from now on" instruction no classifier knows: kept as a standing rule, or as a
    prohibition when a 不要/don't sits mid-sentence ("代码里不要加注释")."""
    if not langs.any_of(_COMMAND, "directive").search(what) or is_contentless(what, langs):
        return []
    lang = langs.of(what)
    summary = instruction_summary(what, lang, langs)
    m = langs.any_of(_COMMAND, "mid_prohibition").search(what)
    inner = classify(what[m.start() :], standing=True, langs=langs) if m and m.start() > 0 else None
    if inner:
        return [dataclasses.replace(inner, summary=summary)]
    head = classify_head(what, lang)
    return [Slot(MemoryType.PREFERENCE, f"rule/{head}", summary, ("standing_rule",), (head,))]


def classify_head(text: str, lang: LanguagePack) -> str:
    """A short key word for a free-form rule: its head noun (the verb's object in English)."""
    head = zh_head(text) if heads(lang) == "posseg" else rule_head_en(text, lang)
    return head or text[:12]


def _worth_a_fact(clause: str, langs: Languages, alone: bool) -> bool:
    """A leftover clause of a remember command worth storing: a statement, not a connective
    tail ("而不是咖啡", "not coffee") or filler. Alone, two characters are enough; else as long
    as its language's `clause.worth_a_fact` asks (in characters or in words)."""
    clause = clause.strip(" 。.!！")
    if len(clause) < 2 or is_contentless(clause, langs):
        return False
    if alone:
        return True
    least = langs.of(clause).table(_CLAUSE).entry("worth_a_fact")
    if least.setting("min_chars") is not None:
        long_enough = len(clause) >= least.setting("min_chars")
    else:
        long_enough = len(clause.split()) >= least.setting("min_words", 3)
    return long_enough and not langs.any_of(_CLAUSE, "connective").match(clause)


def _slot_noun(what: str, langs: Languages) -> tuple[MemoryType, str | None]:
    """The slot a forget command names by its noun (忘掉我的地址, forget my address)."""
    for name in langs.names(_TARGET):
        if langs.any_of(_TARGET, name).search(what):
            kind = next(e.setting("kind") for e in langs.entries(_TARGET) if e.name == name)
            return MemoryType(kind), name
    return MemoryType.FACT, None


def _free_fact(what: str, langs: Languages) -> Slot:
    """An explicit "remember X" that names no known slot: a fact, keyed by "my X is" if present."""
    subject = ""
    for entry in langs.entries(_COMMAND):
        m = entry.pattern.match(what) if entry.name == "my_key" else None
        if m:
            subject = "fact/" + m.group("k").strip().lower()
            break
    return Slot(MemoryType.FACT, subject, third_person(what, langs.of(what)), (), (), _EXPLICIT)


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
