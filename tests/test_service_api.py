"""The HTTP bridge against the real MemoryMiddleware (hash embedder, tmp dirs)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from openclaw_memory.middleware import MemoryMiddleware
from openclaw_memory.service.app import create_app

TOKEN = "s3cret-token"
AUTH = {"authorization": f"Bearer {TOKEN}"}
ALICE = {"user_id": "alice", "agent_id": "main"}
BOB = {"user_id": "bob", "agent_id": "main"}


def _middleware(data_dir) -> MemoryMiddleware:
    return MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(data_dir), "embedding_model": "hash"}}
    )


@pytest.fixture
def mw(tmp_path):
    m = _middleware(tmp_path)
    yield m
    m.close()


@pytest.fixture
def client(mw):
    with TestClient(create_app(mw, token=TOKEN), base_url="http://127.0.0.1") as c:
        yield c


@pytest.fixture(scope="module")
def shared_mw(tmp_path_factory):
    """One middleware for the tests that never write successfully (auth, validation)."""
    m = _middleware(tmp_path_factory.mktemp("shared"))
    yield m
    m.close()


@pytest.fixture
def shared(shared_mw):
    with TestClient(create_app(shared_mw, token=TOKEN), base_url="http://127.0.0.1") as c:
        yield c


def post(client, path, body, status=200):
    resp = client.post(path, json=body, headers=AUTH)
    assert resp.status_code == status, resp.text
    return resp.json()


def remember(client, scope, text, **extra):
    return post(client, "/v1/memory/remember", {"scope": scope, "text": text, **extra})["memory"]


def test_health_needs_no_token_and_names_the_version(client):
    resp = client.get("/health")
    assert resp.status_code == 200
    body = resp.json()
    assert body["status"] == "ok"
    assert isinstance(body["version"], str) and body["version"]


ROUTES = [
    ("/v1/recall", {"scope": ALICE, "session_id": "s1", "prompt": "hi"}),
    ("/v1/memory/search", {"scope": ALICE, "query": "花生"}),
    ("/v1/memory/remember", {"scope": ALICE, "text": "I like tea"}),
    (
        "/v1/capture",
        {"scope": ALICE, "session_id": "s1", "messages": [{"role": "user", "content": "hi"}]},
    ),
]


@pytest.mark.parametrize("path,body", ROUTES)
@pytest.mark.parametrize("header", [None, "Bearer wrong", f"Basic {TOKEN}", TOKEN])
def test_v1_routes_refuse_a_missing_or_wrong_token(shared, path, body, header):
    headers = {"authorization": header} if header else {}
    resp = shared.post(path, json=body, headers=headers)
    assert resp.status_code == 401
    assert resp.headers["www-authenticate"] == "Bearer"
    assert "Authorization: Bearer" in resp.json()["message"]


def test_the_right_token_is_accepted(shared):
    resp = shared.post("/v1/memory/search", json={"scope": ALICE, "query": "tea"}, headers=AUTH)
    assert resp.status_code == 200


@pytest.mark.parametrize("token", ["", "   "])
def test_an_app_without_a_token_is_refused(shared_mw, token):
    from openclaw_memory.errors import ConfigError

    with pytest.raises(ConfigError, match="service.token"):
        create_app(shared_mw, token=token)


@pytest.mark.parametrize(
    "path,body,field",
    [
        ("/v1/recall", {"scope": ALICE, "session_id": "s1", "prompt": "x", "extra": 1}, "extra"),
        ("/v1/recall", {"session_id": "s1", "prompt": "x"}, "scope"),
        (
            "/v1/recall",
            {"scope": {"user_id": "a b"}, "session_id": "s1", "prompt": "x"},
            "scope.user_id",
        ),
        (
            "/v1/recall",
            {"scope": {**ALICE, "tenant": "t"}, "session_id": "s1", "prompt": "x"},
            "scope.tenant",
        ),
        ("/v1/recall", {"scope": ALICE, "prompt": "x"}, "session_id"),
        ("/v1/memory/search", {"scope": ALICE, "query": "x", "limit": 0}, "limit"),
        ("/v1/memory/search", {"scope": ALICE, "query": ""}, "query"),
        ("/v1/capture", {"scope": ALICE, "session_id": "s1", "messages": []}, "messages"),
        (
            "/v1/capture",
            {"scope": ALICE, "session_id": "s1", "messages": [{"role": "robot", "content": "x"}]},
            "messages.0.role",
        ),
        (
            "/v1/tool-event",
            {"scope": ALICE, "session_id": "s1", "tool": "ls", "duration_ms": -1},
            "duration_ms",
        ),
        ("/v1/memory/get", {"scope": ALICE}, "id"),
    ],
)
def test_validation_errors_are_422_and_name_the_field(shared, path, body, field):
    resp = shared.post(path, json=body, headers=AUTH)
    assert resp.status_code == 422
    out = resp.json()
    assert out["error"] == "validation_error"
    assert field in [f["field"] for f in out["fields"]]
    assert field in out["message"]


def test_a_bad_scope_id_says_what_is_expected(shared):
    resp = shared.post(
        "/v1/memory/search", json={"scope": {"user_id": "张 三"}, "query": "x"}, headers=AUTH
    )
    assert resp.status_code == 422
    assert "expected 1-128 characters" in resp.json()["message"]
    assert "张 三" in resp.json()["message"]


def test_forget_needs_exactly_one_of_id_or_query(shared):
    for body in ({"scope": ALICE}, {"scope": ALICE, "id": "m1", "query": "tea"}):
        resp = shared.post("/v1/memory/forget", json=body, headers=AUTH)
        assert resp.status_code == 422
        assert "exactly one of 'id' or 'query'" in resp.json()["message"]


@pytest.mark.parametrize(
    "body,words",
    [
        ({"text": "tea", "type": "mood"}, ["type", "mood"]),
        ({"text": "my password is hunter2-Secret!"}, ["text", "secret"]),
        ({"text": "我的密码是 hunter2-Secret!"}, ["text", "secret"]),
    ],
)
def test_middleware_validation_errors_map_to_422(shared, body, words):
    resp = shared.post("/v1/memory/remember", json={"scope": ALICE, **body}, headers=AUTH)
    assert resp.status_code == 422
    assert all(w in resp.json()["message"] for w in words), resp.json()


def test_unknown_memory_is_404(shared):
    resp = shared.post("/v1/memory/get", json={"scope": ALICE, "id": "mem_nope"}, headers=AUTH)
    assert resp.status_code == 404
    assert resp.json()["error"] == "not_found"


@pytest.mark.parametrize(
    "text,query",
    [
        ("我对花生过敏，推荐菜的时候要避开花生", "花生过敏"),
        ("I am allergic to peanuts", "peanuts allergy"),
    ],
)
def test_remember_search_get_forget_roundtrip(client, text, query):
    rec = remember(client, ALICE, text)
    assert rec["scope"]["user_id"] == "alice"
    assert rec["source"]["channel"] == "explicit"
    found = post(client, "/v1/memory/search", {"scope": ALICE, "query": query, "limit": 5})[
        "memories"
    ]
    assert rec["id"] in [m["id"] for m in found]
    assert all(0.0 <= m["score"] <= 1.0 for m in found)
    got = post(client, "/v1/memory/get", {"scope": ALICE, "id": rec["id"]})["memory"]
    assert got["summary"] == rec["summary"] and got["status"] == "active"

    gone = post(client, "/v1/memory/forget", {"scope": ALICE, "id": rec["id"]})["forgotten"]
    assert gone == [rec["id"]]
    again = post(client, "/v1/memory/search", {"scope": ALICE, "query": query, "limit": 5})[
        "memories"
    ]
    assert rec["id"] not in [m["id"] for m in again]


def test_another_user_can_neither_search_nor_get_nor_forget(client):
    rec = remember(client, ALICE, "我对花生过敏，推荐菜的时候要避开花生")
    assert post(client, "/v1/memory/search", {"scope": BOB, "query": "花生"})["memories"] == []
    for path in ("/v1/memory/get", "/v1/memory/forget"):
        resp = client.post(path, json={"scope": BOB, "id": rec["id"]}, headers=AUTH)
        assert resp.status_code == 404, path
    other_agent = {"user_id": "alice", "agent_id": "other"}
    assert (
        post(client, "/v1/memory/search", {"scope": other_agent, "query": "花生"})["memories"] == []
    )
    assert (
        post(client, "/v1/memory/get", {"scope": ALICE, "id": rec["id"]})["memory"]["status"]
        == "active"
    )


def test_capture_then_recall_in_a_new_session_is_scoped(client, mw):
    turn = [
        {"role": "user", "content": "请记住：我对花生过敏，推荐菜的时候要避开花生"},
        {"role": "assistant", "content": "好的，已记下。"},
    ]
    body = {"scope": ALICE, "session_id": "agent:main:s1", "messages": turn}
    assert post(client, "/v1/capture", body, status=202) == {"queued": 1}
    assert post(client, "/v1/capture", body, status=202) == {"queued": 0}  # already captured
    mw.flush(timeout=10)
    ask = {"session_id": "agent:main:s2", "prompt": "今晚推荐一道菜？"}
    mine = post(client, "/v1/recall", {"scope": ALICE, **ask})
    assert "花生" in mine["block"]
    assert mine["position"] == "after_system" and mine["tokens"] > 0
    assert any("花生" in m["summary"] for m in mine["memories"])
    theirs = post(client, "/v1/recall", {"scope": BOB, **ask})
    assert theirs["block"] == "" and theirs["memories"] == []


def test_recall_accepts_recent_messages_in_english(client, mw):
    remember(client, ALICE, "I prefer window seats on flights", type="preference", subject="seat")
    body = {
        "scope": ALICE,
        "session_id": "s9",
        "prompt": "Book flights to Oslo for me",
        "messages": [
            {"role": "user", "content": "I travel next week"},
            {"role": "assistant", "content": "Where to?"},
        ],
    }
    out = post(client, "/v1/recall", body)
    assert "window seats" in out["block"]


def test_tool_event_becomes_an_event_memory_of_that_scope(client, mw):
    body = {
        "scope": ALICE,
        "session_id": "s1",
        "tool": "ls",
        "arguments": {"path": "."},
        "outcome": "README.md\nsrc/",
        "ok": True,
        "files": ["."],
        "duration_ms": 12.5,
    }
    assert post(client, "/v1/tool-event", body, status=202) == {"accepted": True}
    mw.flush(timeout=10)
    found = post(client, "/v1/memory/search", {"scope": ALICE, "query": "ls"})["memories"]
    events = [m for m in found if m["type"] == "event"]
    assert events and "ls" in events[0]["summary"]
    assert post(client, "/v1/memory/search", {"scope": BOB, "query": "ls"})["memories"] == []


def test_session_routes(client, mw):
    remember(client, ALICE, "我对花生过敏")
    start = post(client, "/v1/session/start", {"scope": ALICE, "session_id": "s5"})
    assert set(start) == {"block", "position", "tokens", "memories"}
    assert "花生" in start["block"]
    end = {"scope": ALICE, "session_id": "s5", "reason": "new"}
    assert post(client, "/v1/session/end", end, status=202) == {"accepted": True}
    compact = {
        "scope": ALICE,
        "session_id": "s5",
        "messages": [{"role": "user", "content": "记住我住在杭州"}],
    }
    assert post(client, "/v1/session/compact", compact, status=202) == {"accepted": True}
