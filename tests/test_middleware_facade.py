"""One facade: MemoryMiddleware carries the hooks and the memory operations itself.

The request hooks, the memory operations and the lifecycle are methods of the one class, each
over the stages the factory built (no class in between forwards to another), and every stage
shares the one store, worker and extractor.
"""

from __future__ import annotations

import inspect

import pytest

import openclaw_memory
from openclaw_memory import ChatRequest, MemoryMiddleware, Scope, build_middleware
from openclaw_memory.inject.assemble import BlockAssembler
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller

ALICE = Scope("alice", "main")

#: what README, docs, adapters, the service, MCP and the console call on the middleware
PUBLIC = {
    "before_request": ["request"],
    "after_response": ["request", "reply"],
    "recall": ["scope", "session_id", "prompt", "recent", "deep", "live_turns"],
    "on_session_start": ["scope", "session_id"],
    "capture_messages": ["scope", "session_id", "messages", "stored_turns"],
    "on_tool_event": ["scope", "session_id", "event"],
    "record_process_event": ["scope", "subject", "status", "summary", "reason", "session_id"],
    "on_session_end": ["scope", "session_id", "reason", "key"],
    "on_compaction": ["scope", "session_id", "messages", "key"],
    "on_session_ended": ["agent_id", "session_id", "reason", "key"],
    "on_session_compaction": ["agent_id", "session_id", "messages", "key"],
    "search": ["scope", "query", "limit", "deep"],
    "get": ["scope", "memory_id"],
    "remember": ["scope", "text", "type", "subject", "session_id", "tags"],
    "forget": ["scope", "memory_id", "query", "dry_run"],
    "forget_plan": ["scope", "query"],
    "restore": ["scope", "memory_id"],
    "purge_user": ["user_id", "agent_id"],
    "ingest": ["turns"],
    "warm_up": [],
    "flush": ["timeout"],
    "cleanup": ["timeout"],
    "close": [],
}


@pytest.fixture
def mw(config, clock):
    m = build_middleware(config, clock=clock)
    yield m
    m.close()


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_the_facade_defines_each_public_method_itself(name):
    method = vars(MemoryMiddleware)[name]
    params = [p for p in inspect.signature(method).parameters if p != "self"]
    assert params == PUBLIC[name]


def test_the_retired_layers_are_gone_from_the_public_names():
    for name in ("MemoryHooks", "MemoryAdmin", "WorkingMemory"):
        assert name not in openclaw_memory.__all__
        with pytest.raises(AttributeError):
            getattr(openclaw_memory, name)


def test_the_stages_share_one_store_one_worker_one_extractor(mw):
    assert mw.capture.store is mw.engine.store is mw.assembler.store
    assert mw.capture.writer is mw.writer is mw.summaries.writer
    assert mw.writer.store is mw.engine.store and mw.writer.indexer is mw.engine.indexer
    assert mw.capture.jobs is mw.jobs and mw.jobs.worker is mw.worker
    assert mw.capture.pending is mw.pending
    assert mw.capture.extractor is mw.extractor


def test_a_with_block_closes_the_middleware(config, clock):
    with build_middleware(config, clock=clock) as m:
        m.remember(ALICE, "I like green tea")
    with pytest.raises(RuntimeError, match="closed"):
        m.worker.submit(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "fact,question,needle",
    [
        ("我对花生过敏", "推荐几道川菜，注意我的过敏", "花生"),
        ("I am allergic to peanuts", "suggest a dinner recipe, mind my allergy", "peanut"),
    ],
)
def test_what_remember_stores_the_request_hooks_inject_and_the_reverse(mw, fact, question, needle):
    mw.remember(ALICE, fact)
    result = mw.before_request(ChatRequest(ALICE, "s1", [{"role": "user", "content": question}]))
    assert needle in result.plan.block

    request = ChatRequest(
        ALICE,
        "s2",
        [{"role": "user", "content": f"remember: my locker code word is heron{len(fact)}"}],
    )
    mw.after_response(request, "ok")
    # read-your-writes: the search waits for the capture the hook queued
    found = mw.search(ALICE, f"what is my locker code word heron{len(fact)}")
    assert any(f"heron{len(fact)}" in s.record.text for s in found)


@pytest.mark.parametrize(
    "fact,question",
    [
        ("我的储物柜暗号是 heron3", "储物柜暗号是什么？"),
        ("My locker code word is heron3", "what is my locker code word?"),
    ],
)
def test_a_new_recaller_swaps_the_read_path_of_requests_and_search(mw, fact, question):
    mw.remember(ALICE, fact)
    off = Recaller(read_ports(mw.engine), mw.cfg.recall, channels=[])  # recalls nothing
    mw.recaller = off
    result = mw.before_request(
        ChatRequest(ALICE, "s1", [{"role": "user", "content": f"{question} heron3"}])
    )
    assert "heron3" not in result.plan.block
    assert mw.search(ALICE, f"{question} heron3") == []


@pytest.mark.parametrize(
    "fact,question,needle",
    [
        ("我对花生过敏", "注意我的过敏", "花生"),
        ("I am allergic to peanuts", "mind my allergy", "peanut"),
    ],
)
def test_the_assembler_plans_from_a_recall_result(mw, fact, question, needle):
    mw.remember(ALICE, fact)
    assembler = BlockAssembler(mw.engine.store, mw.clock, mw.cfg)
    result = mw.recaller.recall(ALICE, question, ())
    assert needle in assembler.assemble(ALICE, result).block
    only_summaries = assembler.assemble(ALICE, result, sections=("summaries",))
    assert needle not in only_summaries.block


@pytest.mark.parametrize(
    "fact,command,question",
    [
        ("我的储物柜暗号是 heron3", "忘掉储物柜暗号 heron3", "储物柜暗号是什么？ heron3"),
        (
            "My locker code word is heron3",
            "forget the locker code word heron3",
            "what is my locker code word? heron3",
        ),
    ],
)
def test_a_forget_is_seen_by_the_next_request_and_a_restore_undoes_it(mw, fact, command, question):
    written = mw.remember(ALICE, fact)
    assert mw.forget_plan(ALICE, command)[0].id == written.record.id
    assert mw.forget(ALICE, query=command) == [written.record.id]
    ask = ChatRequest(ALICE, "s1", [{"role": "user", "content": question}])
    assert "heron3" not in mw.before_request(ask).plan.block
    mw.restore(ALICE, written.record.id)
    assert "heron3" in mw.before_request(ask).plan.block


#: what the storage may stand on: nothing that is a stage or a door (the language packs are
#: data below the config: the storage holds them under its config's switches)
STORAGE_BELOW = {"core", "config", "embed", "errors", "lang", "store", "types"}


def test_the_engine_imports_no_stage_and_builds_none():
    import ast
    from pathlib import Path

    path = Path(openclaw_memory.__file__).parent / "runtime" / "engine.py"
    reached = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 2 and node.module:
            reached.add(node.module.split(".")[0])
    assert reached and reached <= STORAGE_BELOW, sorted(reached - STORAGE_BELOW)
