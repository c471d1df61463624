"""MemoryHooks: what the host calls around its model calls, sessions, tools and compaction.

    before_request  -> new (open/continue the session; context on a new one)
                    -> read path: query -> recall -> rerank -> budget -> render -> inject
    after_response  -> queued capture (capture/pipeline.py); summary when the window is over threshold
    on_tool_event   -> save (an event memory per finished tool call; the task's procedure
                       once a call succeeds after a failure: procedure/)
    on_session_end / on_compaction -> summary (structured, with evidence ids); at the end, the
                       procedure of the session's last task

Everything heavy on the write side runs on the background worker; a read waits only for the
pending writes of its own scope (read-your-writes). The admin calls (remember, forget, search,
purge) are `admin.MemoryAdmin`; `middleware.MemoryMiddleware` puts both behind one object.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..capture.events import (
    ToolEvent,
    process_event_candidates,
    redact_args,
    redact_outcome,
    tool_event_candidate,
    unwrap_tool_event,
)
from ..capture import PendingTurns
from ..capture import own_turns
from ..capture import transcript_turns
from ..capture import user_turns
from ..capture.pipeline import CapturePipeline
from ..capture.pipeline import Sessions
from ..capture.pipeline import check_session_id
from ..capture.pipeline import ShortTermMemory
from ..capture.pipeline import SessionSummaries
from ..config import MemoryConfig
from ..errors import ValidationError
from ..extract.secrets import SecretFilter
from ..inject.render import inject
from ..inject.render import validate_messages
from .worker import UserJobs
from ..procedure.distil import ProcedureTracker
from ..lang.text import message_text, valid_unicode
from ..types import Candidate, InjectionPlan, ScoredMemory, Scope, Turn, WriteResult
from .working_memory import WorkingMemory

if TYPE_CHECKING:
    from .engine import MemoryEngine

log = logging.getLogger(__name__)

__all__ = ["ChatRequest", "MemoryHooks", "RequestResult", "ToolEvent"]


@dataclass(frozen=True)
class ChatRequest:
    """One model call as the host is about to make it: whose it is, the session, the messages."""

    scope: Scope
    session_id: str
    messages: Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class RequestResult:
    """What before_request returns: the messages with the memory block in place, and the plan
    that explains which memories went in and why."""

    messages: list[dict]
    plan: InjectionPlan


class MemoryHooks:
    """The host's hooks: `before_request` recalls and injects, `after_response` and
    `capture_messages` queue captures, and the session, tool and compaction events write what
    they carry. Every collaborator comes in built (`factory.build_middleware` builds them)."""

    def __init__(
        self,
        engine: "MemoryEngine",
        working: WorkingMemory,
        *,
        capture: CapturePipeline,
        sessions: Sessions,
        short_term: ShortTermMemory,
        summaries: SessionSummaries,
        secrets: SecretFilter,
        jobs: UserJobs,
        pending: PendingTurns,
        config: MemoryConfig,
        procedures: ProcedureTracker | None = None,
    ) -> None:
        self.engine = engine
        self.working = working
        self.capture = capture
        self.sessions = sessions
        self.short_term = short_term
        self.summaries = summaries
        self.secrets = secrets
        self.jobs = jobs
        self.pending = pending
        self.cfg = config
        self.clock = engine.clock
        #: the open tasks of each session: their requests and tool calls (procedural memory)
        self.procedures = procedures if procedures is not None else ProcedureTracker()

    # ---- read path --------------------------------------------------------------------------

    def before_request(self, request: ChatRequest) -> RequestResult:
        """The read path: recall for the last user message and inject the block into a copy."""
        validate_messages(list(request.messages))
        turns = user_turns(request.messages)
        current = turns[-1][1] if turns else ""
        plan = self.recall(request.scope, request.session_id, current, request.messages)
        pos = self.cfg.injection
        messages = inject(
            [dict(m) for m in request.messages],
            plan.block,
            position=pos.position,
            system_prefix=pos.system_prefix,
        )
        return RequestResult(messages, plan)

    def recall(
        self,
        scope: Scope,
        session_id: str,
        prompt: str,
        recent: Sequence[Mapping] = (),
        *,
        deep: bool = False,
        live_turns: Sequence[str] = (),
    ) -> InjectionPlan:
        """The `new` hook (session bookkeeping) and the read path for one prompt.

        live_turns: the keys of the turns the host's transcript still holds (see
        `capture.messages.transcript_turns`); memories that only repeat them are left out, since
        the model reads those turns in its own context already.
        """
        check_session_id(session_id)
        if self.sessions.open(scope, session_id):
            log.debug("session %s opened for %s", session_id, scope.user_id)
        self._write_procedures(
            scope,
            session_id,
            self.procedures.note_request(
                scope, session_id, self.secrets.redact(valid_unicode(prompt or ""))
            ),
        )
        self.jobs.read_your_writes(scope)
        recent = [{**m, "content": message_text(m)} for m in recent]
        request_tokens = sum(len(m["content"]) for m in recent) // 3
        result = self.working.recaller.recall(scope, valid_unicode(prompt or ""), recent, deep=deep)
        live = {f"{session_id}#{k}" for k in live_turns}
        if live:
            result = dataclasses.replace(
                result, ranked=[_unless_live(s, session_id, live) for s in result.ranked]
            )
        plan = self.working.assemble(scope, result, request_tokens=request_tokens)
        self._reinforce(scope, plan)
        return self.wrap(plan)

    def _reinforce(self, scope: Scope, plan: InjectionPlan) -> None:
        """Reinforcement by access: the injected memories' access counts go up, in the background
        (a write transaction on the request path cost ~5 ms at 100k memories); the user's next
        request does not wait for it."""
        ids = [c.record.id for c in plan.candidates if c.kept]
        if ids:
            self.jobs.submit(scope, lambda: self.engine.touch(scope, ids), "touch", barrier=False)

    def wrap(self, plan: InjectionPlan) -> InjectionPlan:
        """Apply the system_prefix template when the block is not placed by it already."""
        template = self.cfg.injection.system_prefix
        if (
            not plan.block
            or plan.position == "system_prefix"
            or template.strip() == "{memory_block}"
        ):
            return plan
        return dataclasses.replace(plan, block=template.replace("{memory_block}", plan.block))

    def on_session_start(self, scope: Scope, session_id: str) -> InjectionPlan:
        """The `context` hook: profile and recent summaries, before any prompt."""
        check_session_id(session_id)
        self.sessions.open(scope, session_id)
        self.jobs.read_your_writes(scope)
        return self.wrap(self.working.plan(scope, "", (), sections=("profile", "summaries")))

    # ---- write path -------------------------------------------------------------------------

    def after_response(self, request: ChatRequest, reply: str) -> None:
        """Queue the capture of the finished turn and return at once."""
        check_session_id(request.session_id)
        turns = user_turns(request.messages)
        if not turns:
            return
        if reply is not None and not isinstance(reply, str):
            raise ValidationError(f"reply: expected a string, found {type(reply).__name__}")
        number, user, _ = turns[-1]
        turn = Turn(
            request.scope,
            request.session_id,
            user,
            valid_unicode(reply or ""),
            f"{request.session_id}#{number}",
            self.clock.now(),
        )
        self.capture.submit(request.scope, [turn])

    def capture_messages(
        self,
        scope: Scope,
        session_id: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        stored_turns: Sequence[str] = (),
    ) -> int:
        """agent_end: capture the scope's turns of a transcript not captured before; returns how many.

        Turns are known by a stable key (`capture.messages.transcript_turns`), so a transcript
        whose window slid or was compacted is captured where it left off. In a shared transcript
        (messages that name their `sender`) only the scope's user's own turns and the replies to
        them are taken. stored_turns: keys of turns whose memories the agent already stored
        through the memory tool; they are logged as episodes, nothing is extracted from them
        again.
        """
        check_session_id(session_id)
        validate_messages([dict(m) for m in messages])
        everyone = transcript_turns(messages)
        mine = own_turns(everyone, scope.user_id)
        if len(mine) < len(everyone):
            log.debug(
                "capture for %s in %s: %d of %d turns are another sender's or nobody's, left out",
                scope.user_id,
                session_id,
                len(everyone) - len(mine),
                len(everyone),
            )
        done = self.short_term.captured_turn_ids(scope, session_id)
        turns = [
            Turn(scope, session_id, t.user, t.reply, f"{session_id}#{t.key}", self.clock.now())
            for t in mine
            if f"{session_id}#{t.key}" not in done
        ]
        claimed = set(self.pending.claim(scope, [t.turn_id or "" for t in turns]))
        new = [t for t in turns if t.turn_id in claimed]
        stored = frozenset(f"{session_id}#{k}" for k in stored_turns)
        for turn in new:
            self.capture.submit(scope, [turn], logged_only=stored)
        return len(new)

    def on_tool_event(self, scope: Scope, session_id: str, event: ToolEvent) -> None:
        """The `save` hook: one event memory per finished tool call."""
        check_session_id(session_id)
        if not isinstance(event.tool, str) or not event.tool.strip():
            raise ValidationError("tool: expected a non-empty tool name")
        unwrapped = unwrap_tool_event(event)
        if (
            unwrapped is None
        ):  # a Tool Search control, or a memory tool: nothing to remember about it
            return
        event = unwrapped
        redact = self.secrets.redact  # every text of the event reaches the disk: name, paths too
        clean = ToolEvent(
            redact(valid_unicode(event.tool)),
            redact_args(self.secrets, event.arguments),
            redact_outcome(self.secrets, event.outcome),
            event.ok,
            tuple(redact(valid_unicode(str(f))) for f in event.files),
            event.duration_ms,
            event.key,
        )
        self.jobs.submit(
            scope,
            lambda: self.engine.write(
                scope, [tool_event_candidate(clean)], session_id=session_id, writer="save-hook"
            ),
            "save",
        )
        self._write_procedures(
            scope, session_id, self.procedures.note_tool(scope, session_id, clean)
        )

    def _write_procedures(self, scope: Scope, session_id: str, cands: Sequence[Candidate]) -> None:
        """Queue the write of the procedures a task left (procedure/distil.py)."""
        if cands:
            self.jobs.submit(
                scope,
                lambda: self.engine.write(
                    scope, list(cands), session_id=session_id, writer="procedure"
                ),
                "procedure",
            )

    def record_process_event(
        self,
        scope: Scope,
        subject: str,
        status: str,
        summary: str = "",
        *,
        reason: str = "",
        session_id: str | None = None,
    ) -> list[WriteResult]:
        """A deterministic process node (a task's status changed): written now, without the LLM."""
        if not subject or not status:
            raise ValidationError("subject and status: expected non-empty strings")
        subject, status, summary, reason = (
            self.secrets.redact(valid_unicode(str(x))) for x in (subject, status, summary, reason)
        )
        cands = process_event_candidates(subject, status, summary, reason=reason)
        return self.engine.write(scope, cands, session_id=session_id, writer="process-node")

    def on_session_end(
        self, scope: Scope, session_id: str, reason: str = "end", *, key: str | None = None
    ) -> None:
        """The `summary` hook at session end. key: the request's capture id (the summary's
        stable key, so a replay of the request writes no second summary)."""
        check_session_id(session_id)
        self.jobs.submit(
            scope,
            lambda: self.summaries.summarize(scope, session_id, reason, end=True, key=key),
            "summary",
        )
        self._write_procedures(scope, session_id, self.procedures.finish(scope, session_id))

    def on_compaction(
        self,
        scope: Scope,
        session_id: str,
        messages: Sequence[Mapping[str, Any]] = (),
        *,
        key: str | None = None,
    ) -> None:
        """Before the host compacts its context: capture what is missing, then summarize
        (the window, or the compacted transcript when the window was summarized just before)."""
        check_session_id(session_id)
        captured = self.capture_messages(scope, session_id, messages) if messages else 0
        log.info(
            "compaction of %s for %s: %d message(s) received, %d new turn(s) captured; "
            "summary queued",
            session_id,
            scope.user_id,
            len(messages),
            captured,
        )
        transcript = [dict(m) for m in messages]
        self.jobs.submit(
            scope,
            lambda: self.summaries.summarize(
                scope, session_id, "compaction", end=False, transcript=transcript, key=key
            ),
            "summary",
        )

    def on_session_ended(
        self, agent_id: str, session_id: str, reason: str = "end", *, key: str | None = None
    ) -> list[Scope]:
        """A session the host names without a sender ended: the `summary` hook for each person
        who spoke in it. Returns their scopes."""
        check_session_id(session_id)
        Scope("probe", agent_id)  # validates the agent id
        scopes = self.sessions.participants(agent_id, session_id)
        for scope in scopes:
            self.on_session_end(scope, session_id, reason, key=key)
        return scopes

    def on_session_compaction(
        self,
        agent_id: str,
        session_id: str,
        messages: Sequence[Mapping[str, Any]] = (),
        *,
        key: str | None = None,
    ) -> list[Scope]:
        """Before the host compacts a session it names without a sender (OpenClaw's
        before_compaction): each person who spoke in it gets their own turns captured and
        their own summary. Returns their scopes (none when nobody known spoke there)."""
        check_session_id(session_id)
        Scope("probe", agent_id)  # validates the agent id
        scopes = self.sessions.participants(agent_id, session_id)
        log.info(
            "compaction of %s (agent %s): %d person(s) spoke in it%s",
            session_id,
            agent_id,
            len(scopes),
            "" if scopes else "; nobody to summarize for (no recall or capture named it yet)",
        )
        if len(scopes) > 1 and not any(
            m.get("role") == "user" and m.get("sender") for m in messages
        ):
            # several people, and no message says whose it is: summarise what each one's own
            # captures hold, and give nobody the others' words
            messages = ()
        for scope in scopes:
            self.on_compaction(scope, session_id, messages, key=key)
        return scopes


def _unless_live(item: ScoredMemory, session_id: str, live: set[str]) -> ScoredMemory:
    """Drop a memory whose every source turn is still in the host's live transcript."""
    rec = item.record
    turns = rec.source.turn_ids
    if (
        item.kept
        and turns
        and (rec.session_id == session_id or rec.source.session_id == session_id)
        and all(t in live for t in turns)
    ):
        return dataclasses.replace(item, kept=False, reason="in the live transcript already")
    return item
