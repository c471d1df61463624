"""The JavaScript plugin, run by node against the real service (no OpenClaw needed).

A small harness plays OpenClaw's part: it calls `register(api)` with a fake api that records
hooks, tools and log lines, then calls the hooks with OpenClaw-shaped events and contexts.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from openclaw_memory.middleware import MemoryMiddleware
from openclaw_memory.service.app import create_app
from openclaw_memory.service.installer import PLUGIN_DIR
from openclaw_memory.service.server import build_server
from openclaw_memory.types import Scope

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH")
TOKEN = "tok"

HARNESS = """
import plugin from %(entry)s;
export function load(pluginConfig, env) {
  const seen = { hooks: {}, tools: [], logs: [] };
  const log = (level) => (msg) => seen.logs.push(`${level} ${msg}`);
  Object.assign(process.env, env || {});
  plugin.register({
    pluginConfig,
    logger: { info: log("info"), warn: log("warn"), error: log("error") },
    on: (name, fn) => { seen.hooks[name] = fn; },
    registerTool: (factory, opts) => seen.tools.push({ factory, opts }),
  });
  return seen;
}
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def service(tmp_path):
    """The real service on a free port, in a thread; yields (url, middleware)."""
    mw = MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(tmp_path / "data"), "embedding_model": "hash"}}
    )
    port = _free_port()
    server = build_server(create_app(mw, token=TOKEN), host="127.0.0.1", port=port)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", mw
    server.should_exit = True
    thread.join(timeout=10)
    mw.close()


@pytest.fixture
def run_js(tmp_path):
    """run_js(body) runs `body` (async JS, `load` in scope) and returns what it prints as JSON."""
    harness = tmp_path / "harness.mjs"
    harness.write_text(HARNESS % {"entry": json.dumps((PLUGIN_DIR / "index.js").as_uri())})

    def run(body: str, timeout: float = 60) -> dict:
        script = f"import {{ load }} from {json.dumps(harness.as_uri())};\n{body}\n"
        proc = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True,
                              text=True, timeout=timeout)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])

    return run


def _cfg(url: str, tmp_path: Path, **extra) -> str:
    return json.dumps({"serviceUrl": url, "token": TOKEN, "spoolDir": str(tmp_path / "spool"), **extra})


CTX_ALICE = {"senderId": "alice", "agentId": "main", "sessionKey": "agent:main:s2", "sessionId": "u-2"}


def test_recall_injects_the_senders_memory_only(service, run_js, tmp_path):
    url, mw = service
    mw.remember(Scope("alice", "main"), "我对花生过敏，推荐菜的时候要避开花生")
    out = run_js(f"""
const seen = load({_cfg(url, tmp_path)});
const event = {{ prompt: "今晚推荐一道菜？", messages: [] }};
const alice = await seen.hooks.before_prompt_build(event, {json.dumps(CTX_ALICE)});
const bob = await seen.hooks.before_prompt_build(event, {{ ...{json.dumps(CTX_ALICE)}, senderId: "bob" }});
const pre = load({_cfg(url, tmp_path, inject="prepend_context")});
const prepended = await pre.hooks.before_prompt_build(event, {json.dumps(CTX_ALICE)});
console.log(JSON.stringify({{ alice, bob: bob ?? null, prepended, logs: seen.logs }}));
""")
    assert "花生" in out["alice"]["appendSystemContext"]
    assert set(out["alice"]) == {"appendSystemContext"}
    assert out["bob"] is None
    assert "花生" in out["prepended"]["prependContext"]
    assert out["logs"] == []


def test_agent_end_captures_text_of_openclaw_messages(service, run_js, tmp_path):
    url, mw = service
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "请记住：我喜欢喝乌龙茶"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "好的"}], "api": "openai-completions"},
        {"role": "toolResult", "content": [{"type": "text", "text": "README.md"}]},
        {"role": "assistant", "content": [{"type": "image", "data": "..."}]},
    ]
    out = run_js(f"""
const seen = load({_cfg(url, tmp_path)});
await seen.hooks.agent_end({{ messages: {json.dumps(messages)}, success: true }}, {json.dumps(CTX_ALICE)});
console.log(JSON.stringify({{ logs: seen.logs }}));
""")
    assert out["logs"] == []
    mw.flush(timeout=10)
    found = mw.search(Scope("alice", "main"), "乌龙茶")
    assert any("乌龙茶" in s.record.summary for s in found)
    assert mw.search(Scope("bob", "main"), "乌龙茶") == []


def test_tool_calls_become_events_and_tools_are_scoped(service, run_js, tmp_path):
    url, mw = service
    mw.remember(Scope("alice", "main"), "I am allergic to peanuts")
    tool_ctx = {"agentId": "main", "sessionKey": "agent:main:s2", "toolName": "ls",
                "requester": {"senderId": "alice"}}
    out = run_js(f"""
const seen = load({_cfg(url, tmp_path)});
await seen.hooks.after_tool_call({{ toolName: "ls", params: {{ path: "src" }},
  result: {{ content: [{{ type: "text", text: "main.py" }}] }}, durationMs: 9 }}, {json.dumps(tool_ctx)});
const {{ factory, opts }} = seen.tools[0];
const tools = (who) => Object.fromEntries(factory({{ agentId: "main", sessionKey: "agent:main:s2",
  requesterSenderId: who }}).map((t) => [t.name, t]));
const mine = await tools("alice").memory_search.execute("c1", {{ query: "peanuts" }});
const theirs = await tools("bob").memory_search.execute("c2", {{ query: "peanuts" }});
const stored = await tools("bob").memory_store.execute("c3", {{ text: "I live in Oslo", type: "fact" }});
console.log(JSON.stringify({{ names: opts.names, mine, theirs, stored, logs: seen.logs }}));
""")
    assert out["names"] == ["memory_search", "memory_get", "memory_store", "memory_forget"]
    assert "peanuts" in out["mine"]["content"][0]["text"]
    assert out["theirs"]["content"][0]["text"] == "No matching memories."
    assert out["stored"]["details"]["memory"]["scope"]["user_id"] == "bob"
    mw.flush(timeout=10)
    events = [s for s in mw.search(Scope("alice", "main"), "ls") if s.record.type.value == "event"]
    assert events and "ls" in events[0].record.summary


def test_get_and_forget_tools_answer_within_the_senders_scope(service, run_js, tmp_path):
    url, mw = service
    rec = mw.remember(Scope("alice", "main"), "我对花生过敏").record
    out = run_js(f"""
const seen = load({_cfg(url, tmp_path)});
const tools = (who) => Object.fromEntries(seen.tools[0].factory({{ agentId: "main",
  requesterSenderId: who }}).map((t) => [t.name, t]));
const bobGet = await tools("bob").memory_get.execute("c1", {{ id: "{rec.id}" }});
const bobForget = await tools("bob").memory_forget.execute("c2", {{ id: "{rec.id}" }});
const aliceGet = await tools("alice").memory_get.execute("c3", {{ id: "{rec.id}" }});
const aliceForget = await tools("alice").memory_forget.execute("c4", {{ id: "{rec.id}" }});
console.log(JSON.stringify({{ bobGet, bobForget, aliceGet, aliceForget, logs: seen.logs }}));
""")
    assert out["bobGet"]["details"] == {"ok": False, "status": 404}
    assert "not found" in out["bobGet"]["content"][0]["text"]
    assert out["bobForget"]["details"]["status"] == 404
    assert "花生" in out["aliceGet"]["content"][0]["text"]
    assert out["aliceForget"]["details"]["forgotten"] == [rec.id]
    assert out["logs"] == []  # a rejection is an answer, not a service failure
    assert mw.get(Scope("alice", "main"), rec.id).status.value == "inactive"


def test_session_and_compaction_hooks_reach_the_service(service, run_js, tmp_path):
    url, _ = service
    dead = f"http://127.0.0.1:{_free_port()}"
    ctx = {"agentId": "main", "sessionId": "u-9", "sessionKey": "agent:main:s9"}
    out = run_js(f"""
const run = async (url) => {{
  const seen = load({{ serviceUrl: url, token: "{TOKEN}", spoolDir: {json.dumps(str(tmp_path / "spool"))} }});
  await seen.hooks.session_start({{ sessionId: "u-9", sessionKey: "agent:main:s9" }}, {json.dumps(ctx)});
  await seen.hooks.before_compaction({{ messageCount: 2, messages: [{{ role: "user", content: "记住我住在杭州" }}] }}, {json.dumps(ctx)});
  await seen.hooks.session_end({{ sessionId: "u-9", sessionKey: "agent:main:s9", reason: "new" }}, {json.dumps(ctx)});
  await seen.hooks.gateway_stop({{}}, {{}});
  return seen.logs;
}};
const up = await run("{url}");
const down = await run("{dead}");
const fs = await import("node:fs");
const spooled = fs.readFileSync({json.dumps(str(tmp_path / "spool" / "spool.jsonl"))}, "utf8");
console.log(JSON.stringify({{ up, down, spooled: spooled.trim().split("\\n").map((l) => JSON.parse(l).path) }}));
""")
    assert out["up"] == []
    assert len(out["down"]) == 3  # compact and end spooled; gateway_stop's cleanup is not
    assert "/service/cleanup failed" in out["down"][2]
    assert out["spooled"] == ["/v1/session/compact", "/v1/session/end"]


def test_service_down_fails_open_and_spools_captures_for_later(service, run_js, tmp_path):
    url, mw = service
    dead = f"http://127.0.0.1:{_free_port()}"
    turn = [{"role": "user", "content": "请记住：我对花生过敏"}, {"role": "assistant", "content": "好"}]
    out = run_js(f"""
const down = load({_cfg(dead, tmp_path)});
const t0 = Date.now();
const injected = await down.hooks.before_prompt_build({{ prompt: "hi", messages: [] }}, {json.dumps(CTX_ALICE)});
await down.hooks.agent_end({{ messages: {json.dumps(turn)} }}, {json.dumps(CTX_ALICE)});
const fs = await import("node:fs");
const spooled = fs.readFileSync({json.dumps(str(tmp_path / "spool" / "spool.jsonl"))}, "utf8");
const up = load({_cfg(url, tmp_path)});
await up.hooks.before_prompt_build({{ prompt: "hi", messages: [] }}, {{ ...{json.dumps(CTX_ALICE)}, senderId: "bob" }});
await up.hooks.agent_end({{ messages: [] }}, {json.dumps(CTX_ALICE)});
console.log(JSON.stringify({{ injected: injected ?? null, ms: Date.now() - t0, logs: down.logs,
  spooled, left: fs.readdirSync({json.dumps(str(tmp_path / "spool"))}) }}));
""")
    assert out["injected"] is None
    assert len(out["logs"]) == 3  # recall, session/start, capture: one line each
    assert all(line.startswith("warn openclaw-memory: POST") for line in out["logs"])
    assert "ECONNREFUSED" in out["logs"][0] and "spooled to" in out["logs"][2]
    assert json.loads(out["spooled"])["path"] == "/v1/capture"
    assert out["left"] == []  # replayed after the next successful call
    mw.flush(timeout=10)
    assert any("花生" in s.record.summary for s in mw.search(Scope("alice", "main"), "花生"))


def test_a_hanging_service_costs_at_most_the_recall_timeout(run_js, tmp_path):
    with socket.socket() as hang:  # accepts connections (backlog) but never answers
        hang.bind(("127.0.0.1", 0))
        hang.listen(8)
        url = f"http://127.0.0.1:{hang.getsockname()[1]}"
        out = run_js(f"""
const seen = load({_cfg(url, tmp_path, recallTimeoutMs=300)});
const t0 = Date.now();
const injected = await seen.hooks.before_prompt_build({{ prompt: "hi", messages: [] }}, {json.dumps(CTX_ALICE)});
console.log(JSON.stringify({{ injected: injected ?? null, ms: Date.now() - t0, logs: seen.logs }}));
""")
    assert out["injected"] is None
    assert out["ms"] < 1500
    assert "timed out" in out["logs"][0]


def test_a_run_without_sender_uses_the_operator_env_user(service, run_js, tmp_path):
    url, mw = service
    ctx = {"agentId": "main", "sessionKey": "agent:main:main"}
    turn = [{"role": "user", "content": "请记住：我住在杭州"}]
    run_js(f"""
const seen = load({_cfg(url, tmp_path)}, {{ OPENCLAW_MEMORY_USER: "carol" }});
await seen.hooks.agent_end({{ messages: {json.dumps(turn)} }}, {json.dumps(ctx)});
console.log("{{}}");
""")
    mw.flush(timeout=10)
    assert any("杭州" in s.record.summary for s in mw.search(Scope("carol", "main"), "杭州"))
    assert mw.search(Scope("anonymous", "main"), "杭州") == []


def test_disabled_registers_nothing(run_js, tmp_path):
    out = run_js(f"""
const seen = load({_cfg("http://127.0.0.1:1", tmp_path, enabled=False)});
console.log(JSON.stringify({{ hooks: Object.keys(seen.hooks), tools: seen.tools.length, logs: seen.logs }}));
""")
    assert out == {"hooks": [], "tools": 0, "logs": ["info openclaw-memory: disabled by config"]}


def test_manifest_matches_the_code():
    manifest = json.loads((PLUGIN_DIR / "openclaw.plugin.json").read_text())
    package = json.loads((PLUGIN_DIR / "package.json").read_text())
    assert manifest["id"] == "openclaw-memory" and manifest["kind"] == "memory"
    schema = manifest["configSchema"]
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == {
        "serviceUrl", "token", "inject", "recallTimeoutMs", "timeoutMs", "spoolDir", "enabled"}
    assert manifest["contracts"]["tools"] == ["memory_search", "memory_get", "memory_store", "memory_forget"]
    assert package["type"] == "module" and package["openclaw"]["extensions"] == ["./index.js"]
    assert "dependencies" not in package
