"""MemoryMiddleware: the one facade of the package, long-term memory around a model call.

    read path    before_request, recall (the `new` hook), on_session_start (the `context` hook):
                 recall (recall/) -> assemble (inject/assemble.py) -> inject (inject/render.py)
    write path   after_response, capture_messages, ingest: queued captures (capture/pipeline.py);
                 on_tool_event (the `save` hook), record_process_event; on_session_end,
                 on_compaction and their session-wide forms (the `summary` hook)
    memories     search, get, remember (write/edit.py), forget, forget_plan, restore
                 (write/forget.py), purge_user
    lifecycle    warm_up, flush, cleanup, close (the `cleanup` hook); `with` closes it

The middleware builds nothing: `factory.build_middleware` (the composition root) builds every
stage and passes it in. Everything heavy on the write side runs on the background worker; a read
waits only for the pending writes of its own scope (read-your-writes).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .capture import PendingTurns, user_turns
from .capture.events import (
    ToolEvent,
    process_event_candidates,
    redact_event,
    tool_event_candidate,
    unwrap_tool_event,
)
from .capture.pipeline import (
    CapturePipeline,
    SessionSummaries,
    Sessions,
    ShortTermMemory,
    check_session_id,
)
from .config import MemoryConfig
from .core.clock import Clock
from .errors import ValidationError
from .extract.base import Extractor
from .extract.secrets import SecretFilter
from .inject.assemble import BlockAssembler, unless_live, wrap
from .inject.render import inject, validate_messages
from .lang import Languages
from .lang.text import message_text, valid_unicode
from .procedure.distil import ProcedureTracker
from .recall.recaller import Recaller
from .core.worker import UserJobs, Worker
from .store.ports import RecordStore
from .types import Candidate, InjectionPlan, MemoryRecord, ScoredMemory, Scope, Turn, WriteResult
from .write.consolidate import MemoryWriter
from .write.edit import explicit_candidate
from .write.forget import MAX_MATCHES, ForgetCommand, forget_with_episodes, restore_with_episodes
from .write.forget import plan as forget_plan
from .write.forget import run as forget_run

if TYPE_CHECKING:
    from .maintain.runner import MaintenancePorts
    from .runtime.engine import MemoryEngine

log = logging.getLogger(__name__)

__all__ = ["ChatRequest", "MemoryMiddleware", "RequestResult", "ToolEvent"]


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


class MemoryMiddleware:
    """Long-term memory around a model call: `before_request` recalls and injects,
    `after_response` captures in the background; the session, tool and compaction hooks and the
    memory operations (search, remember, forget, restore, purge) share one store. Build one with
    `MemoryMiddleware.from_config` or `build_middleware`; use it in a `with` block, or `close` it."""

    def __init__(
        self,
        engine: "MemoryEngine",
        *,
        writer: MemoryWriter,
        recaller: Recaller,
        assembler: BlockAssembler,
        capture: CapturePipeline,
        sessions: Sessions,
        short_term: ShortTermMemory,
        summaries: SessionSummaries,
        secrets: SecretFilter,
        jobs: UserJobs,
        pending: PendingTurns,
        procedures: ProcedureTracker,
        maintenance: MaintenancePorts,
        config: MemoryConfig,
    ) -> None:
        #: the storage: record store, vector index, embedder, clock (tools such as the console
        #: and the evaluation reach it here; the stages were handed their own ports)
        self.engine = engine
        #: the record store port (the truth), for the doors' listings and look-ups
        self.store: RecordStore = engine.store
        self.indexer = engine.indexer
        self.writer = writer
        #: the read path's recall; replacing it swaps what before_request and search recall
        self.recaller = recaller
        self.assembler = assembler
        self.capture = capture
        self.sessions = sessions
        self.short_term = short_term
        self.summaries = summaries
        self.secrets = secrets
        self.jobs = jobs
        self.worker: Worker = jobs.worker
        self.pending = pending
        #: the open tasks of each session: their requests and tool calls (procedural memory)
        self.procedures = procedures
        #: the ports the maintenance door is handed (the forgetting jobs, doctor, purge, the
        #: scheduled run: `maintain.MaintenancePorts`)
        self.maintenance = maintenance
        self.cfg = config
        self._closed = False

    @classmethod
    def from_config(
        cls, config: MemoryConfig | str | None = None, **kwargs: Any
    ) -> "MemoryMiddleware":
        """The same as `build_middleware(config, **kwargs)`."""
        from .runtime.factory import build_middleware

        return build_middleware(config, **kwargs)

    def __enter__(self) -> "MemoryMiddleware":
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def clock(self) -> Clock:
        """The injected clock every record's time comes from."""
        return self.engine.clock

    @property
    def extractor(self) -> Extractor:
        """The extractor of captured turns and of `remember`."""
        return self.capture.extractor

    @property
    def langs(self) -> Languages:
        """The language packs under config's `rules.disabled` that the write side reads with."""
        return self.capture.langs

    # ---- read path: the `context` and `new` hooks ----------------------------------------------

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
        request = self.secrets.redact(valid_unicode(prompt or ""))
        self._write_procedures(
            scope, session_id, self.procedures.note_request(scope, session_id, request)
        )
        self.jobs.read_your_writes(scope)
        recent = [{**m, "content": message_text(m)} for m in recent]
        request_tokens = sum(len(m["content"]) for m in recent) // 3
        result = self.recaller.recall(scope, valid_unicode(prompt or ""), recent, deep=deep)
        live = {f"{session_id}#{k}" for k in live_turns}
        if live:
            ranked = unless_live(result.ranked, session_id, live)
            result = dataclasses.replace(result, ranked=ranked)
        plan = self.assembler.assemble(scope, result, request_tokens=request_tokens)
        self._reinforce(scope, plan)
        return wrap(plan, self.cfg.injection)

    def _reinforce(self, scope: Scope, plan: InjectionPlan) -> None:
        """Reinforcement by access: the injected memories' access counts go up, in the background
        (a write transaction on the request path cost ~5 ms at 100k memories); the user's next
        request does not wait for it."""
        ids = [c.record.id for c in plan.candidates if c.kept]
        if ids:
            self.jobs.submit(scope, lambda: self.engine.touch(scope, ids), "touch", barrier=False)

    def on_session_start(self, scope: Scope, session_id: str) -> InjectionPlan:
        """The `context` hook: profile and recent summaries, before any prompt."""
        check_session_id(session_id)
        self.sessions.open(scope, session_id)
        self.jobs.read_your_writes(scope)
        result = self.recaller.recall(scope, "", ())
        plan = self.assembler.assemble(scope, result, sections=("profile", "summaries"))
        return wrap(plan, self.cfg.injection)

    # ---- write path: captures, the `save` and `summary` hooks -----------------------------------

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
        """agent_end: capture the scope's turns of a transcript not captured before; returns how
        many (`CapturePipeline.submit_transcript`: shared transcripts, turns stored through the
        memory tool)."""
        check_session_id(session_id)
        validate_messages([dict(m) for m in messages])
        return self.capture.submit_transcript(
            scope, session_id, messages, stored_turns=stored_turns
        )

    def on_tool_event(self, scope: Scope, session_id: str, event: ToolEvent) -> None:
        """The `save` hook: one event memory per finished tool call."""
        check_session_id(session_id)
        if not isinstance(event.tool, str) or not event.tool.strip():
            raise ValidationError("tool: expected a non-empty tool name")
        unwrapped = unwrap_tool_event(event)
        if unwrapped is None:  # a Tool Search control, or a memory tool: nothing to remember
            return
        clean = redact_event(self.secrets, unwrapped)  # every text of it reaches the disk
        self.jobs.submit(
            scope,
            lambda: self.writer.write(
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
                lambda: self.writer.write(
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
        return self.writer.write(scope, cands, session_id=session_id, writer="process-node")

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

    # ---- memories: what a user, an operator or a memory tool asks directly ---------------------

    def search(
        self, scope: Scope, query: str, limit: int = 10, *, deep: bool = False
    ) -> list[ScoredMemory]:
        """The memories recall keeps for query, best first (deep: the cold archive too)."""
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query: expected a non-empty string")
        self.jobs.read_your_writes(scope)
        result = self.recaller.recall(scope, valid_unicode(query), (), deep=deep)
        return [s for s in result.ranked if s.kept][: max(1, int(limit))]

    def get(self, scope: Scope, memory_id: str) -> MemoryRecord:
        """One record of scope by id; NotFoundError if it is not there."""
        return self.engine.get(scope, memory_id)

    def remember(
        self,
        scope: Scope,
        text: str,
        *,
        type: str | None = None,
        subject: str | None = None,
        session_id: str | None = None,
        tags: Sequence[str] = (),
    ) -> WriteResult:
        """An explicit memory from the user or an admin tool: the explicit channel, written now
        (`tags`: labels the caller files it under, beside the extractor's)."""
        cand = explicit_candidate(
            self.extractor,
            self.secrets,
            scope,
            text,
            type=type,
            subject=subject,
            session_id=session_id,
            tags=tags,
            langs=self.langs,
        )
        self.jobs.read_your_writes(scope)
        return self.writer.write(scope, [cand], session_id=session_id, writer="memory-tool")[0]

    def forget(
        self,
        scope: Scope,
        *,
        memory_id: str | None = None,
        query: str | None = None,
        dry_run: bool = False,
    ) -> list[str]:
        """Deactivate one memory by id, or the memories a description names by its distinctive
        terms (write/forget.py); `dry_run`: only say which. Every forget is undone by `restore`."""
        store, clock = self.store, self.clock
        if memory_id:
            # a statement goes with every episode of it (forget.episodes_stating)
            record = self.engine.get(scope, memory_id)
            self.jobs.read_your_writes(scope)
            ids = forget_with_episodes(
                store, clock, scope, record, dry_run=dry_run, langs=self.langs
            )
            if not dry_run:
                self.indexer.notify()
            return ids
        if not query or not query.strip():
            raise ValidationError("memory_id or query: expected one of them")
        self.jobs.read_your_writes(scope)
        command = self._command(query)
        if dry_run:
            done = forget_plan(store, scope, command, self.langs)
        else:
            done = forget_run(store, clock, scope, command, self.langs)
            self.indexer.notify()
        if done.too_broad:
            raise ValidationError(
                f"query: names {len(done.matches)} memories, more than one forget takes "
                f"({MAX_MATCHES}); name them more precisely or forget by id"
            )
        return done.ids

    def forget_plan(self, scope: Scope, query: str) -> list[MemoryRecord]:
        """The memories `forget(query=...)` would deactivate, nothing changed."""
        self.jobs.read_your_writes(scope)
        command = self._command(query)
        return list(forget_plan(self.store, scope, command, self.langs).matches)

    def _command(self, query: str) -> ForgetCommand:
        # the query is quoted in the audit log: no secret in it (nothing secret is stored to match)
        return ForgetCommand(self.secrets.redact(valid_unicode(query.strip())))

    def restore(self, scope: Scope, memory_id: str) -> MemoryRecord:
        """Undo a forget: the memory is active and recalled again (audited), with the episodes a
        forget by id took with it. NotFoundError if absent."""
        if not isinstance(memory_id, str) or not memory_id.strip():
            raise ValidationError("memory_id: expected a memory id")
        store, model = self.store, self.engine.model_name
        record = restore_with_episodes(
            store, self.clock, scope, memory_id.strip(), model=model, langs=self.langs
        )
        self.indexer.notify()
        return record

    def purge_user(self, user_id: str, agent_id: str | None = None) -> dict[str, int]:
        """Delete everything of a user (every agent, or one), as `maintain.purge_user`, after
        dropping the user's captures still queued in the background worker and waiting for the
        one running, so turns the user sent just before cannot write the data back afterwards.

        A purge from another process (the CLI) cannot see this process's queue: stop the agent,
        or purge through it.
        """
        from .maintain.doctor import purge_user

        Scope(user_id, agent_id or "default")  # validates the ids before anything is dropped
        try:
            return self.jobs.purge(
                user_id, agent_id, lambda: purge_user(self.maintenance, user_id, agent_id)
            )
        finally:
            self.pending.drop_user(user_id, agent_id)
            self.recaller.drop_user(user_id, agent_id)  # cached query vectors
            self.procedures.drop_user(user_id, agent_id)  # open tasks not yet distilled

    # ---- lifecycle ----------------------------------------------------------------------------

    def warm_up(self) -> None:
        """Load the lazy parts (tokenizers, jieba's dictionaries, the embedding model) now, so the
        first capture does not hold up the first recall."""
        from .lang.entities import extract as extract_entities
        from .lang.utterance import is_contentless
        from .core.tokens import count_tokens
        from .lang.text import in_every_language as warm  # each language's warm-up table

        count_tokens(warm("warmup", "phrase"))
        is_contentless(warm("warmup", "phrase"), self.langs)
        # The offline chain only: warming up must not spend a (paid) LLM call on every start.
        offline = getattr(self.extractor, "fallback", self.extractor)
        offline.extract(Turn(Scope("warmup"), "warmup", warm("warmup", "statement")))
        # jieba's part-of-speech model (about a second) is first read by the entity pass of a
        # write or a recall: load it here, not inside a session's first request.
        extract_entities(warm("warmup", "names"), langs=self.langs)
        self.engine.embed_query(warm("warmup", "phrase"))

    def ingest(self, turns: Sequence[Turn]) -> int:
        """Capture turns of one scope and session synchronously, in one batch (replays, imports).
        Returns the memories written (`CapturePipeline.ingest`)."""
        return self.capture.ingest(turns)

    def flush(self, timeout: float | None = None) -> None:
        """Wait until queued captures are written and indexed (at most timeout seconds); a
        closed middleware has nothing queued."""
        if self._closed:
            return
        self.worker.wait(timeout=timeout)
        self.engine.sync_index()

    def cleanup(self, timeout: float = 2.0) -> dict[str, Any]:
        """The `cleanup` hook for a host that stops while this process serves on (OpenClaw's
        gateway_stop): write what is queued (waiting up to timeout) and bring the vector index
        up to date, without closing anything. Returns {"flushed", "pending", "indexed"}."""
        flushed = self.worker.wait(timeout=max(0.0, timeout))
        indexed = self.engine.sync_index()
        return {
            "flushed": bool(flushed),
            "pending": self.worker.pending(),
            "indexed": int(indexed or 0),
        }

    def close(self) -> None:
        """The `cleanup` hook: flush queued work, stop threads, close the stores. Closing a
        closed middleware does nothing (a `with` block and an explicit close may both run)."""
        if self._closed:
            return
        self._closed = True
        self.worker.close()
        self.engine.close()
