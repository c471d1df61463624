"""openclaw-memory: long-term memory middleware for OpenClaw agents (and any agent loop).

The public API is the names in `__all__`, importable from the package itself:

    from openclaw_memory import Memory

    with Memory() as m:                      # or Memory(config="my-project.yaml")
        m.add("I live in Boston", user_id="alice")
        m.search("where do I live?", user_id="alice")   # {"results": [{"id", "memory", "score", ...}]}

or, around a model call:

    from openclaw_memory import ChatRequest, Scope, build_middleware

    mw = build_middleware("my-project.yaml")
    request = ChatRequest(Scope("alice", "main"), "session-1", messages)
    result = mw.before_request(request)      # result.messages: the messages with the memory block
    mw.after_response(request, reply)
    mw.close()

Everything else (the pipeline stages under capture/, extract/, recall/, inject/, store/,
maintain/, service/) is internal: importable, but free to change between versions. Evaluation
and benchmarks live beside this package, in openclaw_memory_bench, which it never imports.
Names are loaded on first use, so `import openclaw_memory` stays cheap and a submodule import
does not pull in the whole package.
"""

from __future__ import annotations

import importlib
from importlib import metadata
from typing import TYPE_CHECKING, Any

try:
    __version__ = metadata.version("openclaw-memory")
except metadata.PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"

#: public name -> the module that defines it ("module:name" when it is called otherwise there)
_EXPORTS: dict[str, str] = {
    # the facade in mem0's shape (add, search, get_all, get, update, delete, history), sync and async
    "Memory": "memory",
    "AsyncMemory": "memory",
    # the middleware and its request / result types
    "MemoryMiddleware": "middleware",
    "ChatRequest": "middleware",
    "RequestResult": "middleware",
    "ToolEvent": "capture.events",
    # the factory, what a user plugs into it, and config loading
    "build_middleware": "runtime.factory",
    "Extractor": "extract.base",
    "RecallChannel": "recall.pool:Channel",
    "MemoryConfig": "config",
    "load_config": "config",
    "config_from_dict": "config",
    # core values
    "Scope": "types",
    "Turn": "types",
    "Candidate": "types",
    "MemoryRecord": "types",
    "MemoryType": "types",
    "Channel": "types",
    "Status": "types",
    "Source": "types",
    "ScoredMemory": "types",
    "InjectionPlan": "types",
    "WriteResult": "types",
    "Clock": "core.clock",
    "SystemClock": "core.clock",
    # errors
    "OpenClawMemoryError": "errors",
    "ConfigError": "errors",
    "ValidationError": "errors",
    "NotFoundError": "errors",
    "IndexMismatchError": "errors",
    "StoreError": "errors",
    "ExtractionError": "errors",
    # fakes for tests and examples
    "FakeClock": "core.clock",
    "HashEmbedding": "embed.embedding",
    "ScriptedLLM": "llm",
    "FakeOpenAIServer": "llm.fake_openai",
    "ConversationDriver": "testing",
}

__all__ = [
    "__version__",
    "Memory",
    "AsyncMemory",
    "MemoryMiddleware",
    "ChatRequest",
    "RequestResult",
    "ToolEvent",
    "build_middleware",
    "Extractor",
    "RecallChannel",
    "MemoryConfig",
    "load_config",
    "config_from_dict",
    "Scope",
    "Turn",
    "Candidate",
    "MemoryRecord",
    "MemoryType",
    "Channel",
    "Status",
    "Source",
    "ScoredMemory",
    "InjectionPlan",
    "WriteResult",
    "Clock",
    "SystemClock",
    "OpenClawMemoryError",
    "ConfigError",
    "ValidationError",
    "NotFoundError",
    "IndexMismatchError",
    "StoreError",
    "ExtractionError",
    "FakeClock",
    "HashEmbedding",
    "ScriptedLLM",
    "FakeOpenAIServer",
    "ConversationDriver",
]


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use (PEP 562)."""
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module 'openclaw_memory' has no attribute {name!r}")
    module, _, own_name = where.partition(":")
    value = getattr(importlib.import_module(f".{module}", __name__), own_name or name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:  # the same names, for type checkers and IDEs
    from .capture.events import ToolEvent
    from .core.clock import Clock, FakeClock, SystemClock
    from .config import MemoryConfig, config_from_dict, load_config
    from .embed.embedding import HashEmbedding
    from .errors import (
        ConfigError,
        ExtractionError,
        IndexMismatchError,
        NotFoundError,
        OpenClawMemoryError,
        StoreError,
        ValidationError,
    )
    from .extract.base import Extractor
    from .runtime.factory import build_middleware
    from .llm.fake_openai import FakeOpenAIServer
    from .testing import ConversationDriver
    from .llm import ScriptedLLM
    from .memory import AsyncMemory, Memory
    from .middleware import ChatRequest, MemoryMiddleware, RequestResult
    from .recall.pool import Channel as RecallChannel
    from .types import (
        Candidate,
        Channel,
        InjectionPlan,
        MemoryRecord,
        MemoryType,
        ScoredMemory,
        Scope,
        Source,
        Status,
        Turn,
        WriteResult,
    )
