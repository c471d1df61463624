"""Check before write: turn extracted candidates into inserts, in-place updates, supersessions,
doubts or nothing, per type (docs/design.md "consolidate").

- profile / preference / fact / task: the same scope + type + subject (or, with no subject, the
  nearest record of the type) at similarity >= threshold is a restatement: the record is updated in
  place, its old content kept in `versions`. Below the threshold, the same subject means the value
  changed: the old record goes inactive (never deleted) and a successor links back to it.
- On conflict the channel decides (explicit > admin > tool > implicit); a lower-priority or
  low-certainty claim never overwrites a confident one: it is kept as a doubt.
- event / episode: append-only; a replayed capture of the same turns is recognised and skipped.
- decision: appended, linked to the live facts and tasks of its subject.
"""

from __future__ import annotations

import logging
import uuid
from typing import Sequence

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from .clock import DAY, Clock
from .consolidate_changes import ChangeRetirer, Sibling, names_part
from .config import MemoryConfig
from .embedding import PassageVectors, embed_with_parts
from .policy import APPEND_ONLY_TYPES, CHANNEL_PRIORITY, KEYED_TYPES, POLICY
from .store.ports import RecordStore
from .store.ports import content_hash
from .text import has_cjk, lexical_overlap, negated
from .types import Candidate, Channel, MemoryRecord, MemoryType, Scope, Source, Status, WriteResult

log = logging.getLogger(__name__)


#: the writer of what the user said in conversation (MemoryMiddleware's captures)
CONVERSATION_WRITER = "after_response"


def new_id(clock: Clock) -> str:
    return f"mem_{int(clock.now())}_{uuid.uuid4().hex[:12]}"


class Consolidator:
    def __init__(
        self,
        store: RecordStore,
        embedder: BaseEmbedding,
        model_name: str,
        clock: Clock,
        config: MemoryConfig,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.model = model_name
        self.clock = clock
        self.cfg = config
        self.threshold = config.long_term.similarity_threshold
        self.changes = ChangeRetirer(
            config.long_term.change_similarity, config.long_term.change_margin, model_name, clock
        )

    # ---- entry point ------------------------------------------------------------------------

    def write(
        self,
        scope: Scope,
        candidates: Sequence[Candidate],
        *,
        session_id: str | None = None,
        writer: str = "openclaw-memory",
        vectors: PassageVectors | None = None,
    ) -> list[WriteResult]:
        """Consolidate a batch: one embedding call (unless `vectors`, from `embed`, are given),
        then one transaction for the whole batch.

        Each candidate sees the ones before it, as if written one by one. Should the batch fail,
        it is rolled back and written again one candidate per transaction, so what precedes the
        failing candidate is kept and its error is raised, as before batching.
        """
        if not candidates:
            return []
        drafts = [self._draft(scope, c, session_id, writer) for c in candidates]
        vecs = self.embed(candidates) if vectors is None else vectors
        if len(vecs) != len(candidates):
            raise ValueError(
                f"vectors: expected one per candidate ({len(candidates)}), found {len(vecs)}"
            )
        work = list(zip(candidates, drafts, vecs.whole, vecs.parts))
        if len(work) > 1 and not self.store.in_transaction():
            try:
                with self.store.transaction():
                    turns: dict[tuple[str, ...], list[Sibling]] = {}
                    return [self._one(self.store, *w, turns) for w in work]
            except Exception as exc:
                log.warning(
                    "a batch of %d memories for user %s failed (%s); writing them one by one",
                    len(work),
                    scope.user_id,
                    exc,
                )
        results = []
        turns = {}
        for w in work:
            with self.store.transaction():
                results.append(self._one(self.store, *w, turns))
        return results

    def embed(self, candidates: Sequence[Candidate]) -> PassageVectors:
        """The vectors `write` would compute for these candidates (their records' text and its
        sentence parts), so a caller can embed several batches in one call."""
        return embed_with_parts(
            self.embedder, [c.text for c in candidates], self.cfg.long_term.sentence_vectors
        )

    def _draft(
        self, scope: Scope, c: Candidate, session_id: str | None, writer: str
    ) -> MemoryRecord:
        now = self.clock.now()
        return MemoryRecord(
            id=new_id(self.clock),
            scope=scope,
            type=c.type,
            summary=c.summary.strip(),
            subject=c.subject,
            detail=c.detail,
            session_id=session_id,
            tags=tuple(c.tags),
            entities=tuple(c.entities),
            importance=_unit(c.importance),
            confidence=_unit(c.confidence),
            source=Source(c.channel, session_id, tuple(c.turn_ids), writer),
            created_at=now,
            updated_at=now,
            expires_at=self._expiry(c, now),
            links=tuple(c.links),
        )

    def _expiry(self, c: Candidate, now: float) -> float | None:
        if c.ttl_seconds:
            return now + c.ttl_seconds
        key = POLICY[c.type].ttl_key  # the policy table names the forgetting.* key of its TTL
        days = float(getattr(self.cfg.forgetting, key)) if key else 0.0
        return now + days * DAY if days else None

    def _one(
        self,
        db,
        cand: Candidate,
        draft: MemoryRecord,
        vec: np.ndarray,
        parts: np.ndarray | None = None,
        turns: dict[tuple[str, ...], list[Sibling]] | None = None,
    ) -> WriteResult:
        result = self._decide(db, cand, draft, vec)
        if parts is not None and result.record is not None and result.action != "skip":
            db.put_parts(result.record, parts)  # only onto a vector row of this same text
        if turns is not None and draft.source.turn_ids:
            # the curated candidates of a turn come before its episode (middleware order): the
            # episode sees what they did, and retires what the turn changed if they did not
            siblings = turns.setdefault(draft.source.turn_ids, [])
            if (
                draft.type is MemoryType.EPISODE
                and result.action == "insert"
                and result.record is not None
            ):
                self.changes.after_episode(db, result.record, vec, siblings)
            elif draft.type in CLAIM_TYPES:
                siblings.append(Sibling(cand, result))
        return result

    def _decide(self, db, cand: Candidate, draft: MemoryRecord, vec: np.ndarray) -> WriteResult:
        if cand.forget:  # commands run on their own path (forget.py); never stored as memories
            raise ValueError("forget commands are run by forget.run, not consolidated")
        if draft.type in APPEND_ONLY_TYPES:
            return self._append(db, draft, vec)
        if draft.type is MemoryType.DECISION:
            return self._decision(db, draft, vec)
        if draft.type in KEYED_TYPES:
            return self._keyed(db, draft, vec, cand)
        return self._insert(
            db, draft, vec, "new summary" if draft.type is MemoryType.SUMMARY else "new"
        )

    # ---- policies ---------------------------------------------------------------------------

    def _insert(self, db, r: MemoryRecord, vec: np.ndarray, reason: str) -> WriteResult:
        db.insert(r, vec, self.model)
        db.audit(
            r.scope,
            r.id,
            "insert",
            reason,
            r.created_at,
            r.source.channel.value,
            r.source.writer,
        )
        return WriteResult("insert", r, reason)

    def _append(self, db, r: MemoryRecord, vec: np.ndarray) -> WriteResult:
        if r.source.turn_ids:
            h = content_hash(r)
            for old in db.copies_of_text(r.scope, r.type.value, h, limit=20):
                if old.source.turn_ids == r.source.turn_ids:
                    return WriteResult("skip", old, "same turns already captured")
        return self._insert(db, r, vec, f"append {r.type.value}")

    def _decision(self, db, r: MemoryRecord, vec: np.ndarray) -> WriteResult:
        if r.subject:
            decided = db.live_by_subject(r.scope, [r.subject], types=("fact", "task"), limit=20)
            r = r.replace(links=tuple(dict.fromkeys([*r.links, *(d.id for d in decided)])))
        return self._insert(db, r, vec, "new decision")

    def _keyed(
        self, db, r: MemoryRecord, vec: np.ndarray, cand: Candidate | None = None
    ) -> WriteResult:
        old, sim = self._match(db, r, vec)
        if old is None and cand is not None and is_change(cand):
            old, sim = self._about(db, r, vec, cand.replaces)
            if old is not None:
                if self._is_doubt(r, old, sim):
                    doubt = r.replace(doubt_of=old.id)
                    res = self._insert(db, doubt, vec, f"doubt: weaker claim contradicts {old.id}")
                    return WriteResult("doubt", res.record, res.reason, old.id)
                # the successor speaks of the same attribute: it keeps the old memory's key
                return self._supersede(
                    db, old, r.replace(subject=old.subject or r.subject), vec, sim
                )
            said = self._said_before(db, r, cand.replaces)
            if said is not None:
                return self._supersede(db, said, r, vec, 0.0)
        if old is None:
            return self._insert(db, r, vec, "new")
        if self._is_doubt(r, old, sim):
            doubt = r.replace(doubt_of=old.id)
            res = self._insert(db, doubt, vec, f"doubt: weaker claim contradicts {old.id}")
            return WriteResult("doubt", res.record, res.reason, old.id)
        if sim >= self.threshold:
            return self._restate(db, old, r, vec, sim)
        if cand is not None and "also" in cand.tags and not is_change(cand):
            return self._insert(
                db, r, vec, f"a value beside {old.id}"
            )  # "I also like tea": not a change
        return self._supersede(db, old, r, vec, sim)

    def _match(self, db, r: MemoryRecord, vec: np.ndarray) -> tuple[MemoryRecord | None, float]:
        """The live record this candidate speaks about, and their similarity: by subject whatever
        type it was stored as (a fact "drink" and a preference "drink" are one attribute)."""
        if r.subject:
            types = (
                sorted(t.value for t in CLAIM_TYPES) if r.type in CLAIM_TYPES else [r.type.value]
            )
            pool = db.live_claims(r.scope, types, subject=r.subject, limit=10)
        else:
            pool = db.live_claims(
                r.scope, [r.type.value], limit=self.cfg.long_term.max_facts_per_user
            )
        if not pool:
            return None, 0.0
        vecs = db.vectors([p.id for p in pool])
        scored = [(self._same(p, r, vecs.get(p.id), vec), p) for p in pool]
        sim, best = max(scored, key=lambda x: x[0])
        if not r.subject and sim < self.threshold:
            return None, sim
        return best, sim

    def _about(
        self, db, r: MemoryRecord, vec: np.ndarray, replaces: str | None
    ) -> tuple[MemoryRecord | None, float]:
        """The live claim a change contradicts when no subject names it: the one that states the
        value it replaces, else its clear semantic neighbour (nearest, and ahead of the next one
        by `change_margin`: absolute cosine says little). A Chinese change that names what it
        replaces (戒烟 -> 烟; one character is a word) retires only a claim naming it, or a part
        of it (狗的名字 -> 我家的狗叫旺财): e5 puts
        one person's unrelated Chinese statements within a few hundredths (赵刚戒烟了 /
        赵刚喜欢吃米粉 0.93, 用户戒烟了 / 用户每天抽几根烟 0.95), so there the named value is the
        evidence and meaning alone is not."""
        pool = db.live_claims(r.scope, sorted(t.value for t in CLAIM_TYPES), limit=500)
        pool = [p for p in pool if p.id != r.id]
        if not pool:
            return None, 0.0
        vecs = db.vectors([p.id for p in pool])
        scored = sorted(
            ((float(np.dot(vecs[p.id], vec)), p) for p in pool if p.id in vecs), key=lambda x: -x[0]
        )
        if replaces and (len(replaces.strip()) >= 2 or has_cjk(replaces)):
            named = [(s, p) for s, p in scored if _states(p, replaces)]
            if named:
                return named[0][1], named[0][0]
            if has_cjk(replaces):
                part = [(s, p) for s, p in scored if names_part(p.text, replaces)]
                return (part[0][1], part[0][0]) if part else (None, 0.0)
        if not scored:
            return None, 0.0
        best = scored[0]
        runner_up = scored[1][0] if len(scored) > 1 else 0.0
        margin = self.cfg.long_term.change_margin
        if best[0] - runner_up >= margin and best[0] >= self.cfg.long_term.change_similarity:
            return best[1], best[0]
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
        db.insert(claim, db.vectors([said.id]).get(said.id), self.model)
        db.audit(
            r.scope,
            claim.id,
            "insert",
            f"the claim turn {said.source.turn_ids[0]} made, replaced by a change",
            r.created_at,
            Channel.IMPLICIT.value,
            "consolidate",
        )
        return claim

    @staticmethod
    def _same(
        old: MemoryRecord, new: MemoryRecord, old_vec: np.ndarray | None, vec: np.ndarray
    ) -> float:
        """Similarity of two claims, or 0 when they visibly say different things.

        Embeddings barely see what changed inside a sentence (e5 scores 我喜欢喝咖啡 / 我不喜欢喝咖啡
        at 0.99 and coffee / tea swaps above 0.95), so a restatement must also keep the polarity,
        share its named values (entities) and most of its content words.
        """
        if old_vec is None or negated(old.summary) != negated(new.summary):
            return 0.0
        if (
            old.entities
            and new.entities
            and not {e.lower() for e in old.entities} & {e.lower() for e in new.entities}
        ):
            return 0.0
        if lexical_overlap(old.summary, new.summary) < 0.3:
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
        weaker_channel = (
            CHANNEL_PRIORITY[new.source.channel] < CHANNEL_PRIORITY[old.source.channel]
            and not both_said
        )
        floor = self.cfg.extraction.min_confidence
        unsure = new.confidence < floor <= old.confidence
        return weaker_channel or unsure

    def _restate(
        self, db, old: MemoryRecord, r: MemoryRecord, vec: np.ndarray, sim: float
    ) -> WriteResult:
        now = r.created_at
        db.save_version(old, now)
        channel = max((old.source.channel, r.source.channel), key=lambda c: CHANNEL_PRIORITY[c])
        updated = old.replace(
            summary=r.summary,
            detail=r.detail or old.detail,
            version=old.version + 1,
            updated_at=now,
            confidence=max(old.confidence, r.confidence),
            importance=max(old.importance, r.importance),
            # the turns of every statement of it: an older turn saying the same stays covered by
            # it (and is recalled as outdated once the value changes)
            source=Source(
                channel,
                r.source.session_id,
                tuple(dict.fromkeys([*old.source.turn_ids, *r.source.turn_ids])),
                r.source.writer,
            ),
            tags=tuple(dict.fromkeys([*old.tags, *r.tags])),
            entities=tuple(dict.fromkeys([*old.entities, *r.entities])),
            expires_at=r.expires_at,
            session_id=r.session_id or old.session_id,
        )
        db.update(updated, vec, self.model, reindex=True)
        db.audit(
            r.scope,
            old.id,
            "update",
            f"restated (similarity {sim:.2f}), version {updated.version}",
            now,
            r.source.channel.value,
            r.source.writer,
        )
        return WriteResult("update", updated, "restated", old.id)

    def _supersede(
        self, db, old: MemoryRecord, r: MemoryRecord, vec: np.ndarray, sim: float
    ) -> WriteResult:
        now = r.created_at
        retired = old.replace(status=Status.INACTIVE, superseded_at=now, updated_at=now)
        db.update(retired, None, self.model, reindex=False)
        db.audit(
            r.scope,
            old.id,
            "deactivate",
            f"superseded by {r.id} (similarity {sim:.2f})",
            now,
            r.source.channel.value,
            r.source.writer,
        )
        successor = r.replace(version=old.version + 1, prev_id=old.id)
        db.insert(successor, vec, self.model)
        db.audit(
            r.scope,
            successor.id,
            "insert",
            f"replaces {old.id}",
            now,
            r.source.channel.value,
            r.source.writer,
        )
        return WriteResult("update", successor, "changed value supersedes the old version", old.id)


#: claims about the user consolidated across types: one attribute is one attribute
CLAIM_TYPES = frozenset({MemoryType.PROFILE, MemoryType.PREFERENCE, MemoryType.FACT})


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
    import re

    return re.search(rf"(?<![a-z0-9]){re.escape(v)}(?![a-z0-9])", text) is not None


def deactivate(
    db,
    r: MemoryRecord,
    now: float,
    reason: str,
    channel: Channel = Channel.EXPLICIT,
    writer: str | None = None,
) -> MemoryRecord:
    """Status inactive, kept for audit; the vector leaves the index through the outbox."""
    retired = r.replace(
        status=Status.INACTIVE, superseded_at=r.superseded_at or now, updated_at=now
    )
    db.update(retired, None, "", reindex=False)
    db.audit(r.scope, r.id, "deactivate", reason, now, channel.value, writer)
    return retired


def _unit(x: float) -> float:
    return float(min(1.0, max(0.0, x)))
