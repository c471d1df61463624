"""What a change is about: the live memory a change turn's episode contradicts (issue 16).

A live claim (profile / preference / fact) qualifies when it shares a content word with the
change, or names the value `replaces` gives, or is its clear semantic neighbour (`Neighbour`:
nearest, ahead of the next by `change_margin`, above the background level); a live episode of
the same speaker when it shares a content word, states one thing (`single_statement`) and is
similar enough (`change_similarity`), or, for a stated change, is its clear neighbour; a
memory the change contradicts by attribute (`extract.attributes`) when it is similar enough to
be about the same thing. A change read only from a weak marker that says how long its state has
lasted ("I've been playing for four months now", `only_lasting`) qualifies a memory by attribute
alone. Where the user comes from (hometown, birthday) is no target: a move does
not change it. Two statements of different owners ("my sister's name", "my cat's
name") never qualify, nor one person's claim for another's change. `consolidate_changes.py`
retires what is found here.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from ...extract.attributes import contradicts
from ...extract.naming import world_names
from ...extract.slot import is_instruction
from ...extract.change_grammar import in_progress, only_lasting, switches
from ...extract.statement import (
    about,
    about_self,
    one_sentence,
    owner,
    said,
    share,
    single_statement,
    someone_else,
)
from ...lang.text import has_cjk, negated, search_tokens, tokenize
from .neighbour import Neighbour
from ...types import MemoryRecord

#: claims about the user (one attribute, whatever type it was stored as)
CLAIMS = ("fact", "preference", "profile")
#: where and when the user comes from: no later change alters them ("I moved to Bristol" after
#: "I'm from Leeds", 搬到上海 after 我老家是成都); only a statement of the same key corrects them
#: (`consolidate_decide.py`), never a change found by meaning or attribute here
_ORIGIN = frozenset({"hometown", "birthday"})
#: how many earlier episodes of a scope a change is compared with (newest first)
_EPISODE_POOL = 400
#: how far under `change_similarity` a memory the change contradicts by attribute may score
_ATTRIBUTE_SLACK = 0.05


class ChangeTargets:
    """Finds the memory a change turn's episode contradicts (see the module doc)."""

    def __init__(self, neighbour: Neighbour) -> None:
        self.neighbour = neighbour
        self.similarity = neighbour.similarity
        self.margin = neighbour.margin

    def find(
        self,
        db,
        new: MemoryRecord,
        vec: np.ndarray,
        replaces: str | None,
        skip: set[str],
        stated: bool,
        also: bool = False,
        key: str | None = None,
    ) -> MemoryRecord | None:
        """The memory the change `new` contradicts; `key`: the subject key of the turn's change
        candidate (what attribute it changed), if any."""
        names = speaker_names(new)  # the speaker of a named turn
        words, who = about(new.summary, names), owner(new.summary)
        claims = earlier_claims(db, new, skip)
        if also:
            return self._by_attribute(db, claims, new, vec, who, only_flips=True)
        if not stated and (only_lasting(new.summary) or in_progress(new.summary)):
            # how long a state has lasted ("I've been playing for about four months now") or an
            # activity under way ("I'm currently reading a fantasy novel") ends only what
            # contradicts it by attribute; a shared word or meaning alone ("I like fantasy
            # stories") is no evidence it replaced anything
            return self._by_attribute(db, claims, new, vec, who, only_flips=False)
        claim = self._claim(db, claims, new, vec, words, who, replaces, names, key)
        if claim is not None:
            return claim
        return self._episode(db, new, vec, words, who, stated, names, replaces, key, claims)

    def _claim(
        self,
        db,
        claims: list[MemoryRecord],
        new: MemoryRecord,
        vec: np.ndarray,
        words: frozenset[str],
        who: str,
        replaces: str | None,
        names: tuple[str, ...],
        key: str | None = None,
    ) -> MemoryRecord | None:
        """The nearest live claim that shares a content word with the change (or states the value
        `replaces` names), of the same owner; meaning alone only for a short statement about the
        speaker."""
        if not claims:
            return None
        vecs = db.vectors([c.id for c in claims])
        scored = sorted(
            ((float(np.dot(vecs[c.id], vec)), c) for c in claims if c.id in vecs),
            key=lambda x: -x[0],
        )
        fits = [
            (s, c)
            for s, c in scored
            if _same_owner(who, c) and (_shares(words, c, names) or _names(c, replaces))
        ]
        # the nearest claim sharing a word, when it is (about) the nearest claim of all: a word
        # shared with a farther claim is a coincidence (a name, 工作), not the attribute
        if fits and fits[0][0] >= max(self.similarity - 0.05, scored[0][0] - self.margin):
            return fits[0][1]
        hit = self._contradicted(scored, new, who)
        if hit is not None:
            return hit
        # a statement of one sentence about the speaker ("I'm now living in Seattle" after "my
        # home is in Austin"): the clear semantic neighbour among the claims, ahead of the next by
        # the margin (not in Chinese: e5 puts unrelated Chinese statements of one person within a
        # few hundredths of each other, so the nearest says nothing)
        if (
            not (about_self(new.summary) and one_sentence(new.summary))
            or not scored
            or has_cjk(new.summary)
            or replaces  # it named what it replaced, and no claim states that
        ):
            return None
        if self.neighbour.clear(scored, new, key) and _same_owner(who, scored[0][1], strict=True):
            return scored[0][1]
        return None

    def _episode(
        self,
        db,
        new: MemoryRecord,
        vec: np.ndarray,
        words: frozenset[str],
        who: str,
        stated: bool,
        names: tuple[str, ...],
        replaces: str | None = None,
        key: str | None = None,
        claims: Sequence[MemoryRecord] = (),
    ) -> MemoryRecord | None:
        """An earlier episode of the same speaker that states one thing about them (the change
        itself may name only the thing: 钢琴课换到周日了): the nearest
        one that shares a content word and is similar enough; or, when a rule read the turn as a
        change (`stated`), its clear semantic neighbour ("I use Android" for "I've moved over to
        an iPhone now"), when the change is about the speaker: a switch told of someone else
        (改学围棋了，他自己选的) changes nothing the speaker said of themselves."""
        if not single_statement(new.summary):
            return None  # a long turn says several things: which of them changed is not clear
        pool = self.statements(db, new, who, names)
        if not pool:
            return None
        vecs = db.vectors([e.id for e in pool])
        scored = sorted(
            ((float(np.dot(vecs[e.id], vec)), e) for e in pool if e.id in vecs), key=lambda x: -x[0]
        )
        sharing = [(sim, e) for sim, e in scored if words and _shares(words, e, names)]
        if sharing and sharing[0][0] >= max(self.similarity, scored[0][0] - self.margin):
            return sharing[0][1]
        hit = self._contradicted(scored, new, who)
        if hit is not None:
            return hit
        if stated and replaces:
            # what the change names is the evidence, meaning alone is not (consolidate_decide.py)
            return next((e for _, e in scored if names_part(e.text, replaces)), None)
        if stated and about_self(new.summary) and one_sentence(new.summary):
            turns = set(scored[0][1].source.turn_ids)
            kin = [c.subject for c in claims if turns & set(c.source.turn_ids)]
            if self.neighbour.clear(scored, new, key, kin):
                return scored[0][1]
        return None

    def _contradicted(
        self,
        scored: list[tuple[float, MemoryRecord]],
        new: MemoryRecord,
        who: str,
        only_flips: bool = False,
    ) -> MemoryRecord | None:
        """The nearest memory the change contradicts by what both say of one attribute (no pets /
        adopted a cat, 坐班 / 居家办公, 不吃辣 / 能吃辣: `extract.attributes`), similar enough to be
        about the same thing; no margin over the others, the attribute is the evidence."""
        switch, text = switches(new.summary), said(new.summary)
        for sim, old in scored:
            if sim < self.similarity - _ATTRIBUTE_SLACK:
                break
            if not _same_owner(who, old, strict=True):
                continue
            if contradicts(said(old.summary), text, switch=switch, nots_only=only_flips):
                return old
        return None

    def statements(
        self, db, new: MemoryRecord, who: str, names: tuple[str, ...]
    ) -> list[MemoryRecord]:
        """The live single-statement episodes of the same speaker before the change."""
        pool = db.live_episodes_before(
            new.scope,
            new.created_at,
            _EPISODE_POOL,
            exclude=new.id,
        )
        return [
            e
            for e in pool
            if e.tags[:1] == new.tags[:1]
            and speaker_names(e) == speaker_names(new)
            and not set(e.source.turn_ids) & set(new.source.turn_ids)
            and _same_owner(who, e)
            and single_statement(e.summary)
            and about_self(e.summary)
            and not _restates(new, e, names)
        ]

    def _by_attribute(
        self,
        db,
        claims: list[MemoryRecord],
        new: MemoryRecord,
        vec: np.ndarray,
        who: str,
        only_flips: bool,
    ) -> MemoryRecord | None:
        """The nearest live claim or single-statement episode of the speaker that the statement
        contradicts by attribute. A statement that is no change (我现在也吃牛肉了, "We got a
        puppy") ends only a "not" (`only_flips`: 我不吃牛肉, "I have no pets"); one that says how
        long its state has lasted ends a value of the attribute ("I've been vegetarian for a year
        now" after "I eat meat every day")."""
        names = speaker_names(new)
        pool = [*claims, *self.statements(db, new, who, names)]
        vecs = db.vectors([r.id for r in pool])
        scored = sorted(
            ((float(np.dot(vecs[r.id], vec)), r) for r in pool if r.id in vecs),
            key=lambda x: -x[0],
        )
        return self._contradicted(scored, new, who, only_flips=only_flips)


def earlier_claims(db, new: MemoryRecord, skip: set[str]) -> list[MemoryRecord]:
    """The live claims a change `new` may retire: of its speaker, before it, from another turn,
    not where the user comes from (`_ORIGIN`), not an instruction, not the same statement."""
    names = speaker_names(new)  # the speaker of a named turn
    return [
        c
        for c in db.live_claims(new.scope, CLAIMS, created_before=new.created_at, limit=500)
        if c.id not in skip
        and (c.subject or "").rsplit("/", 1)[-1] not in _ORIGIN
        and not is_instruction(c.subject, c.summary)  # a life event changes no instruction
        and not set(c.source.turn_ids) & set(new.source.turn_ids)
        and _same_speaker(c, names)
        and not _restates(new, c, names)
    ]


def speaker_names(r: MemoryRecord) -> tuple[str, ...]:
    """The names a writer attached to r (the speaker of a named turn first), without the names
    its text gives or shows (extract/naming.py: "a dog named Rex" is not who speaks)."""
    if not r.entities:
        return ()
    shown = _shown(r.summary)
    return tuple(e for e in r.entities if e and e not in shown)


@functools.lru_cache(maxsize=4096)
def _shown(text: str) -> frozenset[str]:
    """The names text gives or shows, read once per text: a change compares its speaker with
    every candidate's."""
    return frozenset(world_names(text))


def names_part(text: str, value: str) -> bool:
    """The text names a value a change replaces, or a word of it: in Chinese any word (狗的名字 in
    我家的狗叫旺财: 狗; one character is a word here: 烟, 棋); in English a word that begins with
    the stem of one of four letters or more and goes on with an ending of its family ("teaching"
    in "teacher", "smoking" in "smoker", "swimming" in "swimmers"; "reading" is not in "ready")."""
    words = None
    for t in search_tokens(value, drop_stopwords=True):
        if has_cjk(t):
            if t in text:
                return True
        elif len(t) >= 4 and t.isalpha():
            words = words if words is not None else tokenize(text.lower())
            if any(w.startswith(t) and _of_family(t, w[len(t) :]) for w in words):
                return True
    return False


#: endings that keep a word in its stem's family (teach-er, paint-ing, violin-ist)
_ENDINGS = frozenset(
    "s es ed ing ings er ers or ors ist ists ian ians ion ions ment ments ance ence".split()
)


def _of_family(stem: str, rest: str) -> bool:
    """`rest` after `stem` is no ending, an ending, one after a final e (smoke-r) or after the
    stem's doubled last letter (swim-mer)."""
    return (
        not rest
        or rest in _ENDINGS
        or (stem.endswith("e") and "e" + rest in _ENDINGS)
        or (rest[0] == stem[-1] and rest[1:] in _ENDINGS)
    )


def _shares(words: frozenset[str], r: MemoryRecord, names: tuple[str, ...]) -> bool:
    return share(words, about(r.text, names))


def _restates(new: MemoryRecord, old: MemoryRecord, names: tuple[str, ...]) -> bool:
    """The same statement again ("My kids started swimming lessons" twice): nothing changed."""

    def words(r: MemoryRecord) -> frozenset[str]:  # every word, numbers included (9 am / 7 am)
        text = said(r.summary)
        for name in names:
            text = text.replace(name, " ")
        return frozenset(search_tokens(text, drop_stopwords=True))

    return words(old) == words(new) and negated(said(old.summary)) == negated(said(new.summary))


def _names(r: MemoryRecord, value: str | None) -> bool:
    if not value or len(value.strip()) < 2:
        return False
    v = value.strip().lower()
    return any(e.lower() == v for e in r.entities) or v in r.text.lower()


def _same_speaker(claim: MemoryRecord, names: tuple[str, ...]) -> bool:
    """A named speaker's claims are keyed "<name>/..." (`extract.base.attribute`): one person's
    change never retires another's claim."""
    return (
        not names or (claim.subject or "").startswith(f"{names[0]}/") or names[0] in claim.entities
    )


def _same_owner(who: str, r: MemoryRecord, strict: bool = False) -> bool:
    """Different owners (my son / my daughter, 我儿子 / 我女儿) are different attributes. With a
    shared word a change may leave the owner unsaid ("We renamed the dog" after "My dog is called
    Rex"); on meaning or attribute alone (`strict`) someone else's ("my sister is single") is never
    the speaker's ("I got married")."""
    theirs = owner(r.summary)
    if who and theirs:
        return who == theirs
    return not strict or not someone_else(who or theirs)
