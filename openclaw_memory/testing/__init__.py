"""Testing a project's memory setup: a conversation driver in OpenClaw's hook order, and the
in-memory backends.

The driver replays OpenClaw's hook order over a middleware, without pytest; the pytest plugin
(`testing.plugin`) gives it as fixtures.

Every engine opened inside `in_memory_backends()` holds its records in the in-memory record
store (`store.memory.MemoryStore`) and its vectors in the numpy index
(`store.tiered_index.NumpyIndex`) instead of SQLite and Chroma. Each store stands for the files at
its config's paths for as long as the block lasts: opening the same data directory again (a
second engine, a command, a maintenance job) finds what the first one wrote, and a different
directory starts empty. Nothing outlives the block, so a test about durability, file permissions,
SQLite's own keyword ranking or a process that opens the files itself runs on the real backends
instead (tests/conftest.py's `real_store` mark).
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Any, Iterator, Callable, Mapping, Sequence
from ..config import MemoryConfig, config_from_dict, load_config
from ..store.memory import MemoryStore
from ..store.ports import ManagedVectorIndex, RecordStore
from ..store.tiered_index import NumpyIndex
from dataclasses import dataclass, field
from ..capture.events import ToolEvent
from ..middleware import ChatRequest, MemoryMiddleware
from ..types import InjectionPlan, Scope


__all__ = [
    "InMemoryBackends",
    "in_memory_backends",
    "real_backends",
    "ConversationDriver",
    "Model",
    "echo_model",
    "harness_config",
]

# The in-memory backends for tests: every engine opened inside `in_memory_backends()` holds
# its records in the in-memory record store (`store.memory.MemoryStore`) and its vectors in the
# numpy index (`store.tiered_index.NumpyIndex`) instead of SQLite and Chroma.
#
# Each store stands for the files at its config's paths for as long as the block lasts: opening
# the same data directory again (a second engine, a command, a maintenance job) finds what the
# first one wrote, and a different directory starts empty. Nothing outlives the block, so a test
# about durability, file permissions, SQLite's own keyword ranking or a process that opens the
# files itself runs on the real backends instead (tests/conftest.py's `real_store` mark).


class InMemoryBackends:
    """The stores and indexes opened so far, by the path their config gives them."""

    def __init__(self) -> None:
        self._stores: dict[Path, MemoryStore] = {}
        self._indexes: dict[Path, NumpyIndex] = {}
        self._lock = threading.Lock()

    def record_store(self, config: MemoryConfig) -> RecordStore:
        """The record store at config's SQLite path: the one opened there before, or a new one."""
        with self._lock:
            return self._stores.setdefault(config.sqlite_file.resolve(), MemoryStore())

    def vector_index(self, config: MemoryConfig, embedder_name: str, dim: int) -> NumpyIndex:
        """The vector index at config's Chroma path: the one opened there before when it has
        this embedder's name and dimension, else a new one (the record store keeps the first
        embedder's name, so the engine still refuses a mismatch and names `reindex`)."""
        with self._lock:
            key = config.chroma_dir.resolve()
            held = self._indexes.get(key)
            if held is None or (held.embedder_name, held.dim) != (embedder_name, int(dim)):
                prefix = config.storage.vector_store.collection_prefix
                held = self._indexes[key] = NumpyIndex(embedder_name, dim, prefix=prefix)
            return held


def _open_chroma(backends: InMemoryBackends) -> Any:
    def open_index(config: MemoryConfig, embedder_name: str, dim: int) -> ManagedVectorIndex:
        return backends.vector_index(config, embedder_name, dim)

    return open_index


def _untiered(config: MemoryConfig, index: ManagedVectorIndex, store: RecordStore) -> Any:
    """The numpy index searches every tier exactly: no small-scope tier in front of it."""
    return index


@contextlib.contextmanager
def in_memory_backends() -> Iterator[InMemoryBackends]:
    """Inside the block, `MemoryEngine.open` (and so `build_middleware`, `Memory`, the CLI and
    the maintenance jobs run in this process) opens the in-memory record store and the numpy
    index; the real openers are back when it ends. Blocks nest: the innermost one serves."""
    from ..runtime import engine as engine_module

    backends = InMemoryBackends()
    names = ("open_record_store", "open_chroma", "tiered")
    saved = {name: getattr(engine_module, name) for name in names}
    opened = (backends.record_store, _open_chroma(backends), _untiered)
    for name, opener in zip(names, opened):
        setattr(engine_module, name, opener)
    try:
        yield backends
    finally:
        for name, value in saved.items():
            setattr(engine_module, name, value)


@contextlib.contextmanager
def real_backends() -> Iterator[None]:
    """Inside an `in_memory_backends()` block, the configured backends again (SQLite and
    Chroma by default) until this block ends."""
    from ..runtime import engine as engine_module
    from .. import store as configured

    names = ("open_record_store", "open_chroma", "tiered")
    saved = {name: getattr(engine_module, name) for name in names}
    for name in names:
        setattr(engine_module, name, getattr(configured, name))
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(engine_module, name, value)


# Testing a project's memory setup: a conversation driver in OpenClaw's hook order.
#
# The driver replays OpenClaw's hook order over a middleware, without pytest; the pytest plugin
# (`testing.plugin`) gives it as fixtures.

# Testing a project's memory setup: `harness` drives a conversation in OpenClaw's hook order
# (no pytest needed), and `plugin` is the pytest plugin with its fixtures, loaded by pytest through
# the `pytest11` entry point.


# A conversation driver that replays OpenClaw's hook order over a middleware (no pytest needed).
#
# `ConversationDriver` drives session_start, before_prompt_build, (a model), agent_end,
# after_tool_call and session_end in that order and keeps every message list the model saw;
# `harness_config` points a config at a temp store with the hash embedder. The pytest fixtures
# built on them are in `openclaw_memory.testing`.

Model = Callable[[Sequence[Mapping[str, Any]]], str]


def echo_model(messages: Sequence[Mapping[str, Any]]) -> str:
    """A stand-in model: acknowledges the last user message."""
    last = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
    return f"OK: {str(last)[:80]}"


@dataclass
class ConversationDriver:
    """Drives a middleware in OpenClaw's order: session_start, before_prompt_build, (model),
    agent_end, after_tool_call, session_end. `requests` holds every message list the model saw."""

    middleware: MemoryMiddleware
    scope: Scope
    model: Model = echo_model
    system_prompt: str = "You are a helpful assistant."
    requests: list[list[dict]] = field(default_factory=list)
    plans: list[InjectionPlan] = field(default_factory=list)
    session_id: str = "session-1"
    history: list[dict] = field(default_factory=list)

    def start_session(self, session_id: str) -> InjectionPlan:
        """session_start: a new session with an empty history; returns its context plan."""
        self.session_id, self.history = session_id, []
        return self.middleware.on_session_start(self.scope, session_id)

    def prompt(self, text: str) -> str:
        """One user turn: recall and inject, call the model, capture; returns the reply."""
        messages = [
            {"role": "system", "content": self.system_prompt},
            *self.history,
            {"role": "user", "content": text},
        ]
        request = ChatRequest(self.scope, self.session_id, messages)
        result = self.middleware.before_request(request)
        self.requests.append(result.messages)
        self.plans.append(result.plan)
        reply = self.model(result.messages)
        self.middleware.after_response(request, reply)
        self.history += [{"role": "user", "content": text}, {"role": "assistant", "content": reply}]
        return reply

    def tool_call(
        self,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        outcome: str = "",
        *,
        ok: bool = True,
        files: Sequence[str] = (),
    ) -> None:
        """after_tool_call: report one tool call of the current session."""
        event = ToolEvent(tool, dict(arguments or {}), outcome, ok, tuple(files))
        self.middleware.on_tool_event(self.scope, self.session_id, event)

    def end_session(self, reason: str = "end") -> None:
        """session_end, then wait until everything captured is written."""
        self.middleware.on_session_end(self.scope, self.session_id, reason)
        self.middleware.flush()

    @property
    def last_request(self) -> list[dict]:
        """The messages the model saw last."""
        return self.requests[-1]

    def as_user(self, user: str, agent: str | None = None) -> "ConversationDriver":
        """Another sender on the same middleware and store (for isolation checks)."""
        return ConversationDriver(
            self.middleware,
            Scope(user, agent or self.scope.agent_id),
            self.model,
            self.system_prompt,
        )


def harness_config(tmp_path: Path, base: MemoryConfig | str | Path | None = None) -> MemoryConfig:
    """A config (defaults, or a project's YAML) redirected to a temp store with the hash embedder."""
    cfg = base if isinstance(base, MemoryConfig) else load_config(base)
    return config_from_dict(
        {"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"}}, base=cfg
    )
