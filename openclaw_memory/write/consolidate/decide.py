"""What a new claim does to the live memories of its scope (docs/design.md "consolidate").

- profile / preference / fact / task: the same scope + type + subject (or, with no subject, the
  nearest record of the type) at similarity >= threshold is a restatement: the record is updated in
  place, its old content kept in `versions`. Below the threshold, the same subject means the value
  changed: the old record goes inactive (never deleted) and a successor links back to it. A
  change that names no subject finds the claim it contradicts by the value it replaces, or by its
  clear semantic neighbour, or by an earlier turn that stated the old value.
- On conflict the channel decides (explicit > admin > imported > tool > implicit; what the
  user says in conversation corrects an imported claim); a lower-priority or
  low-certainty claim never overwrites a confident one: it is kept as a doubt.
- event / episode: append-only; a replayed capture of the same turns is recognised and skipped.
- decision: appended, linked to the live facts and tasks of its subject.

The writes that carry a decision out (insert, restate, supersede) are `consolidate_records.py`.
"""

from __future__ import annotations

import re

import numpy as np

from ...core.clock import Clock
from ...config import MemoryConfig
from .records import RecordWrites, deactivate, new_id
from ...procedure.distil import worked
from ...core.policy import APPEND_ONLY_TYPES, CHANNEL_PRIORITY, KEYED_TYPES
from ...core.subjects import ONE_HOLDER, person_path
from ...store.ports import content_hash
from .changes import Neighbour
from .changes import names_part
from ...extract.statement import judges_only
from ...lang.utterance import is_instruction
from ...lang import Languages, all_on
from ...lang.entities import mentions_of
from ...lang.text import lexical_overlap, negated
from ...types import AuditEntry, Candidate, Channel, MemoryRecord, MemoryType, Source, WriteResult
from ...config.tuning import tuned

#: share of content words two procedures must have in common to be one procedure
_MIN_OVERLAP = tuned("procedure.min_overlap")

#: the writer of what the user said in conversation (MemoryMiddleware's captures)
CONVERSATION_WRITER = "after_response"
#: claims about the user consolidated across types: one attribute is one attribute
#: the newest facts read for the people a user has named (as a change reads the live claims)
RELATED_FACTS = 500
CLAIM_TYPES = frozenset({MemoryType.PROFILE, MemoryType.PREFERENCE, MemoryType.FACT})


class Decisions:
    """Decides, per candidate, between insert, restate, supersede, doubt and skip, and has the
    record writes carry it out inside the caller's transaction."""

    def __init__(
        self, writes: RecordWrites, clock: Clock, config: MemoryConfig, neighbour: Neighbour
    ) -> None:
        self.writes = writes
        self.neighbour = neighbour
        # the language packs under the config's switches, as the change rules read them
        self.langs = neighbour.langs or all_on()
        self.clock = clock
        self.cfg = config
        self.threshold = config.long_term.similarity_threshold

    def decide(self, db, cand: Candidate, draft: MemoryRecord, vec: np.ndarray) -> WriteResult:
        """What this candidate (drafted as `draft`, embedded as `vec`) does, done in `db`."""
        if cand.forget:  # commands run on their own path (forget.py); never stored as memories
            raise ValueError("forget commands are run by forget.run, not consolidated")
        if cand.key is not None:  # the record id follows from the key (records.keyed_id)
            made = db.get(draft.scope, draft.id)
            if made is not None:
                return WriteResult("skip", made, "written before by the same request (a replay)")
        if draft.type in APPEND_ONLY_TYPES:
            return self._append(db, draft, vec)
        if draft.type is MemoryType.DECISION:
            return self._decision(db, draft, vec)
        if draft.type is MemoryType.PROCEDURE:  # one live procedure per kind of task
            return write_procedure(self.writes, db, draft, vec)
        if draft.type in KEYED_TYPES:
            return self._keyed(db, draft, vec, cand)
        return self.writes.insert(
            db, draft, vec, "new summary" if draft.type is MemoryType.SUMMARY else "new"
        )

    # ---- policies ---------------------------------------------------------------------------

    def _append(self, db, r: MemoryRecord, vec: np.ndarray) -> WriteResult:
        if r.source.turn_ids:
            h = content_hash(r)
            for old in db.copies_of_text(r.scope, r.type.value, h, limit=20):
                if old.source.turn_ids == r.source.turn_ids:
                    return WriteResult("skip", old, "same turns already captured")
        return self.writes.insert(db, r, vec, f"append {r.type.value}")

    def _decision(self, db, r: MemoryRecord, vec: np.ndarray) -> WriteResult:
        if r.subject:
            decided = db.live_by_subject(r.scope, [r.subject], types=("fact", "task"), limit=20)
            r = r.replace(links=tuple(dict.fromkeys([*r.links, *(d.id for d in decided)])))
        return self.writes.insert(db, r, vec, "new decision")

    def _keyed(
        self, db, r: MemoryRecord, vec: np.ndarray, cand: Candidate | None = None
    ) -> WriteResult:
        r, unnamed = one_holder(db, r)
        old, sim = self._match(db, r, vec)
        if old is None and unnamed:  # what was said of "my wife" before she was named
            said, sim = self._match(db, r.replace(subject=unnamed), vec)
            if said is not None and not aside(said, self.langs) and not aside(r, self.langs):
                return self._supersede(db, said, r, vec, sim)  # the value with her name
        if old is None and cand is not None and is_change(cand):
            old, sim = self._about(db, r, vec, cand.replaces)
            if old is not None:
                if self._is_doubt(r, old, sim):
                    doubt = r.replace(doubt_of=old.id)
                    res = self.writes.insert(
                        db, doubt, vec, f"doubt: weaker claim contradicts {old.id}"
                    )
                    return WriteResult("doubt", res.record, res.reason, old.id)
                # the successor speaks of the same attribute: it keeps the old memory's key
                return self._supersede(
                    db, old, r.replace(subject=old.subject or r.subject), vec, sim
                )
            said = self._said_before(db, r, cand.replaces)
            if said is not None:
                return self.writes.supersede(db, said, r, vec, 0.0)
        if old is None:
            return self.writes.insert(db, r, vec, "new")
        if aside(r, self.langs) and not aside(old, self.langs):
            # "my manager is really nice" after "my manager is Laura", "I'm moving to Paris next
            # month" after "I live in Boston": a judgement or a plan, no value that replaces it
            return self.writes.insert(db, r, vec, f"{aside(r, self.langs)} beside {old.id}")
        if self._is_doubt(r, old, sim):
            doubt = r.replace(doubt_of=old.id)
            res = self.writes.insert(db, doubt, vec, f"doubt: weaker claim contradicts {old.id}")
            return WriteResult("doubt", res.record, res.reason, old.id)
        if sim >= self.threshold:
            return self.writes.restate(db, old, r, vec, sim)
        if cand is not None and "also" in cand.tags and not is_change(cand):
            return self.writes.insert(
                db, r, vec, f"a value beside {old.id}"
            )  # "I also like tea": not a change
        return self._supersede(db, old, r, vec, sim)

    def _supersede(
        self, db, old: MemoryRecord, r: MemoryRecord, vec: np.ndarray, sim: float
    ) -> WriteResult:
        """r replaces the value old held; what was said beside the old value under the same key
        ("my manager is really nice" of Laura when Ben is the new manager; "plans to move to
        Paris" once the user lives there) goes with it."""
        result = self.writes.supersede(db, old, r, vec, sim)
        new = result.record
        if new is None or not r.subject or aside(old, self.langs) or aside(r, self.langs):
            return result
        types = sorted(t.value for t in CLAIM_TYPES)
        for said in db.live_claims(r.scope, types, subject=r.subject, limit=10):
            if said.id != new.id and aside(said, self.langs):
                deactivate(
                    db,
                    said,
                    r.created_at,
                    f"{aside(said, self.langs)} beside {old.id}, replaced by {new.id}",
                    r.source.channel,
                    r.source.writer,
                )
        return result

    def _match(self, db, r: MemoryRecord, vec: np.ndarray) -> tuple[MemoryRecord | None, float]:
        """The live record this candidate speaks about, and their similarity: by subject whatever
        type it was stored as (a fact "drink" and a preference "drink" are one attribute)."""
        if r.subject:
            types = (
                sorted(t.value for t in CLAIM_TYPES) if r.type in CLAIM_TYPES else [r.type.value]
            )
            pool = db.live_claims(r.scope, types, subject=r.subject, limit=10)
            if not aside(
                r, self.langs
            ):  # a new value replaces the value, not a judgement or plan beside it
                pool = [p for p in pool if not aside(p, self.langs)] or pool
        else:
            pool = db.live_claims(
                r.scope, [r.type.value], limit=self.cfg.long_term.max_facts_per_user
            )
        if not pool:
            return None, 0.0
        vecs = db.vectors_with_parts([p.id for p in pool])[0]
        scored = [(self._same(p, r, vecs.get(p.id), vec), p) for p in pool]
        sim, best = max(scored, key=lambda x: x[0])
        if not r.subject and sim < self.threshold:
            return None, sim
        return best, sim

    def _about(
        self, db, r: MemoryRecord, vec: np.ndarray, replaces: str | None
    ) -> tuple[MemoryRecord | None, float]:
        """The live claim a change contradicts when no subject names it: the one that states the
        value it replaces, else its clear semantic neighbour (`Neighbour`: absolute cosine says
        little). A change that names what it replaces retires only a claim naming it, or a part
        of it: in Chinese any word (戒烟 -> 烟, one character is a word; 狗的名字 -> 我家的狗叫旺财),
        in English a word of the same stem ("I stopped teaching" -> "a high school teacher").
        e5 puts one person's unrelated Chinese statements within a few hundredths (赵刚戒烟了 /
        赵刚喜欢吃米粉 0.93, 用户戒烟了 / 用户每天抽几根烟 0.95), so the named value is the
        evidence and meaning alone is not ("Linux instead of Windows" retires nothing when no
        claim says Windows)."""
        pool = db.live_claims(r.scope, sorted(t.value for t in CLAIM_TYPES), limit=500)
        # an instruction to the assistant is changed by an instruction of its key, never a change
        # of the user's life found by meaning
        pool = [
            p for p in pool if p.id != r.id and not is_instruction(p.subject, p.summary, self.langs)
        ]
        if not pool:
            return None, 0.0
        vecs = db.vectors_with_parts([p.id for p in pool])[0]
        scored = sorted(
            ((float(np.dot(vecs[p.id], vec)), p) for p in pool if p.id in vecs), key=lambda x: -x[0]
        )
        if replaces and (len(replaces.strip()) >= 2 or not self.langs.of(replaces).spaced):
            named = [(s, p) for s, p in scored if _states(p, replaces)]
            if named:
                return named[0][1], named[0][0]
            part = [(s, p) for s, p in scored if names_part(p.text, replaces, self.langs)]
            return (part[0][1], part[0][0]) if part else (None, 0.0)
        if self.neighbour.clear(scored, r):
            return scored[0][1], scored[0][0]
        return None, 0.0

    def _said_before(self, db, r: MemoryRecord, replaces: str | None) -> MemoryRecord | None:
        """A change whose old value no curated memory holds, but an earlier turn states ("I drink
        coffee every morning", then "I now prefer green tea instead of coffee"): that statement is
        recorded as the claim the change replaces (a fact distilled from that turn, written as
        already superseded), so the old turn is recalled as outdated and the new value carries a
        "changed from" note. The episode itself stays as it was (the log is append-only)."""
        if not replaces or len(replaces.strip()) < 2:
            return None
        episodes = db.live_episodes_before(r.scope, r.created_at, 200)
        said = next(
            (
                e
                for e in episodes
                if _states(e, replaces)
                and e.source.turn_ids
                and not set(e.source.turn_ids) & set(r.source.turn_ids)
            ),
            None,
        )
        if said is None:
            return None
        claim = MemoryRecord(
            id=new_id(self.clock),
            scope=r.scope,
            type=MemoryType.FACT,
            summary=said.summary,
            subject=r.subject,
            session_id=said.session_id,
            entities=(replaces,),
            importance=said.importance,
            confidence=said.confidence,
            source=Source(
                Channel.IMPLICIT, said.source.session_id, said.source.turn_ids, "consolidate"
            ),
            created_at=said.created_at,
            updated_at=said.created_at,
        )
        vec = db.vectors_with_parts([said.id])[0].get(said.id)
        db.insert(claim, vec, self.writes.model, mentions=mentions_of(claim, self.langs))
        db.audit(
            AuditEntry(
                r.scope,
                claim.id,
                "insert",
                f"the claim turn {said.source.turn_ids[0]} made, replaced by a change",
                r.created_at,
                Channel.IMPLICIT.value,
                "consolidate",
            ),
        )
        return claim

    def _same(
        self, old: MemoryRecord, new: MemoryRecord, old_vec: np.ndarray | None, vec: np.ndarray
    ) -> float:
        """Similarity of two claims, or 0 when they visibly say different things.

        Embeddings barely see what changed inside a sentence (e5 scores 我喜欢喝咖啡 / 我不喜欢喝咖啡
        at 0.99 and coffee / tea swaps above 0.95), so a restatement must also keep the polarity,
        share its named values (entities) and most of its content words.
        """
        if old_vec is None or negated(old.summary, self.langs) != negated(new.summary, self.langs):
            return 0.0
        if (
            old.entities
            and new.entities
            and not {e.lower() for e in old.entities} & {e.lower() for e in new.entities}
        ):
            return 0.0
        if lexical_overlap(old.summary, new.summary) < _MIN_OVERLAP:
            return 0.0
        return float(np.dot(old_vec, vec))

    def _is_doubt(self, new: MemoryRecord, old: MemoryRecord, sim: float) -> bool:
        if (
            sim >= self.threshold
            and CHANNEL_PRIORITY[new.source.channel] >= CHANNEL_PRIORITY[old.source.channel]
        ):
            return False
        # two things the user said in conversation: the later one wins, whichever the rules
        # classified as a stated change (explicit) and which as a plain statement (implicit)
        both_said = new.source.writer == old.source.writer == CONVERSATION_WRITER
        # what the user says now corrects what a file said then, as it corrects an inference
        said_after_import = (
            new.source.writer == CONVERSATION_WRITER and old.source.channel is Channel.IMPORTED
        )
        weaker_channel = (
            CHANNEL_PRIORITY[new.source.channel] < CHANNEL_PRIORITY[old.source.channel]
            and not both_said
            and not said_after_import
        )
        floor = self.cfg.extraction.min_confidence
        unsure = new.confidence < floor <= old.confidence
        return weaker_channel or unsure


def one_holder(db, r: MemoryRecord) -> tuple[MemoryRecord, str]:
    """A fact about a person of a relation the user has one of (`core.subjects.ONE_HOLDER`),
    with the subject it is matched under: said by relation alone ("my wife is now a teacher":
    `wife/job`) once the user has named one person of it, it is filed under that name
    (`wife/julia/job`, her name among its entities); said with the name of the only one, what was
    said by relation alone before (`wife/job`) is its earlier value too (the second value: that
    subject, else ""). Any other memory is returned as it is."""
    path = person_path(r)
    if path is None or path.relation not in ONE_HOLDER:
        return r, ""
    named: dict[str, MemoryRecord] = {}
    for p in db.live_claims(r.scope, ["fact"], limit=RELATED_FACTS):
        other = person_path(p)
        if other is not None and other.relation == path.relation and other.name:
            named.setdefault(other.name, p)
    if path.name:
        return r, (path.subject("") if set(named) <= {path.name} else "")
    if len(named) != 1:
        return r, ""
    ((name, holder),) = named.items()
    shown = [e for e in holder.entities if e.strip().lower() == name]
    return (
        r.replace(
            subject=path.subject(name),
            entities=tuple(dict.fromkeys([*shown, *r.entities])),
            detail=holder.detail or r.detail,
        ),
        "",
    )


def aside(r: MemoryRecord, langs: Languages | None = None) -> str:
    """What a claim says beside the value of its key, if anything: a judgement of it ("my manager
    is really nice": `judges_only`) or a plan ("plans to move to Paris", tagged `planned`). Empty
    for a value."""
    if "planned" in r.tags:
        return "a plan"
    return "a judgement" if judges_only(r.summary, langs) else ""


def is_change(c: Candidate) -> bool:
    """The user says a value changed ("switched to", 不再, "now"), or names what it replaces."""
    return bool(c.replaces) or "switch" in c.tags


def _states(r: MemoryRecord, value: str) -> bool:
    """The memory states this value (its text or entities), as a word, not inside another word."""
    v = value.strip().lower()
    if any(e.lower() == v for e in r.entities):
        return True
    text = r.text.lower()
    if not v.isascii():
        return v in text
    return re.search(rf"(?<![a-z0-9]){re.escape(v)}(?![a-z0-9])", text) is not None


# Check before write for procedures: one live procedure per kind of task and scope.
#
# Like a fact keyed by its subject (the kind, "deploy site"): a working procedure restated updates
# the live one in place (a new version, the same record); a working one after a failed one
# supersedes it (the failed one is retired, the chain keeps it); a newer failure replaces an older
# failure. A failure after a procedure that works is not stored over it: the working one stays
# the answer, and the failure stays in the episodic log as the tool events it came from.


def write_procedure(writes: RecordWrites, db, r: MemoryRecord, vec: np.ndarray) -> WriteResult:
    """What a procedure drafted as r does to the live procedures of its kind, done in db."""
    live = db.live_claims(r.scope, [MemoryType.PROCEDURE.value], subject=r.subject, limit=10)
    if not live:
        return writes.insert(db, r, vec, "new procedure")
    old, extra = live[0], live[1:]
    for other in extra:  # never two live procedures for one kind (a repair, should it happen)
        deactivate(db, other, r.created_at, f"a second live procedure for {r.subject!r}")
    if worked(r.tags) and worked(old.tags):
        return writes.restate(db, old, r, vec, 1.0)
    if worked(old.tags):
        return WriteResult("skip", old, "a working procedure is kept over a failed attempt")
    return writes.supersede(db, old, r, vec, 0.0)
