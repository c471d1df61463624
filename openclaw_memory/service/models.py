"""Request and response models of the HTTP bridge (`/v1`).

Validation models live here because HTTP is where untrusted input comes in: every request model
rejects unknown fields, and every body carries a scope (there is no unscoped read). Converters
turn core values (`Scope`, `MemoryRecord`, `InjectionPlan`, ...) into plain JSON dicts.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..clock import iso_time
from ..types import InjectionPlan, MemoryRecord, Scope, ScoredMemory, WriteResult

_ID = r"^[A-Za-z0-9_.:@+\-]{1,128}$"
ID_HINT = "1-128 characters of letters, digits or _.:@+-"


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


class MessageIn(_Strict):
    """One chat message, text only (the plugin flattens content parts to text)."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str = Field(max_length=200_000)
    name: Optional[str] = Field(default=None, max_length=128)


def _messages_field() -> Any:
    return Field(default_factory=list, max_length=2000)


class _Scoped(_Strict):
    scope: ScopeIn


class _SessionScoped(_Scoped):
    session_id: str = Field(pattern=_ID, description=ID_HINT)


class RecallIn(_SessionScoped):
    """Body of POST /v1/recall (OpenClaw before_prompt_build)."""

    prompt: str = Field(max_length=200_000)
    messages: list[MessageIn] = _messages_field()


class CaptureIn(_SessionScoped):
    """Body of POST /v1/capture (OpenClaw agent_end): the turn's or the session's messages."""

    messages: list[MessageIn] = Field(min_length=1, max_length=2000)


class ToolEventIn(_SessionScoped):
    """Body of POST /v1/tool-event (OpenClaw after_tool_call)."""

    tool: str = Field(min_length=1, max_length=200)
    arguments: dict[str, Any] = Field(default_factory=dict)
    outcome: str = Field(default="", max_length=200_000)
    ok: bool = True
    files: list[str] = Field(default_factory=list, max_length=500)
    duration_ms: Optional[float] = Field(default=None, ge=0)


class SessionStartIn(_SessionScoped):
    """Body of POST /v1/session/start."""


class SessionEndIn(_SessionScoped):
    """Body of POST /v1/session/end."""

    reason: str = Field(default="end", max_length=64)


class CompactIn(_SessionScoped):
    """Body of POST /v1/session/compact (OpenClaw before_compaction)."""

    messages: list[MessageIn] = _messages_field()


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

    text: str = Field(min_length=1, max_length=20_000)
    type: Optional[str] = Field(default=None, max_length=32)
    subject: Optional[str] = Field(default=None, max_length=500)
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


class ProcessEventIn(_Scoped):
    """Body of POST /v1/process-event: a deterministic process node (a task's status changed)."""

    subject: str = Field(min_length=1, max_length=500, description="what changed, e.g. a task name")
    status: str = Field(min_length=1, max_length=64, description="its new status, e.g. done, blocked")
    summary: str = Field(default="", max_length=20_000)
    reason: str = Field(default="", max_length=5_000)
    session_id: Optional[str] = Field(default=None, pattern=_ID, description=ID_HINT)


class CleanupIn(_Strict):
    """Body of POST /service/cleanup (OpenClaw gateway_stop): how long to wait for queued writes."""

    wait_ms: int = Field(default=2000, ge=0, le=10_000)


def messages_to_dicts(messages: list[MessageIn]) -> list[dict[str, str]]:
    """OpenAI-style dicts for the middleware."""
    return [m.model_dump(exclude_none=True) for m in messages]


def scored_to_json(item: ScoredMemory) -> dict[str, Any]:
    """A recalled or searched memory, short form."""
    rec = item.record
    return {
        "id": rec.id,
        "type": rec.type.value,
        "summary": rec.summary,
        "subject": rec.subject,
        "status": rec.status.value,
        "score": round(float(item.score), 4),
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
    """A full record, with provenance (invariant 5), times as epoch seconds and UTC strings."""
    return {
        "id": rec.id,
        "scope": scope_to_json(rec.scope),
        "type": rec.type.value,
        "summary": rec.summary,
        "subject": rec.subject,
        "detail": rec.detail,
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
