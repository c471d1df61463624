"""A plugin test harness: fixtures and a conversation driver that replays OpenClaw's hook order.

Loaded automatically by pytest (entry point `pytest11`), so a project can test its own YAML:

    def test_my_yaml_recalls_allergies(ocm_conversation_factory):
        chat = ocm_conversation_factory("my-project.yaml")
        chat.start_session("s1")
        chat.prompt("请记住：我对花生过敏")
        chat.end_session()
        chat.start_session("s2")
        chat.prompt("推荐几道菜")
        assert "花生" in chat.last_request[1]["content"]

Fixtures: `ocm_clock` (FakeClock), `ocm_embedder` (HashEmbedding), `ocm_llm` (ScriptedLLM with
queued replies), `ocm_config` (defaults in a temp store, hash embedder), `ocm_middleware`,
`ocm_conversation_factory(config=None, user="alice", agent="main")`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pytest

from .capture.events import ToolEvent
from .clock import FakeClock
from .config import MemoryConfig, config_from_dict, load_config
from .embedding import HashEmbedding
from .middleware import ChatRequest, MemoryMiddleware
from .types import InjectionPlan, Scope

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
        self.session_id, self.history = session_id, []
        return self.middleware.on_session_start(self.scope, session_id)

    def prompt(self, text: str) -> str:
        messages = [{"role": "system", "content": self.system_prompt}, *self.history, {"role": "user", "content": text}]
        request = ChatRequest(self.scope, self.session_id, messages)
        result = self.middleware.before_request(request)
        self.requests.append(result.messages)
        self.plans.append(result.plan)
        reply = self.model(result.messages)
        self.middleware.after_response(request, reply)
        self.history += [{"role": "user", "content": text}, {"role": "assistant", "content": reply}]
        return reply

    def tool_call(self, tool: str, arguments: Mapping[str, Any] | None = None, outcome: str = "", *,
                  ok: bool = True, files: Sequence[str] = ()) -> None:
        self.middleware.on_tool_event(self.scope, self.session_id, ToolEvent(tool, dict(arguments or {}), outcome, ok, tuple(files)))

    def end_session(self, reason: str = "end") -> None:
        self.middleware.on_session_end(self.scope, self.session_id, reason)
        self.middleware.flush()

    @property
    def last_request(self) -> list[dict]:
        return self.requests[-1]

    def as_user(self, user: str, agent: str | None = None) -> "ConversationDriver":
        """Another sender on the same middleware and store (for isolation checks)."""
        return ConversationDriver(self.middleware, Scope(user, agent or self.scope.agent_id), self.model, self.system_prompt)


def harness_config(tmp_path: Path, base: MemoryConfig | str | Path | None = None) -> MemoryConfig:
    """A config (defaults, or a project's YAML) redirected to a temp store with the hash embedder."""
    cfg = base if isinstance(base, MemoryConfig) else load_config(base)
    return config_from_dict({"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"}}, base=cfg)


@pytest.fixture
def ocm_clock() -> FakeClock:
    return FakeClock(1_700_000_000.0)


@pytest.fixture
def ocm_embedder() -> HashEmbedding:
    return HashEmbedding()


@pytest.fixture
def ocm_llm():
    from .llm import ScriptedLLM

    return ScriptedLLM()


@pytest.fixture
def ocm_config(tmp_path) -> MemoryConfig:
    return harness_config(tmp_path / "ocm-store")


@pytest.fixture
def ocm_middleware(ocm_config, ocm_clock):
    from .factory import build_middleware

    mw = build_middleware(ocm_config, clock=ocm_clock)
    yield mw
    mw.close()


@pytest.fixture
def ocm_conversation_factory(tmp_path, ocm_clock):
    from .factory import build_middleware

    built: list[MemoryMiddleware] = []

    def make(config: MemoryConfig | str | Path | None = None, *, user: str = "alice", agent: str = "main",
             model: Model = echo_model, llm: Any = None) -> ConversationDriver:
        mw = build_middleware(harness_config(tmp_path / f"ocm-{len(built)}", config), clock=ocm_clock, llm=llm)
        built.append(mw)
        return ConversationDriver(mw, Scope(user, agent), model)

    yield make
    for mw in built:
        mw.close()
