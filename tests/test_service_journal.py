"""The capture journal (service/app.py): a write answered 202 is on disk first, without its
secrets, taken once per capture id, replayed once after a crash, and cleared by a purge."""

from __future__ import annotations

import stat
import threading

import pytest
from fastapi.testclient import TestClient

from openclaw_memory.middleware import MemoryMiddleware
from openclaw_memory.service.app import create_app
from openclaw_memory.store.capture_journal import FILE_NAME, CaptureJournal
from openclaw_memory.service.server import replay_journal
from openclaw_memory.types import Scope
from openclaw_memory.core.worker import Job

TOKEN = "journal-token"
#: the journal is replayed into the store a restarted service opens: the SQLite file
pytestmark = pytest.mark.real_store("a restarted service reopens the SQLite file")
AUTH = {"authorization": f"Bearer {TOKEN}"}
ALICE = {"user_id": "alice", "agent_id": "main"}
SECRET = "sk-proj-Zq8Xw2Lm4Np6Rt1Vb3Yc5Kd7Hf9Gj0Qa2Ws4Ed6Rf8"


def _middleware(data_dir) -> MemoryMiddleware:
    return MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(data_dir), "embedding_model": "hash"}}
    )


@pytest.fixture
def served(tmp_path):
    mw = _middleware(tmp_path / "data")
    journal = CaptureJournal(tmp_path / "data" / FILE_NAME)
    app = create_app(mw, token=TOKEN, journal=journal)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield client, mw, journal
    mw.close()
    journal.close()


def _capture(text: str, capture_id: str | None = None, turn: str = "m1") -> dict:
    body = {
        "scope": ALICE,
        "session_id": "s1",
        "messages": [
            {"role": "user", "content": text, "id": turn},
            {"role": "assistant", "content": "Noted."},
        ],
    }
    return body if capture_id is None else {**body, "capture_id": capture_id}


def _user_rows(mw, needle: str) -> int:
    return sum(
        1
        for r in mw.engine.store.window_messages(Scope("alice", "main"), "s1")
        if needle in r["content"] and r["role"] == "user"
    )


def test_a_resent_capture_id_is_taken_once_and_the_journal_keeps_no_secret(served, tmp_path):
    client, mw, journal = served
    path = tmp_path / "data" / FILE_NAME
    gate = threading.Event()  # the worker is held: the capture is queued, only the journal has it
    mw.worker.submit(Job(Scope("hold", "main"), gate.wait, "hold", barrier=False))
    text = f"The spare key is under the blue pot; my OpenAI key is {SECRET}"
    first = client.post("/v1/capture", json=_capture(text, "cap-1"), headers=AUTH)
    again = client.post("/v1/capture", json=_capture(text, "cap-1", turn="m2"), headers=AUTH)
    assert first.status_code == 202 and first.json() == {"queued": 1}
    assert again.status_code == 202 and again.json() == {"queued": 0, "duplicate": True}
    raw = b"".join(p.read_bytes() for p in path.parent.glob(FILE_NAME + "*"))
    assert b"blue pot" in raw and SECRET.encode() not in raw  # journaled, redacted
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    gate.set()
    mw.flush(timeout=10)
    assert _user_rows(mw, "blue pot") == 1
    assert journal.pending() == []
    raw = b"".join(p.read_bytes() for p in path.parent.glob(FILE_NAME + "*"))
    assert b"blue pot" not in raw  # done: the body is erased


def test_what_was_journaled_and_not_done_is_replayed_once(tmp_path):
    """A process that journaled a capture and died before its worker ran it: the next start
    replays it, and a start after that finds nothing left to do."""
    data = tmp_path / "data"
    journal = CaptureJournal(data / FILE_NAME)
    body = _capture("I moved to Porto last spring 我去年春天搬到了波尔图")
    assert journal.add("cap-9", "/v1/capture", Scope("alice", "main"), body)
    journal.close()  # the crash: journaled, never queued
    for expected in (1, 0):
        mw = _middleware(data)
        journal = CaptureJournal(data / FILE_NAME)
        try:
            assert replay_journal(journal, mw) == expected
            mw.flush(timeout=10)
            assert _user_rows(mw, "Porto") == 1
            assert journal.pending() == []
        finally:
            mw.close()
            journal.close()


def test_a_purge_clears_the_users_journaled_writes(served, tmp_path):
    client, mw, journal = served
    # the worker is held, so the capture is still queued when the purge comes
    gate = threading.Event()
    mw.worker.submit(Job(Scope("hold", "main"), gate.wait, "hold", barrier=False))
    resp = client.post("/v1/capture", json=_capture("my gym locker is number 88"), headers=AUTH)
    assert resp.status_code == 202 and len(journal.pending()) == 1
    mw.purge_user("alice")
    gate.set()
    mw.flush(timeout=10)
    assert journal.pending() == []
    raw = b"".join(p.read_bytes() for p in (tmp_path / "data").glob(FILE_NAME + "*"))
    assert b"gym locker" not in raw
    assert _user_rows(mw, "gym locker") == 0


@pytest.mark.parametrize(
    ("route", "extra"),
    [
        ("/v1/tool-event", {"tool": "shell", "arguments": {"argv": ["--password", "Pw-9!x"]}}),
        ("/v1/session/end", {"reason": "new"}),
        ("/v1/session/compact", {"messages": [{"role": "user", "content": "记住我住在杭州"}]}),
    ],
)
def test_every_queued_route_is_journaled_and_done(served, route, extra):
    client, mw, journal = served
    body = {"scope": ALICE, "session_id": "s1", "capture_id": f"id-{route[4:8]}", **extra}
    first = client.post(route, json=body, headers=AUTH)
    again = client.post(route, json=body, headers=AUTH)
    assert first.status_code == 202 and "duplicate" not in first.json(), first.text
    assert again.status_code == 202 and again.json()["duplicate"] is True
    mw.flush(timeout=10)
    assert journal.pending() == []


#: two exchanges, English and Chinese, that the rule summarizer keeps a summary of
EXCHANGES = [
    {"role": "user", "content": "We decided to ship the release next Friday", "id": "m1"},
    {"role": "assistant", "content": "Noted: release next Friday."},
    {"role": "user", "content": "我们决定下周五发布, 负责人是小王", "id": "m2"},
    {"role": "assistant", "content": "好的, 下周五发布, 小王负责。"},
]
#: a request of each queued route that writes one memory of its own (a tool event, a summary)
ONE_MEMORY = {
    "/v1/tool-event": ({"tool": "shell", "arguments": {"argv": ["pytest", "-q"]}}, "event"),
    "/v1/session/end": ({"reason": "end"}, "summary"),
    "/v1/session/compact": ({"messages": EXCHANGES}, "summary"),
}


def _count(data, kind: str) -> int:
    from openclaw_memory.store import inspect
    from openclaw_memory.store.sqlite import SQLiteStore

    store = SQLiteStore.open(data / "memory.db")
    try:
        return inspect.count(store, "records", user_id="alice", type=kind)
    finally:
        store.close()


def _start(data, expected: int) -> None:
    """One service start: the journal replayed (expected writes), the worker drained."""
    mw = _middleware(data)
    journal = CaptureJournal(data / FILE_NAME)
    try:
        assert replay_journal(journal, mw) == expected
        mw.flush(timeout=10)
    finally:
        mw.close()
        journal.close()


@pytest.mark.parametrize("crash", ["before-its-jobs", "after-its-jobs-before-done"])
@pytest.mark.parametrize("route", list(ONE_MEMORY))
def test_a_replayed_tool_event_or_summary_is_stored_once(tmp_path, monkeypatch, route, crash):
    """A process that died with the write journaled, before or after its jobs ran (the done-mark
    not yet written): every later start stores the tool event or summary once in all."""
    data = tmp_path / "data"
    extra, kind = ONE_MEMORY[route]
    if route == "/v1/session/end":  # a window to summarize
        mw = _middleware(data)
        scope = Scope("alice", "main")
        mw.capture_messages(scope, "s1", EXCHANGES)
        mw.flush(timeout=10)
        mw.close()
    journal = CaptureJournal(data / FILE_NAME)
    body = {"scope": ALICE, "session_id": "s1", **extra}
    assert journal.add("cap-7", route, Scope("alice", "main"), body)
    journal.close()
    if crash == "after-its-jobs-before-done":
        with monkeypatch.context() as patch:
            patch.setattr(CaptureJournal, "done", lambda self, capture_id: None)
            _start(data, 1)  # the jobs ran, the done-mark never did
        assert _count(data, kind) == 1
    for expected in (1, 0):  # replayed once more, then nothing left
        _start(data, expected)
        assert _count(data, kind) == 1


def test_the_same_tool_call_made_twice_is_two_events(served, tmp_path):
    """The key is the request's, not its content: two calls alike are two events."""
    client, mw, journal = served
    body = {"scope": ALICE, "session_id": "s1", **ONE_MEMORY["/v1/tool-event"][0]}
    for capture_id in ("call-1", "call-2"):
        resp = client.post("/v1/tool-event", json={**body, "capture_id": capture_id}, headers=AUTH)
        assert resp.status_code == 202 and "duplicate" not in resp.json()
    mw.flush(timeout=10)
    assert _count(tmp_path / "data", "event") == 2


def test_a_candidate_with_a_key_is_written_once_per_scope(tmp_path):
    """The consolidation side of the key: the second write of it is a skip that returns the
    record the first one made (no insert tried again), and another user's same key is theirs."""
    from openclaw_memory.types import Candidate, Channel, MemoryType

    mw = _middleware(tmp_path / "data")
    try:
        cand = Candidate(
            MemoryType.EVENT, "ran pytest: 3 passed", channel=Channel.TOOL, key="k1:event"
        )
        alice, bob = Scope("alice", "main"), Scope("bob", "main")
        [first] = mw.writer.write(alice, [cand])
        [again] = mw.writer.write(alice, [cand])
        [other] = mw.writer.write(bob, [cand])
    finally:
        mw.close()
    assert first.action == "insert" and again.action == "skip" and "replay" in again.reason
    assert again.record is not None and again.record.id == first.record.id
    assert other.action == "insert" and other.record.id != first.record.id
