"""The writes consolidation carries its decisions out with, each audited: a new record, a
restatement merged into the live record (its old content kept as a version), a successor that
supersedes the old value, and a memory deactivated (kept for audit). Maintenance, edits and the
change retirer write through the same helpers."""

from __future__ import annotations

import hashlib
import uuid

import numpy as np

from ...core.clock import Clock
from ...core.policy import CHANNEL_PRIORITY
from ...lang import Languages
from ...lang.entities import mentions_of
from ...types import AuditEntry, Channel, MemoryRecord, Scope, Source, Status, WriteResult


def new_id(clock: Clock) -> str:
    """A new record id: the creation second and a random suffix."""
    return f"mem_{int(clock.now())}_{uuid.uuid4().hex[:12]}"


def keyed_id(scope: Scope, key: str) -> str:
    """The record id of a candidate with a stable key (`Candidate.key`): the same for every
    replay of the request that made it, different in every scope."""
    digest = hashlib.blake2b(
        f"{scope.user_id}\0{scope.agent_id}\0{key}".encode("utf-8", "surrogatepass"),
        digest_size=12,
    )
    return f"mem_k{digest.hexdigest()}"


class RecordWrites:
    """Inserts, restatements and supersessions of records embedded by one model; what each
    record names is read with `langs`, the writer's packs (every rule on by default)."""

    def __init__(self, model: str, langs: Languages | None = None) -> None:
        self.model = model
        self.langs = langs

    def insert(self, db, r: MemoryRecord, vec: np.ndarray, reason: str) -> WriteResult:
        db.insert(r, vec, self.model, mentions=mentions_of(r, self.langs))
        db.audit(
            AuditEntry(
                r.scope,
                r.id,
                "insert",
                reason,
                r.created_at,
                r.source.channel.value,
                r.source.writer,
            ),
        )
        return WriteResult("insert", r, reason)

    def restate(
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
        db.update(updated, vec, self.model, reindex=True, mentions=mentions_of(updated, self.langs))
        db.audit(
            AuditEntry(
                r.scope,
                old.id,
                "update",
                f"restated (similarity {sim:.2f}), version {updated.version}",
                now,
                r.source.channel.value,
                r.source.writer,
            ),
        )
        return WriteResult("update", updated, "restated", old.id)

    def supersede(
        self, db, old: MemoryRecord, r: MemoryRecord, vec: np.ndarray, sim: float
    ) -> WriteResult:
        now = r.created_at
        retired = old.replace(status=Status.INACTIVE, superseded_at=now, updated_at=now)
        db.update(
            retired, None, self.model, reindex=False, mentions=mentions_of(retired, self.langs)
        )
        db.audit(
            AuditEntry(
                r.scope,
                old.id,
                "deactivate",
                f"superseded by {r.id} (similarity {sim:.2f})",
                now,
                r.source.channel.value,
                r.source.writer,
            ),
        )
        successor = r.replace(version=old.version + 1, prev_id=old.id)
        db.insert(successor, vec, self.model, mentions=mentions_of(successor, self.langs))
        db.audit(
            AuditEntry(
                r.scope,
                successor.id,
                "insert",
                f"replaces {old.id}",
                now,
                r.source.channel.value,
                r.source.writer,
            ),
        )
        return WriteResult("update", successor, "changed value supersedes the old version", old.id)


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
    # an inactive record names nothing (`mentions_of` reads no table for it): no packs needed
    db.update(retired, None, "", reindex=False, mentions=mentions_of(retired))
    db.audit(AuditEntry(r.scope, r.id, "deactivate", reason, now, channel.value, writer))
    return retired
