"""Edit: a user's correction of a memory's text, as a new version in its chain.

An edit never overwrites: the edited record goes inactive (kept, `superseded_at` set) and a
successor with the new text links back to it (`prev_id`, version + 1), exactly as consolidation
does when a value changes. The successor keeps the memory's type, subject, tags, entities, time
and expiry; its provenance says who corrected it (the explicit channel, the writer named by the
caller: "cli", "console", "api"). Both steps are audited in the same transaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .consolidate.records import new_id
from ..embed.embedding import embed_with_parts
from ..errors import ValidationError
from ..lang.text import valid_unicode
from ..types import Candidate, Channel, MemoryRecord, Scope, Source, Status

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine
    from ..extract.secrets import SecretFilter

#: a user's own correction is as trustworthy as an explicit "remember"
EDIT_CONFIDENCE = 0.95
_KEEP = object()


def edit_memory(
    engine: MemoryEngine,
    scope: Scope,
    record_id: str,
    text: str,
    *,
    writer: str,
    detail: str | None | object = _KEEP,
    secrets: SecretFilter | None = None,
) -> MemoryRecord:
    """Replace an active memory's text by a new version; return the new version's record.

    `detail`: the new detail (None clears it); by default the old detail is kept. A text that
    holds a secret is refused (secrets are never stored), as `remember` refuses it.
    """
    summary = _clean_text(text, secrets)
    old = engine.get(scope, record_id)
    if old.status is not Status.ACTIVE:
        raise ValidationError(
            f"id: memory {record_id!r} is {old.status.value}; only an active memory can be "
            "edited (restore it first, or edit its newest version)"
        )
    new_detail = old.detail if detail is _KEEP else detail
    if isinstance(new_detail, str):
        new_detail = _clean_text(new_detail, secrets) if new_detail.strip() else None
    cand = Candidate(old.type, summary, subject=old.subject, detail=new_detail)  # type: ignore[arg-type]
    # outside the write transaction: embedding is slow
    vectors = embed_with_parts(
        engine.embedder, [cand.text], engine.config.long_term.sentence_vectors
    )
    store = engine.store
    with store.transaction():
        current = store.get(scope, record_id)
        if current is None or current != old:
            raise ValidationError(
                f"id: memory {record_id!r} changed while it was being edited; try again"
            )
        now = engine.clock.now()
        successor = _successor(old, engine, summary, new_detail, writer, now)  # type: ignore[arg-type]
        store.update(
            old.replace(status=Status.INACTIVE, superseded_at=now, updated_at=now),
            None,
            engine.model_name,
            reindex=False,
        )
        store.audit(
            scope,
            old.id,
            "deactivate",
            f"edited: superseded by {successor.id}",
            now,
            Channel.EXPLICIT.value,
            writer,
        )
        store.insert(successor, vectors.whole[0], engine.model_name)
        store.put_parts(successor, vectors.parts[0])
        store.audit(
            scope,
            successor.id,
            "edit",
            f"edit of {old.id}, version {successor.version}",
            now,
            Channel.EXPLICIT.value,
            writer,
        )
    engine.written()
    return successor


def _successor(
    old: MemoryRecord,
    engine: MemoryEngine,
    summary: str,
    detail: str | None,
    writer: str,
    now: float,
) -> MemoryRecord:
    # The memory's time (created_at) stays: an event corrected today still happened then.
    return old.replace(
        id=new_id(engine.clock),
        summary=summary,
        detail=detail,
        version=old.version + 1,
        prev_id=old.id,
        superseded_at=None,
        updated_at=now,
        last_accessed_at=None,
        access_count=0,
        doubt_of=None,
        confidence=max(old.confidence, EDIT_CONFIDENCE),
        status=Status.ACTIVE,
        source=Source(Channel.EXPLICIT, old.source.session_id, (), writer),
    )


def _clean_text(text: object, secrets: SecretFilter | None) -> str:
    if not isinstance(text, str) or not text.strip():
        raise ValidationError("text: expected a non-empty string")
    text = valid_unicode(text).strip()
    if secrets is not None and secrets.contains_secret(text):
        raise ValidationError(
            "text: looks like a secret (password, key, card or ID number); secrets are never stored"
        )
    return text
