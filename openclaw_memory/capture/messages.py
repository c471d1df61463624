"""Chat messages (OpenAI shape) read as numbered user turns with the replies they got."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..text import message_text


def user_turns(messages: Sequence[Mapping[str, Any]]) -> list[tuple[int, str, str]]:
    """(1-based user-turn number, user text, the assistant text that answered it)."""
    out: list[tuple[int, str, str]] = []
    for m in messages:
        role = m.get("role")
        if role == "user":
            out.append((len(out) + 1, message_text(m), ""))
        elif role == "assistant" and out:
            n, u, a = out[-1]
            out[-1] = (n, u, (a + "\n" + message_text(m)).strip())
    return out
