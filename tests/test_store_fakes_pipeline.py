"""The whole pipeline on the fakes: the middleware over the in-memory record store and the
numpy vector index captures and recalls as it does over SQLite and Chroma, so a stage test can
run without files (and a backend that passes the contract suite can take SQLite's place)."""

from __future__ import annotations

import pytest

from openclaw_memory.embed.embedding import build_embedder, embedder_dim, embedder_name
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.runtime.factory import _extractor, assemble
from openclaw_memory.middleware import ChatRequest
from openclaw_memory.store.memory import MemoryStore
from openclaw_memory.store.tiered_index import NumpyIndex
from openclaw_memory.types import Scope

ALICE, BOB = Scope("alice", "main"), Scope("bob", "main")
SYSTEM = {"role": "system", "content": "You are helpful."}
TALK = [
    (ALICE, "请记住：我对花生过敏"),
    (ALICE, "Remember that my project codename is Falcon"),
    (ALICE, "我平时喝乌龙茶"),
    (ALICE, "I work at Globex as a data engineer"),
    (BOB, "请记住：我的狗叫豆豆"),
    (ALICE, "以后回答请用中文"),
    (ALICE, "我现在改喝绿茶了，不喝乌龙茶了"),
]
QUESTIONS = [
    (ALICE, "推荐几道川菜"),
    (ALICE, "what is my project called?"),
    (ALICE, "我平时喝什么茶？"),
    (ALICE, "where do I work?"),
    (ALICE, "what is the capital of France?"),
    (BOB, "我的狗叫什么？"),
    (BOB, "what is my project called?"),
]


def _middleware(engine, cfg):
    return assemble(engine, cfg, extractor=_extractor(engine, cfg, None))


def _run(mw):
    for n, (scope, text) in enumerate(TALK):
        req = ChatRequest(scope, f"s{n}", [SYSTEM, {"role": "user", "content": text}])
        mw.before_request(req)
        mw.after_response(req, "ok, noted.")
        mw.flush()
    out = []
    for scope, text in QUESTIONS:
        res = mw.before_request(
            ChatRequest(scope, "q", [SYSTEM, {"role": "user", "content": text}])
        )
        out.append(res.messages[1]["content"] if len(res.messages) > 2 else "")
    return out


@pytest.fixture
def injected_on_sqlite(make_config, tmp_path, clock):
    cfg = make_config(tmp_path / "real")
    mw = _middleware(MemoryEngine.open(cfg, clock=clock, background=False), cfg)
    try:
        yield _run(mw)
    finally:
        mw.close()


def test_the_fakes_inject_what_sqlite_and_chroma_inject(
    injected_on_sqlite, make_config, tmp_path, clock
):
    cfg = make_config(tmp_path / "fake")
    emb = build_embedder(cfg.storage.embedding_model)
    index = NumpyIndex(embedder_name(emb), embedder_dim(emb))
    engine = MemoryEngine(cfg, MemoryStore(), index, emb, clock, background=False)
    mw = _middleware(engine, cfg)
    try:
        injected = _run(mw)
    finally:
        mw.close()
    assert any("花生" in text for text in injected)  # the suite saw memories, not empty plans
    assert "豆豆" in injected[5] and "Falcon" not in injected[6]  # one user's memory stays theirs
    assert injected == injected_on_sqlite
    assert not (tmp_path / "fake").exists()  # nothing was written to disk
