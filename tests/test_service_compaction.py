"""A compaction through the HTTP route of the real service app writes its summary record and a
log line per step, also right after a summary of a long session emptied the recent window."""

from __future__ import annotations

import logging

from fastapi.testclient import TestClient

from openclaw_memory.middleware import MemoryMiddleware
from openclaw_memory.service.app import create_app
from openclaw_memory.types import MemoryType, Scope

AUTH = {"authorization": "Bearer t"}
ME = {"user_id": "mei", "agent_id": "main"}
KEY = "agent:main:long"
TURNS = [
    ("We decided to move to Lisbon next spring.", "Good luck with the move."),
    ("我女儿Lina今年七岁，下个月上小学。", "好的。"),
    ("I still have to sell the car before we move.", "Noted."),
    ("我们决定租阿尔法玛的那套公寓。", "好的，记下了。"),
]


def _summaries(mw, writer: str) -> list:
    rows = mw.engine.store.listing(Scope("mei", "main"), status=None, type_="summary", limit=50)
    return [r for r in rows if r.type is MemoryType.SUMMARY and r.source.writer == writer]


def test_a_compaction_right_after_a_window_summary_still_writes_its_summary(tmp_path, caplog):
    # a tiny threshold: every capture summarizes the window, as a long session does every few turns
    mw = MemoryMiddleware.from_config(
        overrides={
            "storage": {"data_dir": str(tmp_path), "embedding_model": "hash"},
            "short_term": {"summary_threshold": 10},
        }
    )
    messages: list[dict] = []
    try:
        with TestClient(create_app(mw, token="t"), base_url="http://127.0.0.1") as client:
            for i, (user, reply) in enumerate(TURNS):
                messages += [
                    {"role": "user", "content": user, "timestamp": 10 * i + 1},
                    {"role": "assistant", "content": reply, "timestamp": 10 * i + 2},
                ]
                body = {"scope": ME, "session_id": KEY, "prompt": user}
                assert client.post("/v1/recall", json=body, headers=AUTH).status_code == 200
                body = {"scope": ME, "session_id": KEY, "messages": messages}
                assert client.post("/v1/capture", json=body, headers=AUTH).status_code == 202
                mw.flush(timeout=20)
            assert _summaries(mw, "summary-hook:threshold")  # the window was just summarized
            caplog.clear()
            with caplog.at_level(logging.INFO, logger="openclaw_memory"):
                # OpenClaw's before_compaction names no sender: the scope has the agent only
                body = {"scope": {"agent_id": "main"}, "session_id": KEY, "messages": messages}
                resp = client.post("/v1/session/compact", json=body, headers=AUTH)
                assert resp.status_code == 202 and resp.json()["users"] == 1
                mw.flush(timeout=20)
        written = _summaries(mw, "summary-hook:compaction")
        assert len(written) == 1, "the compaction wrote no summary record"
        assert "Lisbon" in written[0].text or "阿尔法玛" in written[0].text
    finally:
        mw.close()
    lines = [r.getMessage() for r in caplog.records]
    assert any("1 person(s) spoke in it" in line for line in lines), lines
    assert any("summary queued" in line for line in lines), lines
    assert any("compaction summary of agent:main:long for mei: insert" in line for line in lines)


def test_a_compaction_of_a_session_nobody_spoke_in_says_so(tmp_path, caplog):
    mw = MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"}}
    )
    try:
        with TestClient(create_app(mw, token="t"), base_url="http://127.0.0.1") as client:
            with caplog.at_level(logging.INFO, logger="openclaw_memory"):
                body = {"scope": {"agent_id": "main"}, "session_id": "agent:main:nobody"}
                resp = client.post("/v1/session/compact", json=body, headers=AUTH)
    finally:
        mw.close()
    assert resp.status_code == 202 and resp.json()["users"] == 0
    assert any("nobody to summarize for" in r.getMessage() for r in caplog.records)
