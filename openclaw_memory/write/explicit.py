"""Explicit: the candidate of a `remember`, what a user or a memory tool asks to keep.

The text is checked (non-empty, no secret, a known type), extracted like a captured turn when
no type is named (its forget commands aside), and put on the explicit channel with the caller's
subject and tags: one candidate, written at once by the caller.
"""

from __future__ import annotations

from typing import Sequence

from ..errors import ValidationError
from ..extract.base import Extractor
from ..extract.secrets import SecretFilter
from ..lang.text import valid_unicode
from ..procedure import stated_procedure
from ..types import Candidate, Channel, MemoryType, Scope, Turn

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
) -> Candidate:
    """The one candidate `remember(text, ...)` writes; ValidationError names a bad field."""
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
            kind, subject, cand_tags = stated_procedure(subject, text, ())
        cands = [
            Candidate(
                kind or MemoryType.FACT,
                text.strip(),
                subject=subject,
                importance=0.8,
                confidence=0.95,
                tags=cand_tags,
            )
        ]
    c = cands[0]
    return Candidate(
        **{
            **c.__dict__,
            "channel": Channel.EXPLICIT,
            "subject": subject or c.subject,
            "confidence": max(c.confidence, 0.95),
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
