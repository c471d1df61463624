"""Positioning: put the rendered block into an OpenAI-style message list.

Three positions (config `injection.position`, docs/design.md seed 002 §5.2):
- "after_system" (default): its own system message right after the leading system message(s),
  so the system prompt keeps the front place and memory follows it;
- "before_user_input": its own system message immediately before the last user message;
- "system_prefix": a template with "{memory_block}" filled and appended to the first system
  message.
The input list and its dicts are never modified; a new list is returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ValidationError

POSITIONS: tuple[str, ...] = ("after_system", "before_user_input", "system_prefix")
ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool", "developer")
PLACEHOLDER = "{memory_block}"
#: Roles that make up the leading instructions the block goes after.
_LEADING = frozenset({"system", "developer"})


def validate_messages(messages: Any) -> None:
    """Raise ValidationError naming the index and field unless messages is a list of chat dicts."""
    if not isinstance(messages, list):
        raise ValidationError(
            f"messages: expected a list of message dicts, found {type(messages).__name__}"
        )
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            raise ValidationError(
                f"messages[{i}]: expected a dict with 'role' and 'content', found "
                f"{type(msg).__name__}"
            )
        role = msg.get("role")
        if not isinstance(role, str) or role not in ROLES:
            raise ValidationError(
                f"messages[{i}].role: expected one of {', '.join(ROLES)}, found {role!r}"
            )
        content = msg.get("content")
        if content is not None and not isinstance(content, str):
            raise ValidationError(
                f"messages[{i}].content: expected a string or null, found {type(content).__name__}"
            )


def validate_system_prefix(template: Any) -> str:
    """Return template if it is a string containing "{memory_block}", else raise ValidationError."""
    if not isinstance(template, str) or PLACEHOLDER not in template:
        raise ValidationError(
            f"system_prefix: expected a template string containing {PLACEHOLDER}, "
            f"found {template!r}"
        )
    return template


def _leading_end(messages: Sequence[dict]) -> int:
    """Index just after the run of system/developer messages at the start (0 when none)."""
    i = 0
    while i < len(messages) and messages[i].get("role") in _LEADING:
        i += 1
    return i


def _last_user(messages: Sequence[dict]) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            return i
    return None


def _append_to_system(out: list[dict], text: str) -> list[dict]:
    for i, msg in enumerate(out):
        if msg.get("role") == "system":
            existing = msg.get("content") or ""
            joined = f"{existing.rstrip()}\n\n{text}" if existing.strip() else text
            out[i] = {**msg, "content": joined}
            return out
    out.insert(0, {"role": "system", "content": text})
    return out


def inject(
    messages: list[dict],
    block: str,
    *,
    position: str,
    system_prefix: str = PLACEHOLDER,
) -> list[dict]:
    """Return a new message list with block placed at position; the input is left untouched.

    An empty (or blank) block returns an equal copy. With no system message, "after_system"
    inserts at index 0 and "system_prefix" creates a system message at index 0; with no user
    message, "before_user_input" falls back to "after_system".
    """
    validate_messages(messages)
    if position not in POSITIONS:
        raise ValidationError(
            f"position: expected one of {', '.join(POSITIONS)}, found {position!r}"
        )
    if position == "system_prefix":
        validate_system_prefix(system_prefix)
    if not isinstance(block, str):
        raise ValidationError(f"block: expected a string, found {type(block).__name__}")
    out = [dict(m) for m in messages]
    if not block.strip():
        return out
    if position == "system_prefix":
        return _append_to_system(out, system_prefix.replace(PLACEHOLDER, block))
    at = _last_user(out) if position == "before_user_input" else None
    if at is None:
        at = _leading_end(out)
    out.insert(at, {"role": "system", "content": block})
    return out
