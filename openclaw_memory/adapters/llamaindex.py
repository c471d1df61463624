"""A LlamaIndex memory block: this package's long-term memory inside `llama_index.core.memory.Memory`.

    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.memory import Memory
    from openclaw_memory import build_middleware
    from openclaw_memory.adapters.llamaindex import OpenClawMemoryBlock

    block = OpenClawMemoryBlock(middleware=build_middleware(), user_id="alice", agent_id="main")
    memory = Memory.from_defaults(session_id="s1", memory_blocks=[block])
    response = await FunctionAgent(llm=llm, tools=[...]).run("...", memory=memory)

How the block follows LlamaIndex's contract (`BaseMemoryBlock`):
- `_aget(messages, session_id=...)` returns a string: our memory block (recall -> rank ->
  budget -> render) for the last user message of `messages`, or "" when nothing is relevant
  (LlamaIndex then leaves the block out). `Memory` wraps it in `<memory><{name}>...` and puts
  it in the system message (or the latest user message, by its `insert_method`).
- `_aput(messages)` receives the messages that leave the short-term window (and whatever a
  caller puts directly); they go through our write path (capture -> filter -> extract ->
  consolidate -> store), each under the session id LlamaIndex stamped on it.
- Each `_aget` also captures the turns of the live history that are finished (the user message
  and the reply that closed it), because `Memory` hands a block its messages only when the
  window overflows, and a short session never overflows. A turn is captured once, however
  often it is seen (`MemoryMiddleware.capture_messages` knows turns by a stable key); memories
  that only repeat turns still in the window are not injected, since the model reads those.
- Token budget: the block is packed within our own budgets (`injection.budgets`) and, when
  `max_tokens` is set, cut to it. `priority` keeps LlamaIndex's convention: 0 = never truncated;
  otherwise, when memory blocks and chat history exceed `Memory.token_limit`, LlamaIndex
  truncates blocks in ascending priority, and `atruncate` then drops our lowest-ranked memory
  lines first (the block's last lines), rather than the whole block.

Our calls block (SQLite, embedding), so the async methods run them on a worker thread and do
not hold up the event loop.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, List, Optional

from ..capture import transcript_turns
from ..core.tokens import count_tokens
from ..types import Scope
from . import missing

try:
    from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
    from llama_index.core.bridge.pydantic import Field, PrivateAttr, model_validator
    from llama_index.core.memory import BaseMemoryBlock
except ImportError as exc:  # pragma: no cover - llama-index-core is a dependency
    raise missing("llama-index-core", "llamaindex", exc) from exc

if TYPE_CHECKING:
    from ..middleware import MemoryMiddleware

__all__ = ["OpenClawMemoryBlock"]

#: the session id used when LlamaIndex names none (a block called outside `Memory`)
DEFAULT_SESSION = "llamaindex"
#: how many recent messages recall reads as the request's context (follow-ups, references)
RECENT_MESSAGES = 8


class OpenClawMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory for one user (and agent) as a LlamaIndex memory block.

    middleware: a `MemoryMiddleware` (`build_middleware(...)`); the block does not close it
    unless it was built by `from_config`. user_id / agent_id / workspace: the scope every read
    and write of this block carries.
    """

    name: str = Field(default="openclaw_memory", description="The name of the memory block.")
    description: Optional[str] = Field(
        default="Long-term memories of the user: profile, preferences, facts, decisions, events.",
        description="A description of the memory block.",
    )
    priority: int = Field(
        default=1,
        description=(
            "LlamaIndex's truncation priority: 0 = never truncate; otherwise blocks are "
            "truncated in ascending priority when the memory is over its token limit."
        ),
    )
    middleware: Any = Field(exclude=True, description="The MemoryMiddleware to read and write.")
    user_id: str = Field(description="Whose memory this block reads and writes.")
    agent_id: str = Field(default="default", description="The agent within the user's memory.")
    workspace: Optional[str] = Field(default=None, description="An optional workspace scope.")
    max_tokens: Optional[int] = Field(
        default=None, description="A cap on the block's tokens, below our own budgets."
    )
    capture_history: bool = Field(
        default=True,
        description="Capture the finished turns of the live history at each get.",
    )

    _owns_middleware: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _check(self) -> "OpenClawMemoryBlock":
        from ..middleware import MemoryMiddleware

        if not isinstance(self.middleware, MemoryMiddleware):
            raise ValueError(
                "middleware: expected a MemoryMiddleware (build_middleware(...)), "
                f"found {type(self.middleware).__name__}"
            )
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"max_tokens: expected a token count >= 1, found {self.max_tokens}")
        Scope(self.user_id, self.agent_id, self.workspace)  # its error names the bad field
        return self

    @classmethod
    def from_config(
        cls, config: Any = None, *, user_id: str, agent_id: str = "default", **fields: Any
    ) -> "OpenClawMemoryBlock":
        """A block over a middleware built from config (a YAML path, a MemoryConfig or None for
        the defaults); `close()` closes that middleware."""
        from ..runtime.factory import build_middleware

        block = cls(
            middleware=build_middleware(config), user_id=user_id, agent_id=agent_id, **fields
        )
        block._owns_middleware = True
        return block

    @property
    def scope(self) -> Scope:
        """The scope of every read and write of this block."""
        return Scope(self.user_id, self.agent_id, self.workspace)

    @property
    def mw(self) -> "MemoryMiddleware":
        return self.middleware

    # ---- LlamaIndex's contract -----------------------------------------------------------------

    async def _aget(self, messages: Optional[List[ChatMessage]] = None, **block_kwargs: Any) -> str:
        """Our memory block for the last user message of messages ("" when none is relevant)."""
        session_id = block_kwargs.get("session_id") or DEFAULT_SESSION
        return await asyncio.to_thread(self._get, list(messages or []), session_id)

    async def _aput(self, messages: List[ChatMessage]) -> None:
        """Capture messages (those leaving the short-term window) through our write path."""
        by_session: dict[str, list[ChatMessage]] = {}
        for message in messages:
            sid = message.additional_kwargs.get("session_id") or DEFAULT_SESSION
            by_session.setdefault(str(sid), []).append(message)
        for session_id, batch in by_session.items():
            await asyncio.to_thread(self._capture, finished_turns(as_dicts(batch)), session_id)

    async def atruncate(self, content: str, tokens_to_truncate: int) -> Optional[str]:
        """Drop memory lines from the end of the block (the lowest ranked) until it is
        tokens_to_truncate tokens shorter; None when no memory line is left."""
        target = count_tokens(content) - max(0, int(tokens_to_truncate))
        return cut_block(content, target) or None

    # ---- the work, on a worker thread ----------------------------------------------------------

    def _get(self, messages: list[ChatMessage], session_id: str) -> str:
        dicts = as_dicts(messages)
        prompt = next((m["content"] for m in reversed(dicts) if m["role"] == "user"), "")
        finished = finished_turns(dicts)
        if self.capture_history and finished:
            self._capture(finished, session_id)
        if not prompt.strip():
            return ""
        live = [t.key for t in transcript_turns(finished)]
        plan = self.mw.recall(
            self.scope, session_id, prompt, dicts[-RECENT_MESSAGES:], live_turns=live
        )
        block = plan.block
        if block and self.max_tokens is not None:
            block = cut_block(block, self.max_tokens)
        return block

    def _capture(self, messages: list[dict[str, str]], session_id: str) -> None:
        if any(m["role"] == "user" for m in messages):
            self.mw.capture_messages(self.scope, session_id, messages)

    # ---- lifecycle -----------------------------------------------------------------------------

    async def aend_session(self, session_id: str) -> None:
        """Session end: the session summary is written in the background (`on_session_end`)."""
        await asyncio.to_thread(self.mw.on_session_end, self.scope, session_id)

    def flush(self, timeout: Optional[float] = None) -> None:
        """Wait until the captured turns are written and indexed."""
        self.mw.flush(timeout)

    def close(self) -> None:
        """Close the middleware when this block built it (`from_config`); else only flush."""
        if self._owns_middleware:
            self.mw.close()
        else:
            self.mw.flush()


def as_dicts(messages: List[ChatMessage]) -> list[dict[str, str]]:
    """LlamaIndex messages as the OpenAI-shaped messages our hooks read.

    Tool results are left out (a tool's output is not something the user said); an assistant
    message that calls tools keeps its text and says it is not a final reply."""
    out: list[dict[str, str]] = []
    for m in messages:
        role = getattr(m.role, "value", str(m.role))
        if role not in ("user", "assistant", "system"):
            continue
        entry = {"role": role, "content": m.content or ""}
        if role == "assistant" and _calls_tools(m):
            entry["tool_call"] = "1"
        out.append(entry)
    return out


def _calls_tools(message: ChatMessage) -> bool:
    return bool(message.additional_kwargs.get("tool_calls")) or any(
        isinstance(b, ToolCallBlock) for b in message.blocks
    )


def finished_turns(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """The messages up to the last final reply (an assistant message with text that calls no
    tool): every turn in it is finished; the request in progress after it is not."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m["role"] == "assistant" and m["content"].strip() and not m.get("tool_call"):
            return [{"role": x["role"], "content": x["content"]} for x in messages[: i + 1]]
    return []


def cut_block(block: str, max_tokens: int) -> str:
    """Our rendered block with memory lines ("- " lines) dropped from the end until it fits
    max_tokens; a heading whose lines all went goes too; "" when no memory line is left.

    The block lists its sections in order of importance (profile, summaries, related memories,
    to confirm) and each section best first, so the end holds the least important lines."""
    lines = block.split("\n")
    while count_tokens("\n".join(lines)) > max_tokens:
        last = max((i for i, x in enumerate(lines) if x.startswith("- ")), default=None)
        if last is None:
            return ""
        del lines[last]
        if not lines[last - 1].startswith("- ") and not _has_item_after(lines, last - 1):
            del lines[last - 1]  # the heading of a section left empty
    return "\n".join(lines) if any(x.startswith("- ") for x in lines) else ""


def _has_item_after(lines: list[str], heading: int) -> bool:
    return heading + 1 < len(lines) and lines[heading + 1].startswith("- ")
