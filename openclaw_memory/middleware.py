"""MemoryMiddleware: before_request / after_response drive the five lifecycle hooks.

    before_request  -> new (open/continue the session; context on a new one)
                    -> read path: query -> recall -> rerank -> budget -> render -> inject
    after_response  -> queued: filter (secrets, contentless) -> short-term window -> extract
                       -> consolidate -> store -> index; summary when the window is over threshold
    on_tool_event   -> save (an event memory per finished tool call)
    on_session_end / on_compaction -> summary (structured, with evidence ids)
    close           -> cleanup (flush queues, drop temp state, close handles)

Everything heavy on the write side runs on the background worker; before_request waits only for
the pending writes of its own scope (read-your-writes).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .capture.events import (ToolEvent, episode_candidate, process_event_candidates, redact_args, tool_event_candidate,
                             unwrap_tool_event)
from .capture.messages import PendingTurns, own_turns, transcript_turns, user_turns
from .capture.sessions import Sessions, check_session_id
from .capture.short_term import ShortTermMemory
from .capture.summaries import SessionSummaries
from .config import MemoryConfig
from .engine import MemoryEngine
from .errors import ValidationError
from .extract.base import Extractor, attribute
from .extract.filter import is_contentless
from .extract.secrets import SecretFilter
from .extract.summary import Summarizer
from .forget import MAX_MATCHES, ForgetCommand
from .forget import plan as forget_plan
from .forget import run as forget_run
from .inject.position import inject, validate_messages
from .text import message_text, valid_unicode
from .types import Candidate, Channel, InjectionPlan, MemoryRecord, MemoryType, ScoredMemory, Scope, Turn, WriteResult
from .jobs import UserJobs
from .worker import Worker
from .working_memory import WorkingMemory

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
    """Long-term memory around a model call: `before_request` recalls and injects, `after_response`
    captures in the background; the session, tool and compaction hooks, and the admin calls
    (search, remember, forget, purge) share one store. Build one with `build_middleware`."""

    #: how long a recall waits for its own scope's queued captures before going on without them
    READ_WAIT_SECONDS = 30.0

    def __init__(self, engine: MemoryEngine, working: WorkingMemory, *, extractor: Extractor,
                 summarizer: Summarizer, secrets: SecretFilter, worker: Worker, config: MemoryConfig) -> None:
        self.engine = engine
        self.working = working
        self.extractor = extractor
        self.summarizer = summarizer
        self.secrets = secrets
        self.worker = worker
        self.cfg = config
        self.clock = engine.clock
        self.short_term = ShortTermMemory(engine.db, config.short_term, engine.clock)
        self.sessions = Sessions(engine.db, engine.clock)
        self.jobs = UserJobs(worker)  # background jobs, gated against purges
        self.pending = PendingTurns()  # transcript turns queued for capture, not yet written
        self.summaries = SessionSummaries(engine, self.short_term, self.sessions, summarizer)

    @classmethod
    def from_config(cls, config: MemoryConfig | str | None = None, **kwargs: Any) -> "MemoryMiddleware":
        """The same as `build_middleware(config, **kwargs)`."""
        from .factory import build_middleware

        return build_middleware(config, **kwargs)

    # ---- read path --------------------------------------------------------------------------

    def before_request(self, request: ChatRequest) -> RequestResult:
        """The read path: recall for the last user message and inject the block into a copy."""
        validate_messages(list(request.messages))
        turns = user_turns(request.messages)
        current = turns[-1][1] if turns else ""
        plan = self.recall(request.scope, request.session_id, current, request.messages)
        pos = self.cfg.injection
        messages = inject([dict(m) for m in request.messages], plan.block, position=pos.position, system_prefix=pos.system_prefix)
        return RequestResult(messages, plan)

    def recall(self, scope: Scope, session_id: str, prompt: str, recent: Sequence[Mapping] = (), *,
               deep: bool = False, live_turns: Sequence[str] = ()) -> InjectionPlan:
        """The `new` hook (session bookkeeping) and the read path for one prompt.

        live_turns: the keys of the turns the host's transcript still holds (see
        `capture.messages.transcript_turns`); memories that only repeat them are left out, since
        the model reads those turns in its own context already.
        """
        check_session_id(session_id)
        if self.sessions.open(scope, session_id):
            log.debug("session %s opened for %s", session_id, scope.user_id)
        self._read_your_writes(scope)
        recent = [{**m, "content": message_text(m)} for m in recent]
        request_tokens = sum(len(m["content"]) for m in recent) // 3
        result = self.working.recaller.recall(scope, valid_unicode(prompt or ""), recent, deep=deep)
        live = {f"{session_id}#{k}" for k in live_turns}
        if live:
            result = dataclasses.replace(result, ranked=[_unless_live(s, session_id, live) for s in result.ranked])
        plan = self.working.assemble(scope, result, request_tokens=request_tokens)
        self._reinforce(scope, plan)
        return self._wrap(plan)

    def _reinforce(self, scope: Scope, plan: InjectionPlan) -> None:
        """Reinforcement by access: the injected memories' access counts go up, in the background
        (a write transaction on the request path cost ~5 ms at 100k memories); the user's next
        request does not wait for it."""
        ids = [c.record.id for c in plan.candidates if c.kept]
        if ids:
            self.jobs.submit(scope, lambda: self.engine.touch(scope, ids), "touch", barrier=False)

    def _read_your_writes(self, scope: Scope) -> None:
        """Wait for this scope's queued captures (what turn N said is recalled at turn N+1)."""
        if not self.worker.wait(scope, timeout=self.READ_WAIT_SECONDS):
            log.warning("captures for user %s still queued after %.0f s; recalling without them",
                        scope.user_id, self.READ_WAIT_SECONDS)

    def warm_up(self) -> None:
        """Load the lazy parts (tokenizers, jieba's dictionaries, the embedding model) now, so the
        first capture does not hold up the first recall."""
        from .extract.filter import is_contentless as _contentless
        from .tokens import count_tokens

        count_tokens("warm up")
        _contentless("预热 warm up")
        # The offline chain only: warming up must not spend a (paid) LLM call on every start.
        offline = getattr(self.extractor, "fallback", self.extractor)
        offline.extract(Turn(Scope("warmup"), "warmup", "我喜欢喝茶 I like tea"))
        self.engine.embed_query("预热 warm up")

    def _wrap(self, plan: InjectionPlan) -> InjectionPlan:
        """Apply the system_prefix template when the block is not placed by it already."""
        template = self.cfg.injection.system_prefix
        if not plan.block or plan.position == "system_prefix" or template.strip() == "{memory_block}":
            return plan
        return dataclasses.replace(plan, block=template.replace("{memory_block}", plan.block))

    def on_session_start(self, scope: Scope, session_id: str) -> InjectionPlan:
        """The `context` hook: profile and recent summaries, before any prompt."""
        check_session_id(session_id)
        self.sessions.open(scope, session_id)
        self._read_your_writes(scope)
        return self._wrap(self.working.plan(scope, "", (), sections=("profile", "summaries")))

    def search(self, scope: Scope, query: str, limit: int = 10, *, deep: bool = False) -> list[ScoredMemory]:
        """The memories recall keeps for query, best first (deep: the cold archive too)."""
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query: expected a non-empty string")
        self._read_your_writes(scope)
        result = self.working.recaller.recall(scope, valid_unicode(query), (), deep=deep)
        return [s for s in result.ranked if s.kept][: max(1, int(limit))]

    def get(self, scope: Scope, memory_id: str) -> MemoryRecord:
        """One record of scope by id; NotFoundError if it is not there."""
        return self.engine.get(scope, memory_id)

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
        turn = Turn(request.scope, request.session_id, user, valid_unicode(reply or ""), f"{request.session_id}#{number}",
                    self.clock.now())
        self._submit_capture(request.scope, [turn])

    def capture_messages(self, scope: Scope, session_id: str, messages: Sequence[Mapping[str, Any]], *,
                         stored_turns: Sequence[str] = ()) -> int:
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
            log.debug("capture for %s in %s: %d of %d turns are another sender's or nobody's, left out",
                      scope.user_id, session_id, len(everyone) - len(mine), len(everyone))
        done = self.short_term.captured_turn_ids(scope, session_id)
        turns = [Turn(scope, session_id, t.user, t.reply, f"{session_id}#{t.key}", self.clock.now())
                 for t in mine if f"{session_id}#{t.key}" not in done]
        claimed = set(self.pending.claim(scope, [t.turn_id or "" for t in turns]))
        new = [t for t in turns if t.turn_id in claimed]
        stored = frozenset(f"{session_id}#{k}" for k in stored_turns)
        for turn in new:
            self._submit_capture(scope, [turn], logged_only=stored)
        return len(new)

    def on_tool_event(self, scope: Scope, session_id: str, event: ToolEvent) -> None:
        """The `save` hook: one event memory per finished tool call."""
        check_session_id(session_id)
        if not isinstance(event.tool, str) or not event.tool.strip():
            raise ValidationError("tool: expected a non-empty tool name")
        unwrapped = unwrap_tool_event(event)
        if unwrapped is None:  # a Tool Search control, or a memory tool: nothing to remember about it
            return
        event = unwrapped
        redact = self.secrets.redact  # every text of the event reaches the disk: name, paths too
        clean = ToolEvent(redact(valid_unicode(event.tool)), redact_args(self.secrets, event.arguments),
                          redact(valid_unicode(str(event.outcome or ""))), event.ok,
                          tuple(redact(valid_unicode(str(f))) for f in event.files), event.duration_ms)
        self.jobs.submit(scope, lambda: self.engine.write(scope, [tool_event_candidate(clean)], session_id=session_id,
                                                      writer="save-hook"), "save")

    def record_process_event(self, scope: Scope, subject: str, status: str, summary: str = "", *,
                             reason: str = "", session_id: str | None = None) -> list[WriteResult]:
        """A deterministic process node (a task's status changed): written now, without the LLM."""
        if not subject or not status:
            raise ValidationError("subject and status: expected non-empty strings")
        subject, status, summary, reason = (self.secrets.redact(valid_unicode(str(x)))
                                            for x in (subject, status, summary, reason))
        cands = process_event_candidates(subject, status, summary, reason=reason)
        return self.engine.write(scope, cands, session_id=session_id, writer="process-node")

    def on_session_end(self, scope: Scope, session_id: str, reason: str = "end") -> None:
        """The `summary` hook at session end."""
        check_session_id(session_id)
        self.jobs.submit(scope, lambda: self.summaries.summarize(scope, session_id, reason, end=True), "summary")

    def on_compaction(self, scope: Scope, session_id: str, messages: Sequence[Mapping[str, Any]] = ()) -> None:
        """Before the host compacts its context: capture what is missing, then summarize."""
        if messages:
            self.capture_messages(scope, session_id, messages)
        self.jobs.submit(scope, lambda: self.summaries.summarize(scope, session_id, "compaction", end=False), "summary")

    def on_session_ended(self, agent_id: str, session_id: str, reason: str = "end") -> list[Scope]:
        """A session the host names without a sender ended: the `summary` hook for each person
        who spoke in it. Returns their scopes."""
        check_session_id(session_id)
        Scope("probe", agent_id)  # validates the agent id
        scopes = self.sessions.participants(agent_id, session_id)
        for scope in scopes:
            self.on_session_end(scope, session_id, reason)
        return scopes

    def on_session_compaction(self, agent_id: str, session_id: str,
                              messages: Sequence[Mapping[str, Any]] = ()) -> list[Scope]:
        """Before the host compacts a session it names without a sender (OpenClaw's
        before_compaction): each person who spoke in it gets their own turns captured and
        their own summary. Returns their scopes (none when nobody known spoke there)."""
        check_session_id(session_id)
        Scope("probe", agent_id)  # validates the agent id
        scopes = self.sessions.participants(agent_id, session_id)
        if len(scopes) > 1 and not any(m.get("role") == "user" and m.get("sender") for m in messages):
            # several people, and no message says whose it is: summarise what each one's own
            # captures hold, and give nobody the others' words
            messages = ()
        for scope in scopes:
            self.on_compaction(scope, session_id, messages)
        return scopes

    def remember(self, scope: Scope, text: str, *, type: str | None = None, subject: str | None = None,
                 session_id: str | None = None) -> WriteResult:
        """An explicit memory from the user or an admin tool: the explicit channel, written now."""
        if not isinstance(text, str) or not text.strip():
            raise ValidationError("text: expected a non-empty string")
        if subject is not None and not isinstance(subject, str):
            raise ValidationError(f"subject: expected a string or None, found {type(subject).__name__}")
        text, subject = valid_unicode(text), valid_unicode(subject) if subject else subject
        for name, value in (("text", text), ("subject", subject or "")):
            if self.secrets.contains_secret(value):
                raise ValidationError(f"{name}: looks like a secret (password, key, card or ID number); "
                                      "secrets are never stored")
        kind = _memory_type(type) if type else None
        cands = [] if kind else [c for c in self.extractor.extract(Turn(scope, session_id or "tool", text)) if not c.forget]
        if not cands:
            cands = [Candidate(kind or MemoryType.FACT, text.strip(), subject=subject, importance=0.8, confidence=0.95)]
        cands = [Candidate(**{**c.__dict__, "channel": Channel.EXPLICIT, "subject": subject or c.subject,
                              "confidence": max(c.confidence, 0.95)}) for c in cands]
        self._read_your_writes(scope)
        return self.engine.write(scope, cands[:1], session_id=session_id, writer="memory-tool")[0]

    def forget(self, scope: Scope, *, memory_id: str | None = None, query: str | None = None,
               dry_run: bool = False) -> list[str]:
        """Deactivate one memory by id, or the memories a description names by its distinctive
        terms (forget.py); `dry_run`: only say which. Every forget is undone by `restore`."""
        if memory_id:
            if dry_run:
                return [self.engine.get(scope, memory_id).id]
            return [self.engine.forget(scope, memory_id).id]
        if not query or not query.strip():
            raise ValidationError("memory_id or query: expected one of them")
        self._read_your_writes(scope)
        # the query is quoted in the audit log: no secret in it (nothing secret is stored to match)
        command = ForgetCommand(self.secrets.redact(valid_unicode(query.strip())))
        done = forget_plan(self.engine, scope, command) if dry_run else forget_run(self.engine, scope, command)
        if done.too_broad:
            raise ValidationError(f"query: names {len(done.matches)} memories, more than one forget takes "
                                  f"({MAX_MATCHES}); name them more precisely or forget by id")
        return done.ids

    def forget_plan(self, scope: Scope, query: str) -> list[MemoryRecord]:
        """The memories `forget(query=...)` would deactivate, nothing changed."""
        self._read_your_writes(scope)
        return list(forget_plan(self.engine, scope, ForgetCommand(valid_unicode(query.strip()))).matches)

    def restore(self, scope: Scope, memory_id: str) -> MemoryRecord:
        """Undo a forget: the memory is active and recalled again (audited). NotFoundError if absent."""
        if not isinstance(memory_id, str) or not memory_id.strip():
            raise ValidationError("memory_id: expected a memory id")
        return self.engine.restore(scope, memory_id.strip())

    # ---- background jobs --------------------------------------------------------------------

    def _submit_capture(self, scope: Scope, turns: list[Turn], logged_only: frozenset[str] = frozenset()) -> None:
        capture = _Capture(turns, logged_only=logged_only)

        def run() -> None:
            try:
                self._capture(capture.turns, capture.prepared, capture.logged_only)
            finally:
                self.pending.release(scope, [t.turn_id for t in capture.turns])

        self.jobs.submit(scope, run, "capture", prepare=self._prepare_captures, payload=capture)

    def purge_user(self, user_id: str, agent_id: str | None = None) -> dict[str, int]:
        """Delete everything of a user (every agent, or one), as `maintain.purge_user`, after
        dropping the user's captures still queued in the background worker and waiting for the
        one running, so turns the user sent just before cannot write the data back afterwards.

        A purge from another process (the CLI) cannot see this process's queue: stop the agent,
        or purge through it.
        """
        from .maintain.purge import purge_user

        Scope(user_id, agent_id or "default")  # validates the ids before anything is dropped
        try:
            return self.jobs.purge(user_id, agent_id, lambda: purge_user(self.engine, user_id, agent_id))
        finally:
            self.pending.drop_user(user_id, agent_id)

    def ingest(self, turns: Sequence[Turn]) -> int:
        """Capture turns of one scope and session synchronously, in one batch (replays, imports).

        The same write path as after_response, with one embedding batch for all of them; the
        caller's clock gives the records their time. Returns the memories written.
        """
        if not turns:
            return 0
        first = turns[0]
        if any(t.scope != first.scope or t.session_id != first.session_id for t in turns):
            raise ValidationError("turns: expected one scope and one session per ingest call")
        check_session_id(first.session_id)
        self.sessions.open(first.scope, first.session_id)
        turns = [dataclasses.replace(t, user=valid_unicode(t.user or ""), assistant=valid_unicode(t.assistant or ""))
                 for t in turns]
        return self._capture(turns)

    def _prepare_captures(self, captures: list["_Capture"]) -> None:
        """Ahead of a worker batch: filter and extract the turns of its captures, and embed all
        the candidates in one call (a vector depends on its text alone, so the records are the
        ones each capture would write by itself). Writes nothing."""
        extracted = [[self._turn_candidates(t, extract=t.turn_id not in c.logged_only) for t in c.turns]
                     for c in captures]
        stored = [_to_store(e) for e in extracted]
        vectors = self.engine.embed_candidates([c for cands in stored for c in cands])
        start = 0
        for capture, turns, cands in zip(captures, extracted, stored):
            capture.prepared = _Prepared(turns, vectors[start:start + len(cands)])
            start += len(cands)

    def _capture(self, turns: Sequence[Turn], prepared: "_Prepared | None" = None,
                 logged_only: frozenset[str] = frozenset()) -> int:
        scope, sid = turns[0].scope, turns[0].session_id
        extracted = prepared.turns if prepared else [
            self._turn_candidates(turn, extract=turn.turn_id not in logged_only) for turn in turns]
        for turn, (user, reply, _) in zip(turns, extracted):
            self.short_term.add_turn(scope, sid, user, reply, turn.turn_id)
        for command in (c for _, _, found in extracted for c in found if c.forget):
            forget_run(self.engine, scope, ForgetCommand.from_candidate(command))
        cands = _to_store(extracted)
        vectors = prepared.vectors if prepared else None
        written = (self.engine.write(scope, cands, session_id=sid, writer="after_response", vectors=vectors)
                   if cands else [])
        if self.short_term.over_threshold(scope, sid):
            self.summaries.summarize(scope, sid, "threshold", end=False)
        return sum(1 for w in written if w.action != "skip")

    def _turn_candidates(self, turn: Turn, *, extract: bool = True) -> "_Extracted":
        """Filter (secrets, contentless), extract, and log the episode: the turn's texts without
        secrets and its candidates. Writes nothing. extract=False: the episode only (the turn's
        memories were stored through the memory tool already)."""
        user = self.secrets.redact(turn.user or "")
        reply = self.secrets.redact(turn.assistant or "")
        scope, sid = turn.scope, turn.session_id
        cands: list[Candidate] = []
        speaker = turn.speaker or "user"
        if not is_contentless(user):
            extracted = self.extractor.extract(Turn(scope, sid, user, reply, turn.turn_id, turn.at, turn.speaker)) \
                if extract else []
            extracted = attribute(extracted, turn.speaker)
            cands.extend(extracted)
            # A "forget X" turn is not logged verbatim: the log would keep recalling X.
            if self.cfg.extraction.store_episodes and not any(c.forget for c in extracted):
                text = user if speaker == "user" else f"{speaker}: {user}"
                cands.append(episode_candidate(text, speaker=speaker, turn_id=turn.turn_id))
        if reply and self.cfg.extraction.store_assistant_episodes and not is_contentless(reply):
            cands.append(episode_candidate(reply, speaker="assistant", turn_id=turn.turn_id, max_tokens=150))
        return user, reply, cands

    # ---- cleanup ----------------------------------------------------------------------------

    def flush(self, timeout: float | None = None) -> None:
        """Wait until queued captures are written and indexed (at most timeout seconds)."""
        self.worker.wait(timeout=timeout)
        self.engine.indexer.drain()

    def cleanup(self, timeout: float = 2.0) -> dict[str, Any]:
        """The `cleanup` hook for a host that stops while this process serves on (OpenClaw's
        gateway_stop): write what is queued (waiting up to timeout) and bring the vector index
        up to date, without closing anything. Returns {"flushed", "pending", "indexed"}."""
        flushed = self.worker.wait(timeout=max(0.0, timeout))
        indexed = self.engine.indexer.drain()
        return {"flushed": bool(flushed), "pending": self.worker.pending(), "indexed": int(indexed or 0)}

    def close(self) -> None:
        """The `cleanup` hook: flush queued work, stop threads, close the stores."""
        self.worker.close()
        self.engine.close()


#: one turn after filtering and extraction: (user text, reply text, candidates), secrets removed
_Extracted = tuple[str, str, list[Candidate]]


@dataclass
class _Prepared:
    turns: list[_Extracted]
    #: the vectors of the candidates to store (`_to_store`), in order: each whole, and its sentences
    vectors: Any


@dataclass
class _Capture:
    """Turns queued for capture; `prepared` is filled when their worker batch is prepared."""

    turns: list[Turn]
    prepared: _Prepared | None = None
    #: ids of turns to log as episodes without extracting from them (stored through the tool)
    logged_only: frozenset[str] = frozenset()


def _unless_live(item: ScoredMemory, session_id: str, live: set[str]) -> ScoredMemory:
    """Drop a memory whose every source turn is still in the host's live transcript."""
    rec = item.record
    turns = rec.source.turn_ids
    if item.kept and turns and (rec.session_id == session_id or rec.source.session_id == session_id) \
            and all(t in live for t in turns):
        return dataclasses.replace(item, kept=False, reason="in the live transcript already")
    return item


def _to_store(extracted: Sequence[_Extracted]) -> list[Candidate]:
    """The candidates a capture writes: all but the "forget X" commands, in turn order."""
    return [c for _, _, found in extracted for c in found if not c.forget]


def _memory_type(name: str) -> MemoryType:
    try:
        return MemoryType(name)
    except ValueError:
        kinds = ", ".join(t.value for t in MemoryType)
        raise ValidationError(f"type: expected one of {kinds}, found {name!r}") from None
