"""What the user writes on purpose: a `remember`'s candidate, and an edit of a memory.

Remember: the text is checked (non-empty, no secret, a known type), extracted like a captured
turn when no type is named (its forget commands aside), and put on the explicit channel with the
caller's subject and tags: one candidate, written at once by the caller.

Edit: a user's correction of a memory's text, as a new version in its chain. An edit never
overwrites: the edited record goes inactive (kept, `superseded_at` set) and a successor with the
new text links back to it (`prev_id`, version + 1), exactly as consolidation does when a value
changes. The successor keeps the memory's type, subject, tags, entities, time and expiry; its
provenance says who corrected it (the explicit channel, the writer named by the caller: "cli",
"console", "api"). Both steps are audited in the same transaction.
"""

from __future__ import annotations

from typing import Sequence, TYPE_CHECKING
from ..errors import NotFoundError, ValidationError
from ..extract.base import Extractor
from ..extract.secrets import SecretFilter
from ..lang import Languages
from ..lang.entities import mentions_of
from ..lang.text import valid_unicode
from ..procedure import stated_procedure
from ..types import (
    AuditEntry,
    Candidate,
    Channel,
    MemoryRecord,
    MemoryType,
    Scope,
    Source,
    Status,
    Turn,
)
from .consolidate.records import new_id
from ..embed.embedding import embed_with_parts
from ..config.tuning import tuned

if TYPE_CHECKING:
    from ..core.clock import Clock
    from . import Storage

# Explicit: the candidate of a `remember`, what a user or a memory tool asks to keep.
#
# The text is checked (non-empty, no secret, a known type), extracted like a captured turn when
# no type is named (its forget commands aside), and put on the explicit channel with the caller's
# subject and tags: one candidate, written at once by the caller.

__all__ = ["explicit_candidate"]


def explicit_candidate(
    extractor: Extractor,
    secrets: SecretFilter,
    scope: Scope,
    text: str,
    *,
    type: str | None = None,
    subject: str | None = None,
    session_id: str | None = None,
    tags: Sequence[str] = (),
    langs: Languages | None = None,
) -> Candidate:
    """The one candidate `remember(text, ...)` writes; ValidationError names a bad field.
    `langs`: the packs a procedure's kind of task is read with (every rule on by default)."""
    if not isinstance(text, str) or not text.strip():
        raise ValidationError("text: expected a non-empty string")
    if subject is not None and not isinstance(subject, str):
        raise ValidationError(f"subject: expected a string or None, found {_kind(subject)}")
    text, subject = valid_unicode(text), valid_unicode(subject) if subject else subject
    for name, value in (("text", text), ("subject", subject or "")):
        if secrets.contains_secret(value):
            raise ValidationError(
                f"{name}: looks like a secret (password, key, card or ID number); "
                "secrets are never stored"
            )
    kind = _memory_type(type) if type else None
    cands = (
        []
        if kind
        else [c for c in extractor.extract(Turn(scope, session_id or "tool", text)) if not c.forget]
    )
    if not cands:
        cand_tags: tuple[str, ...] = ()
        if kind is MemoryType.PROCEDURE:
            # keyed by the kind of task it names, as a stated procedure of the LLM chain is;
            # one that names none (no verb and object) is kept as a fact under its subject
            kind, subject, cand_tags = stated_procedure(subject, text, (), langs)
        cands = [
            Candidate(
                kind or MemoryType.FACT,
                text.strip(),
                subject=subject,
                importance=tuned("write.explicit.importance"),
                confidence=EDIT_CONFIDENCE,
                tags=cand_tags,
            )
        ]
    c = cands[0]
    return Candidate(
        **{
            **c.__dict__,
            "channel": Channel.EXPLICIT,
            "subject": subject or c.subject,
            "confidence": max(c.confidence, EDIT_CONFIDENCE),
            "tags": tuple(dict.fromkeys((*c.tags, *tags))),
        }
    )


def _kind(value: object) -> str:
    """The name of a value's type, as an error message shows what it found."""
    return type(value).__name__


def _memory_type(name: str) -> MemoryType:
    try:
        return MemoryType(name)
    except ValueError:
        kinds = ", ".join(t.value for t in MemoryType)
        raise ValidationError(f"type: expected one of {kinds}, found {name!r}") from None


# Edit: a user's correction of a memory's text, as a new version in its chain.
#
# An edit never overwrites: the edited record goes inactive (kept, `superseded_at` set) and a
# successor with the new text links back to it (`prev_id`, version + 1), exactly as consolidation
# does when a value changes. The successor keeps the memory's type, subject, tags, entities, time
# and expiry; its provenance says who corrected it (the explicit channel, the writer named by the
# caller: "cli", "console", "api"). Both steps are audited in the same transaction.

#: a user's own correction is as trustworthy as an explicit "remember"
EDIT_CONFIDENCE = tuned("write.explicit.confidence")
_KEEP = object()


def edit_memory(
    storage: Storage,
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
    old = storage.store.get(scope, record_id)
    if old is None:
        raise NotFoundError(f"memory {record_id!r} not found for user {scope.user_id!r}")
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
        storage.embedder, [cand.text], storage.config.long_term.sentence_vectors
    )
    store = storage.store
    with store.transaction():
        current = store.get(scope, record_id)
        if current is None or current != old:
            raise ValidationError(
                f"id: memory {record_id!r} changed while it was being edited; try again"
            )
        now = storage.clock.now()
        successor = _successor(old, storage.clock, summary, new_detail, writer, now)  # type: ignore[arg-type]
        retired = old.replace(status=Status.INACTIVE, superseded_at=now, updated_at=now)
        store.update(
            retired,
            None,
            storage.model_name,
            reindex=False,
            mentions=mentions_of(retired, storage.langs),
        )
        store.audit(
            AuditEntry(
                scope,
                old.id,
                "deactivate",
                f"edited: superseded by {successor.id}",
                now,
                Channel.EXPLICIT.value,
                writer,
            ),
        )
        store.insert(
            successor,
            vectors.whole[0],
            storage.model_name,
            mentions=mentions_of(successor, storage.langs),
        )
        store.put_parts(successor, vectors.parts[0])
        store.audit(
            AuditEntry(
                scope,
                successor.id,
                "edit",
                f"edit of {old.id}, version {successor.version}",
                now,
                Channel.EXPLICIT.value,
                writer,
            ),
        )
    storage.written()
    return successor


def _successor(
    old: MemoryRecord,
    clock: Clock,
    summary: str,
    detail: str | None,
    writer: str,
    now: float,
) -> MemoryRecord:
    # The memory's time (created_at) stays: an event corrected today still happened then.
    return old.replace(
        id=new_id(clock),
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
