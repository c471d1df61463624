"""A task's tool events -> one procedure candidate: how that kind of task was done.

With the tasks of the open sessions: which request started each, and the tool calls it made.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from ..core.policy import POLICY
from ..lang import Languages, all_on, detect
from ..core.tokens import truncate_tokens
from ..types import Candidate, Channel, MemoryType, Scope, ToolEvent
from . import TaskKind, task_kind, tool_kind
from collections import OrderedDict


__all__ = [
    "labels",
    "Task",
    "describe",
    "key_arguments",
    "procedure_candidate",
    "worked",
    "ProcedureTracker",
]

# A task's tool events -> one procedure candidate: how that kind of task was done.
#
# Rule-based, no LLM. From the tool calls a task made (their arguments already redacted by the
# secret filter) it keeps the steps that worked (tool names and their short scalar arguments, in
# order, repeats folded), the step that failed and why (the tool's own message, first line), and
# the fix: what succeeded after the failure. A task whose last call failed is kept too, as a
# failed procedure ("not solved yet"), so a later working one for the same kind supersedes it.
# The words around the steps come from `labels`, in the language of the request.

#: the words of a procedure's line, per language
_TABLE = "procedure"


def labels(langs: Languages | None = None) -> Mapping[str, Mapping[str, str]]:
    """Each language's labels of a procedure's text (its `procedure` table), by language code,
    the languages whose labels are switched off left out (`langs`: every rule on by default)."""
    return _labels_of(langs or all_on())


@functools.lru_cache(maxsize=8)
def _labels_of(langs: Languages) -> Mapping[str, Mapping[str, str]]:
    return {
        p.code: p.table(_TABLE).entry("labels").settings
        for p in langs.all()
        if p.table(_TABLE).entry("labels").on
    }


def _labels(request: str, langs: Languages | None = None) -> Mapping[str, str]:
    """The labels of the request's language; a language without them writes in the labels of
    text with no marked script."""
    found = labels(langs)
    return found.get(detect(request)) or found[detect("")]


#: at most this many arguments of a step are kept, each value at most this many characters
_ARGS, _ARG_CHARS = 3, 60
#: a tool's failure message is kept to this many tokens
_WHY_TOKENS = 30
#: a procedure keeps at most this many working steps
_STEPS = 8


@dataclass(frozen=True)
class Task:
    """One task of a session: the request that started it and the tool calls it made."""

    request: str
    steps: tuple[ToolEvent, ...]
    #: the language packs under the config's switches (every rule on when None)
    langs: Languages | None = None

    @property
    def kind(self) -> TaskKind | None:
        """The request's kind, else one read from the tool that did the work."""
        kind = task_kind(self.request, self.langs)
        if kind is not None and kind.obj:
            return kind
        worked = [s for s in self.steps if s.ok] or list(self.steps)
        by_tool = tool_kind(worked[-1].tool) if worked else None
        return kind or by_tool

    @property
    def worked(self) -> bool:
        """The task's last call succeeded."""
        return bool(self.steps) and self.steps[-1].ok


def key_arguments(arguments: Mapping[str, Any]) -> str:
    """The short scalar arguments of a call, `key=value`, sorted, at most three (long texts such
    as file contents are left out: they say what was written, not how; so is a value the secret
    filter redacted: its marker teaches nothing)."""
    out = []
    for key in sorted(arguments):
        value = arguments[key]
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            continue
        text = " ".join(str(value).split())
        if text and len(text) <= _ARG_CHARS and "[REDACTED" not in text:
            out.append(f"{key}={text}")
        if len(out) >= _ARGS:
            break
    return ", ".join(out)


def _step(event: ToolEvent, words: Mapping[str, str]) -> str:
    args = key_arguments(event.arguments)
    return event.tool + (words["args"].format(args) if args else "")


def _why(event: ToolEvent) -> str:
    first = next((ln.strip() for ln in str(event.outcome).splitlines() if ln.strip()), "")
    return truncate_tokens(first, _WHY_TOKENS)


def _fold(steps: Sequence[str]) -> list[str]:
    """Steps with consecutive repeats folded into one."""
    out: list[str] = []
    for s in steps:
        if not out or out[-1] != s:
            out.append(s)
    return out


def describe(task: Task) -> str:
    """The procedure's text: the steps that worked, the failure and its fix, in the request's
    language."""
    words = _labels(task.request, task.langs)
    steps = task.steps
    last_fail = max((i for i, s in enumerate(steps) if not s.ok), default=None)
    parts = []
    if task.worked:
        worked = _fold([_step(s, words) for s in steps if s.ok])[-_STEPS:]
        parts.append(words["worked"] + words["arrow"].join(worked))
    else:
        tried = _fold([_step(s, words) for s in steps[:-1] if s.ok])[-_STEPS:]
        if tried:
            parts.append(words["tried"] + words["arrow"].join(tried))
    if last_fail is not None:
        failed = steps[last_fail]
        why = _why(failed)
        label = words["failed"] if task.worked else words["failed_last"]
        parts.append(label + _step(failed, words) + (words["because"] + why if why else ""))
        if task.worked:
            fix = _fold([_step(s, words) for s in steps[last_fail + 1 :] if s.ok])
            parts.append(words["fix"] + words["arrow"].join(fix[:3]))
        else:
            parts.append(words["unsolved"].rstrip("." + "。"))
    return words["sep"].join(p.rstrip(".。") for p in parts) + words["sep"].strip()


def procedure_candidate(task: Task) -> Candidate | None:
    """The procedure a task leaves, or None: no kind, or a single call that simply worked (no
    sequence and no failure: nothing learned about how)."""
    kind = task.kind
    if kind is None or not task.steps:
        return None
    tools = list(dict.fromkeys(s.tool for s in task.steps))
    failed = any(not s.ok for s in task.steps)
    if len(task.steps) < 2 and not failed:
        return None
    words = _labels(task.request, task.langs)
    detail = [words["tools"] + ", ".join(tools)]
    if task.request:
        detail.insert(0, words["request"] + truncate_tokens(" ".join(task.request.split()), 60))
    base = POLICY[MemoryType.PROCEDURE].base_importance
    return Candidate(
        type=MemoryType.PROCEDURE,
        summary=describe(task),
        subject=kind.key,
        detail="\n".join(detail),
        tags=("procedure", "worked" if task.worked else "failed", *(f"tool:{t}" for t in tools)),
        importance=base + (0.1 if failed and task.worked else 0.0),
        confidence=1.0 if task.worked else 0.8,
        channel=Channel.TOOL,
    )


def worked(tags: Sequence[str]) -> bool:
    """A stored procedure works unless its tags say its last call failed (one a user stated,
    imported or edited without tags is taken as working)."""
    return "failed" not in tags


# The tasks of the open sessions: which request started each, and the tool calls it made.
#
# The `new` hook notes each request; a request of a new kind of task starts a new task (the one
# before it is closed and distilled). The `save` hook adds each finished tool call (already
# redacted). A procedure is distilled when a call succeeds after the task failed before (it works
# now), when the next task starts, and at session end. Process memory only: a session cut off
# by a restart loses its task in flight, never what was written.

#: sessions followed at once (the oldest is let go beyond it), and calls kept per task
MAX_SESSIONS, MAX_STEPS = 1000, 50


@dataclass
class _Open:
    request: str = ""
    steps: list[ToolEvent] = field(default_factory=list)
    #: the text last distilled from this task (a trigger that would write the same is skipped)
    written: str = ""

    def task(self, langs: Languages | None = None) -> Task:
        return Task(self.request, tuple(self.steps), langs)


class ProcedureTracker:
    """Open tasks per (scope, session); every method returns the procedures to write now."""

    def __init__(self, max_sessions: int = MAX_SESSIONS, langs: Languages | None = None) -> None:
        #: the language packs under the config's switches (every rule on by default)
        self.langs = langs
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
                kind = task_kind(text, self.langs)
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
        cand = procedure_candidate(task.task(self.langs))
        if cand is None or cand.summary == task.written:
            return []
        task.written = cand.summary
        return [cand]

    def _trim(self) -> None:
        while len(self._open) > self._max:
            self._open.popitem(last=False)
