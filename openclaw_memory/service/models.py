"""Request and response models of the HTTP bridge (`/v1`).

Validation models live here because HTTP is where untrusted input comes in: every request model
rejects unknown fields, and every body carries a scope (there is no unscoped read). Converters
turn core values (`Scope`, `MemoryRecord`, `InjectionPlan`, ...) into plain JSON dicts.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..core.clock import iso_time
from ..inject.escape import frame_reference, sanitize
from ..types import (
    SUBJECT_MAX_CHARS,
    TEXT_MAX_CHARS,
    InjectionPlan,
    MemoryRecord,
    Scope,
    ScoredMemory,
    WriteResult,
)

_ID = r"^[A-Za-z0-9_.:@+\-]{1,128}$"
ID_HINT = "1-128 characters of letters, digits or _.:@+-"

#: Request caps, one table. The plugin sends at most 40 messages of 8,000 characters per capture
#: (6 recent ones with a recall), 2,000 characters of tool outcome and tool arguments cut to
#: 20,000 characters of JSON; the caps leave room for twice that, and bound what one call can
#: make the write path chew on (a 10 MB capture once held its user's recall for 94 s).
CAPS = {
    "message_chars": 20_000,  # one message's content
    "messages": 2000,  # messages of one capture / compaction (the plugin sends at most
    # 40 with a turn, and a compacted transcript of up to 1,000)
    "transcript_chars": 1_000_000,  # all the contents of one capture / compaction together
    "recent_messages": 50,  # messages sent with a recall
    "prompt_chars": 50_000,
    "outcome_chars": 20_000,
    "argument_chars": 100_000,  # a tool call's arguments, as JSON
    "files": 500,
    "file_chars": 1_000,
}


class _Strict(BaseModel):
    """Base: unknown fields are an error, so a typo never silently drops data."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


class ScopeIn(_Strict):
    """Who the call is for: user (required), agent, optional workspace."""

    user_id: str = Field(pattern=_ID, description=ID_HINT)
    agent_id: str = Field(default="default", pattern=_ID, description=ID_HINT)
    workspace: Optional[str] = Field(default=None, pattern=_ID, description=ID_HINT)

    def to_scope(self) -> Scope:
        """The core Scope value."""
        return Scope(user_id=self.user_id, agent_id=self.agent_id, workspace=self.workspace)


class SessionScopeIn(_Strict):
    """The scope of a session-wide hook: one user, or (no user_id) each person who spoke in the
    session of this agent. OpenClaw's session_end and before_compaction name no sender."""

    user_id: Optional[str] = Field(default=None, pattern=_ID, description=ID_HINT)
    agent_id: str = Field(default="default", pattern=_ID, description=ID_HINT)
    workspace: Optional[str] = Field(default=None, pattern=_ID, description=ID_HINT)

    def to_scope(self) -> Optional[Scope]:
        """The core Scope, or None for "everyone in the session"."""
        if self.user_id is None:
            return None
        return Scope(user_id=self.user_id, agent_id=self.agent_id, workspace=self.workspace)


class MessageIn(_Strict):
    """One chat message, text only (the plugin flattens content parts to text).

    id, timestamp: the host's identity of the message and its time (epoch, any unit), which make
    a turn's key stable however the host's window slides (capture.messages.transcript_turns).
    sender: the person who wrote a user message, in a session several people share.
    """

    role: Literal["system", "user", "assistant", "tool"]
    content: str = Field(max_length=CAPS["message_chars"])
    name: Optional[str] = Field(default=None, max_length=128)
    id: Optional[str] = Field(default=None, min_length=1, max_length=200)
    timestamp: Optional[float] = Field(default=None, ge=0)
    sender: Optional[str] = Field(default=None, pattern=_ID, description=ID_HINT)


def _messages_field() -> Any:
    return Field(default_factory=list, max_length=CAPS["messages"])


def _check_transcript(messages: list[MessageIn]) -> None:
    total = sum(len(m.content) for m in messages)
    if total > CAPS["transcript_chars"]:
        raise ValueError(
            f"messages: expected at most {CAPS['transcript_chars']} characters of content "
            f"in all, found {total}; send the transcript in parts"
        )


class _Scoped(_Strict):
    scope: ScopeIn


class _SessionScoped(_Scoped):
    session_id: str = Field(pattern=_ID, description=ID_HINT)


_TurnKey = Annotated[str, Field(min_length=1, max_length=200)]


class _Replayable(_SessionScoped):
    """A write the plugin may have spooled: spooled_at (epoch seconds) is when it was first
    attempted; a replay recorded before the user's last purge is refused (410). capture_id: the
    write's own id, so that a resend of it (its answer lost in a timeout) is taken once."""

    spooled_at: Optional[float] = Field(default=None, ge=0)
    capture_id: Optional[str] = Field(default=None, pattern=_ID, description=ID_HINT)


class RecallIn(_SessionScoped):
    """Body of POST /v1/recall (OpenClaw before_prompt_build).

    live_turns: keys of the turns the host's transcript holds now (the `id` the plugin gives each
    user message); memories that only repeat them are left out of the block.
    """

    prompt: str = Field(max_length=CAPS["prompt_chars"])
    messages: list[MessageIn] = Field(default_factory=list, max_length=CAPS["recent_messages"])
    live_turns: list[_TurnKey] = Field(default_factory=list, max_length=5000)


class CaptureIn(_Replayable):
    """Body of POST /v1/capture (OpenClaw agent_end): the turn's or the session's messages.

    stored_turns: keys of turns whose memories the agent stored through memory_store (they are
    logged, not extracted again).
    """

    messages: list[MessageIn] = Field(min_length=1, max_length=CAPS["messages"])
    stored_turns: list[_TurnKey] = Field(default_factory=list, max_length=100)

    @model_validator(mode="after")
    def _bounded(self) -> "CaptureIn":
        _check_transcript(self.messages)
        return self


class ToolEventIn(_Replayable):
    """Body of POST /v1/tool-event (OpenClaw after_tool_call)."""

    tool: str = Field(min_length=1, max_length=200)
    arguments: dict[str, Any] = Field(default_factory=dict)
    outcome: str = Field(default="", max_length=CAPS["outcome_chars"])
    ok: bool = True
    files: list[Annotated[str, Field(max_length=CAPS["file_chars"])]] = Field(
        default_factory=list, max_length=CAPS["files"]
    )
    duration_ms: Optional[float] = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _bounded(self) -> "ToolEventIn":
        size = len(json.dumps(self.arguments, ensure_ascii=False, default=str))
        if size > CAPS["argument_chars"]:
            raise ValueError(
                f"arguments: expected at most {CAPS['argument_chars']} characters as JSON, "
                f"found {size}"
            )
        return self


class SessionStartIn(_SessionScoped):
    """Body of POST /v1/session/start."""


class SessionEndIn(_Strict):
    """Body of POST /v1/session/end. A scope without user_id stands for each person who spoke in the session."""

    scope: SessionScopeIn
    session_id: str = Field(pattern=_ID, description=ID_HINT)
    reason: str = Field(default="end", max_length=64)
    spooled_at: Optional[float] = Field(default=None, ge=0)
    capture_id: Optional[str] = Field(default=None, pattern=_ID, description=ID_HINT)


class CompactIn(_Strict):
    """Body of POST /v1/session/compact (OpenClaw before_compaction). A scope without user_id
    stands for each person who spoke in the session."""

    scope: SessionScopeIn
    session_id: str = Field(pattern=_ID, description=ID_HINT)
    messages: list[MessageIn] = _messages_field()
    spooled_at: Optional[float] = Field(default=None, ge=0)
    capture_id: Optional[str] = Field(default=None, pattern=_ID, description=ID_HINT)

    @model_validator(mode="after")
    def _bounded(self) -> "CompactIn":
        _check_transcript(self.messages)
        return self


class SearchIn(_Scoped):
    """Body of POST /v1/memory/search."""

    query: str = Field(min_length=1, max_length=10_000)
    limit: int = Field(default=10, ge=1, le=100)
    #: level 3 of progressive disclosure: the cold archive (expired, capped, compacted) too
    deep: bool = False


class GetIn(_Scoped):
    """Body of POST /v1/memory/get."""

    id: str = Field(min_length=1, max_length=200)


class RememberIn(_Scoped):
    """Body of POST /v1/memory/remember (an explicit, user-requested memory)."""

    text: str = Field(min_length=1, max_length=TEXT_MAX_CHARS)
    type: Optional[str] = Field(default=None, max_length=32)
    subject: Optional[str] = Field(default=None, max_length=SUBJECT_MAX_CHARS)
    session_id: Optional[str] = Field(default=None, pattern=_ID, description=ID_HINT)


class ForgetIn(_Scoped):
    """Body of POST /v1/memory/forget: exactly one of id or query."""

    id: Optional[str] = Field(default=None, min_length=1, max_length=200)
    query: Optional[str] = Field(default=None, min_length=1, max_length=10_000)

    @model_validator(mode="after")
    def _one_target(self) -> "ForgetIn":
        if (self.id is None) == (self.query is None):
            raise ValueError("expected exactly one of 'id' or 'query'")
        return self


class RestoreIn(_Scoped):
    """Body of POST /v1/memory/restore: the id of a forgotten memory."""

    id: str = Field(min_length=1, max_length=200)


class ProcessEventIn(_Scoped):
    """Body of POST /v1/process-event: a deterministic process node (a task's status changed)."""

    subject: str = Field(min_length=1, max_length=500, description="what changed, e.g. a task name")
    status: str = Field(
        min_length=1, max_length=64, description="its new status, e.g. done, blocked"
    )
    summary: str = Field(default="", max_length=20_000)
    reason: str = Field(default="", max_length=5_000)
    session_id: Optional[str] = Field(default=None, pattern=_ID, description=ID_HINT)


class CleanupIn(_Strict):
    """Body of POST /service/cleanup (OpenClaw gateway_stop): how long to wait for queued writes."""

    wait_ms: int = Field(default=2000, ge=0, le=10_000)


class ReportIn(_Strict):
    """Body of POST /service/report: what the plugin saw since its last report (counted in
    /metrics): calls that went on without memory, and its spool's size now."""

    fail_open: int = Field(default=0, ge=0, le=1_000_000)
    spool_bytes: Optional[int] = Field(default=None, ge=0)


def messages_to_dicts(messages: list[MessageIn]) -> list[dict[str, str]]:
    """OpenAI-style dicts for the middleware."""
    return [m.model_dump(exclude_none=True) for m in messages]


def _clean(text: str | None) -> str | None:
    """Stored text as a model may read it: one sanitized line (escape.sanitize)."""
    return None if text is None else sanitize(text)


def scored_to_json(item: ScoredMemory) -> dict[str, Any]:
    """A recalled or searched memory, short form; its texts sanitized (they reach a model)."""
    rec = item.record
    return {
        "id": rec.id,
        "type": rec.type.value,
        "summary": _clean(rec.summary),
        "subject": _clean(rec.subject),
        "status": rec.status.value,
        "score": round(float(item.score), 4),
    }


def _line(rec: MemoryRecord, score: float | None = None) -> str:
    scored = f", score {round(float(score), 4)}" if score is not None else ""
    subject = f"{rec.subject}: " if rec.subject else ""
    status = (
        "" if rec.status.value == "active" else f", {rec.status.value}"
    )  # archived: found by deep
    return f"- [{rec.id}] ({rec.type.value}{status}{scored}) {subject}{rec.summary}"


def search_to_json(found: list[ScoredMemory]) -> dict[str, Any]:
    """POST /v1/memory/search's answer: the memories, and `text`, the framed tool result a
    plugin hands the model as is (escape.frame_reference)."""
    if not found:  # nothing stored reaches the model: no frame needed
        return {"memories": [], "text": "No matching memories."}
    lines = [_line(s.record, s.score) for s in found]
    return {
        "memories": [scored_to_json(s) for s in found],
        "text": frame_reference("\n".join(lines)),
    }


def get_to_json(rec: MemoryRecord) -> dict[str, Any]:
    """POST /v1/memory/get's answer: the record (texts sanitized) and its framed `text`."""
    detail = [sanitize(rec.detail)] if rec.detail else []
    return {
        "memory": record_to_json(rec),
        "text": frame_reference("\n".join([_line(rec), *detail])),
    }


def plan_to_json(plan: InjectionPlan) -> dict[str, Any]:
    """An InjectionPlan as the plugin needs it: the block, where it goes, what is in it."""
    return {
        "block": plan.block,
        "position": plan.position,
        "tokens": plan.tokens,
        "memories": [scored_to_json(c) for c in plan.candidates if c.kept],
    }


def scope_to_json(scope: Scope) -> dict[str, Any]:
    """A Scope as a JSON object."""
    return {"user_id": scope.user_id, "agent_id": scope.agent_id, "workspace": scope.workspace}


def record_to_json(rec: MemoryRecord) -> dict[str, Any]:
    """A full record, with provenance (docs/design.md invariant 5), times as epoch seconds and UTC strings."""
    return {
        "id": rec.id,
        "scope": scope_to_json(rec.scope),
        "type": rec.type.value,
        "summary": _clean(rec.summary),
        "subject": _clean(rec.subject),
        "detail": _clean(rec.detail),
        "tags": list(rec.tags),
        "importance": rec.importance,
        "confidence": rec.confidence,
        "status": rec.status.value,
        "version": rec.version,
        "prev_id": rec.prev_id,
        "session_id": rec.session_id,
        "source": {
            "channel": rec.source.channel.value,
            "session_id": rec.source.session_id,
            "turn_ids": list(rec.source.turn_ids),
            "writer": rec.source.writer,
        },
        "created_at": rec.created_at,
        "updated_at": rec.updated_at,
        "created": iso_time(rec.created_at),
        "expires_at": rec.expires_at,
    }


def write_to_json(result: WriteResult) -> dict[str, Any]:
    """What remember() did."""
    return {
        "action": result.action,
        "reason": result.reason,
        "replaced_id": result.replaced_id,
        "memory": record_to_json(result.record) if result.record is not None else None,
    }
