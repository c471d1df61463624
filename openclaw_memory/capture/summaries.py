"""The `summary` hook: a session's short-term window becomes one structured summary memory.

Runs at session end, before the host compacts its context, and when the window goes over its
token threshold. The summary keeps the ids of the turns it covers (its evidence); the window is
then replaced by the summary, and at session end the session row points at it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..extract.summary import Summarizer
from ..types import Candidate, Channel, MemoryType, Message, Scope
from .sessions import Sessions
from .short_term import ShortTermMemory

if TYPE_CHECKING:
    from ..engine import MemoryEngine


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

    def summarize(self, scope: Scope, session_id: str, reason: str, *, end: bool) -> str | None:
        """Summarize the window (when it holds an exchange at least); end the session if asked.
        Returns the summary memory's id, or None when there was nothing to summarize."""
        window = [m for m in self.short_term.window(scope, session_id) if m["role"] != "summary"]
        summary_id = None
        if len(window) >= 2:
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
                )
                written = self.engine.write(
                    scope, [cand], session_id=session_id, writer=f"summary-hook:{reason}"
                )
                summary_id = written[0].record.id if written[0].record else None
                self.short_term.replace_with_summary(scope, session_id, text)
        if end:
            self.sessions.end(scope, session_id, reason, summary_id)
        return summary_id
