"""End to end: an MCP client stores a fact, a new OpenClaw session recalls it through the service
(the plugin's path), and once scheduled maintenance has archived an old event, deep search over
MCP finds it while normal search does not."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from mcp_helpers import call, http_client, http_mcp, inside_frame, stored_id, text

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.maintain.runner import MaintenanceScheduler
from openclaw_memory.service.app import create_app
from openclaw_memory.types import Scope

pytestmark = pytest.mark.e2e

ALICE = Scope("alice", "main")
SCOPE = {"user_id": "alice", "agent_id": "main"}
AUTH = {"authorization": "Bearer e2e-token"}


def test_mcp_store_then_recall_in_a_new_session_and_deep_search_of_the_archive(tmp_path):
    clock = FakeClock(1_765_000_000.0)
    mw = build_middleware(
        overrides={"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"}}, clock=clock
    )
    app = create_app(mw, token="e2e-token")
    scheduler = app.state.maintenance = MaintenanceScheduler(mw.maintenance, mw.cfg.maintenance)
    try:
        with http_mcp(mw, ALICE) as url, TestClient(app, base_url="http://127.0.0.1") as service:
            mcp = lambda: http_client(url)
            zh, en = call(
                mcp,
                ("memory_store", {"text": "我对花生过敏，点菜时要避开花生", "type": "fact"}),
                ("memory_store", {"text": "I am allergic to shellfish", "type": "fact"}),
            )
            assert not zh.is_error and not en.is_error

            # a new session in OpenClaw: the plugin's before_prompt_build -> /v1/recall
            for prompt, word in [
                ("晚餐能放花生酱吗？", "花生"),
                ("Can I order the shellfish platter?", "shellfish"),
            ]:
                recalled = service.post(
                    "/v1/recall",
                    headers=AUTH,
                    json={"scope": SCOPE, "session_id": "agent:main:new-session", "prompt": prompt},
                ).json()
                assert word in recalled["block"], recalled
                assert stored_id(zh if word == "花生" else en) in {
                    m["id"] for m in recalled["memories"]
                }

            # an old tool event: the plugin's after_tool_call, then a month of the event TTL
            assert (
                service.post(
                    "/v1/tool-event",
                    headers=AUTH,
                    json={
                        "scope": SCOPE,
                        "session_id": "agent:main:old",
                        "tool": "deploy",
                        "outcome": "deployed build 4711 to production 已部署",
                    },
                ).status_code
                == 202
            )
            mw.flush(timeout=20)
            scheduler.tick()  # the store's first run (nothing due yet)
            clock.advance(days=31)
            report = scheduler.tick()
            assert report is not None and report.expired == 1

            query = "deploy build 4711 production"
            normal, deep = call(
                mcp,
                ("memory_search", {"query": query}),
                ("memory_search", {"query": query, "deep": True}),
            )
            assert "4711" not in text(normal)
            hits = [line for line in inside_frame(deep) if "4711" in line]
            assert hits and "archived" in hits[0], text(deep)
            searched = service.post(
                "/v1/memory/search",
                headers=AUTH,
                json={"scope": SCOPE, "query": query, "deep": True},
            ).json()
            assert any(
                m["status"] == "archived" and "4711" in m["summary"] for m in searched["memories"]
            )
            assert not any(
                "4711" in m["summary"]
                for m in service.post(
                    "/v1/memory/search", headers=AUTH, json={"scope": SCOPE, "query": query}
                ).json()["memories"]
            )
    finally:
        mw.close()
