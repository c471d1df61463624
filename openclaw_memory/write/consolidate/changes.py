"""The episode side of a change: the turn that says a value changed retires what stated the old
one, whatever it was stored as (issue 16; docs/design.md invariant 10). What the change is
about is found in `consolidate_targets.py`; this module decides whether a turn is a change and
retires what was found.

A change the slot rules understood supersedes its curated memory (`consolidate_decide.py`), and
the episode of the old turn then reads as outdated (its distilled memory is inactive). Many changes
name an attribute no rule keys ("I moved my gym day to Thursdays", 钢琴课换到周日了), or replace a
value no rule curated ("I take evening classes at the community college"): the old value lives
only in a live claim of another subject or in the verbatim episode of the old turn. Here the
change turn's episode, once stored, finds that memory by what both are about:

- the change is read from the grammar (`extract.change_grammar.states_change`), or from a
  change candidate of the same turn (a `switch` tag, or `replaces`, from the rules or the LLM);
  a turn of several statements (`single_statement`) retires something only when a candidate
  names the value it replaces: which of its statements changed what is otherwise a guess;
- a live claim (profile / preference / fact) qualifies when it shares a content word with the
  change, or names the value `replaces` gives, or is its clear semantic neighbour (nearest, ahead
  of the next by `change_margin`); a live episode of the same speaker when it shares a content
  word, states one thing (`single_statement`) and is similar enough (`change_similarity`);
  two statements of different owners ("my sister's name", "my cat's name") never qualify;
- the best one goes inactive, `superseded_at` set, audited "superseded by <id>", and its
  successor links back to it (`prev_id`): the curated change candidate of the same turn when there
  is one, else the change turn's own episode. The successor's line carries the "changed from"
  note; the old memory stays in the store (evidence, restorable), out of recall.

Why out of recall and not shown with a "later changed" note: the successor already shows the old
words in its "changed from" note (the one-line history the design asks for), and a curated
version that is superseded leaves recall the same way; one rule for every type keeps "at most one
value current" checkable. The audit trail keeps the episode, and `restore` brings it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .frames import FrameMatcher
from .records import new_id
from .neighbour import Neighbour
from .targets import CLAIMS, ChangeTargets, speaker_names
from ...extract.attributes import mentions
from ...extract.base import attribute
from ...extract.change_grammar import frames, now_also, replaced, states_change
from ...extract.statement import about_a_thing, about_self, judges_only, said, single_statement
from ...extract.slot import third_person
from ...lang import Languages
from ...lang.text import has_cjk, negated
from ...types import Candidate, Channel, MemoryRecord, MemoryType, Source, Status, WriteResult


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
        self.targets = ChangeTargets(neighbour)
        self.frames = FrameMatcher(self.targets, langs, neighbour.background)
        self.langs = langs
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
            and single_statement(episode.summary)
            and about_self(episode.summary)
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
        also = not change and _ends_a_not(episode.summary)  # retires only a "not" it ends
        if not change and not also:
            return None
        if not about_a_thing(episode.summary):
            return None  # chat about someone else, or to the listener ("猫搬家会应激的，你注意点")
        if judges_only(episode.summary):
            return None  # 我的工作最近很忙: how it goes, no value that replaced one
        replaces = next((s.candidate.replaces for s in changes if s.candidate.replaces), None)
        if replaces is None and not single_statement(episode.summary):
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
        text = said(episode.summary).rstrip("。.!！")
        summary = third_person(text, has_cjk(text))
        speaker = speaker_names(episode)
        if speaker:  # a named speaker: "李明轩 ...", as the rules write their claims
            summary = attribute([Candidate(old.type, summary)], speaker[0])[0].summary
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
            confidence=0.85,
            source=Source(
                Channel.IMPLICIT,
                episode.source.session_id,
                episode.source.turn_ids,
                episode.source.writer,
            ),
            created_at=episode.created_at,
            updated_at=episode.created_at,
        )
        db.insert(claim, vec, self.model)
        db.audit(
            claim.scope,
            claim.id,
            "insert",
            f"the new value turn {episode.source.turn_ids[0]} states",
            claim.created_at,
            Channel.IMPLICIT.value,
            episode.source.writer,
        )
        return claim

    # ---- retiring --------------------------------------------------------------------------

    @staticmethod
    def _retire(db, old: MemoryRecord, successor: MemoryRecord, link: bool = True) -> None:
        now = successor.created_at
        db.update(
            old.replace(status=Status.INACTIVE, superseded_at=now, updated_at=now),
            None,
            "",
            reindex=False,
        )
        db.audit(
            old.scope,
            old.id,
            "deactivate",
            f"superseded by {successor.id} (a change: {_short(successor)})",
            now,
            successor.source.channel.value,
            successor.source.writer,
        )
        if link and successor.prev_id is None:
            linked = successor.replace(
                prev_id=old.id,
                version=max(successor.version, old.version + 1)
                if successor.type is not MemoryType.EPISODE
                else successor.version,
            )
            db.update(linked, None, "", reindex=False)
            db.audit(
                old.scope,
                successor.id,
                "update",
                f"replaces {old.id}",
                now,
                successor.source.channel.value,
                successor.source.writer,
            )


def _of_others_only(text: str, langs: Languages | None) -> bool:
    """Every value the statement gives is another person's ("my sister's favourite band is
    Radiohead now", 我妹妹现在最喜欢的乐队是苏打绿): however it is worded, it changes nothing of
    the speaker's."""
    found = frames(text, langs)
    return bool(found) and all(f.owner for f in found)


def _ends_a_not(text: str) -> bool:
    """Worth looking for a "not" this statement ends: "now also" (我现在也吃牛肉了), or a short
    statement about the speaker that names a value of an attribute ("We got a puppy")."""
    if now_also(text):
        return True
    return (
        about_self(text)
        and single_statement(text)
        and not negated(said(text))
        and any(m.values for m in mentions(said(text)).values())
    )


def _short(r: MemoryRecord) -> str:
    text = r.summary.strip()
    return text if len(text) <= 60 else text[:57] + "..."
