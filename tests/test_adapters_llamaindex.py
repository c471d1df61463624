"""The LlamaIndex memory block: a FunctionAgent with `Memory.from_defaults(memory_blocks=[...])`
against a scripted function-calling LLM, over real SQLite with the hashing embedder."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.memory import Memory
from llama_index.core.storage.chat_store.sql import MessageStatus
from llama_index.core.tools import FunctionTool

from openclaw_memory.adapters.llamaindex import OpenClawMemoryBlock, cut_block
from openclaw_memory.errors import StoreError
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.core.tokens import count_tokens

REPO = Path(__file__).resolve().parents[1]

FACTS = {
    "en": ("Please remember that I am allergic to peanuts.", "Suggest a snack for me.", "peanut"),
    "zh": ("请记住：我对花生过敏", "推荐几道菜", "花生"),
}


class ScriptedLLM:
    """A function-calling LLM's script: the first call of a run asks for the `menu` tool, the
    call after the tool's result answers. Every message list the LLM received is kept."""

    def __init__(self) -> None:
        self.calls: list[list[ChatMessage]] = []

    def __call__(self, messages, **kwargs) -> ChatMessage:
        self.calls.append(list(messages))
        if kwargs.get("tools") and messages[-1].role.value != "tool":
            call = ToolCallBlock(tool_call_id=f"call-{len(self.calls)}", tool_name="menu")
            return ChatMessage(role="assistant", blocks=[call])
        return ChatMessage(role="assistant", content="Noted. 好的。")

    def prompt_of(self, call: int) -> str:
        return "\n".join(m.content or "" for m in self.calls[call])


def menu() -> str:
    """Today's menu."""
    return "satay, salad, rice"


@pytest.fixture
def mw(make_config, tmp_path, clock):
    middleware = build_middleware(make_config(tmp_path / "store"), clock=clock)
    yield middleware
    middleware.close()


def agent_with(script: ScriptedLLM) -> FunctionAgent:
    llm = MockFunctionCallingLLM(response_generator=script)
    return FunctionAgent(
        llm=llm, tools=[FunctionTool.from_defaults(menu)], system_prompt="Be brief."
    )


def run(agent: FunctionAgent, text: str, memory: Memory) -> str:
    return str(asyncio.run(_run(agent, text, memory)))


async def _run(agent, text, memory):
    return await agent.run(text, memory=memory)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_fact_from_the_first_session_is_in_the_second_sessions_prompt(mw, clock, lang):
    fact, question, word = FACTS[lang]
    block = OpenClawMemoryBlock(middleware=mw, user_id="alice", agent_id="main")
    script = ScriptedLLM()
    agent = agent_with(script)

    run(agent, fact, Memory.from_defaults(session_id="s1", memory_blocks=[block]))
    assert word not in script.prompt_of(0).split(fact)[0]  # nothing known before it was said
    block.flush()
    clock.advance(3600)

    before = len(script.calls)
    run(agent, question, Memory.from_defaults(session_id="s2", memory_blocks=[block]))
    first = script.calls[before]  # the second session's first LLM call
    system = [m.content or "" for m in first if m.role.value == "system"]
    assert any(word in s and "<openclaw_memory>" in s for s in system), system
    assert fact not in "\n".join(m.content or "" for m in first if m.role.value == "user")

    # another user of the same store gets none of it
    other = OpenClawMemoryBlock(middleware=mw, user_id="bob", agent_id="main")
    before = len(script.calls)
    run(agent, question, Memory.from_defaults(session_id="s3", memory_blocks=[other]))
    assert word not in script.prompt_of(before)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_messages_leaving_the_short_term_window_are_captured(mw, clock, lang):
    fact, question, word = FACTS[lang]
    # only what LlamaIndex hands the block (`_aput`) is captured here
    block = OpenClawMemoryBlock(
        middleware=mw, user_id="alice", agent_id="main", capture_history=False
    )
    memory = Memory.from_defaults(
        session_id="s1", memory_blocks=[block], token_limit=60, token_flush_size=20
    )

    async def talk():
        await memory.aput_messages(
            [ChatMessage(role="user", content=fact), ChatMessage(role="assistant", content="OK.")]
        )
        for i in range(4):
            await memory.aput_messages(
                [
                    ChatMessage(role="user", content=f"filler question number {i} " * 3),
                    ChatMessage(role="assistant", content=f"filler answer {i} " * 3),
                ]
            )

    asyncio.run(talk())
    archived = asyncio.run(memory.sql_store.get_messages("s1", status=MessageStatus.ARCHIVED))
    assert any(m.content == fact for m in archived)  # the fact left the window
    block.flush()
    clock.advance(3600)
    ask = Memory.from_defaults(session_id="s2", memory_blocks=[block])
    asyncio.run(ask.aput(ChatMessage(role="user", content=question)))
    system = asyncio.run(ask.aget())[0]
    assert system.role.value == "system" and word in (system.content or "")


def test_a_session_that_never_overflows_is_captured_by_the_next_get(mw, clock):
    """Without capture from the live history a short session would be lost: LlamaIndex hands
    blocks only the messages that leave the window."""
    fact, question, word = FACTS["en"]
    for capture, expected in ((False, False), (True, True)):
        block = OpenClawMemoryBlock(
            middleware=mw, user_id=f"u{int(capture)}", capture_history=capture
        )
        run(
            agent_with(ScriptedLLM()),
            fact,
            Memory.from_defaults(session_id="a", memory_blocks=[block]),
        )
        block.flush()
        clock.advance(3600)
        script = ScriptedLLM()
        run(
            agent_with(script),
            question,
            Memory.from_defaults(session_id="b", memory_blocks=[block]),
        )
        assert (word in script.prompt_of(0)) is expected


def test_a_turn_is_captured_once_however_often_the_history_is_read(mw):
    block = OpenClawMemoryBlock(middleware=mw, user_id="alice")
    history = [
        ChatMessage(role="user", content="Remember that my dog is called Rex."),
        ChatMessage(role="assistant", content="Got it."),
        ChatMessage(role="user", content="What is my dog's name?"),
    ]
    for _ in range(3):
        asyncio.run(block.aget(history, session_id="s1"))
    block.flush()
    turns = mw.short_term.captured_turn_ids(block.scope, "s1")
    assert len(turns) == 1


def test_the_memory_already_in_the_window_is_not_injected_again(mw, clock):
    block = OpenClawMemoryBlock(middleware=mw, user_id="alice")
    said = [
        ChatMessage(role="user", content="Remember that I am allergic to peanuts."),
        ChatMessage(role="assistant", content="Noted."),
    ]
    asyncio.run(block.aget(said, session_id="s1"))
    block.flush()
    ask = [ChatMessage(role="user", content="Suggest a snack for me.")]
    same = asyncio.run(block.aget([*said, *ask], session_id="s1"))
    other = asyncio.run(block.aget(ask, session_id="s2"))
    assert "peanut" in other and "peanut" not in same


def _block_with_lines(mw, clock) -> tuple[OpenClawMemoryBlock, str]:
    block = OpenClawMemoryBlock(middleware=mw, user_id="alice")
    for text in (
        "Remember that I am allergic to peanuts.",
        "Remember that I live in Lyon.",
        "Remember that my sister Anna is a nurse.",
        "Remember that I prefer window seats on trains.",
    ):
        mw.remember(block.scope, text)
        clock.advance(60)
    content = asyncio.run(
        block.aget(
            [ChatMessage(role="user", content="Plan a train trip with snacks for Anna and me.")],
            session_id="t",
        )
    )
    return block, content


def test_truncation_drops_the_lowest_ranked_lines_first(mw, clock):
    block, content = _block_with_lines(mw, clock)
    lines = [x for x in content.split("\n") if x.startswith("- ")]
    assert len(lines) >= 3, content
    cut = asyncio.run(block.atruncate(content, count_tokens(lines[-1]) + 1))
    assert (
        cut is not None and count_tokens(cut) <= count_tokens(content) - count_tokens(lines[-1]) - 1
    )
    kept = [x for x in cut.split("\n") if x.startswith("- ")]
    assert kept == lines[: len(kept)] and len(kept) < len(lines)
    assert (
        cut.split("\n")[0] == content.split("\n")[0]
        and cut.split("\n")[-1] == content.split("\n")[-1]
    )
    assert asyncio.run(block.atruncate(content, count_tokens(content))) is None


def test_cut_block_leaves_no_empty_heading():
    block = "<m>\nHeader\nAbout the user:\n- a\nRelated:\n- b b b b b b b b\n</m>"
    assert cut_block(block, count_tokens(block) - 3) == "<m>\nHeader\nAbout the user:\n- a\n</m>"
    assert cut_block(block, 1) == ""


@pytest.mark.parametrize("priority, truncated", [(0, False), (1, True)])
def test_priority_follows_llamaindexs_convention(mw, clock, priority, truncated):
    block, content = _block_with_lines(mw, clock)
    block.priority = priority
    question = ChatMessage(role="user", content="Plan a train trip with snacks for Anna and me.")
    limit = count_tokens(content)  # the question and the block do not both fit
    memory = Memory.from_defaults(session_id="t", memory_blocks=[block], token_limit=limit)
    asyncio.run(memory.aput(question))
    system = asyncio.run(memory.aget())[0].content or ""
    shown = len(re.findall(r"^- ", system, re.M))
    full = len(re.findall(r"^- ", content, re.M))
    assert (shown < full) is truncated
    assert shown >= 1  # truncation drops our lowest-ranked lines, not the whole block


def test_max_tokens_caps_the_block(mw, clock):
    block, content = _block_with_lines(mw, clock)
    block.max_tokens = count_tokens(content) - 5
    again = asyncio.run(
        block.aget(
            [ChatMessage(role="user", content="Plan a train trip with snacks for Anna and me.")],
            session_id="t2",
        )
    )
    assert 0 < count_tokens(again) <= block.max_tokens


def test_bad_construction_names_the_field(mw):
    with pytest.raises(ValueError, match="middleware: expected a MemoryMiddleware"):
        OpenClawMemoryBlock(middleware=object(), user_id="alice")
    with pytest.raises(ValueError, match="user_id"):
        OpenClawMemoryBlock(middleware=mw, user_id="")
    with pytest.raises(ValueError, match="max_tokens"):
        OpenClawMemoryBlock(middleware=mw, user_id="alice", max_tokens=0)


def _documented_block(heading: str) -> str:
    text = (REPO / "docs" / "integrations.md").read_text(encoding="utf-8")
    section = text.split(heading, 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)[0]


def test_the_documented_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the example's store ("ocm-data") goes there
    code = _documented_block("### LlamaIndex memory block")
    namespace: dict = {"__name__": "__readme__"}
    exec(compile(code, "docs/integrations.md (LlamaIndex memory block)", "exec"), namespace)
    assert "<openclaw_memory>" in namespace["seen"][-1] and "peanut" in namespace["seen"][-1]
    assert "peanut" not in namespace["seen"][0].split("Remember")[0]


def test_the_example_recalls_in_the_second_session_in_both_languages(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "OCM_DATA_DIR": str(tmp_path / "data")}
    out = subprocess.run(
        [sys.executable, str(REPO / "examples" / "llamaindex_agent.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    sessions = dict(re.findall(r"=== session (\S+), user: .*?\n(.*?)(?====|\Z)", out, re.S))
    assert "peanut" not in sessions["en-1"] and "peanut" in sessions["en-2"]
    assert "花生" not in sessions["zh-1"] and "花生" in sessions["zh-2"]


@pytest.mark.parametrize(
    "module, extra", [("llamaindex", "llamaindex"), ("langgraph", "langgraph")]
)
def test_a_missing_framework_names_the_extra_to_install(module, extra):
    blocked = {"llamaindex": "llama_index", "langgraph": "langgraph"}[module]
    code = (
        "import sys\n"
        f"sys.modules[{blocked!r}] = None\n"
        "import openclaw_memory.adapters\n"
        "try:\n"
        f"    import openclaw_memory.adapters.{module}\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    ).stdout
    assert f"pip install 'openclaw-memory[{extra}]'" in out, out


@pytest.mark.real_store("a closed SQLite database refuses reads")
def test_a_block_built_from_config_owns_its_middleware(make_config, tmp_path):
    block = OpenClawMemoryBlock.from_config(
        make_config(tmp_path / "own"), user_id="alice", agent_id="main"
    )
    said = [
        ChatMessage(role="user", content="请记住：我的生日是五月三日"),
        ChatMessage(role="assistant", content="好的。"),
    ]
    asyncio.run(block.aget(said, session_id="s1"))
    asyncio.run(block.aend_session("s1"))
    block.flush()
    again = asyncio.run(
        block.aget([ChatMessage(role="user", content="我的生日是哪天？")], session_id="s2")
    )
    assert "五月三日" in again
    block.close()
    with pytest.raises(StoreError, match="closed database"):
        block.mw.search(block.scope, "生日")  # closed with the block


def test_a_get_does_not_hold_up_the_event_loop(mw):
    block = OpenClawMemoryBlock(middleware=mw, user_id="alice")
    history = [ChatMessage(role="user", content="What do I like to eat? 我喜欢吃什么？")]

    async def go() -> int:
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        await asyncio.sleep(0)
        before = ticks
        await block.aget(history, session_id="s1")
        during = ticks - before
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return during

    assert asyncio.run(go()) > 10  # the loop kept turning while we recalled
