"""Check before write: extracted candidates -> inserts, in-place updates, supersessions.

The write stage's entry is here: candidates in, consolidated records out.
"""

from __future__ import annotations

import logging
import numpy as np
from typing import Protocol, Sequence
from llama_index.core.base.embeddings.base import BaseEmbedding
from ...core.clock import DAY, Clock
from ...config import MemoryConfig
from ...core import switches_from
from ...embed.embedding import Meaning, PassageVectors, embed_with_parts
from ...lang import Languages, languages
from .changes import ChangeRetirer, Sibling, Neighbour
from .decide import CLAIM_TYPES, Decisions
from .records import RecordWrites, keyed_id, new_id
from ...lang.entities import world_names
from ...core.policy import POLICY
from ...store.ports import StageStore
from ...types import Candidate, MemoryRecord, MemoryType, Scope, Source, WriteResult


class Notify(Protocol):
    """The indexer, as the writer sees it: told that writes queued outbox entries."""

    def notify(self) -> None: ...


# Check before write: turn extracted candidates into inserts, in-place updates, supersessions,
# doubts or nothing, per type (docs/design.md "consolidate").
#
# This module is the batch around it: one embedding call and one transaction per batch (one
# candidate per transaction should the batch fail), the record drafted from each candidate with
# its TTL from the policy table, and the episode of a turn handed what that turn's curated
# candidates did. What a candidate does to the live memories is decided in
# `consolidate_decide.py` and written by `consolidate_records.py`; what a change turn's episode
# retires, in `consolidate_changes.py`.

log = logging.getLogger(__name__)


class Consolidator:
    def __init__(
        self,
        store: StageStore,
        embedder: BaseEmbedding,
        model_name: str,
        clock: Clock,
        config: MemoryConfig,
        langs: Languages | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.model = model_name
        self.clock = clock
        self.cfg = config
        # the language packs under config's `rules.disabled` (the factory checked its names),
        # those of the storage written through when given
        self.langs = langs or languages(switches_from(config.rules.disabled))
        langs = self.langs
        # meaning alone links a change to a memory only above what an unrelated statement reaches
        neighbour = Neighbour(
            config.long_term.change_similarity,
            config.long_term.change_margin,
            Meaning(embedder),
            langs,
        )
        self.decisions = Decisions(RecordWrites(model_name, langs), clock, config, neighbour)
        self.changes = ChangeRetirer(neighbour, model_name, clock, langs)

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
            id=keyed_id(scope, c.key) if c.key else new_id(self.clock),
            scope=scope,
            type=c.type,
            summary=c.summary.strip(),
            subject=c.subject,
            detail=c.detail,
            session_id=session_id,
            tags=tuple(c.tags),
            # a name the text gives or shows (叫汤圆, 喂芝麻, "named Biscuit") is one of its
            # entities: recall and gating read it here, not by parsing memories per request
            entities=tuple(dict.fromkeys((*c.entities, *world_names(c.summary, self.langs)))),
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
        result = self.decisions.decide(db, cand, draft, vec)
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


def _unit(x: float) -> float:
    return float(min(1.0, max(0.0, x)))


# The write stage's entry: candidates in, consolidated records out (docs/design.md
# "consolidate" -> "store" -> "index").
#
# Explicit "forget X" commands are not memories: they run on their own path (forget.py); every
# other candidate goes through the Consolidator, and the indexer is woken for the outbox entries
# the write queued.


class MemoryWriter:
    """Consolidate and store candidates in the record store, then wake the indexer."""

    def __init__(
        self,
        store: StageStore,
        embedder: BaseEmbedding,
        clock: Clock,
        config: MemoryConfig,
        *,
        model_name: str,
        indexer: Notify,
        langs: Languages | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.indexer = indexer
        self.consolidator = Consolidator(store, embedder, model_name, clock, config, langs)

    def write(
        self,
        scope: Scope,
        candidates: Sequence[Candidate],
        *,
        session_id: str | None = None,
        writer: str = "openclaw-memory",
        vectors: PassageVectors | None = None,
    ) -> list[WriteResult]:
        """Consolidate and store candidates (one transaction); `vectors` from `embed` spare the
        embedding."""
        if any(c.forget for c in candidates):
            return self._with_commands(scope, candidates, session_id=session_id, writer=writer)
        results = self.consolidator.write(
            scope, candidates, session_id=session_id, writer=writer, vectors=vectors
        )
        self.indexer.notify()
        return results

    def _with_commands(
        self, scope: Scope, candidates: Sequence[Candidate], *, session_id: str | None, writer: str
    ) -> list[WriteResult]:
        from ..forget import ForgetCommand
        from ..forget import run

        stored = iter(
            self.consolidator.write(
                scope, [c for c in candidates if not c.forget], session_id=session_id, writer=writer
            )
        )
        results = []
        for c in candidates:
            if not c.forget:
                results.append(next(stored))
                continue
            command = ForgetCommand.from_candidate(c)
            done = run(self.store, self.clock, scope, command, self.consolidator.changes.langs)
            reason = (
                f"names {len(done.matches)}, more than one command takes: nothing deactivated"
                if done.too_broad
                else f"deactivated {len(done.ids)}: {', '.join(done.ids)}"
                if done.ids
                else "nothing matched"
            )
            results.append(
                WriteResult(
                    "forget", None, reason, affected=() if done.too_broad else tuple(done.ids)
                )
            )
        self.indexer.notify()
        return results

    def embed(self, candidates: Sequence[Candidate]) -> PassageVectors:
        """The vectors `write` would compute for these candidates, so that several writes (of
        any scopes) can share one embedding call. A vector depends on the text alone."""
        return self.consolidator.embed(candidates)
