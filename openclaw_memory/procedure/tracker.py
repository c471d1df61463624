"""The tasks of the open sessions: which request started each, and the tool calls it made.

The `new` hook notes each request; a request of a new kind of task starts a new task (the one
before it is closed and distilled). The `save` hook adds each finished tool call (already
redacted). A procedure is distilled when a call succeeds after the task failed before (it works
now), when the next task starts, and at session end. Process memory only: a session cut off
by a restart loses its task in flight, never what was written.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from ..capture.events import ToolEvent
from ..types import Candidate, Scope
from .distil import Task, procedure_candidate
from .kind import task_kind

#: sessions followed at once (the oldest is let go beyond it), and calls kept per task
MAX_SESSIONS, MAX_STEPS = 1000, 50


@dataclass
class _Open:
    request: str = ""
    steps: list[ToolEvent] = field(default_factory=list)
    #: the text last distilled from this task (a trigger that would write the same is skipped)
    written: str = ""

    def task(self) -> Task:
        return Task(self.request, tuple(self.steps))


class ProcedureTracker:
    """Open tasks per (scope, session); every method returns the procedures to write now."""

    def __init__(self, max_sessions: int = MAX_SESSIONS) -> None:
        self._open: OrderedDict[tuple, _Open] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_sessions

    @staticmethod
    def _key(scope: Scope, session_id: str) -> tuple:
        return (scope.user_id, scope.agent_id, scope.workspace, session_id)

    def note_request(self, scope: Scope, session_id: str, request: str) -> list[Candidate]:
        """A user request (secrets already removed): a new kind of task starts a new task."""
        text = " ".join((request or "").split())
        if not text:
            return []
        key = self._key(scope, session_id)
        with self._lock:
            current = self._open.get(key)
            if current is not None and (current.steps or current.request):
                kind = task_kind(text)
                if kind is None or not kind.obj or not current.steps:
                    # a follow-up ("it failed, try again") continues the task; a request before
                    # any tool call restates it
                    if not current.steps and kind is not None:
                        current.request = text
                    return []
                closing = current
            else:
                closing = None
            self._open[key] = _Open(text)
            self._open.move_to_end(key)
            self._trim()
        return self._distil(closing)

    def note_tool(self, scope: Scope, session_id: str, event: ToolEvent) -> list[Candidate]:
        """A finished tool call; a success after the task failed before distils it now."""
        key = self._key(scope, session_id)
        with self._lock:
            current = self._open.setdefault(key, _Open())
            self._open.move_to_end(key)
            self._trim()
            recovered = (
                event.ok and any(not s.ok for s in current.steps) and not (current.steps[-1].ok)
            )
            current.steps.append(event)
            del current.steps[:-MAX_STEPS]
            return self._distil(current) if recovered else []

    def finish(self, scope: Scope, session_id: str) -> list[Candidate]:
        """The session ended: its task is distilled and let go."""
        with self._lock:
            current = self._open.pop(self._key(scope, session_id), None)
        return self._distil(current)

    def drop_user(self, user_id: str, agent_id: str | None = None) -> None:
        """Let go of a user's open tasks (of every agent, or one) without distilling them: a
        purge leaves nothing behind to be written later."""
        with self._lock:
            for key in [k for k in self._open if k[0] == user_id and agent_id in (None, k[1])]:
                del self._open[key]

    def _distil(self, task: _Open | None) -> list[Candidate]:
        if task is None or not task.steps:
            return []
        cand = procedure_candidate(task.task())
        if cand is None or cand.summary == task.written:
            return []
        task.written = cand.summary
        return [cand]

    def _trim(self) -> None:
        while len(self._open) > self._max:
            self._open.popitem(last=False)


__all__ = ["ProcedureTracker"]
