"""Testing a project's memory setup: a conversation driver in OpenClaw's hook order.

The driver replays OpenClaw's hook order over a middleware, without pytest; the pytest plugin
(`testing.plugin`) gives it as fixtures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence
from ..capture.events import ToolEvent
from ..config import MemoryConfig, config_from_dict, load_config
from ..middleware import ChatRequest, MemoryMiddleware
from ..types import InjectionPlan, Scope

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


__all__ = ["ConversationDriver", "Model", "echo_model", "harness_config"]
