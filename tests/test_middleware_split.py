"""The middleware's two halves: request hooks (MemoryHooks) and admin client (MemoryAdmin).

Each half works on its own over the shared store, and MemoryMiddleware forwards every public
method of both with the same signature, so code written against the one object keeps working.
"""

from __future__ import annotations

import inspect

import pytest

from openclaw_memory import (
    ChatRequest,
    MemoryAdmin,
    MemoryHooks,
    MemoryMiddleware,
    Scope,
    build_middleware,
)
from openclaw_memory.runtime.working_memory import WorkingMemory

ALICE = Scope("alice", "main")


@pytest.fixture
def mw(config, clock):
    m = build_middleware(config, clock=clock)
    yield m
    m.close()


def _public(cls: type) -> dict[str, inspect.Signature]:
    return {
        n: inspect.signature(f)
        for n, f in vars(cls).items()
        if inspect.isfunction(f) and not n.startswith("_")
    }


@pytest.mark.parametrize("half", [MemoryHooks, MemoryAdmin])
def test_the_middleware_forwards_every_public_method_with_its_signature(half):
    mine = _public(MemoryMiddleware)
    missing = sorted(set(_public(half)) - set(mine) - {"wrap"})
    assert missing == []
    for name, sig in _public(half).items():
        if name in mine:
            assert list(mine[name].parameters) == list(sig.parameters), name


def test_the_halves_share_one_store_and_one_worker(mw):
    assert isinstance(mw.hooks, MemoryHooks) and isinstance(mw.admin, MemoryAdmin)
    assert mw.hooks.engine is mw.admin.engine is mw.capture.engine
    assert mw.hooks.jobs is mw.admin.jobs is mw.capture.jobs and mw.jobs.worker is mw.worker
    assert mw.hooks.pending is mw.admin.pending is mw.capture.pending
    assert mw.admin.extractor is mw.capture.extractor is mw.extractor


@pytest.mark.parametrize(
    "fact,question,needle",
    [
        ("我对花生过敏", "推荐几道川菜，注意我的过敏", "花生"),
        ("I am allergic to peanuts", "suggest a dinner recipe, mind my allergy", "peanut"),
    ],
)
def test_what_the_admin_remembers_the_hooks_inject_and_the_reverse(mw, fact, question, needle):
    mw.admin.remember(ALICE, fact)
    result = mw.hooks.before_request(
        ChatRequest(ALICE, "s1", [{"role": "user", "content": question}])
    )
    assert needle in result.plan.block

    request = ChatRequest(
        ALICE,
        "s2",
        [{"role": "user", "content": f"remember: my locker code word is heron{len(fact)}"}],
    )
    mw.hooks.after_response(request, "ok")
    # read-your-writes: the search waits for the capture the hook queued
    found = mw.admin.search(ALICE, f"what is my locker code word heron{len(fact)}")
    assert any(f"heron{len(fact)}" in s.record.text for s in found)


def test_setting_working_swaps_the_read_path_of_both_halves(mw):
    other = WorkingMemory(mw.engine, mw.working.recaller, mw.cfg)
    mw.working = other
    assert mw.hooks.working is other and mw.admin.working is other


def test_forget_through_the_admin_is_seen_by_the_hooks(mw):
    written = mw.admin.remember(ALICE, "我的储物柜暗号是 heron3")
    assert mw.admin.forget_plan(ALICE, "忘掉储物柜暗号 heron3")[0].id == written.record.id
    assert mw.admin.forget(ALICE, query="忘掉储物柜暗号 heron3") == [written.record.id]
    result = mw.hooks.before_request(
        ChatRequest(ALICE, "s1", [{"role": "user", "content": "储物柜暗号是什么？ heron3"}])
    )
    assert "heron3" not in result.plan.block
    mw.admin.restore(ALICE, written.record.id)
    result = mw.hooks.before_request(
        ChatRequest(ALICE, "s1", [{"role": "user", "content": "储物柜暗号是什么？ heron3"}])
    )
    assert "heron3" in result.plan.block
