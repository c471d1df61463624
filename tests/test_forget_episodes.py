"""Forgetting a statement takes every episode of it: the fact, the episode of the turn that said
it and any other episode that says it again, whether the fact is named by words or by id; a
question about it (which states nothing) is not what keeps the fact alive. English and Chinese."""

from __future__ import annotations

import pytest

from openclaw_memory.middleware import MemoryMiddleware
from openclaw_memory.types import MemoryType, Scope

ME = Scope("me", "main")
SESSION = "agent:main:pets"

CASES = {
    "en": {
        "said": "Remember: my cat is called Momo.",
        "again": "My cat is called Momo, and she sleeps all day.",
        "asked": "What is my cat called?",
        "forget": "my cat is called Momo",
    },
    "zh": {
        "said": "记住：我的猫叫Momo。",
        "again": "我的猫叫Momo，它整天睡觉。",
        "asked": "我的猫叫什么名字？",
        "forget": "我的猫叫Momo",
    },
}


@pytest.fixture
def mw(tmp_path):
    m = MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"}}
    )
    yield m
    m.close()


def _talk(mw, case) -> None:
    messages: list[dict] = []
    for i, text in enumerate([case["said"], case["again"], case["asked"]]):
        messages += [
            {"role": "user", "content": text, "timestamp": 10 * i + 1},
            {"role": "assistant", "content": "OK", "timestamp": 10 * i + 2},
        ]
        mw.capture_messages(ME, SESSION, messages)
        mw.flush(timeout=20)


def _live(mw) -> list:
    return mw.engine.store.listing(ME, status="active", type_=None, limit=100)


def _episodes(mw, text: str) -> list:
    return [r for r in _live(mw) if r.type is MemoryType.EPISODE and r.text.startswith(text)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_forgetting_a_fact_by_id_takes_every_episode_that_states_it(mw, lang):
    case = CASES[lang]
    _talk(mw, case)
    facts = [r for r in _live(mw) if r.type is not MemoryType.EPISODE and "momo" in r.text.lower()]
    assert facts, _live(mw)
    assert _episodes(mw, case["said"]) and _episodes(mw, case["again"])
    for fact in facts:
        mw.forget(ME, memory_id=fact.id)
    assert not [r for r in _live(mw) if "momo" in r.text.lower()], _live(mw)
    assert _episodes(mw, case["asked"])  # a question states nothing: it stays


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_forgetting_a_statement_by_words_takes_every_episode_that_states_it(mw, lang):
    case = CASES[lang]
    _talk(mw, case)
    shown = [r.id for r in mw.forget_plan(ME, case["forget"])]
    forgotten = mw.forget(ME, query=case["forget"])
    assert forgotten == shown  # what the dry run shows is what goes
    assert not [r for r in _live(mw) if "momo" in r.text.lower()], _live(mw)
