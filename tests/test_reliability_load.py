"""Holding under cheap load: what a local process without the token can do with connections
does not stop a client that has it.

Before: uvicorn's concurrency limit counted open connections, so 70 half-open connections from
any local process made every request answer 503 while they lasted (and the plugin, failing open,
silently ran agents without memory). Now idle connections that never sent the token are closed
first when the connection budget is reached, only authenticated requests count towards the
concurrency limit, and a body has its own deadline.
"""

from __future__ import annotations

import http.client
import json
import socket
import time

import pytest
from reliability_helpers import BASE_TIME, hash_config
from test_reliability_hardening import AUTH, Served

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.types import Scope

pytestmark = pytest.mark.slow

SEARCH = json.dumps({"scope": {"user_id": "alice", "agent_id": "main"}, "query": "tea"}).encode()


@pytest.fixture(scope="module")
def mw(tmp_path_factory):
    m = build_middleware(hash_config(tmp_path_factory.mktemp("load")), clock=FakeClock(BASE_TIME))
    m.remember(Scope("alice", "main"), "I drink green tea every morning 我每天早上喝绿茶")
    m.flush()
    yield m
    m.close()


def _idle(port: int, n: int) -> list[socket.socket]:
    """n connections without the token that never finish a request head."""
    held = []
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        if i % 2:
            s.sendall(b"POST /v1/memory/search HTTP/1.1\r\nHost: 127.0")
        held.append(s)
    return held


def _search(conn: http.client.HTTPConnection) -> int:
    conn.request("POST", "/v1/memory/search", SEARCH, AUTH)
    resp = conn.getresponse()
    body = resp.read()
    assert resp.status != 200 or b"tea" in body, body[:300]
    return resp.status


@pytest.mark.parametrize(
    ("idle", "limits"),
    [(70, {}), (100, {"connections": 40, "concurrency": 20})],
    ids=["70-default-limits", "100-budget-40"],
)
def test_idle_connections_without_the_token_do_not_starve_an_authenticated_request(
    mw, idle, limits
):
    """With the default limits (70 half-open: uvicorn answered 503 past 64 open connections)
    and past a small budget (100 against 40): an authenticated request is answered at once."""
    served = Served(mw, header_timeout_s=30.0, **limits)
    held = _idle(served.port, idle)
    try:
        time.sleep(0.3)
        start = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        try:
            assert _search(conn) == 200
        finally:
            conn.close()
        assert time.monotonic() - start < 3
    finally:
        for s in held:
            s.close()
        served.stop()


def test_the_budget_closes_unauthenticated_idle_connections_before_a_trusted_one(mw):
    """A keep-alive connection that sent the token survives 100 new idle ones without it, the
    budget being 40: they are closed oldest first instead, and it serves its next request."""
    served = Served(mw, header_timeout_s=30.0, connections=40, concurrency=20, keep_alive_s=30)
    trusted = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    held = []
    try:
        assert _search(trusted) == 200
        held = _idle(served.port, 100)
        time.sleep(0.3)
        closed = 0
        for s in held:
            s.settimeout(0.05)
            try:
                closed += s.recv(1) == b""
            except (ConnectionResetError, BrokenPipeError):
                closed += 1
            except TimeoutError:
                pass
        assert closed >= 100 - 40 + 1  # the room the trusted connection kept
        assert _search(trusted) == 200  # the same connection: not closed for the newcomers
    finally:
        trusted.close()
        for s in held:
            s.close()
        served.stop()


def test_a_body_that_does_not_arrive_in_time_gets_408(mw):
    served = Served(mw, body_timeout_s=1.0)
    try:
        sock = socket.create_connection(("127.0.0.1", served.port), timeout=10)
        head = (
            "POST /v1/memory/search HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: {AUTH['Authorization']}\r\nContent-Type: application/json\r\n"
            "Content-Length: 500\r\n\r\n"
        )
        start = time.monotonic()
        sock.sendall(head.encode() + b'{"scope": ')  # and then nothing
        answer = sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert b"request_timeout" in answer and 0.9 < time.monotonic() - start < 5
        sock.close()
    finally:
        served.stop()
