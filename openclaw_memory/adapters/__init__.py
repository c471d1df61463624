"""Adapters: this package's memory in the memory slot of other agent frameworks.

    llamaindex  OpenClawMemoryBlock, a `llama_index.core.memory.BaseMemoryBlock` for
                `Memory.from_defaults(memory_blocks=[...])` (FunctionAgent, AgentWorkflow, ...)
    langgraph   OpenClawStore, a `langgraph.store.base.BaseStore` for
                `graph.compile(store=...)` (install the `langgraph` extra)

Each module imports its framework when it is imported itself, never from here, so
`import openclaw_memory.adapters` costs nothing; a missing framework is an ImportError that
says what to install.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "OpenClawMemoryBlock": "llamaindex",
    "OpenClawStore": "langgraph",
}

__all__ = ["OpenClawMemoryBlock", "OpenClawStore"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def missing(framework: str, extra: str, exc: ImportError) -> ImportError:
    """The error an adapter raises when its framework is not installed: what failed, and the
    install command."""
    return ImportError(
        f"{framework} is not installed ({exc}); "
        f"install it with: pip install 'openclaw-memory[{extra}]'"
    )


if TYPE_CHECKING:
    from .langgraph import OpenClawStore
    from .llamaindex import OpenClawMemoryBlock
