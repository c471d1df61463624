"""A LangGraph graph with long-term memory: our store, shared by the threads of one user.

    pip install 'openclaw-memory[langgraph]'
    python examples/langgraph_store.py           # the hashing embedder: offline

A node takes `store` (LangGraph injects it) and the user id from the run's config: it stores
what the user asks it to remember and searches the user's memory for every message. What thread
1 stored is found in thread 2; another user finds nothing. English and Chinese.
"""

from __future__ import annotations

import os
import sys
import tempfile
from typing import TypedDict
from uuid import uuid4

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.store.base import BaseStore

from openclaw_memory import build_middleware, config_from_dict
from openclaw_memory.adapters.langgraph import OpenClawStore

THREADS = [
    ("alice", "1", "remember", "I am allergic to peanuts"),
    ("alice", "2", "ask", "What am I allergic to?"),
    ("wang", "3", "remember", "我对花生过敏"),
    ("wang", "4", "ask", "我对什么过敏？"),
    ("bob", "5", "ask", "What am I allergic to?"),
]


class State(TypedDict, total=False):
    remember: str
    ask: str
    recalled: list[str]


def chat(state: State, config: RunnableConfig, *, store: BaseStore) -> State:
    namespace = ("memories", config["configurable"]["user_id"])
    if state.get("remember"):
        store.put(namespace, str(uuid4()), {"content": state["remember"]})
    query = state.get("ask") or state.get("remember") or ""
    return {"recalled": [hit.value["content"] for hit in store.search(namespace, query=query)]}


def main() -> int:
    data_dir = os.environ.get("OCM_DATA_DIR") or tempfile.mkdtemp(prefix="ocm-langgraph-")
    mw = build_middleware(
        config_from_dict({"storage": {"data_dir": data_dir, "embedding_model": "hash"}})
    )
    store = OpenClawStore(mw)  # namespaces ("memories", user_id)
    builder = StateGraph(State).add_node(chat).add_edge(START, "chat")
    graph = builder.compile(checkpointer=InMemorySaver(), store=store)
    try:
        for user, thread, verb, text in THREADS:
            config = {"configurable": {"thread_id": thread, "user_id": user}}
            out = graph.invoke({verb: text}, config)
            print(f"{user} / thread {thread} / {verb}: {text}\n    recalled: {out['recalled']}")
        print("namespaces:", store.list_namespaces())
    finally:
        mw.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
