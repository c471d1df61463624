"""POST /v1/process-event (deterministic process nodes) and the deep option of /v1/memory/search,
against the real middleware."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from openclaw_memory.maintain.runner import enforce_cap
from openclaw_memory.middleware import MemoryMiddleware
from openclaw_memory.service.app import create_app
from openclaw_memory.store import inspect
from openclaw_memory.types import Scope
from store_helpers import find

TOKEN = "pe-token"
AUTH = {"authorization": f"Bearer {TOKEN}"}
ALICE = {"user_id": "alice", "agent_id": "main"}


@pytest.fixture
def service(tmp_path):
    mw = MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"}}
    )
    with TestClient(create_app(mw, token=TOKEN), base_url="http://127.0.0.1") as client:
        yield mw, client
    mw.close()


def post(client, path, body, status=200):
    resp = client.post(path, json=body, headers=AUTH)
    assert resp.status_code == status, resp.text
    return resp.json()


@pytest.mark.parametrize(
    "subject,status,summary,kind",
    [
        ("release 2.0", "blocked", "waiting for the security review", "blocked"),
        ("发布 2.0", "done", "已经上线", "done"),
    ],
)
def test_a_process_event_updates_the_task_and_a_blocked_one_warns(
    service, subject, status, summary, kind
):
    mw, client = service
    out = post(
        client, "/v1/process-event", {"scope": ALICE, "subject": subject, "status": "in_progress"}
    )
    first = out["results"][0]["memory"]
    out = post(
        client,
        "/v1/process-event",
        {
            "scope": ALICE,
            "subject": subject,
            "status": status,
            "summary": summary,
            "session_id": "agent:main:s1",
        },
    )
    task = out["results"][0]["memory"]
    assert task["type"] == "task" and task["subject"] == subject and summary in task["summary"]
    assert (
        task["source"]["writer"] == "process-node"
        and task["source"]["session_id"] == "agent:main:s1"
    )
    assert first["id"] in (task["id"], task["prev_id"])  # one task, updated: not a second live copy
    live = find(mw.engine, Scope("alice", "main"), status="active", type="task")
    assert [r.subject for r in live] == [subject]
    warnings = [r["memory"] for r in out["results"][1:]]
    assert [w["type"] for w in warnings] == (["event"] if kind == "blocked" else [])


def test_process_events_are_filtered_for_secrets_in_every_field(service):
    mw, client = service
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
    out = post(
        client,
        "/v1/process-event",
        {
            "scope": ALICE,
            "subject": f"rotate {key}",
            "status": "blocked",
            "summary": "login with password: Hunter2-Xy9!",
            "reason": f"token {key} expired",
        },
    )
    texts = [r["memory"]["summary"] + str(r["memory"]["subject"]) for r in out["results"]]
    assert texts and not any(key in t or "Hunter2-Xy9!" in t for t in texts), texts
    dump = "\n".join(str(tuple(row.values())) for row in inspect.select(mw.engine.store, "records"))
    assert key not in dump and "Hunter2-Xy9!" not in dump


@pytest.mark.parametrize(
    "body,field",
    [
        ({"scope": ALICE, "subject": "x"}, "status"),
        ({"scope": ALICE, "subject": "", "status": "done"}, "subject"),
        ({"scope": ALICE, "subject": "x", "status": "done", "priority": 1}, "priority"),
        ({"subject": "x", "status": "done"}, "scope"),
    ],
)
def test_a_bad_process_event_names_the_field(service, body, field):
    _, client = service
    out = post(client, "/v1/process-event", body, status=422)
    assert field in out["message"]


def test_search_reaches_the_archive_only_when_deep(service):
    mw, client = service
    scope = Scope("alice", "main")
    rec = mw.remember(scope, "I used to play the cello in school", type="fact").record
    enforce_cap(mw.maintenance, scope, cap=0)  # archived: out of normal recall
    mw.flush(timeout=10)
    normal = post(client, "/v1/memory/search", {"scope": ALICE, "query": "cello school"})[
        "memories"
    ]
    deep = post(
        client, "/v1/memory/search", {"scope": ALICE, "query": "cello school", "deep": True}
    )["memories"]
    assert rec.id not in {m["id"] for m in normal}
    assert [(m["id"], m["status"]) for m in deep if m["id"] == rec.id] == [(rec.id, "archived")]
    bad = post(
        client,
        "/v1/memory/search",
        {"scope": ALICE, "query": "cello", "deep": "sometimes"},
        status=422,
    )
    assert "deep" in bad["message"]
