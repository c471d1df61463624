"""A LlamaIndex FunctionAgent with long-term memory: our memory block in `Memory.from_defaults`.

    python examples/llamaindex_agent.py          # a scripted LLM and the hashing embedder: offline

Two sessions per language: in the first the user states a fact while the agent calls a tool; in
the second (a new `Memory`, a new session id) the model's system message holds the memory block
with that fact. Swap the scripted LLM for any FunctionCallingLLM (OpenAILike, Ollama, ...) and
the config for your project's YAML (`build_middleware("my-project.yaml")`).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.memory import Memory
from llama_index.core.tools import FunctionTool

from openclaw_memory import build_middleware, config_from_dict
from openclaw_memory.adapters.llamaindex import OpenClawMemoryBlock

SESSIONS = {
    "en": ("Remember that I am allergic to peanuts.", "Suggest a snack for me."),
    "zh": ("请记住：我对花生过敏", "推荐几道菜"),
}


def todays_menu() -> str:
    """Today's menu in the canteen."""
    return "satay with peanut sauce, green salad, rice / 沙爹, 沙拉, 米饭"


class ScriptedModel:
    """Asks for the menu tool once per run, then answers; prints what it was sent."""

    def __call__(self, messages, **kwargs) -> ChatMessage:
        if kwargs.get("tools") and messages[-1].role.value != "tool":
            call = ToolCallBlock(tool_call_id="call-1", tool_name="todays_menu")
            return ChatMessage(role="assistant", blocks=[call])
        system = "\n".join(m.content or "" for m in messages if m.role.value == "system")
        print(f"--- the model's system messages ---\n{system}\n")
        return ChatMessage(role="assistant", content="Noted. / 好的。")


async def main() -> int:
    data_dir = os.environ.get("OCM_DATA_DIR") or tempfile.mkdtemp(prefix="ocm-llamaindex-")
    mw = build_middleware(
        config_from_dict({"storage": {"data_dir": data_dir, "embedding_model": "hash"}})
    )
    tool = FunctionTool.from_defaults(todays_menu)
    agent = FunctionAgent(
        llm=MockFunctionCallingLLM(response_generator=ScriptedModel()),
        tools=[tool],
        system_prompt="You are a helpful assistant.",
    )
    try:
        for lang, (fact, question) in SESSIONS.items():
            block = OpenClawMemoryBlock(middleware=mw, user_id=f"user-{lang}", agent_id="main")
            for session, text in ((f"{lang}-1", fact), (f"{lang}-2", question)):
                print(f"=== session {session}, user: {text}")
                memory = Memory.from_defaults(session_id=session, memory_blocks=[block])
                await agent.run(text, memory=memory)
                block.flush()  # the write path runs in the background
    finally:
        mw.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
