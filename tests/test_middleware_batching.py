"""Captures queued together are prepared together: one embedding call for the worker's batch,
and the same records, versions and audit trail as captures run one at a time."""

from __future__ import annotations

import threading

from llama_index.core.bridge.pydantic import PrivateAttr

from openclaw_memory.embed.embedding import HashEmbedding
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.middleware import ChatRequest
from openclaw_memory.types import Scope
from openclaw_memory.core.worker import Job
from openclaw_memory.store import inspect

SYSTEM = {"role": "system", "content": "You are helpful."}
TURNS = [  # (user, session, text): restatements, a change, a forget, chat, Chinese and English
    ("alice", "a1", "Remember that my cat is called Miso"),
    ("bob", "b1", "请记住：我喜欢喝乌龙茶"),
    ("alice", "a1", "I prefer green tea in the morning"),
    ("carol", "c1", "The staging database moved to host db2 last week"),
    ("alice", "a1", "I prefer green tea in the morning"),
    ("bob", "b1", "请记住：我不喜欢喝乌龙茶"),
    ("alice", "a2", "forget that my cat is called Miso"),
    ("carol", "c1", "thanks!"),
    ("carol", "c1", "Remember that I review pull requests after lunch"),
]


class CountingEmbedder(HashEmbedding):
    """The hashing embedder, recording the size of each passage batch it embeds."""

    _batches: list = PrivateAttr(default_factory=list)
    _fail_first: bool = PrivateAttr(default=False)

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        if self._fail_first:
            self._fail_first = False
            raise RuntimeError("embedder down for a moment")
        self._batches.append(len(texts))
        return [self._vec(t) for t in texts]


def _run(config, clock, *, together: bool, fail_first: bool = False):
    embedder = CountingEmbedder(embed_batch_size=256)
    mw = build_middleware(config, clock=clock, embedder=embedder)
    mw.flush()
    embedder._batches.clear()
    embedder._fail_first = fail_first
    gate = threading.Event()
    if together:  # a busy worker: the captures queue up and run as one batch
        mw.worker.submit(Job(Scope("gate"), lambda: gate.wait(30), "gate"))
    try:
        for user, session, text in TURNS:
            req = ChatRequest(
                Scope(user, "main"), session, [SYSTEM, {"role": "user", "content": text}]
            )
            mw.after_response(req, "ok, noted.")
            if not together:
                mw.flush()
        gate.set()
        mw.flush()
        return _state(mw), list(embedder._batches), mw.worker.failures
    finally:
        gate.set()
        mw.close()


def _state(mw) -> dict:
    """Everything stored, with record ids replaced by their order of creation."""
    store = mw.engine.store
    rows = inspect.select(store, "records")
    vectors = {
        v["record_id"]: v["vec"] for v in inspect.select(store, "vectors", ("record_id", "vec"))
    }
    names = {r["id"]: f"#{n}" for n, r in enumerate(rows)}

    def plain(value):
        if hasattr(value, "tobytes"):  # a vector the in-memory store holds as an array
            return value.tobytes()
        for rid, name in names.items():
            value = value.replace(rid, name) if isinstance(value, str) else value
        return value

    skip = {
        "rid",
        "id",
        "created_at",
        "updated_at",
        "last_accessed_at",
        "superseded_at",
        "expires_at",
    }
    records = [
        {k: plain(v) for k, v in {**r, "vec": vectors.get(r["id"])}.items() if k not in skip}
        for r in rows
    ]
    audit = [
        (plain(a["record_id"]), a["action"], plain(a["reason"]), a["user_id"])
        for a in inspect.select(store, "audit")
    ]
    held = sorted(inspect.select(store, "versions"), key=lambda v: (v["record_id"], v["version"]))
    versions = [tuple(plain(v[k]) for k in ("record_id", "version", "summary")) for v in held]
    columns = ("user_id", "session_id", "role", "content", "in_window")
    window = [tuple(m.values()) for m in inspect.select(store, "messages", columns)]
    return {"records": records, "audit": audit, "versions": versions, "window": window}


def test_queued_captures_share_one_embedding_call_and_store_what_one_by_one_stores(
    tmp_path, make_config, clock
):
    alone, alone_batches, _ = _run(make_config(tmp_path / "alone"), clock, together=False)
    batched, batches, failures = _run(make_config(tmp_path / "batched"), clock, together=True)
    assert len(batches) == 1 and len(alone_batches) > 5
    assert batches[0] == sum(alone_batches)
    assert failures == 0
    assert batched == alone
    actions = [a[1] for a in batched["audit"]]
    assert "update" in actions and "deactivate" in actions  # restated, changed and forgotten


def test_a_failed_preparation_leaves_the_captures_to_run_one_by_one(
    tmp_path, make_config, clock, caplog
):
    alone, _, _ = _run(make_config(tmp_path / "alone"), clock, together=False)
    batched, batches, failures = _run(
        make_config(tmp_path / "batched"), clock, together=True, fail_first=True
    )
    assert "run unprepared" in caplog.text
    assert failures == 0 and len(batches) > 1
    assert batched == alone
