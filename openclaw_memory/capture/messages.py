"""Chat messages (OpenAI shape) read as numbered user turns with the replies they got."""

from __future__ import annotations

import threading
from typing import Any, Mapping, Sequence

from ..text import message_text
from ..types import Scope


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


class PendingTurns:
    """Turns queued for capture and not yet written to the window. A host may send the same
    transcript again before the worker reached the first copy (OpenClaw's agent_end sends the
    whole transcript every time); a turn claimed here is not queued twice."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._turns: set[tuple[Scope, str]] = set()

    def claim(self, scope: Scope, turn_ids: Sequence[str]) -> list[str]:
        """The ids of turn_ids nobody has claimed, now claimed (in order)."""
        with self._lock:
            new = [t for t in dict.fromkeys(turn_ids) if (scope, t) not in self._turns]
            self._turns.update((scope, t) for t in new)
        return new

    def release(self, scope: Scope, turn_ids: Sequence[str | None]) -> None:
        with self._lock:
            self._turns.difference_update((scope, t) for t in turn_ids if t)

    def drop_user(self, user_id: str, agent_id: str | None = None) -> None:
        """A purge dropped the user's queued captures: their turns may be captured again."""
        with self._lock:
            self._turns = {(s, t) for s, t in self._turns
                           if not (s.user_id == user_id and (agent_id is None or s.agent_id == agent_id))}
