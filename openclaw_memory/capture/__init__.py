"""Capture: what the host hands over, read as turns.

Chat messages (OpenAI shape) are read as user turns with the replies they got. Importing this
module stays light (no extraction, no LLM): the adapters read transcripts through it.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import Any, Mapping, Sequence
from ..lang.text import message_text
from ..types import Scope


# Chat messages (OpenAI shape) read as user turns with the replies they got.
#
# Two readings:
# - `user_turns`: numbered turns of one request (the Python API's before_request/after_response);
# - `transcript_turns`: the turns of a host transcript with a stable identity each, so a turn is
#   the same turn however the host's window slides or compacts (OpenClaw sends its whole, possibly
#   compacted, transcript at every agent_end). The identity is, in order of preference: the host's
#   message id (`id` on the user message); a hash of the user text with the time of the first
#   reply (`timestamp`; OpenClaw may restamp a user message when it persists it, never its reply)
#   or of the user message itself; else the hash and how many identical texts came before it.


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


@dataclass(frozen=True)
class TranscriptTurn:
    """One user message of a transcript, the replies it got, who sent it and its identity."""

    key: str
    user: str
    reply: str
    sender: str | None = None
    at: float | None = None


def text_key(text: str) -> str:
    """A short hash of a user message's text (the content part of a turn's identity)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _timestamp(message: Mapping[str, Any]) -> float | None:
    value = message.get("timestamp")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    return float(value)


def _stamp(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def transcript_turns(messages: Sequence[Mapping[str, Any]]) -> list[TranscriptTurn]:
    """The user turns of a transcript, oldest first, each with its stable key (see module doc)."""
    raw: list[dict[str, Any]] = []
    for m in messages:
        role = m.get("role")
        if role == "user":
            raw.append({"msg": m, "user": message_text(m), "reply": [], "reply_at": None})
        elif role == "assistant" and raw:
            raw[-1]["reply"].append(message_text(m))
            if raw[-1]["reply_at"] is None:
                raw[-1]["reply_at"] = _timestamp(m)
    seen: dict[str, int] = {}
    out = []
    for t in raw:
        msg, text = t["msg"], t["user"]
        digest = text_key(text)
        at = t["reply_at"] if t["reply_at"] is not None else _timestamp(msg)
        host_id = msg.get("id")
        if isinstance(host_id, str) and host_id.strip():
            key = host_id.strip()
        elif at is not None:
            key = f"t:{digest}:{_stamp(at)}"
        else:
            seen[digest] = seen.get(digest, 0) + 1
            key = f"c:{digest}:{seen[digest]}"
        sender = msg.get("sender")
        out.append(
            TranscriptTurn(
                key,
                text,
                "\n".join(x for x in t["reply"] if x).strip(),
                sender if isinstance(sender, str) and sender else None,
                at,
            )
        )
    return out


def own_turns(turns: Sequence[TranscriptTurn], user_id: str) -> list[TranscriptTurn]:
    """The turns of one person in a possibly shared transcript: those their messages started.

    When no message names its sender the transcript is one person's (a direct chat, the Python
    API), and every turn is theirs. Once any message names a sender, a turn without one is
    nobody's known turn and is left out: in a shared session a guess would give one person's
    words to another.
    """
    if not any(t.sender for t in turns):
        return list(turns)
    return [t for t in turns if t.sender == user_id]


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
            self._turns = {
                (s, t)
                for s, t in self._turns
                if not (s.user_id == user_id and (agent_id is None or s.agent_id == agent_id))
            }
