"""MemoryMiddleware: the request hooks and the admin client over one store, as one object.

    hooks  (hooks.MemoryHooks)        before_request, after_response, capture_messages, the
                                      session, compaction and tool events
    admin  (admin.MemoryAdmin)        search, get, remember, forget, forget_plan, restore, purge_user
    capture (capture/pipeline.py)     the write path both of them queue turns on

The middleware builds nothing: `factory.build_middleware` builds every collaborator and passes
them in. Its own methods run the lifecycle (warm_up, ingest, flush, cleanup, close); the others
forward to `hooks` or `admin`, so a host that needs only one side can hold only that one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .runtime.admin import MemoryAdmin
from .capture.events import ToolEvent
from .capture.pipeline import CapturePipeline
from .capture.pipeline import Sessions
from .capture.pipeline import ShortTermMemory
from .core.clock import Clock
from .config import MemoryConfig
from .extract.base import Extractor
from .extract.secrets import SecretFilter
from .runtime.hooks import ChatRequest, MemoryHooks, RequestResult
from .runtime.worker import UserJobs
from .types import InjectionPlan, MemoryRecord, ScoredMemory, Scope, Turn, WriteResult
from .runtime.worker import Worker
from .runtime.working_memory import WorkingMemory

if TYPE_CHECKING:
    from .runtime.engine import MemoryEngine

__all__ = ["ChatRequest", "MemoryMiddleware", "RequestResult", "ToolEvent"]


class MemoryMiddleware:
    """Long-term memory around a model call: `before_request` recalls and injects, `after_response`
    captures in the background; the session, tool and compaction hooks (`hooks`) and the admin
    calls (`admin`: search, remember, forget, purge) share one store. Build one with
    `build_middleware`."""

    def __init__(
        self,
        hooks: MemoryHooks,
        admin: MemoryAdmin,
        *,
        capture: CapturePipeline,
        worker: Worker,
        config: MemoryConfig,
    ) -> None:
        self.hooks = hooks
        self.admin = admin
        self.capture = capture
        self.worker = worker
        self.cfg = config
        self._closed = False

    @classmethod
    def from_config(
        cls, config: MemoryConfig | str | None = None, **kwargs: Any
    ) -> "MemoryMiddleware":
        """The same as `build_middleware(config, **kwargs)`."""
        from .runtime.factory import build_middleware

        return build_middleware(config, **kwargs)

    # ---- the shared collaborators, for tools that reach past the hooks (console, evaluation) ----

    @property
    def engine(self) -> "MemoryEngine":
        """The store: records, vectors, audit log."""
        return self.hooks.engine

    @property
    def clock(self) -> Clock:
        """The injected clock every record's time comes from."""
        return self.hooks.clock

    @property
    def working(self) -> WorkingMemory:
        """Recall and assembly of the block; setting it swaps the read path of hooks and admin alike."""
        return self.hooks.working

    @working.setter
    def working(self, working: WorkingMemory) -> None:
        self.hooks.working = self.admin.working = working

    @property
    def extractor(self) -> Extractor:
        """The extractor of captured turns and of `remember`."""
        return self.capture.extractor

    @property
    def secrets(self) -> SecretFilter:
        """The secret filter every door applies."""
        return self.hooks.secrets

    @property
    def short_term(self) -> ShortTermMemory:
        """The per-session short-term window."""
        return self.hooks.short_term

    @property
    def sessions(self) -> Sessions:
        """Session bookkeeping (who spoke in which session)."""
        return self.hooks.sessions

    @property
    def jobs(self) -> UserJobs:
        """Background jobs per user, gated against purges."""
        return self.hooks.jobs

    # ---- request hooks (hooks.MemoryHooks) ----------------------------------------------------

    def before_request(self, request: ChatRequest) -> RequestResult:
        """The read path: recall for the last user message and inject the block into a copy."""
        return self.hooks.before_request(request)

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
        """The `new` hook and the read path for one prompt (`MemoryHooks.recall`)."""
        return self.hooks.recall(
            scope, session_id, prompt, recent, deep=deep, live_turns=live_turns
        )

    def on_session_start(self, scope: Scope, session_id: str) -> InjectionPlan:
        """The `context` hook: profile and recent summaries, before any prompt."""
        return self.hooks.on_session_start(scope, session_id)

    def after_response(self, request: ChatRequest, reply: str) -> None:
        """Queue the capture of the finished turn and return at once."""
        self.hooks.after_response(request, reply)

    def capture_messages(
        self,
        scope: Scope,
        session_id: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        stored_turns: Sequence[str] = (),
    ) -> int:
        """agent_end: capture a transcript's turns not captured before (`MemoryHooks.capture_messages`)."""
        return self.hooks.capture_messages(scope, session_id, messages, stored_turns=stored_turns)

    def on_tool_event(self, scope: Scope, session_id: str, event: ToolEvent) -> None:
        """The `save` hook: one event memory per finished tool call."""
        self.hooks.on_tool_event(scope, session_id, event)

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
        return self.hooks.record_process_event(
            scope, subject, status, summary, reason=reason, session_id=session_id
        )

    def on_session_end(
        self, scope: Scope, session_id: str, reason: str = "end", *, key: str | None = None
    ) -> None:
        """The `summary` hook at session end (key: the request's capture id, see hooks)."""
        self.hooks.on_session_end(scope, session_id, reason, key=key)

    def on_compaction(
        self,
        scope: Scope,
        session_id: str,
        messages: Sequence[Mapping[str, Any]] = (),
        *,
        key: str | None = None,
    ) -> None:
        """Before the host compacts its context: capture what is missing, then summarize."""
        self.hooks.on_compaction(scope, session_id, messages, key=key)

    def on_session_ended(
        self, agent_id: str, session_id: str, reason: str = "end", *, key: str | None = None
    ) -> list[Scope]:
        """A session named without a sender ended: the `summary` hook for each person in it."""
        return self.hooks.on_session_ended(agent_id, session_id, reason, key=key)

    def on_session_compaction(
        self,
        agent_id: str,
        session_id: str,
        messages: Sequence[Mapping[str, Any]] = (),
        *,
        key: str | None = None,
    ) -> list[Scope]:
        """Before the host compacts a session named without a sender (`MemoryHooks.on_session_compaction`)."""
        return self.hooks.on_session_compaction(agent_id, session_id, messages, key=key)

    def _wrap(self, plan: InjectionPlan) -> InjectionPlan:
        return self.hooks.wrap(plan)

    # ---- admin client (admin.MemoryAdmin) -----------------------------------------------------

    def search(
        self, scope: Scope, query: str, limit: int = 10, *, deep: bool = False
    ) -> list[ScoredMemory]:
        """The memories recall keeps for query, best first (deep: the cold archive too)."""
        return self.admin.search(scope, query, limit, deep=deep)

    def get(self, scope: Scope, memory_id: str) -> MemoryRecord:
        """One record of scope by id; NotFoundError if it is not there."""
        return self.admin.get(scope, memory_id)

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
        """An explicit memory from the user or an admin tool: the explicit channel, written now."""
        return self.admin.remember(
            scope, text, type=type, subject=subject, session_id=session_id, tags=tags
        )

    def forget(
        self,
        scope: Scope,
        *,
        memory_id: str | None = None,
        query: str | None = None,
        dry_run: bool = False,
    ) -> list[str]:
        """Deactivate one memory by id or the memories a description names (`MemoryAdmin.forget`)."""
        return self.admin.forget(scope, memory_id=memory_id, query=query, dry_run=dry_run)

    def forget_plan(self, scope: Scope, query: str) -> list[MemoryRecord]:
        """The memories `forget(query=...)` would deactivate, nothing changed."""
        return self.admin.forget_plan(scope, query)

    def restore(self, scope: Scope, memory_id: str) -> MemoryRecord:
        """Undo a forget: the memory is active and recalled again (audited)."""
        return self.admin.restore(scope, memory_id)

    def purge_user(self, user_id: str, agent_id: str | None = None) -> dict[str, int]:
        """Delete everything of a user, after dropping their queued jobs (`MemoryAdmin.purge_user`)."""
        return self.admin.purge_user(user_id, agent_id)

    # ---- lifecycle ----------------------------------------------------------------------------

    def warm_up(self) -> None:
        """Load the lazy parts (tokenizers, jieba's dictionaries, the embedding model) now, so the
        first capture does not hold up the first recall."""
        from .extract.entities import extract as extract_entities
        from .extract.base import is_contentless
        from .core.tokens import count_tokens
        from .lang.text import in_every_language as warm  # each language's warm-up table

        count_tokens(warm("warmup", "phrase"))
        is_contentless(warm("warmup", "phrase"))
        # The offline chain only: warming up must not spend a (paid) LLM call on every start.
        offline = getattr(self.extractor, "fallback", self.extractor)
        offline.extract(Turn(Scope("warmup"), "warmup", warm("warmup", "statement")))
        # jieba's part-of-speech model (about a second) is first read by the entity pass of a
        # write or a recall: load it here, not inside a session's first request.
        extract_entities(warm("warmup", "names"))
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
