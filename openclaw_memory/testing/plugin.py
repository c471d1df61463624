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
`ocm_conversation_factory(config=None, user="alice", agent="main")`. The middleware of
`ocm_middleware` and of the factory hold their memories in the in-memory record store and vector
index (`testing.stores`): nothing is written to disk, and a test runs faster.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..core.clock import FakeClock
from ..config import MemoryConfig
from ..embed.embedding import HashEmbedding
from . import ConversationDriver
from . import Model
from . import echo_model
from . import harness_config
from . import in_memory_backends
from ..middleware import MemoryMiddleware
from ..types import Scope

__all__ = ["ConversationDriver", "echo_model", "harness_config"]  # re-exported from harness


@pytest.fixture
def ocm_clock() -> FakeClock:
    return FakeClock(1_700_000_000.0)


@pytest.fixture
def ocm_embedder() -> HashEmbedding:
    return HashEmbedding()


@pytest.fixture
def ocm_llm():
    from ..llm import ScriptedLLM

    return ScriptedLLM()


@pytest.fixture
def ocm_config(tmp_path) -> MemoryConfig:
    return harness_config(tmp_path / "ocm-store")


@pytest.fixture
def ocm_middleware(ocm_config, ocm_clock):
    from ..runtime.factory import build_middleware

    with in_memory_backends():
        mw = build_middleware(ocm_config, clock=ocm_clock)
        yield mw
        mw.close()


@pytest.fixture
def ocm_conversation_factory(tmp_path, ocm_clock):
    from ..runtime.factory import build_middleware

    built: list[MemoryMiddleware] = []

    def make(
        config: MemoryConfig | str | Path | None = None,
        *,
        user: str = "alice",
        agent: str = "main",
        model: Model = echo_model,
        llm: Any = None,
    ) -> ConversationDriver:
        mw = build_middleware(
            harness_config(tmp_path / f"ocm-{len(built)}", config), clock=ocm_clock, llm=llm
        )
        built.append(mw)
        return ConversationDriver(mw, Scope(user, agent), model)

    with in_memory_backends():
        yield make
        for mw in built:
            mw.close()
