"""The `summary` hook: a session's short-term window becomes one structured summary memory.

Runs at session end, before the host compacts its context, and when the window goes over its
token threshold. The summary keeps the ids of the turns it covers (its evidence); the window is
then replaced by the summary, and at session end the session row points at it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..extract.summary import Summarizer
from ..lang.text import message_text
from ..types import Candidate, Channel, MemoryType, Message, Scope
from .sessions import Sessions
from .short_term import ShortTermMemory

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine

log = logging.getLogger(__name__)
#: at most this many of a compacted transcript's last messages make its summary
TRANSCRIPT_MESSAGES = 200


def _own_messages(scope: Scope, transcript: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The user's and the assistant's messages of a transcript, as window rows; in a shared
    transcript (messages naming their sender) only this user's own and the replies."""
    shared = any(m.get("sender") for m in transcript if m.get("role") == "user")
    out = []
    for m in transcript:
        role, text = m.get("role"), message_text(m).strip()
        if role not in ("user", "assistant") or not text:
            continue
        if shared and role == "user" and m.get("sender") != scope.user_id:
            continue
        out.append({"role": role, "content": text, "turn_id": None})
    return out[-TRANSCRIPT_MESSAGES:]


class SessionSummaries:
    def __init__(
        self,
        engine: "MemoryEngine",
        short_term: ShortTermMemory,
        sessions: Sessions,
        summarizer: Summarizer,
    ) -> None:
        self.engine = engine
        self.short_term = short_term
        self.sessions = sessions
        self.summarizer = summarizer

    def summarize(
        self,
        scope: Scope,
        session_id: str,
        reason: str,
        *,
        end: bool,
        transcript: Sequence[Mapping[str, Any]] = (),
        key: str | None = None,
    ) -> str | None:
        """Summarize the window (when it holds an exchange at least); end the session if asked.
        Returns the summary memory's id, or None when there was nothing to summarize.

        transcript: what the host is about to compact. When the window holds less than an
        exchange (a summary of a long session replaced it moments before), the transcript's
        own messages are summarized instead, so a compaction always leaves its summary.

        key: the capture id of the request that asked for it; a replay of that request (the
        process died before it was marked done) finds the summary it wrote and writes none."""
        window = [m for m in self.short_term.window(scope, session_id) if m["role"] != "summary"]
        source = "the recent window"
        if len(window) < 2 and transcript:
            window, source = _own_messages(scope, transcript), "the compacted transcript"
        summary_id = None
        if len(window) < 2:
            log.info(
                "%s summary of %s for %s: nothing to summarize (%d message(s) since the last "
                "summary)",
                reason,
                session_id,
                scope.user_id,
                len(window),
            )
        else:
            evidence = tuple(dict.fromkeys(m["turn_id"] for m in window if m.get("turn_id")))
            summary = self.summarizer.summarize(
                [Message(m["role"], m["content"]) for m in window], evidence
            )
            text = summary.render(with_evidence=False)
            if text.strip():
                cand = Candidate(
                    MemoryType.SUMMARY,
                    text,
                    subject=f"session/{session_id}",
                    importance=0.6,
                    confidence=0.9,
                    channel=Channel.SUMMARY,
                    turn_ids=evidence,
                    key=f"{key}:summary" if key else None,
                )
                written = self.engine.write(
                    scope, [cand], session_id=session_id, writer=f"summary-hook:{reason}"
                )
                summary_id = written[0].record.id if written[0].record else None
                self.short_term.replace_with_summary(scope, session_id, text)
                log.info(
                    "%s summary of %s for %s: %s %s from %d message(s) of %s",
                    reason,
                    session_id,
                    scope.user_id,
                    written[0].action,
                    summary_id,
                    len(window),
                    source,
                )
            else:
                log.info(
                    "%s summary of %s for %s: the summarizer found nothing to keep in %d "
                    "message(s)",
                    reason,
                    session_id,
                    scope.user_id,
                    len(window),
                )
        if end:
            self.sessions.end(scope, session_id, reason, summary_id)
        return summary_id
