"""The LangGraph store: BaseStore's documented contract (langgraph ships no store conformance
suite; langgraph-checkpoint-conformance covers checkpointers only), then a graph over two
threads, over real SQLite with the hashing embedder."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import TypedDict

import pytest

pytest.importorskip(
    "langgraph.store.base",
    reason="langgraph is not installed: pip install 'openclaw-memory[langgraph]' (.ci/run does)",
)

from langchain_core.runnables import RunnableConfig  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.graph import START, StateGraph  # noqa: E402
from langgraph.store.base import (  # noqa: E402
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)

from openclaw_memory.adapters.langgraph import OpenClawStore  # noqa: E402
from openclaw_memory.errors import ValidationError  # noqa: E402
from openclaw_memory.runtime.factory import build_middleware  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
ALICE = ("memories", "alice")
BOB = ("memories", "bob")


@pytest.fixture
def mw(make_config, tmp_path, clock):
    middleware = build_middleware(make_config(tmp_path / "store"), clock=clock)
    yield middleware
    middleware.close()


@pytest.fixture
def store(mw) -> OpenClawStore:
    return OpenClawStore(mw)


# ---- put / get / delete -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        {"content": "Alice is vegetarian", "type": "preference"},
        {"content": "爱丽丝住在上海", "type": "profile", "subject": "住址"},
        {"content": "The launch review is on Friday", "type": "fact"},
    ],
)
def test_put_then_get_returns_the_value(store, value):
    store.put(ALICE, "k1", value)
    item = store.get(ALICE, "k1")
    assert isinstance(item, Item) and not isinstance(item, SearchItem)
    assert (item.namespace, item.key, item.value) == (ALICE, "k1", value)
    assert isinstance(item.created_at, datetime) and item.created_at.tzinfo is not None
    assert item.created_at == item.updated_at
    assert OpenClawStore(store.mw).get(ALICE, "k1") == item  # the key is stored, not cached
    assert store.get(ALICE, "absent") is None
    assert store.get(BOB, "k1") is None  # another user's namespace holds none of it


def test_a_value_without_type_is_a_fact(store):
    store.put(ALICE, "k", {"content": "Alice plays the cello"})
    assert store.get(ALICE, "k").value == {"content": "Alice plays the cello", "type": "fact"}


def test_put_under_the_same_key_updates_and_keeps_created_at(store, clock):
    store.put(ALICE, "diet", {"content": "Alice is vegetarian", "type": "preference"})
    first = store.get(ALICE, "diet")
    clock.advance(3600)
    store.put(ALICE, "diet", {"content": "Alice is vegan", "type": "preference"})
    second = store.get(ALICE, "diet")
    assert second.value["content"] == "Alice is vegan"
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    listed = store.search(ALICE)
    assert [i.value["content"] for i in listed] == ["Alice is vegan"]  # one live copy
    assert listed[0].key == "diet"


def test_an_item_found_by_its_memory_id_keeps_resolving_after_an_update(store, clock):
    store.put(ALICE, "k", {"content": "Alice's locker is number 12"})
    (found,) = store.search(ALICE)
    store.put(ALICE, "k", {"content": "Alice's locker is number 14"})
    mem_id = store.mw.engine.store.listing(store.scope_of(ALICE), limit=10)[-1].id
    assert store.get(ALICE, mem_id).value["content"] == "Alice's locker is number 14"
    assert found.key == "k"


def test_delete_forgets_and_restore_undoes_it(store):
    store.put(ALICE, "k", {"content": "Alice's gym is on Main Street"})
    store.delete(ALICE, "k")
    assert store.get(ALICE, "k") is None
    assert store.search(ALICE) == []
    assert store.search(ALICE, query="Alice gym Main Street") == []
    store.delete(ALICE, "k")  # deleting what is gone is no error
    assert store.restore(ALICE, "k").value["content"] == "Alice's gym is on Main Street"
    assert store.get(ALICE, "k") is not None


def test_put_none_deletes(store):
    store.put(ALICE, "k", {"content": "Alice owns a red bicycle"})
    store.batch([PutOp(ALICE, "k", None)])
    assert store.get(ALICE, "k") is None


def test_a_restated_memory_is_not_a_second_live_copy(store):
    store.put(ALICE, "a", {"content": "Alice is allergic to peanuts"})
    store.put(ALICE, "b", {"content": "Alice is allergic to peanuts"})
    assert len(store.search(ALICE)) == 1
    assert store.get(ALICE, "b").value["content"] == "Alice is allergic to peanuts"


# ---- search -------------------------------------------------------------------------------------


def _seed(store, clock):
    rows = [
        (
            "k1",
            {"content": "Alice is allergic to peanuts", "type": "profile", "subject": "allergy"},
        ),
        ("k2", {"content": "Alice prefers window seats on trains", "type": "preference"}),
        ("k3", {"content": "爱丽丝的妹妹安娜是护士", "type": "fact"}),
        ("k4", {"content": "Alice's project deadline is March 3", "type": "fact"}),
    ]
    for key, value in rows:
        store.put(ALICE, key, value)
        clock.advance(60)
    store.put(BOB, "b1", {"content": "Bob is allergic to peanuts"})


def test_search_with_a_query_is_recall_best_first(store, clock):
    _seed(store, clock)
    hits = store.search(ALICE, query="what am I allergic to?", limit=3)
    assert hits and all(isinstance(h, SearchItem) for h in hits)
    assert hits[0].key == "k1" and hits[0].namespace == ALICE
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all("Bob" not in h.value["content"] for h in hits)
    zh = store.search(ALICE, query="安娜是做什么的？", limit=3)
    assert zh and zh[0].key == "k3"


def test_search_without_a_query_lists_newest_first_and_pages(store, clock):
    _seed(store, clock)
    keys = [i.key for i in store.search(ALICE, limit=10)]
    assert keys == ["k4", "k3", "k2", "k1"]
    assert all(i.score is None for i in store.search(ALICE))
    assert [i.key for i in store.search(ALICE, limit=2, offset=1)] == ["k3", "k2"]


def test_search_filters_on_the_value(store, clock):
    _seed(store, clock)
    assert [i.key for i in store.search(ALICE, filter={"type": "fact"})] == ["k4", "k3"]
    assert [i.key for i in store.search(ALICE, filter={"type": {"$ne": "fact"}})] == ["k2", "k1"]
    hits = store.search(ALICE, query="peanuts allergy", filter={"subject": "allergy"})
    assert [h.key for h in hits] == ["k1"]
    assert store.search(ALICE, filter={"content": {"$gt": "B"}})[0].key == "k3"
    with pytest.raises(ValidationError, match=r"filter\.type: unknown operator '\$in'"):
        store.search(ALICE, filter={"type": {"$in": ["fact"]}})


def test_a_search_must_name_the_user(store, clock):
    _seed(store, clock)
    with pytest.raises(
        InvalidNamespaceError,
        match=r"names the user, found \(.memories.,\) \(no query crosses users\)",
    ):
        store.search(("memories",), query="peanuts")
    with pytest.raises(InvalidNamespaceError, match=r"expected \('memories', '\{user_id\}'\)"):
        store.get(("notes", "alice"), "k1")


# ---- list_namespaces ----------------------------------------------------------------------------


def test_list_namespaces_with_prefix_suffix_and_depth(mw):
    store = OpenClawStore(mw, namespace=("{user_id}", "{agent_id}", "memories"))
    for ns in [
        ("alice", "main", "memories"),
        ("alice", "coder", "memories"),
        ("bob", "main", "memories"),
    ]:
        store.put(ns, "k", {"content": f"{ns[0]} uses the {ns[1]} agent"})
    everything = store.list_namespaces()
    assert everything == [
        ("alice", "coder", "memories"),
        ("alice", "main", "memories"),
        ("bob", "main", "memories"),
    ]
    assert store.list_namespaces(prefix=("alice",)) == everything[:2]
    assert store.list_namespaces(suffix=("main", "memories")) == [everything[1], everything[2]]
    assert store.list_namespaces(prefix=("*", "main")) == [everything[1], everything[2]]
    assert store.list_namespaces(max_depth=1) == [("alice",), ("bob",)]
    assert store.list_namespaces(limit=1, offset=1) == [everything[1]]
    assert (
        store.get(("alice", "coder", "memories"), "k").value["content"]
        == "alice uses the coder agent"
    )


def test_without_an_agent_label_namespaces_are_the_stores_agent(mw):
    main = OpenClawStore(mw, agent_id="main")
    coder = OpenClawStore(mw, agent_id="coder")
    main.put(ALICE, "k", {"content": "Alice writes Rust at work"})
    assert coder.get(ALICE, "k") is None
    assert main.list_namespaces() == [ALICE] and coder.list_namespaces() == []


# ---- batch / abatch -----------------------------------------------------------------------------


def test_batch_runs_mixed_ops_in_order(store, clock):
    results = store.batch(
        [
            PutOp(ALICE, "k1", {"content": "Alice is allergic to peanuts"}),
            GetOp(ALICE, "k1"),
            PutOp(ALICE, "k2", {"content": "Alice lives in Lyon", "type": "profile"}),
            SearchOp(ALICE, query="where does Alice live?", limit=1),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("memories",)),)),
            GetOp(BOB, "k1"),
        ]
    )
    assert results[0] is None and results[2] is None
    assert results[1].value["content"] == "Alice is allergic to peanuts"
    assert [i.key for i in results[3]] == ["k2"]
    assert results[4] == [ALICE]
    assert results[5] is None


def test_abatch_and_the_async_methods(store):
    async def go():
        await store.aput(ALICE, "k", {"content": "爱丽丝喜欢喝乌龙茶", "type": "preference"})
        got = await store.aget(ALICE, "k")
        found = await store.asearch(ALICE, query="爱丽丝喜欢喝什么茶？")
        spaces = await store.alist_namespaces()
        both = await store.abatch([GetOp(ALICE, "k"), GetOp(BOB, "k")])
        await store.adelete(ALICE, "k")
        return got, found, spaces, both, await store.aget(ALICE, "k")

    got, found, spaces, both, gone = asyncio.run(go())
    assert got.value["content"] == "爱丽丝喜欢喝乌龙茶" and found[0].key == "k"
    assert spaces == [ALICE] and both[0] == got and both[1] is None and gone is None


# ---- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, message",
    [
        ({"text": "Alice likes tea"}, r"value\.text: unknown field"),
        ({"content": "   "}, r"value\.content: expected a non-empty string"),
        ({"content": "Alice likes tea", "type": "gossip"}, r"value\.type: expected one of"),
        ({"content": "Alice likes tea", "type": "episode"}, r"value\.type: expected one of"),
        ({"content": "Alice likes tea", "subject": 3}, r"value\.subject: expected"),
        ({"content": "my password is hunter2-Secret!"}, r"value\.content: looks like a secret"),
    ],
)
def test_a_bad_value_is_refused_by_name_and_nothing_is_stored(store, value, message):
    store.put(ALICE, "kept", {"content": "Alice likes jasmine tea"})
    with pytest.raises(ValidationError, match=message):
        store.put(ALICE, "bad", value)
    assert store.get(ALICE, "bad") is None
    assert [i.key for i in store.search(ALICE)] == ["kept"]


def test_an_update_keeps_the_type(store):
    store.put(ALICE, "k", {"content": "Alice likes tea", "type": "preference"})
    with pytest.raises(ValidationError, match=r"value\.type: memory .* is a preference"):
        store.put(ALICE, "k", {"content": "Alice likes coffee", "type": "fact"})
    assert store.get(ALICE, "k").value["content"] == "Alice likes tea"


def test_a_bad_template_or_middleware_is_refused(mw):
    with pytest.raises(ValidationError, match=r"namespace: expected a tuple of labels holding"):
        OpenClawStore(mw, namespace=("memories",))
    with pytest.raises(ValidationError, match="middleware: expected a MemoryMiddleware"):
        OpenClawStore(object())  # type: ignore[arg-type]


# ---- a graph over two threads -------------------------------------------------------------------

FACTS = {
    "en": ("I am allergic to peanuts", "What am I allergic to?", "peanuts"),
    "zh": ("我对花生过敏", "我对什么过敏？", "花生"),
}


class State(TypedDict, total=False):
    remember: str
    ask: str
    recalled: list[str]


def _graph(store: BaseStore):
    def chat(state: State, config: RunnableConfig, *, store: BaseStore) -> State:
        namespace = ("memories", config["configurable"]["user_id"])
        if state.get("remember"):
            store.put(
                namespace,
                f"note-{config['configurable']['thread_id']}",
                {"content": state["remember"]},
            )
        hits = store.search(namespace, query=state.get("ask") or state.get("remember", ""), limit=3)
        return {"recalled": [h.value["content"] for h in hits]}

    builder = StateGraph(State).add_node(chat).add_edge(START, "chat")
    return builder.compile(checkpointer=InMemorySaver(), store=store)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_what_thread_one_stored_is_found_in_thread_two(store, lang):
    fact, question, word = FACTS[lang]
    graph = _graph(store)

    def config(thread: str, user: str = "alice") -> dict:
        return {"configurable": {"thread_id": thread, "user_id": user}}

    graph.invoke({"remember": fact}, config("1"))
    out = graph.invoke({"ask": question}, config("2"))
    assert any(word in text for text in out["recalled"]), out
    assert graph.get_state(config("2")).values.get("remember") is None  # thread 2 never saw it
    other = graph.invoke({"ask": question}, config("3", user="bob"))
    assert other["recalled"] == []


def test_the_documented_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the example's store ("ocm-data") goes there
    text = (REPO / "docs" / "integrations.md").read_text(encoding="utf-8")
    section = text.split("### LangGraph store", 1)[1].split("\n## ", 1)[0]
    code = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    namespace: dict = {"__name__": "__readme__"}
    exec(compile(code, "docs/integrations.md (LangGraph store)", "exec"), namespace)
    assert namespace["out"]["recalled"] == ["Remember that I am allergic to peanuts"]


@pytest.mark.slow  # the example run whole, about 15 s
def test_the_example_finds_thread_ones_memory_in_thread_two(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "OCM_DATA_DIR": str(tmp_path / "data")}
    out = subprocess.run(
        [sys.executable, str(REPO / "examples" / "langgraph_store.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    assert (
        "alice / thread 2 / ask: What am I allergic to?\n    recalled: ['I am allergic to peanuts']"
        in out
    )
    assert "wang / thread 4 / ask: 我对什么过敏？\n    recalled: ['我对花生过敏']" in out
    assert "bob / thread 5 / ask: What am I allergic to?\n    recalled: []" in out


def test_a_memory_from_another_door_is_an_item_keyed_by_its_id(store):
    scope = store.scope_of(ALICE)
    written = store.mw.remember(scope, "I prefer aisle seats", type="preference")
    (item,) = store.search(ALICE)
    assert item.key == written.record.id and item.value["content"] == "I prefer aisle seats"
    assert store.get(ALICE, item.key).value == item.value
    store.put(ALICE, item.key, {"content": "I prefer window seats", "type": "preference"})
    assert store.get(ALICE, item.key).value["content"] == "I prefer window seats"
    store.delete(ALICE, item.key)
    assert store.search(ALICE) == []


def test_abatch_does_not_hold_up_the_event_loop(store):
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
        await store.aput(ALICE, "k", {"content": "Alice is learning Japanese"})
        await store.asearch(ALICE, query="what is Alice learning?")
        during = ticks - before
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return during

    assert asyncio.run(go()) > 10  # the loop kept turning while we wrote and recalled


def test_a_shorter_prefix_that_names_the_user_searches_all_their_agents(mw, clock):
    store = OpenClawStore(mw, namespace=("{user_id}", "{agent_id}", "memories"))
    store.put(("alice", "main", "memories"), "a", {"content": "Alice drinks oolong tea"})
    clock.advance(60)
    store.put(("alice", "coder", "memories"), "b", {"content": "Alice writes Rust for tea robots"})
    store.put(("bob", "main", "memories"), "c", {"content": "Bob drinks green tea"})
    listed = store.search(("alice",))
    assert [(i.namespace, i.key) for i in listed] == [
        (("alice", "coder", "memories"), "b"),
        (("alice", "main", "memories"), "a"),
    ]
    hits = store.search(("alice",), query="what tea does Alice drink?")
    assert {h.key for h in hits} <= {"a", "b"} and hits[0].key == "a"
    assert [i.key for i in store.search(("alice", "main"))] == ["a"]
    for bad in [(), ("*",)]:
        with pytest.raises(InvalidNamespaceError, match="names the user"):
            store.search(bad)
