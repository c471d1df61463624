"""The episode side of a change: what it is about and what it retires.

When meaning alone links a change to a memory (`Neighbour`), the live memory a change turn's
episode contradicts, a statement's frame (subject and attribute, the value masked) against the
live memories' frames, and the retirement of what stated the old value. Over 600 lines: one
decision, which live memory a change replaces, with every path to it side by side.
"""

from __future__ import annotations

import functools
import numpy as np
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol
from ...extract.statement import (
    judges_only,
    said as statement_said,
    contradicts,
    about,
    about_self,
    one_sentence,
    owner,
    said,
    share,
    single_statement,
    someone_else,
    mentions,
    about_a_thing,
)
from ...extract.slot import third_person
from ...lang.utterance import is_instruction
from ...lang import all_on
from ...lang.text import negated, search_tokens, tokenize
from ...types import (
    AuditEntry,
    Candidate,
    Channel,
    MemoryRecord,
    MemoryType,
    Source,
    Status,
    WriteResult,
)
from ...lang.entities import mentions_of, world_names
from ...extract.change import in_progress
from ...extract.change import only_lasting
from ...extract.change import switches
from ...extract.change import PRESENT
from ...extract.change import REPLACED
from ...extract.change import Frame
from ...extract.change import adds
from ...extract.change import frame_words
from ...extract.change import frames
from ...extract.change import marker
from ...extract.change import now_also
from ...extract.change import replaced
from ...extract.change import states_change
from ...lang import Languages
from .records import new_id
from ...extract.base import attribute
from ...config.tuning import tuned

# When meaning alone links a change to a memory (`Neighbour`): the test every place that
# retires by meaning asks (`consolidate_decide.Decisions._about`, `consolidate_targets.ChangeTargets`).


class AboveBackground(Protocol):
    """Whether two statements sit closer than an unrelated everyday statement sits to the second
    (`background.Meaning`)."""

    def above(self, old: str, new: str) -> bool: ...


@dataclass(frozen=True)
class Neighbour:
    """When meaning alone links a change to a memory, the nearest memory must be its clear
    semantic neighbour:

    - similar enough (`change_similarity`) and ahead of the next memory by `change_margin`;
    - closer to the change, both in their own words and in the third person, than an unrelated
      everyday statement is (`background`). The next memory alone is no reference: a scope of one
      memory has none. And stored claims are embedded with their subject key ("allergy/peanut:
      The user is ..."), which brings any two claims of one user within a few hundredths (0.90
      for "allergic to peanuts" / "switched to a Pixel 8"). Their summaries alone score 0.82,
      under the background bank's everyday statements, while a phone the user replaced scores
      above them;
    - of the attribute the change is keyed by, when it is keyed ("my new laptop is ..." is no
      news of the user's job: `attribute_key`);
    - and the change names a value: one that only judges its thing ("my new job is really good
      now": `judges_only`) replaced nothing."""

    similarity: float
    margin: float
    background: AboveBackground | None = None
    #: the language packs under the config's switches (`rules.disabled`); every rule on if None
    langs: Languages | None = None

    def clear(
        self,
        scored: list[tuple[float, MemoryRecord]],
        new: MemoryRecord,
        key: str | None = None,
        nearest_keys: Sequence[str | None] = (),
    ) -> bool:
        """Whether scored[0] (scored: (cosine, memory), nearest first) is the clear neighbour of
        the change `new`. `key`: the subject key of the change (default: its own subject);
        `nearest_keys`: those of the nearest memory (default: its own subject; for an episode,
        the keys of the claims distilled from its turn)."""
        if not scored or judges_only(new.summary, self.langs):
            return False  # "my new job is really good": no value that replaced anything
        named = attribute_key(key or new.subject)
        nearest = {attribute_key(k) for k in (nearest_keys or (scored[0][1].subject,))} - {None}
        if named and (named not in nearest if nearest else named not in scored[0][1].text.lower()):
            # "my new laptop is ..." is no news of the user's job, nor of a statement that names
            # no laptop and was keyed by nothing ("I have two cats")
            return False
        best = scored[0][0]
        runner_up = scored[1][0] if len(scored) > 1 else 0.0
        if best < self.similarity or best - runner_up < self.margin:
            return False
        if self.background is None:
            return True
        # both in the third person, as claims are stored: "I now drive a Corolla" and "The user's
        # car is a Ford Focus" differ in person more than in meaning
        outside = (_outside(scored[0][1].summary, self.langs), _outside(new.summary, self.langs))
        return self.background.above(*outside)


def attribute_key(subject: str | None) -> str | None:
    """The attribute a subject key names: "fact/laptop" -> laptop, "allergy/peanut" -> allergy,
    "job" -> job. None for no key, or a key made of a value ("pref/pixel 8": what the user likes
    or switched to says nothing of which attribute it is)."""
    if not subject or subject.startswith("pref/"):
        return None
    if subject.startswith("fact/"):
        return subject[5:] or None
    return subject.split("/", 1)[0]


def _outside(text: str, langs: Languages | None = None) -> str:
    """A statement as a claim reads it: the speaker's label dropped, first person made third."""
    langs = langs or all_on()
    return third_person(statement_said(text, langs), langs.of(text))


# What a change is about: the live memory a change turn's episode contradicts (issue 16).
#
# A live claim (profile / preference / fact) qualifies when it shares a content word with the
# change, or names the value `replaces` gives, or is its clear semantic neighbour (`Neighbour`:
# nearest, ahead of the next by `change_margin`, above the background level); a live episode of
# the same speaker when it shares a content word, states one thing (`single_statement`) and is
# similar enough (`change_similarity`), or, for a stated change, is its clear neighbour; a
# memory the change contradicts by attribute (`extract.attributes`) when it is similar enough to
# be about the same thing. A change read only from a weak marker that says how long its state has
# lasted ("I've been playing for four months now", `only_lasting`) qualifies a memory by attribute
# alone. Where the user comes from (hometown, birthday) is no target: a move does
# not change it. Two statements of different owners ("my sister's name", "my cat's
# name") never qualify, nor one person's claim for another's change. `consolidate_changes.py`
# retires what is found here.

#: claims about the user (one attribute, whatever type it was stored as)
CLAIMS = ("fact", "preference", "profile")
#: where and when the user comes from: no later change alters them ("I moved to Bristol" after
#: "I'm from Leeds", 搬到上海 after 我老家是成都); only a statement of the same key corrects them
#: (`consolidate_decide.py`), never a change found by meaning or attribute here
_ORIGIN = frozenset({"hometown", "birthday"})
#: how many earlier episodes of a scope a change is compared with (newest first)
_EPISODE_POOL = 400
#: how far under `change_similarity` a memory the change contradicts by attribute may score
_ATTRIBUTE_SLACK = tuned("consolidate.attribute_slack")
#: how far under `change_similarity` the nearest claim sharing a word may score
_SHARED_WORD_SLACK = tuned("consolidate.shared_word_slack")
#: confidence of the claim a change's episode is distilled into
_CLAIM_CONFIDENCE = tuned("consolidate.change_claim_confidence")


class ChangeTargets:
    """Finds the memory a change turn's episode contradicts (see the module doc)."""

    def __init__(self, neighbour: Neighbour, langs: Languages | None = None) -> None:
        self.neighbour = neighbour
        self.langs = langs or neighbour.langs or all_on()
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
        names = speaker_names(new, self.langs)  # the speaker of a named turn
        words, who = about(new.summary, names, self.langs), owner(new.summary, self.langs)
        claims = earlier_claims(db, new, skip, self.langs)
        if also:
            return self._by_attribute(db, claims, new, vec, who, only_flips=True)
        if not stated and (
            only_lasting(new.summary, self.langs) or in_progress(new.summary, self.langs)
        ):
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
        vecs = db.vectors_with_parts([c.id for c in claims])[0]
        scored = sorted(
            ((float(np.dot(vecs[c.id], vec)), c) for c in claims if c.id in vecs),
            key=lambda x: -x[0],
        )
        fits = [
            (s, c)
            for s, c in scored
            if _same_owner(who, c, langs=self.langs)
            and (_shares(words, c, names, self.langs) or _names(c, replaces))
        ]
        # the nearest claim sharing a word, when it is (about) the nearest claim of all: a word
        # shared with a farther claim is a coincidence (a name, 工作), not the attribute
        if fits and fits[0][0] >= max(
            self.similarity - _SHARED_WORD_SLACK, scored[0][0] - self.margin
        ):
            return fits[0][1]
        hit = self._contradicted(scored, new, who)
        if hit is not None:
            return hit
        # a statement of one sentence about the speaker ("I'm now living in Seattle" after "my
        # home is in Austin"): the clear semantic neighbour among the claims, ahead of the next by
        # the margin (not where the language's pack says `clear_neighbour: false`: in Chinese e5
        # puts unrelated statements of one person within a few hundredths of each other, so the
        # nearest says nothing)
        if (
            not (about_self(new.summary, self.langs) and one_sentence(new.summary, self.langs))
            or not scored
            or not self.langs.of(new.summary).setting("clear_neighbour", True)
            or replaces  # it named what it replaced, and no claim states that
        ):
            return None
        if self.neighbour.clear(scored, new, key) and _same_owner(
            who, scored[0][1], strict=True, langs=self.langs
        ):
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
        if not single_statement(new.summary, self.langs):
            return None  # a long turn says several things: which of them changed is not clear
        pool = self.statements(db, new, who, names)
        if not pool:
            return None
        vecs = db.vectors_with_parts([e.id for e in pool])[0]
        scored = sorted(
            ((float(np.dot(vecs[e.id], vec)), e) for e in pool if e.id in vecs), key=lambda x: -x[0]
        )
        sharing = [(sim, e) for sim, e in scored if words and _shares(words, e, names, self.langs)]
        if sharing and sharing[0][0] >= max(self.similarity, scored[0][0] - self.margin):
            return sharing[0][1]
        hit = self._contradicted(scored, new, who)
        if hit is not None:
            return hit
        if stated and replaces:
            # what the change names is the evidence, meaning alone is not (consolidate_decide.py)
            return next((e for _, e in scored if names_part(e.text, replaces, self.langs)), None)
        if stated and about_self(new.summary, self.langs) and one_sentence(new.summary, self.langs):
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
        switch, text = switches(new.summary, self.langs), said(new.summary, self.langs)
        for sim, old in scored:
            if sim < self.similarity - _ATTRIBUTE_SLACK:
                break
            if not _same_owner(who, old, strict=True, langs=self.langs):
                continue
            was = said(old.summary, self.langs)
            if contradicts(was, text, switch=switch, nots_only=only_flips, langs=self.langs):
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
            and speaker_names(e, self.langs) == speaker_names(new, self.langs)
            and not set(e.source.turn_ids) & set(new.source.turn_ids)
            and _same_owner(who, e, langs=self.langs)
            and single_statement(e.summary, self.langs)
            and about_self(e.summary, self.langs)
            and not _restates(new, e, names, self.langs)
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
        names = speaker_names(new, self.langs)
        pool = [*claims, *self.statements(db, new, who, names)]
        vecs = db.vectors_with_parts([r.id for r in pool])[0]
        scored = sorted(
            ((float(np.dot(vecs[r.id], vec)), r) for r in pool if r.id in vecs),
            key=lambda x: -x[0],
        )
        return self._contradicted(scored, new, who, only_flips=only_flips)


def earlier_claims(
    db, new: MemoryRecord, skip: set[str], langs: Languages | None = None
) -> list[MemoryRecord]:
    """The live claims a change `new` may retire: of its speaker, before it, from another turn,
    not where the user comes from (`_ORIGIN`), not an instruction, not the same statement."""
    names = speaker_names(new, langs)  # the speaker of a named turn
    return [
        c
        for c in db.live_claims(new.scope, CLAIMS, created_before=new.created_at, limit=500)
        if c.id not in skip
        and (c.subject or "").rsplit("/", 1)[-1] not in _ORIGIN
        and not is_instruction(c.subject, c.summary, langs)  # a life event changes no instruction
        and not set(c.source.turn_ids) & set(new.source.turn_ids)
        and _same_speaker(c, names)
        and not _restates(new, c, names, langs)
    ]


def speaker_names(r: MemoryRecord, langs: Languages | None = None) -> tuple[str, ...]:
    """The names a writer attached to r (the speaker of a named turn first), without the names
    its text gives or shows by the packs `langs` (lang/entities.py: "a dog named Rex" is not
    who speaks)."""
    if not r.entities:
        return ()
    shown = _shown(r.summary, langs or all_on())
    return tuple(e for e in r.entities if e and e not in shown)


@functools.lru_cache(maxsize=4096)
def _shown(text: str, langs: Languages) -> frozenset[str]:
    """The names text gives or shows by the packs `langs`, read once per text and packs: a
    change compares its speaker with every candidate's."""
    return frozenset(world_names(text, langs))


def names_part(text: str, value: str, langs: Languages | None = None) -> bool:
    """The text names a value a change replaces, or a word of it: in Chinese any word (狗的名字 in
    我家的狗叫旺财: 狗; one character is a word here: 烟, 棋); in English a word that begins with
    the stem of one of four letters or more and goes on with an ending of its family ("teaching"
    in "teacher", "smoking" in "smoker", "swimming" in "swimmers"; "reading" is not in "ready")."""
    langs = langs or all_on()
    words = None
    for t in search_tokens(value, drop_stopwords=True):
        if not langs.of(t).spaced:
            if t in text:
                return True
        elif len(t) >= 4 and t.isalpha():
            words = words if words is not None else tokenize(text.lower(), langs=langs)
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


def _shares(
    words: frozenset[str],
    r: MemoryRecord,
    names: tuple[str, ...],
    langs: Languages | None = None,
) -> bool:
    return share(words, about(r.text, names, langs), langs)


def _restates(
    new: MemoryRecord,
    old: MemoryRecord,
    names: tuple[str, ...],
    langs: Languages | None = None,
) -> bool:
    """The same statement again ("My kids started swimming lessons" twice): nothing changed."""

    def words(r: MemoryRecord) -> frozenset[str]:  # every word, numbers included (9 am / 7 am)
        text = said(r.summary, langs)
        for name in names:
            text = text.replace(name, " ")
        return frozenset(search_tokens(text, drop_stopwords=True))

    return words(old) == words(new) and negated(said(old.summary, langs), langs) == negated(
        said(new.summary, langs), langs
    )


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


def _same_owner(
    who: str, r: MemoryRecord, strict: bool = False, langs: Languages | None = None
) -> bool:
    """Different owners (my son / my daughter, 我儿子 / 我女儿) are different attributes. With a
    shared word a change may leave the owner unsaid ("We renamed the dog" after "My dog is called
    Rex"); on meaning or attribute alone (`strict`) someone else's ("my sister is single") is never
    the speaker's ("I got married")."""
    theirs = owner(r.summary, langs)
    if who and theirs:
        return who == theirs
    return not strict or not someone_else(who or theirs, langs)


# A new value of an attribute, whatever the verb: the live memory a statement replaces because
# both give one attribute of one subject a value, and the values differ
# (docs/design.md invariant 10).
#
# The wording of a change (`extract.change_grammar.states_change`) misses a value restated with
# a word of time ("These days my favourite band is Radiohead"), a correction ("I got that wrong,
# my dentist is Dr. Lopez", 我的车不是本田是马自达), a role that passed to a new holder (新房东是
# 刘阿姨) or a habit changed with 改 (我改成每天骑车上班了). Here the statement's frame (its
# subject and attribute, the value masked) is compared with the frames of the live memories:
#
# - by structure: a frame of the change table (`frames`: "my / our (new) X is Y", 我的X是Y,
#   "Y is my X", 新X是Y) keyed like a live memory's, with another value, retires it when a
#   marker says the value replaced one (`marker`): a correction, a verb of replacing or
#   "instead" (or the value a correction left, "not X but Y") for any attribute; a time word of
#   the present or a new holder ("my new doctor", 新房东) only for the speaker's attribute of one
#   value at a time (`single`, `roles`). A frame restated with another value and no marker
#   retires nothing here: "my colleague's birthday is ..." said twice may be two colleagues
#   (the same subject key still supersedes in `decide.py`);
# - by its words, for a statement no frame reads ("I've switched to cycling to work every day"
#   after "I take the bus to work every day"): with a correction, a verb of replacing or
#   "instead", an earlier statement of the speaker that keeps at least two of its words and
#   differs in a few (the values) is the same frame; where an embedder is given, the two must
#   also be closer in meaning than an unrelated everyday statement (`Meaning`), so words shared
#   by chance retire nothing.
#
# An addition (another, also, 又, 也: `adds`) retires nothing; nor does a statement about someone
# else ("my brother moved to Denver", 我朋友的新房东是老李) retire a value of the user's: a frame
# is keyed by its owner (my daughter's school is another attribute than my school, and replaces
# only a school of my daughter's), and the words path reads only statements about the speaker.

#: how many words a statement and an earlier one must share to be one frame on words alone
_SHARED = 2


class FrameMatcher:
    """Finds the live memory a statement gives a new value of the same attribute (see the module
    doc)."""

    def __init__(
        self,
        targets: ChangeTargets,
        langs: Languages | None = None,
        meaning: AboveBackground | None = None,
    ) -> None:
        self.targets = targets
        self.langs = langs or targets.langs
        self.meaning = meaning

    def find(self, db, new: MemoryRecord, vec: np.ndarray, skip: set[str]) -> MemoryRecord | None:
        """The memory `new` (a turn's episode) replaces by frame, or None."""
        text = said(new.summary, self.langs)
        if not text or adds(text, self.langs) or judges_only(text, self.langs):
            return None
        said_frames = frames(text, self.langs)
        signal = marker(text, self.langs)
        by_words = (
            signal == REPLACED
            and single_statement(text, self.langs)
            and about_self(text, self.langs)
            and not someone_else(owner(text, self.langs), self.langs)
        )
        if not said_frames and not by_words:
            return None  # read before any memory is: most turns give no attribute a value
        claims = earlier_claims(db, new, skip, self.langs)
        episodes = self.targets.statements(
            db, new, owner(text, self.langs), speaker_names(new, self.langs)
        )
        pool = _nearest(db, [*claims, *episodes], vec)
        found = _by_frame(pool, said_frames, signal, self.langs) if said_frames else None
        if found is None and by_words:
            found = self._by_words(text, [e for e in pool if e in episodes])
        return found

    def _by_words(self, text: str, pool: Sequence[MemoryRecord]) -> MemoryRecord | None:
        """The earlier statement that keeps the words of this one's frame and differs in its
        value (the module doc), nearest first."""
        words = frame_words(text, self.langs)
        for old in pool:
            theirs = frame_words(old.summary, self.langs)
            shared, mine, their_own = words & theirs, words - theirs, theirs - words
            if not (
                len(shared) >= _SHARED
                and 1 <= len(mine) <= len(shared)
                and 1 <= len(their_own) <= len(shared) + 1
            ):
                continue
            if self.meaning is None or self.meaning.above(said(old.summary, self.langs), text):
                return old
        return None


def _nearest(db, pool: list[MemoryRecord], vec: np.ndarray) -> list[MemoryRecord]:
    """The pool nearest first (claims and statements without a vector last)."""
    vecs = db.vectors_with_parts([r.id for r in pool])[0]
    return sorted(
        pool, key=lambda r: -float(np.dot(vecs[r.id], vec)) if r.id in vecs else float("inf")
    )


def _by_frame(
    pool: Sequence[MemoryRecord],
    said_frames: Sequence[Frame],
    signal: int,
    langs: Languages | None,
) -> MemoryRecord | None:
    """The nearest memory whose frame is keyed like one of the statement's, with another value,
    when a marker says the value replaced one (`_replaces`)."""
    for old in pool:
        for theirs in frames(old.summary, langs):
            for mine in said_frames:
                if _replaces(mine, signal) and mine.differs(theirs):
                    return old
    return None


def _replaces(frame: Frame, signal: int) -> bool:
    """Whether a frame's new value replaces the live one rather than sitting beside it. A
    correction, a verb of replacing or "instead" (REPLACED), or the value a correction left
    ("not X but Y"), says so of any attribute. A time word of the present or a new holder ("my
    new doctor") says so of the speaker's attribute of one value at a time (`single`, `roles`:
    favourites, a pet, a landlord), not of one of many (a hobby) nor of an attribute the table
    does not name, and not of another person's: "my colleague's birthday is ..." said twice may
    be two colleagues."""
    if signal == REPLACED or frame.left:
        return True
    weak = signal == PRESENT or frame.new
    return weak and frame.single and not frame.multi and not frame.owner


# The episode side of a change: the turn that says a value changed retires what stated the old
# one, whatever it was stored as (issue 16; docs/design.md invariant 10). What the change is
# about is found in `consolidate_targets.py`; this module decides whether a turn is a change and
# retires what was found.
#
# A change the slot rules understood supersedes its curated memory (`consolidate_decide.py`), and
# the episode of the old turn then reads as outdated (its distilled memory is inactive). Many changes
# name an attribute no rule keys ("I moved my gym day to Thursdays", 钢琴课换到周日了), or replace a
# value no rule curated ("I take evening classes at the community college"): the old value lives
# only in a live claim of another subject or in the verbatim episode of the old turn. Here the
# change turn's episode, once stored, finds that memory by what both are about:
#
# - the change is read from the grammar (`extract.change_grammar.states_change`), or from a
#   change candidate of the same turn (a `switch` tag, or `replaces`, from the rules or the LLM);
#   a turn of several statements (`single_statement`) retires something only when a candidate
#   names the value it replaces: which of its statements changed what is otherwise a guess;
# - a live claim (profile / preference / fact) qualifies when it shares a content word with the
#   change, or names the value `replaces` gives, or is its clear semantic neighbour (nearest, ahead
#   of the next by `change_margin`); a live episode of the same speaker when it shares a content
#   word, states one thing (`single_statement`) and is similar enough (`change_similarity`);
#   two statements of different owners ("my sister's name", "my cat's name") never qualify;
# - the best one goes inactive, `superseded_at` set, audited "superseded by <id>", and its
#   successor links back to it (`prev_id`): the curated change candidate of the same turn when there
#   is one, else the change turn's own episode. The successor's line carries the "changed from"
#   note; the old memory stays in the store (evidence, restorable), out of recall.
#
# Why out of recall and not shown with a "later changed" note: the successor already shows the old
# words in its "changed from" note (the one-line history the design asks for), and a curated
# version that is superseded leaves recall the same way; one rule for every type keeps "at most one
# value current" checkable. The audit trail keeps the episode, and `restore` brings it back.


@dataclass(frozen=True)
class Sibling:
    """A curated candidate of the same turn, and what consolidation did with it."""

    candidate: Candidate
    result: WriteResult


class ChangeRetirer:
    """Retires the memory a change turn's episode contradicts (see the module doc)."""

    def __init__(
        self, neighbour: Neighbour, model: str, clock, langs: Languages | None = None
    ) -> None:
        self.targets = ChangeTargets(neighbour, langs)
        self.frames = FrameMatcher(self.targets, langs, neighbour.background)
        self.langs = self.targets.langs
        self.model = model
        self.clock = clock

    def after_episode(
        self, db, episode: MemoryRecord, vec: np.ndarray, siblings: Sequence[Sibling]
    ) -> str | None:
        """Called once the episode of a turn is stored. Returns the id of the memory it retired."""
        if any(s.result.replaced_id or s.result.action in ("doubt", "skip") for s in siblings):
            return None  # the turn's own claim already superseded (or restated) the old value
        changes = [s for s in siblings if s.candidate.replaces or "switch" in s.candidate.tags]
        skip = {s.result.record.id for s in siblings if s.result.record}
        # a frame of the speaker's own attribute says whose value it is, whatever else the turn
        # is about ("豆豆送人了，现在我养的宠物是…")
        target = self.frames.find(db, episode, vec, skip)
        if target is not None:
            # the new value of the same frame: the claim the turn made of it, if any
            changes = changes or [s for s in siblings if s.result.action == "insert"]
        elif not _of_others_only(episode.summary, self.langs):
            target = self._by_wording(db, episode, vec, siblings, changes, skip)
        if target is None:
            return None
        successor = next((s.result.record for s in changes if s.result.record is not None), None)
        if (
            successor is None
            and target.type is not MemoryType.EPISODE
            and target.subject
            and single_statement(episode.summary, self.langs)
            and about_self(episode.summary, self.langs)
        ):
            successor = self._new_value(db, target, episode, vec)
        self._retire(db, target, successor or episode)
        if target.type is MemoryType.EPISODE:  # the same words said again are the same old value
            for again in db.live_episodes_saying(
                episode.scope, target.summary, exclude=episode.id, limit=50
            ):
                self._retire(db, again, successor or episode, link=False)
            # and what was distilled from it: the episode states one thing, so do its claims
            # (我是一名护士 -> job 用户是护士, retired with it by 我转行了，现在是一名药剂师)
            turns = set(target.source.turn_ids)
            for claim in db.live_claims(
                episode.scope, CLAIMS, created_before=episode.created_at, limit=500
            ):
                if turns & set(claim.source.turn_ids) and claim.id not in skip:
                    self._retire(db, claim, successor or episode, link=False)
        return target.id

    def _by_wording(
        self,
        db,
        episode: MemoryRecord,
        vec: np.ndarray,
        siblings: Sequence[Sibling],
        changes: Sequence[Sibling],
        skip: set[str],
    ) -> MemoryRecord | None:
        """The memory a turn that says a value changed (its wording, or a change candidate of
        the same turn) contradicts."""
        change = bool(changes) or states_change(episode.summary, self.langs)
        also = not change and _ends_a_not(episode.summary, self.langs)  # only a "not" it ends
        if not change and not also:
            return None
        if not about_a_thing(episode.summary, self.langs):
            return None  # chat about someone else, or to the listener ("猫搬家会应激的，你注意点")
        if judges_only(episode.summary, self.langs):
            return None  # 我的工作最近很忙: how it goes, no value that replaced one
        replaces = next((s.candidate.replaces for s in changes if s.candidate.replaces), None)
        if replaces is None and not single_statement(episode.summary, self.langs):
            # a turn that says several things: which of them changed, and what it replaced, is a
            # guess ("I used to have a dog ..., but then I got allergic and ... The name helps me
            # remember her" is no change of an allergy said before); only a value a change
            # candidate names as replaced is evidence enough
            return None
        # what a one-statement change says it left ("Linux instead of Windows"): named, it is the
        # evidence, and meaning alone is not
        replaces = replaces or replaced(episode.summary, self.langs)
        return self.targets.find(
            db,
            episode,
            vec,
            replaces,
            skip,
            stated=bool(changes),
            also=also,
            key=next(
                (s.candidate.subject for s in (*changes, *siblings) if s.candidate.subject), None
            ),
        )

    def _new_value(
        self, db, old: MemoryRecord, episode: MemoryRecord, vec: np.ndarray
    ) -> MemoryRecord:
        """The new value of a keyed attribute that no rule cut out ("I now drive a Toyota Corolla"
        after "my car is a Ford Focus"): the change turn in the third person, under the old key, so
        the attribute keeps one current value that a question about it finds."""
        text = said(episode.summary, self.langs).rstrip("。.!！")
        summary = third_person(text, self.langs.of(text))
        speaker = speaker_names(episode, self.langs)
        if speaker:  # a named speaker: "李明轩 ...", as the rules write their claims
            summary = attribute([Candidate(old.type, summary)], speaker[0], self.langs)[0].summary
        claim = MemoryRecord(
            id=new_id(self.clock),
            scope=episode.scope,
            type=old.type,
            summary=summary,
            entities=episode.entities,
            subject=old.subject,
            session_id=episode.session_id,
            tags=("switch",),
            importance=old.importance,
            confidence=_CLAIM_CONFIDENCE,
            source=Source(
                Channel.IMPLICIT,
                episode.source.session_id,
                episode.source.turn_ids,
                episode.source.writer,
            ),
            created_at=episode.created_at,
            updated_at=episode.created_at,
        )
        db.insert(claim, vec, self.model, mentions=mentions_of(claim, self.langs))
        db.audit(
            AuditEntry(
                claim.scope,
                claim.id,
                "insert",
                f"the new value turn {episode.source.turn_ids[0]} states",
                claim.created_at,
                Channel.IMPLICIT.value,
                episode.source.writer,
            ),
        )
        return claim

    # ---- retiring --------------------------------------------------------------------------

    def _retire(self, db, old: MemoryRecord, successor: MemoryRecord, link: bool = True) -> None:
        now = successor.created_at
        retired = old.replace(status=Status.INACTIVE, superseded_at=now, updated_at=now)
        db.update(retired, None, "", reindex=False, mentions=mentions_of(retired, self.langs))
        db.audit(
            AuditEntry(
                old.scope,
                old.id,
                "deactivate",
                f"superseded by {successor.id} (a change: {_short(successor)})",
                now,
                successor.source.channel.value,
                successor.source.writer,
            ),
        )
        if link and successor.prev_id is None:
            linked = successor.replace(
                prev_id=old.id,
                version=max(successor.version, old.version + 1)
                if successor.type is not MemoryType.EPISODE
                else successor.version,
            )
            db.update(linked, None, "", reindex=False, mentions=mentions_of(linked, self.langs))
            db.audit(
                AuditEntry(
                    old.scope,
                    successor.id,
                    "update",
                    f"replaces {old.id}",
                    now,
                    successor.source.channel.value,
                    successor.source.writer,
                ),
            )


def _of_others_only(text: str, langs: Languages | None) -> bool:
    """Every value the statement gives is another person's ("my sister's favourite band is
    Radiohead now", 我妹妹现在最喜欢的乐队是苏打绿): however it is worded, it changes nothing of
    the speaker's."""
    found = frames(text, langs)
    return bool(found) and all(f.owner for f in found)


def _ends_a_not(text: str, langs: Languages | None = None) -> bool:
    """Worth looking for a "not" this statement ends: "now also" (我现在也吃牛肉了), or a short
    statement about the speaker that names a value of an attribute ("We got a puppy")."""
    if now_also(text, langs):
        return True
    return (
        about_self(text, langs)
        and single_statement(text, langs)
        and not negated(said(text, langs), langs)
        and any(m.values for m in mentions(said(text, langs), langs).values())
    )


def _short(r: MemoryRecord) -> str:
    text = r.summary.strip()
    return text if len(text) <= 60 else text[:57] + "..."
