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
import json
import secrets
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from .errors import ValidationError
from .types import MemoryRecord, MemoryType, ScoredMemory, Scope, Status, WriteResult

if TYPE_CHECKING:
    from llama_index.core.base.embeddings.base import BaseEmbedding

    from .clock import Clock
    from .config import MemoryConfig
    from .extract.base import Extractor
    from .middleware import MemoryMiddleware
    from .recall.pool import Channel as RecallChannel

__all__ = ["AsyncMemory", "Memory"]

#: the agent id when a call names none: the one the OpenClaw plugin and the CLI use, so what
#: `Memory` writes is what `openclaw-memory list --user ...` shows
DEFAULT_AGENT = "main"
#: who the audit log says wrote through this door
WRITER = "api"
#: tags that carry a caller's metadata: "meta:<key>=<json value>"
META_PREFIX = "meta:"
#: filter keys read from the record itself; any other key filters the metadata
_RECORD_FILTERS = ("type", "subject", "status", "run_id")
#: how many records `get_all` reads before filtering by metadata
_SCAN_LIMIT = 10_000

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
        from .factory import build_middleware

        self._mw = build_middleware(
            _config(config),
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
        scope = _scope(user_id, agent_id)
        session = _session(run_id)
        tags = _meta_tags(metadata)
        chat = _messages(messages)
        mw = self._mw
        mw.jobs.read_your_writes(scope)
        mark = _last_audit(mw, scope)
        if infer:
            written = mw.capture.write_turns(_turns(mw, scope, session, chat), tags=tags)
        else:
            with _named("text", "messages"):
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
        from .edit import edit_memory

        scope = _scope(user_id, agent_id)
        memory_id = _memory_id(memory_id)
        if not isinstance(data, str) or not data.strip():
            raise ValidationError(f"data: expected the memory's new text, found {data!r}")
        self._mw.jobs.read_your_writes(scope)
        old = self._mw.get(scope, memory_id)
        with _named("text", "data"), _named("id", "memory_id"):
            new = edit_memory(
                self._mw.engine, scope, memory_id, data, writer=WRITER, secrets=self._mw.secrets
            )
        return {
            **_item(new),
            "event": "UPDATE",
            "previous_id": old.id,
            "previous_memory": old.summary,
        }

    def delete(
        self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> dict[str, Any]:
        """Forget a memory: it leaves recall, is kept for audit, and `restore` brings it back."""
        scope = _scope(user_id, agent_id)
        memory_id = _memory_id(memory_id)
        self._mw.forget(scope, memory_id=memory_id)
        record = self._mw.get(scope, memory_id)
        return {"id": record.id, "memory": record.summary, "event": "DELETE"}

    def restore(
        self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> dict[str, Any]:
        """Undo a `delete`: the memory is active and recalled again."""
        scope = _scope(user_id, agent_id)
        return _item(self._mw.restore(scope, _memory_id(memory_id)))

    def delete_all(
        self, *, user_id: str | None = None, agent_id: str | None = None
    ) -> dict[str, Any]:
        """Forget every active memory of the user (and agent): each one as `delete` does."""
        scope = _scope(user_id, agent_id)
        self._mw.jobs.read_your_writes(scope)
        done: list[str] = []
        listing = self._mw.engine.store.listing
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
        _scope(user_id, agent_id)
        return self._mw.purge_user(user_id, agent_id)

    def reset(self) -> dict[str, Any]:
        """Purge every user of this store (mem0's reset): nothing of anyone is left."""
        users = sorted({s.user_id for s in self._mw.engine.store.scopes()})
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
        scope = _scope(user_id, agent_id)
        keep = _filter(filters, run_id)
        wanted = _limit(limit)
        found = self._mw.search(scope, query, wanted if keep is None else 100, deep=bool(deep))
        hits = [s for s in found if keep is None or keep(s.record)][:wanted]
        return {"results": [_scored(s) for s in hits]}

    def get(
        self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> dict[str, Any]:
        """One memory by id (any status); NotFoundError when the user has no such memory."""
        scope = _scope(user_id, agent_id)
        memory_id = _memory_id(memory_id)
        self._mw.jobs.read_your_writes(scope)
        return _item(self._mw.get(scope, memory_id))

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
        scope = _scope(user_id, agent_id)
        wanted = _limit(limit, most=_SCAN_LIMIT)
        keep = _filter(filters, run_id)
        kind = (filters or {}).get("type")
        status = (filters or {}).get("status", Status.ACTIVE.value)
        statuses = [*(s.value for s in Status), "all"]
        if status not in statuses:
            raise ValidationError(
                f"filters.status: expected one of {', '.join(statuses)}, found {status!r}"
            )
        self._mw.jobs.read_your_writes(scope)
        rows = self._mw.engine.store.listing(
            scope,
            status=None if status == "all" else status,
            type_=kind if isinstance(kind, str) else None,
            curated_only=kind is None,
            limit=wanted if keep is None else _SCAN_LIMIT,
        )
        return {"results": [_item(r) for r in rows if keep is None or keep(r)][:wanted]}

    def history(
        self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> list[dict[str, Any]]:
        """What happened to a memory, oldest first: each version's text, what replaced what,
        forgets and restores, with when, why, through which channel and by whom (the audit
        log of its version chain)."""
        scope = _scope(user_id, agent_id)
        memory_id = _memory_id(memory_id)
        engine = self._mw.engine
        self._mw.jobs.read_your_writes(scope)
        newer = engine.store.successors(scope, memory_id, limit=10)
        chain = {r.id: r for r in [*newer, *engine.chain(scope, memory_id)]}
        versions = [v for rid in chain for v in engine.versions(scope, rid)]
        rows = engine.store.audit_of(scope, list(chain), limit=500)
        return [_history_entry(row, chain, versions) for row in sorted(rows, key=_seq)]

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
        out = [_written(self._mw, scope, w) for w in written if _curated(w)]
        replaced = {r.get("previous_id") for r in out}
        retired = [
            row["record_id"]
            for row in sorted(self._mw.engine.audit_log(scope, limit=200), key=_seq)
            if row["seq"] > mark and row["action"] == "deactivate"
        ]
        for rid in dict.fromkeys(r for r in retired if r and r not in replaced):
            record = self._mw.engine.store.get(scope, rid)
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


# ---- arguments ------------------------------------------------------------------------------


def _config(config: Any) -> MemoryConfig | str | Path | None:
    from .config import MemoryConfig, config_from_dict

    if config is None or isinstance(config, (MemoryConfig, str, Path)):
        return config
    if isinstance(config, Mapping):
        return config_from_dict(config, where="Memory(config=...)")
    raise ValidationError(
        "config: expected a YAML path, a mapping of config sections or a MemoryConfig, "
        f"found {type(config).__name__}"
    )


def _scope(user_id: Any, agent_id: Any) -> Scope:
    if user_id is None:
        raise ValidationError(
            "user_id: expected the id of the user whose memory this is (every read and write "
            "carries one), found none"
        )
    try:
        return Scope(user_id, DEFAULT_AGENT if agent_id is None else agent_id)
    except ValidationError as exc:  # name the argument the caller passed, not the field
        raise ValidationError(str(exc).removeprefix("scope.")) from None


@contextmanager
def _named(field: str, argument: str) -> Iterator[None]:
    """A ValidationError about `field` of a lower door names the caller's argument instead."""
    try:
        yield
    except ValidationError as exc:
        text = str(exc)
        if not text.startswith(f"{field}: "):
            raise
        raise ValidationError(f"{argument}: {text[len(field) + 2 :]}") from None


def _session(run_id: Any) -> str:
    from .capture.sessions import check_session_id

    if run_id is None:
        return f"api-{secrets.token_hex(6)}"
    try:
        check_session_id(run_id)
    except ValidationError as exc:
        raise ValidationError(str(exc).replace("session_id", "run_id", 1)) from None
    return str(run_id)


def _memory_id(memory_id: Any) -> str:
    if not isinstance(memory_id, str) or not memory_id.strip():
        raise ValidationError(f"memory_id: expected a memory id, found {memory_id!r}")
    return memory_id.strip()


def _limit(limit: Any, *, most: int = 100) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= most:
        raise ValidationError(f"limit: expected an integer from 1 to {most}, found {limit!r}")
    return limit


def _messages(messages: Any) -> list[dict[str, Any]]:
    from .inject.position import validate_messages

    if isinstance(messages, str):
        if not messages.strip():
            raise ValidationError("messages: expected a non-empty text or a list of messages")
        return [{"role": "user", "content": messages}]
    if isinstance(messages, Mapping):
        messages = [messages]  # one message dict, as mem0 also takes it
    chat = [dict(m) if isinstance(m, Mapping) else m for m in messages or ()]
    validate_messages(chat)
    if not any(m["role"] == "user" and (m.get("content") or "").strip() for m in chat):
        raise ValidationError("messages: expected at least one user message with content")
    return chat


def _meta_tags(metadata: Any) -> tuple[str, ...]:
    if metadata is None:
        return ()
    if not isinstance(metadata, Mapping):
        raise ValidationError(
            f"metadata: expected a mapping of names to values, found {type(metadata).__name__}"
        )
    tags = []
    for key, value in metadata.items():
        if not isinstance(key, str) or not key or "=" in key:
            raise ValidationError(
                f"metadata: expected names that are non-empty strings without '=', found {key!r}"
            )
        if value is not None and not isinstance(value, (str, int, float, bool)):
            raise ValidationError(
                f"metadata.{key}: expected a string, number, true/false or null, "
                f"found {type(value).__name__}"
            )
        tags.append(f"{META_PREFIX}{key}={json.dumps(value, ensure_ascii=False)}")
    return tuple(tags)


def _filter(filters: Any, run_id: Any) -> Callable[[MemoryRecord], bool] | None:
    """A predicate over records for `filters` (and a run_id), or None when nothing filters."""
    if filters is not None and not isinstance(filters, Mapping):
        raise ValidationError(
            f"filters: expected a mapping of names to values, found {type(filters).__name__}"
        )
    wanted = dict(filters or {})
    if run_id is not None:
        wanted["run_id"] = _session(run_id)
    wanted.pop("status", None)  # get_all reads it; search recalls active memories only
    if "type" in wanted:
        _types(wanted["type"])
    meta = {k: v for k, v in wanted.items() if k not in _RECORD_FILTERS}
    _meta_tags(meta)  # the same checks as metadata's
    if not wanted:
        return None

    def keep(r: MemoryRecord) -> bool:
        found = _metadata(r.tags)
        return (
            ("type" not in wanted or r.type.value in _types(wanted["type"]))
            and ("subject" not in wanted or r.subject == wanted["subject"])
            and ("run_id" not in wanted or wanted["run_id"] in (r.session_id, r.source.session_id))
            and all(k in found and found[k] == v for k, v in meta.items())
        )

    return keep


def _types(value: Any) -> set[str]:
    names = {value} if isinstance(value, str) else set(value) if isinstance(value, list) else None
    known = {t.value for t in MemoryType}
    if not names or not names <= known:
        raise ValidationError(
            f"filters.type: expected one of {', '.join(sorted(known))} (or a list of them), "
            f"found {value!r}"
        )
    return names


def _turns(mw: MemoryMiddleware, scope: Scope, session: str, chat: list[dict[str, Any]]) -> list:
    """The user turns of the messages as the capture keys them (`MemoryHooks.capture_messages`)."""
    from .capture.messages import transcript_turns
    from .types import Turn

    now = mw.clock.now()
    return [
        Turn(scope, session, t.user, t.reply, f"{session}#{t.key}", now)
        for t in transcript_turns(chat)
        if t.user.strip()
    ]


# ---- answers ------------------------------------------------------------------------------


def _iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, tz=timezone.utc).isoformat()


def _metadata(tags: Sequence[str]) -> dict[str, Any]:
    out = {}
    for tag in tags:
        if tag.startswith(META_PREFIX) and "=" in tag:
            key, _, value = tag[len(META_PREFIX) :].partition("=")
            try:
                out[key] = json.loads(value)
            except ValueError:
                out[key] = value
    return out


def _item(r: MemoryRecord) -> dict[str, Any]:
    """A record in mem0's shape, with our type, subject, status and version beside it."""
    return {
        "id": r.id,
        "memory": r.summary,
        "metadata": _metadata(r.tags),
        "type": r.type.value,
        "subject": r.subject,
        "status": r.status.value,
        "version": r.version,
        "created_at": _iso(r.created_at),
        "updated_at": _iso(r.updated_at),
        "user_id": r.scope.user_id,
        "agent_id": r.scope.agent_id,
        "run_id": r.session_id or r.source.session_id,
    }


def _scored(s: ScoredMemory) -> dict[str, Any]:
    reasons = [f"found by {', '.join(s.channels)}"] if s.channels else []
    reasons += [f"{k} {v:.2f}" for k, v in sorted(s.components.items())]
    reasons += [s.reason] if s.reason else []
    return {**_item(s.record), "score": round(float(s.score), 4), "reasons": reasons}


def _curated(w: WriteResult) -> bool:
    return w.record is not None and w.record.type is not MemoryType.EPISODE


def _written(mw: MemoryMiddleware, scope: Scope, w: WriteResult) -> dict[str, Any]:
    """One consolidation outcome as mem0's event, with our reason beside it."""
    r = w.record
    assert r is not None  # _curated
    out = {"id": r.id, "memory": r.summary, "reason": w.reason}
    if w.action == "skip":
        return {**out, "event": "NONE"}
    if w.action == "update" and w.replaced_id == r.id:  # a restatement, merged in place
        earlier = mw.engine.versions(scope, r.id)
        before = earlier[-1]["summary"] if earlier else r.summary
        if before == r.summary:
            return {**out, "event": "NONE"}
        return {**out, "event": "UPDATE", "previous_id": r.id, "previous_memory": before}
    if w.action == "update" and w.replaced_id:
        old = mw.engine.store.get(scope, w.replaced_id)
        previous = old.summary if old is not None else None
        return {**out, "event": "UPDATE", "previous_id": w.replaced_id, "previous_memory": previous}
    if w.action == "doubt":  # stored, never injected: a weaker claim against a confident one
        return {**out, "event": "ADD", "doubt_of": w.replaced_id}
    return {**out, "event": "ADD"}


def _last_audit(mw: MemoryMiddleware, scope: Scope) -> int:
    rows = mw.engine.audit_log(scope, limit=1)
    return int(rows[0]["seq"]) if rows else 0


def _seq(row: Mapping[str, Any]) -> int:
    return int(row["seq"])


#: audit actions as mem0's history events
_EVENTS = {"insert": "ADD", "update": "UPDATE", "edit": "UPDATE", "deactivate": "DELETE"}


def _history_entry(
    row: Mapping[str, Any], chain: Mapping[str, MemoryRecord], versions: Sequence[Mapping]
) -> dict[str, Any]:
    record = chain.get(row["record_id"])
    new = record.summary if record is not None else None
    old = None
    if row["action"] == "update":  # a restatement: the texts before and after are versions
        saved = sorted(
            (v for v in versions if v["record_id"] == row["record_id"]),
            key=lambda v: int(v["version"]),
        )
        at = [i for i, v in enumerate(saved) if v["superseded_at"] == row["at"]]
        if at:
            old = saved[at[0]]["summary"]
            new = saved[at[0] + 1]["summary"] if at[0] + 1 < len(saved) else new
    elif record is not None and record.prev_id and row["action"] in ("insert", "edit"):
        prev = chain.get(record.prev_id)
        old = prev.summary if prev is not None else None
    event = _EVENTS.get(row["action"], row["action"].upper())
    if event == "ADD" and old is not None:  # a successor: the value changed
        event = "UPDATE"
    return {
        "memory_id": row["record_id"],
        "event": event,
        "action": row["action"],
        "old_memory": old,
        "new_memory": new if row["action"] != "deactivate" else None,
        "reason": row["reason"],
        "channel": row.get("channel"),
        "actor": row.get("writer"),
        "created_at": _iso(row["at"]),
    }
