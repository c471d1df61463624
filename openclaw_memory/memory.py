"""Memory and AsyncMemory: the package in the shape mem0's users know.

    m = Memory()                                   # defaults; or Memory(config="project.yaml" | {...})
    m.add("I live in Boston", user_id="alice")     # -> {"results": [{"id", "memory", "event"}]}
    m.search("where do I live?", user_id="alice")  # -> {"results": [{"id", "memory", "score", "reasons"}]}

Every method is a thin door onto the one middleware the CLI, the HTTP service and MCP use:
`add` captures through the write path (filter, extract, check before write) and answers what
consolidation did; `search` is the admin search (the recall, its reasons beside the score);
`update` is the edit (a new version in the chain); `delete` the forget (deactivate, undoable by
`restore`); `purge` and `reset` the purge. Their errors are the package's ValidationError and
NotFoundError, naming the field.

Two differences from mem0, both on purpose: every call carries a scope (`user_id`, and
`agent_id` when there are several agents), `get`, `update`, `delete` and `history` included, so
one user's memory never reaches another's call; and `update` answers a new id, since an edit
keeps the old text as an earlier version instead of overwriting it.

AsyncMemory runs the same methods on a worker thread (`asyncio.to_thread`), so the event loop
keeps running while a recall or a write waits on the store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from .errors import ValidationError
from .adapters.mem0_shape import (
    audit_seq,
    config_arg,
    history_entry,
    is_curated,
    last_audit_seq,
    limit_arg,
    memory_id_arg,
    messages_arg,
    metadata_tags,
    naming,
    record_filter,
    record_item,
    scope_arg,
    scored_item,
    session_arg,
    turns_of,
    write_event,
)
from .types import MemoryType, Scope, Status, WriteResult

if TYPE_CHECKING:
    from llama_index.core.base.embeddings.base import BaseEmbedding

    from .core.clock import Clock
    from .config import MemoryConfig
    from .extract.base import Extractor
    from .middleware import MemoryMiddleware
    from .recall.pool import Channel as RecallChannel

__all__ = ["AsyncMemory", "Memory"]

#: who the audit log says wrote through this door
WRITER = "api"
#: how many records `get_all` reads before filtering by metadata
SCAN_LIMIT = 10_000

_T = TypeVar("_T")


class Memory:
    """Long-term memory with mem0's calls: add, search, get_all, get, update, delete,
    delete_all, history, reset, over the package's middleware. A context manager: leaving the
    `with` block closes it (queued writes are flushed first)."""

    def __init__(
        self,
        config: MemoryConfig | str | Path | Mapping[str, Any] | None = None,
        *,
        clock: Clock | None = None,
        embedder: BaseEmbedding | None = None,
        llm: Any = None,
        extractor: Extractor | None = None,
        recall_channels: Sequence[RecallChannel] = (),
        middleware: MemoryMiddleware | None = None,
    ) -> None:
        """config: a project YAML's path, the same keys as a mapping, a MemoryConfig, or None
        for the defaults. The other arguments go to `build_middleware`; `middleware`: use one
        built already (then `close` leaves it open)."""
        if middleware is not None:
            self._mw, self._owned = middleware, False
            return
        from .runtime.factory import build_middleware

        self._mw = build_middleware(
            config_arg(config),
            clock=clock,
            embedder=embedder,
            llm=llm,
            extractor=extractor,
            recall_channels=recall_channels,
        )
        self._owned = True

    @classmethod
    def from_config(
        cls, config: MemoryConfig | str | Path | Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Memory:
        """The same as `Memory(config, **kwargs)` (mem0's spelling)."""
        return cls(config, **kwargs)

    @property
    def middleware(self) -> MemoryMiddleware:
        """The middleware behind every call (hooks for a chat loop, the engine, the config)."""
        return self._mw

    # ---- write ------------------------------------------------------------------------------

    def add(
        self,
        messages: str | Sequence[Mapping[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        infer: bool = True,
    ) -> dict[str, Any]:
        """Store what messages say: a text (one user message) or chat messages
        ({"role", "content"} dicts). With infer (the default) they take the capture's write
        path: secrets filtered, memories extracted, each checked against what is stored; with
        infer=False each user text is remembered as it is (the explicit channel).

        Returns {"results": [...]}, one entry per memory touched: "event" ADD (stored), UPDATE
        (a changed value replaced `previous_id`, or a restatement merged into it), NONE (known
        already) or DELETE (a memory this turn retired). run_id: the session the messages come
        from (their provenance); metadata: kept with every memory, and searchable by `filters`.
        """
        scope = scope_arg(user_id, agent_id)
        session = session_arg(run_id)
        tags = metadata_tags(metadata)
        chat = messages_arg(messages)
        mw = self._mw
        mw.jobs.read_your_writes(scope)
        mark = last_audit_seq(mw, scope)
        if infer:
            written = mw.capture.write_turns(turns_of(mw, scope, session, chat), tags=tags)
        else:
            with naming("text", "messages"):
                written = [
                    mw.remember(scope, m["content"], session_id=session, tags=tags)
                    for m in chat
                    if m["role"] == "user" and (m.get("content") or "").strip()
                ]
        return {"results": self._outcome(scope, written, mark)}

    def update(
        self,
        memory_id: str,
        data: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
    ) -> dict[str, Any]:
        """Correct a memory's text: a new version replaces it (the old one is kept, inactive,
        in the chain `history` shows). Returns the new version's id and the text it replaced."""
        from .write.edit import edit_memory

        scope = scope_arg(user_id, agent_id)
        memory_id = memory_id_arg(memory_id)
        if not isinstance(data, str) or not data.strip():
            raise ValidationError(f"data: expected the memory's new text, found {data!r}")
        self._mw.jobs.read_your_writes(scope)
        old = self._mw.get(scope, memory_id)
        with naming("text", "data"), naming("id", "memory_id"):
            new = edit_memory(
                self._mw.engine, scope, memory_id, data, writer=WRITER, secrets=self._mw.secrets
            )
        return {
            **record_item(new),
            "event": "UPDATE",
            "previous_id": old.id,
            "previous_memory": old.summary,
        }

    def delete(
        self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> dict[str, Any]:
        """Forget a memory: it leaves recall, is kept for audit, and `restore` brings it back."""
        scope = scope_arg(user_id, agent_id)
        memory_id = memory_id_arg(memory_id)
        self._mw.forget(scope, memory_id=memory_id)
        record = self._mw.get(scope, memory_id)
        return {"id": record.id, "memory": record.summary, "event": "DELETE"}

    def restore(
        self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> dict[str, Any]:
        """Undo a `delete`: the memory is active and recalled again."""
        scope = scope_arg(user_id, agent_id)
        return record_item(self._mw.restore(scope, memory_id_arg(memory_id)))

    def delete_all(
        self, *, user_id: str | None = None, agent_id: str | None = None
    ) -> dict[str, Any]:
        """Forget every active memory of the user (and agent): each one as `delete` does."""
        scope = scope_arg(user_id, agent_id)
        self._mw.jobs.read_your_writes(scope)
        done: list[str] = []
        listing = self._mw.store.listing
        while batch := [
            r
            for r in listing(scope, status=Status.ACTIVE.value, limit=500)
            if r.id not in done  # a forget that did not take must not loop for ever
        ]:
            for record in batch:
                done += self._mw.forget(scope, memory_id=record.id)
        return {"message": f"forgot {len(done)} memories", "deleted": len(done)}

    def purge(self, *, user_id: str | None = None, agent_id: str | None = None) -> dict[str, int]:
        """Delete every trace of the user (of one agent, or all): records, versions, audit,
        keyword and vector index. Not undoable. Returns the rows removed per table."""
        if user_id is None:
            raise ValidationError("user_id: expected the id of the user to purge, found none")
        scope_arg(user_id, agent_id)
        return self._mw.purge_user(user_id, agent_id)

    def reset(self) -> dict[str, Any]:
        """Purge every user of this store (mem0's reset): nothing of anyone is left."""
        users = sorted({s.user_id for s in self._mw.store.scopes()})
        for user in users:
            self._mw.purge_user(user)
        return {"message": f"purged {len(users)} users", "users": len(users)}

    # ---- read -------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int = 10,
        filters: Mapping[str, Any] | None = None,
        deep: bool = False,
    ) -> dict[str, Any]:
        """The memories recall keeps for query, best first: {"results": [{"id", "memory",
        "score", "reasons", "metadata", ...}]}; "reasons" say why each one (the channels that
        found it, its score's parts). filters: {"type": ..., "subject": ..., "run_id": ...,
        or a metadata key: value}; deep: the archive too."""
        scope = scope_arg(user_id, agent_id)
        keep = record_filter(filters, run_id)
        wanted = limit_arg(limit)
        found = self._mw.search(scope, query, wanted if keep is None else 100, deep=bool(deep))
        hits = [s for s in found if keep is None or keep(s.record)][:wanted]
        return {"results": [scored_item(s) for s in hits]}

    def get(
        self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> dict[str, Any]:
        """One memory by id (any status); NotFoundError when the user has no such memory."""
        scope = scope_arg(user_id, agent_id)
        memory_id = memory_id_arg(memory_id)
        self._mw.jobs.read_your_writes(scope)
        return record_item(self._mw.get(scope, memory_id))

    def get_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        filters: Mapping[str, Any] | None = None,
        limit: int = 100,
    ) -> dict[str, Any]:
        """The user's active memories, newest first: the curated ones (profile, preferences,
        facts, events, decisions, tasks, summaries), or the episodic log with
        filters={"type": "episode"}."""
        scope = scope_arg(user_id, agent_id)
        wanted = limit_arg(limit, most=SCAN_LIMIT)
        keep = record_filter(filters, run_id)
        kind = (filters or {}).get("type")
        status = (filters or {}).get("status", Status.ACTIVE.value)
        statuses = [*(s.value for s in Status), "all"]
        if status not in statuses:
            raise ValidationError(
                f"filters.status: expected one of {', '.join(statuses)}, found {status!r}"
            )
        self._mw.jobs.read_your_writes(scope)
        rows = self._mw.store.listing(
            scope,
            status=None if status == "all" else status,
            type_=kind if isinstance(kind, str) else None,
            curated_only=kind is None,
            limit=wanted if keep is None else SCAN_LIMIT,
        )
        return {"results": [record_item(r) for r in rows if keep is None or keep(r)][:wanted]}

    def history(
        self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> list[dict[str, Any]]:
        """What happened to a memory, oldest first: each version's text, what replaced what,
        forgets and restores, with when, why, through which channel and by whom (the audit
        log of its version chain)."""
        scope = scope_arg(user_id, agent_id)
        memory_id = memory_id_arg(memory_id)
        engine = self._mw.engine
        self._mw.jobs.read_your_writes(scope)
        newer = self._mw.store.successors(scope, memory_id, limit=10)
        chain = {r.id: r for r in [*newer, *engine.chain(scope, memory_id)]}
        versions = [v for rid in chain for v in engine.versions(scope, rid)]
        rows = self._mw.store.audit_of(scope, list(chain), limit=500)
        return [history_entry(row, chain, versions) for row in sorted(rows, key=audit_seq)]

    # ---- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        """Flush queued writes and close the store (a middleware passed in stays open)."""
        if self._owned:
            self._mw.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _outcome(
        self, scope: Scope, written: Sequence[WriteResult], mark: int
    ) -> list[dict[str, Any]]:
        """mem0's results of one add: the curated memories written, then the ones it retired."""
        out = [write_event(self._mw, scope, w) for w in written if is_curated(w)]
        replaced = {r.get("previous_id") for r in out}
        retired = [
            row["record_id"]
            for row in sorted(self._mw.engine.audit_log(scope, limit=200), key=audit_seq)
            if row["seq"] > mark and row["action"] == "deactivate"
        ]
        for rid in dict.fromkeys(r for r in retired if r and r not in replaced):
            record = self._mw.store.get(scope, rid)
            if record is not None and record.type is not MemoryType.EPISODE:
                out.append({"id": rid, "memory": record.summary, "event": "DELETE"})
        return out


class AsyncMemory:
    """`Memory` with coroutine methods: each call runs the same synchronous code on a worker
    thread, so the event loop is never blocked by a recall or a write. An async context manager.
    """

    def __init__(
        self,
        config: MemoryConfig | str | Path | Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """The same arguments as `Memory` (building it opens the store, as `Memory()` does)."""
        self.sync = Memory(config, **kwargs)

    async def _run(self, call: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        return await asyncio.to_thread(call, *args, **kwargs)

    async def add(self, messages: Any, **kwargs: Any) -> dict[str, Any]:
        """`Memory.add`, off the event loop."""
        return await self._run(self.sync.add, messages, **kwargs)

    async def search(self, query: str, **kwargs: Any) -> dict[str, Any]:
        """`Memory.search`, off the event loop."""
        return await self._run(self.sync.search, query, **kwargs)

    async def get(self, memory_id: str, **kwargs: Any) -> dict[str, Any]:
        """`Memory.get`, off the event loop."""
        return await self._run(self.sync.get, memory_id, **kwargs)

    async def get_all(self, **kwargs: Any) -> dict[str, Any]:
        """`Memory.get_all`, off the event loop."""
        return await self._run(self.sync.get_all, **kwargs)

    async def update(self, memory_id: str, data: str, **kwargs: Any) -> dict[str, Any]:
        """`Memory.update`, off the event loop."""
        return await self._run(self.sync.update, memory_id, data, **kwargs)

    async def delete(self, memory_id: str, **kwargs: Any) -> dict[str, Any]:
        """`Memory.delete`, off the event loop."""
        return await self._run(self.sync.delete, memory_id, **kwargs)

    async def restore(self, memory_id: str, **kwargs: Any) -> dict[str, Any]:
        """`Memory.restore`, off the event loop."""
        return await self._run(self.sync.restore, memory_id, **kwargs)

    async def delete_all(self, **kwargs: Any) -> dict[str, Any]:
        """`Memory.delete_all`, off the event loop."""
        return await self._run(self.sync.delete_all, **kwargs)

    async def history(self, memory_id: str, **kwargs: Any) -> list[dict[str, Any]]:
        """`Memory.history`, off the event loop."""
        return await self._run(self.sync.history, memory_id, **kwargs)

    async def purge(self, **kwargs: Any) -> dict[str, int]:
        """`Memory.purge`, off the event loop."""
        return await self._run(self.sync.purge, **kwargs)

    async def reset(self) -> dict[str, Any]:
        """`Memory.reset`, off the event loop."""
        return await self._run(self.sync.reset)

    async def close(self) -> None:
        """`Memory.close`, off the event loop."""
        await self._run(self.sync.close)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
