"""Captured events -> candidate memories, without any LLM.

- tool events (the `save` hook): an event memory with tool, arguments, outcome, files touched;
- process events (docs/design.md seed 000 §2.2): a task's status changed -> the task fact is updated, and a
  blocked task also leaves a warning event, bound to the process node, not to model output;
- turns: the episodic log, one verbatim unit per utterance (secrets already removed).
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from ..extract.secrets import SecretFilter
from ..lang.text import valid_unicode
from ..core.tokens import truncate_tokens
from ..lang.utterance import REQUEST_TAG
from ..types import Candidate, Channel, MemoryType, ToolEvent
from ..config.tuning import tuned

#: importances: a tool call's record (raised when it failed or touched files), a process
#: event's (a blocked process's), an utterance kept verbatim
_TOOL_IMPORTANCE = tuned("tool_event.importance")
_TOOL_FAILURE_BONUS = tuned("tool_event.failure_bonus")
_TOOL_FILES_BONUS = tuned("tool_event.files_bonus")
_PROCESS_IMPORTANCE = tuned("process_event.importance")
_BLOCKED_IMPORTANCE = tuned("process_event.blocked_importance")
_UTTERANCE_IMPORTANCE = tuned("utterance.importance")


#: the agent's own memory tools: what they do is memory already, never an event about memory
MEMORY_TOOLS = frozenset({"memory_search", "memory_get", "memory_store", "memory_forget"})
#: OpenClaw's Tool Search controls that only find or describe tools: no event of their own
TOOL_SEARCH_CONTROLS = frozenset({"tool_search", "tool_describe", "tool_search_code"})
#: OpenClaw's Tool Search call: `{id: "<source>:<plugin>:<tool>", args: {...}}` runs the tool it names
TOOL_SEARCH_CALL = "tool_call"


def _called_tool(arguments: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    """The tool a Tool Search `tool_call` ran and its own arguments ("" when it names none)."""
    target = next((arguments[k] for k in ("id", "name", "tool") if arguments.get(k)), "")
    if isinstance(target, Mapping):
        target = target.get("id") or target.get("name") or ""
    name = str(target).strip().rsplit(":", 1)[-1].strip()
    inner: Mapping[str, Any] = next(
        (
            arguments[k]
            for k in ("args", "arguments", "params", "input")
            if isinstance(arguments.get(k), Mapping)
        ),
        {},
    )
    return name, inner


def unwrap_tool_event(event: ToolEvent) -> ToolEvent | None:
    """The event to store for a finished tool call, or None when it must not become memory.

    A call made through Tool Search is stored as the tool it ran (its name and arguments);
    the search/describe controls and the memory tools, however reached, store nothing.
    """
    tool, arguments = event.tool.strip(), event.arguments
    if tool == TOOL_SEARCH_CALL:
        tool, arguments = _called_tool(
            event.arguments if isinstance(event.arguments, Mapping) else {}
        )
        if not tool:
            return None
    if tool in TOOL_SEARCH_CONTROLS or tool in MEMORY_TOOLS or tool == TOOL_SEARCH_CALL:
        return None
    if tool == event.tool and arguments is event.arguments:
        return event
    return ToolEvent(
        tool, dict(arguments), event.outcome, event.ok, event.files, event.duration_ms, event.key
    )


def _one_line(text: str, tokens: int) -> str:
    return truncate_tokens(" ".join(str(text).split()), tokens)


def tool_event_candidate(event: ToolEvent, *, turn_id: str | None = None) -> Candidate:
    verdict = "succeeded" if event.ok else "failed"
    head = f"tool {event.tool} {verdict}"
    outcome = _one_line(event.outcome, 60)
    summary = f"{head}: {outcome}" if outcome else head
    # redact_args cleaned every nested value; valid_unicode again for callers that did not
    args = valid_unicode(
        json.dumps(dict(event.arguments), ensure_ascii=False, sort_keys=True, default=str)
    )
    detail_parts = [f"arguments: {_one_line(args, 200)}"]
    if event.files:
        detail_parts.append("files: " + ", ".join(event.files[:50]))
    if event.duration_ms is not None:
        detail_parts.append(f"duration: {event.duration_ms:.0f} ms")
    importance = (
        _TOOL_IMPORTANCE
        + (_TOOL_FAILURE_BONUS if not event.ok else 0.0)
        + (_TOOL_FILES_BONUS if event.files else 0.0)
    )
    return Candidate(
        type=MemoryType.EVENT,
        summary=summary,
        subject=f"tool/{event.tool}",
        detail="\n".join(detail_parts),
        tags=("tool", "error" if not event.ok else "ok"),
        entities=tuple(event.files[:20]),
        importance=importance,
        confidence=1.0,
        channel=Channel.TOOL,
        turn_ids=(turn_id,) if turn_id else (),
        key=f"{event.key}:event" if event.key else None,
    )


def process_event_candidates(
    subject: str,
    status: str,
    summary: str = "",
    *,
    reason: str = "",
    importance: float = _PROCESS_IMPORTANCE,
) -> list[Candidate]:
    """A task's status changed: update the task fact; a blocked task also leaves a warning event."""
    status = status.strip().lower()
    text = f"{summary} ({status})" if summary else f"status {status}"
    out = [
        Candidate(
            type=MemoryType.TASK,
            subject=subject,
            summary=text,
            tags=("process", status),
            importance=importance,
            confidence=1.0,
            channel=Channel.TOOL,
        )
    ]
    if status == "blocked":
        out.append(
            Candidate(
                type=MemoryType.EVENT,
                subject=subject,
                summary=f"{subject} blocked: {reason or summary}",
                tags=("process", "warning"),
                importance=_BLOCKED_IMPORTANCE,
                confidence=1.0,
                channel=Channel.TOOL,
            )
        )
    return out


def episode_candidate(
    text: str,
    *,
    speaker: str,
    turn_id: str | None,
    max_tokens: int = 300,
    request: bool = False,
) -> Candidate:
    """One utterance of the log, verbatim (secrets already removed); `request`: the turn only
    asked for help (tagged REQUEST_TAG after the speaker)."""
    return Candidate(
        type=MemoryType.EPISODE,
        summary=truncate_tokens(text.strip(), max_tokens),
        subject=None,
        tags=(speaker, REQUEST_TAG) if request else (speaker,),
        importance=_UTTERANCE_IMPORTANCE,
        confidence=1.0,
        channel=Channel.IMPLICIT,
        turn_ids=(turn_id,) if turn_id else (),
        entities=(speaker,) if speaker not in ("user", "assistant") else (),
    )


def redact_args(secrets: SecretFilter, args: Mapping[str, Any]) -> dict:
    """Tool arguments with lone surrogates repaired and secrets redacted in every string, keys
    and nested values (lists such as argv, dicts) included."""
    clean = _repair(dict(args or {}))
    redacted = secrets.redact_value(clean)
    return dict(redacted) if isinstance(redacted, dict) else {}


def redact_outcome(secrets: SecretFilter, outcome: Any) -> str:
    """A tool's outcome as text with its secrets redacted: a structured outcome (a dict or a
    list, as some hosts report results) is redacted by its structure before it is serialised,
    so a secret under a secret-named key or after an argv flag never reaches the text."""
    if isinstance(outcome, str):
        return secrets.redact(valid_unicode(outcome))
    if outcome is None:
        return ""
    clean = secrets.redact_value(_repair(outcome))
    if isinstance(clean, str):
        return clean
    return valid_unicode(json.dumps(clean, ensure_ascii=False, sort_keys=True, default=str))


def redact_event(secrets: SecretFilter, event: ToolEvent) -> ToolEvent:
    """The event with every text that reaches the disk redacted: the tool's name, its
    arguments, its outcome and the paths of its files."""
    redact = secrets.redact
    return ToolEvent(
        redact(valid_unicode(event.tool)),
        redact_args(secrets, event.arguments),
        redact_outcome(secrets, event.outcome),
        event.ok,
        tuple(redact(valid_unicode(str(f))) for f in event.files),
        event.duration_ms,
        event.key,
    )


def _repair(value: Any, depth: int = 0) -> Any:
    """valid_unicode over every string of a JSON-like value."""
    if isinstance(value, str):
        return valid_unicode(value)
    if depth > 32:
        return valid_unicode(str(value))
    if isinstance(value, Mapping):
        return {valid_unicode(str(k)): _repair(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_repair(v, depth + 1) for v in value]
    return value
