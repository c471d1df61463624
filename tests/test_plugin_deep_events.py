"""The plugin's deep search, its process-event hook (subagent_ended) and gateway_stop's cleanup,
run by node against the real service (the harness of test_service_plugin)."""

from __future__ import annotations

import json

from test_service_plugin import _cfg, run_js, service  # noqa: F401 - fixtures and helpers

from openclaw_memory.maintain.runner import enforce_cap
from openclaw_memory.types import Scope
from store_helpers import find

ALICE = Scope("alice", "main")
TOOL_CTX = {"agentId": "main", "sessionKey": "agent:main:s1", "requesterSenderId": "alice"}


def test_memory_search_goes_deep_when_asked(service, run_js, tmp_path):  # noqa: F811
    url, mw = service
    rec = mw.remember(ALICE, "我小时候学过大提琴 I played the cello as a child", type="fact").record
    enforce_cap(mw.maintenance, ALICE, cap=0)
    mw.flush(timeout=10)
    out = run_js(f"""
const seen = load({_cfg(url, tmp_path)});
const tools = Object.fromEntries(seen.tools[0].factory({json.dumps(TOOL_CTX)}).map((t) => [t.name, t]));
const normal = await tools.memory_search.execute("c1", {{ query: "大提琴 cello" }});
const deep = await tools.memory_search.execute("c2", {{ query: "大提琴 cello", deep: true }});
console.log(JSON.stringify({{ normal, deep, schema: tools.memory_search.parameters,
  description: tools.memory_search.description, logs: seen.logs }}));
""")
    assert rec.id not in out["normal"]["content"][0]["text"]
    assert f"[{rec.id}] (fact, archived" in out["deep"]["content"][0]["text"]
    assert out["schema"]["properties"]["deep"]["type"] == "boolean"
    assert "deep: true" in out["description"] and "memory_get" in out["description"]
    assert out["logs"] == []


def test_subagent_end_is_recorded_as_a_process_event(service, run_js, tmp_path):  # noqa: F811
    url, mw = service
    ctx = {"agentId": "main", "sessionKey": "agent:main:s1", "senderId": "alice"}
    out = run_js(f"""
const seen = load({_cfg(url, tmp_path)});
await seen.hooks.subagent_ended({{ targetSessionKey: "agent:main:subagent:42", targetKind: "subagent",
  reason: "finished", outcome: "ok", runId: "r1" }}, {json.dumps(ctx)});
await seen.hooks.subagent_ended({{ targetSessionKey: "agent:main:subagent:43", outcome: "timeout",
  error: "no answer within 300 s" }}, {json.dumps(ctx)});
console.log(JSON.stringify({{ logs: seen.logs }}));
""")
    assert out["logs"] == []
    tasks = {r.subject: r for r in find(mw.engine, ALICE, type="task")}
    assert "completed" in tasks["subagent agent:main:subagent:42"].summary
    assert "failed" in tasks["subagent agent:main:subagent:43"].summary
    assert tasks["subagent agent:main:subagent:43"].source.writer == "process-node"


def test_gateway_stop_drives_the_services_cleanup(service, run_js, tmp_path):  # noqa: F811
    url, mw = service
    ctx = {"agentId": "main", "sessionKey": "agent:main:s1", "senderId": "alice"}
    messages = [
        {"role": "user", "content": "请记住：我的车位是 B2-17"},
        {"role": "assistant", "content": "好的"},
    ]
    out = run_js(f"""
const calls = [];
const realFetch = globalThis.fetch;
globalThis.fetch = (u, init) => {{ calls.push(String(u)); return realFetch(u, init); }};
const seen = load({_cfg(url, tmp_path)});
await seen.hooks.agent_end({{ messages: {json.dumps(messages)}, success: true }}, {json.dumps(ctx)});
await seen.hooks.gateway_stop({{}}, {{}});
console.log(JSON.stringify({{ calls, logs: seen.logs }}));
""")
    assert out["logs"] == []
    assert out["calls"][-1] == f"{url}/service/cleanup"
    # by the time gateway_stop returned, the capture queued before it was written
    assert any("B2-17" in r.summary for r in find(mw.engine, ALICE))
