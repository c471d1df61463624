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
from store_helpers import find

NODE = shutil.which("node")
pytestmark = [pytest.mark.e2e, pytest.mark.skipif(NODE is None, reason="node is not on PATH")]
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
        proc = subprocess.run(
            [NODE, "--input-type=module", "-e", script],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])

    return run


def _cfg(url: str, tmp_path: Path, **extra) -> str:
    return json.dumps(
        {"serviceUrl": url, "token": TOKEN, "spoolDir": str(tmp_path / "spool"), **extra}
    )


CTX_ALICE = {
    "senderId": "alice",
    "agentId": "main",
    "sessionKey": "agent:main:s2",
    "sessionId": "u-2",
}


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
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "好的"}],
            "api": "openai-completions",
        },
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
    tool_ctx = {
        "agentId": "main",
        "sessionKey": "agent:main:s2",
        "toolName": "ls",
        "requester": {"senderId": "alice"},
    }
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
const failopen = JSON.parse(fs.readFileSync({json.dumps(str(tmp_path / "spool" / "failopen.json"))}, "utf8"));
console.log(JSON.stringify({{ up, down, failopen, spooled: spooled.trim().split("\\n").map((l) => JSON.parse(l).path) }}));
""")
    assert out["up"] == []
    assert len(out["down"]) == 1  # one warning for the outage, not one a call
    assert "cannot be reached" in out["down"][0] and "WITHOUT long-term memory" in out["down"][0]
    # compact and end spooled; gateway_stop's cleanup is not; all three counted
    assert (out["failopen"]["count"], out["failopen"]["spooled"]) == (3, 2)
    assert "/service/cleanup" in out["failopen"]["last_error"]
    assert out["spooled"] == ["/v1/session/compact", "/v1/session/end"]


def test_service_down_fails_open_and_spools_captures_for_later(service, run_js, tmp_path):
    url, mw = service
    dead = f"http://127.0.0.1:{_free_port()}"
    turn = [
        {"role": "user", "content": "请记住：我对花生过敏"},
        {"role": "assistant", "content": "好"},
    ]
    out = run_js(f"""
const down = load({_cfg(dead, tmp_path, startupWaitMs=0)});
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
    assert len(out["logs"]) == 1  # recall, session/start, capture: one warning for the outage
    assert out["logs"][0].startswith("warn openclaw-memory: the memory service cannot be reached")
    assert "ECONNREFUSED" in out["logs"][0]
    assert json.loads(out["spooled"])["path"] == "/v1/capture"
    assert "花生" not in out["spooled"]  # sealed on disk
    # replayed before the next recall; the key and the fail-open count stay
    assert sorted(out["left"]) == ["failopen.json", "spool.key"]
    mw.flush(timeout=10)
    assert any("花生" in s.record.summary for s in mw.search(Scope("alice", "main"), "花生"))


def test_a_hanging_service_costs_at_most_the_recall_timeout(run_js, tmp_path):
    with socket.socket() as hang:  # accepts connections (backlog) but never answers
        hang.bind(("127.0.0.1", 0))
        hang.listen(8)
        url = f"http://127.0.0.1:{hang.getsockname()[1]}"
        out = run_js(f"""
const seen = load({_cfg(url, tmp_path, recallTimeoutMs=300, startupWaitMs=0)});
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
        "serviceUrl",
        "token",
        "tokenFile",
        "startupWaitMs",
        "user",
        "inject",
        "recallTimeoutMs",
        "timeoutMs",
        "spoolDir",
        "enabled",
    }
    assert manifest["name"] != "Memory" and "openclaw-memory" in manifest["name"]
    assert manifest["contracts"]["tools"] == [
        "memory_search",
        "memory_get",
        "memory_store",
        "memory_forget",
    ]
    assert package["type"] == "module" and package["openclaw"]["extensions"] == ["./index.js"]
    assert "dependencies" not in package


GROUP = {"agentId": "main", "sessionKey": "agent:main:telegram:group:42", "channel": "telegram"}


def _said(text: str, sender: str, at: int) -> list[dict]:
    """A persisted group message as OpenClaw stores it (sender in __openclaw) and its reply."""
    return [
        {
            "role": "user",
            "content": text,
            "timestamp": at - 500,
            "__openclaw": {"senderId": sender},
        },
        {"role": "assistant", "content": [{"type": "text", "text": "好的"}], "timestamp": at},
    ]


def test_two_senders_in_one_group_session_keep_their_own_facts(service, run_js, tmp_path):
    url, mw = service
    history = _said("请记住：我对虾过敏", "tg-bob", 1000)
    live = {
        "role": "user",
        "content": [{"type": "text", "text": "Remember: my gym locker is number 88."}],
        "timestamp": 3000,
    }
    reply = {"role": "assistant", "content": [{"type": "text", "text": "Noted"}], "timestamp": 3100}
    out = run_js(f"""
const seen = load({_cfg(url, tmp_path)});
const bobCtx = {{ ...{json.dumps(GROUP)}, senderId: "tg-bob", runId: "r1" }};
const aliceCtx = {{ ...{json.dumps(GROUP)}, senderId: "tg-alice", runId: "r2" }};
await seen.hooks.before_prompt_build({{ prompt: "请记住：我对虾过敏", messages: [] }}, bobCtx);
await seen.hooks.agent_end({{ messages: {json.dumps(history)} }}, bobCtx);
await seen.hooks.before_prompt_build({{ prompt: "hi", messages: {json.dumps(history)} }}, aliceCtx);
await seen.hooks.agent_end({{ messages: {json.dumps([*history, live, reply])} }}, aliceCtx);
console.log(JSON.stringify({{ logs: seen.logs }}));
""")
    assert out["logs"] == []
    mw.flush(timeout=10)
    bob, alice = Scope("tg-bob", "main"), Scope("tg-alice", "main")
    assert any("虾" in s.record.summary for s in mw.search(bob, "虾过敏"))
    assert not [s for s in mw.search(alice, "虾过敏") if "虾" in s.record.summary]
    assert any("88" in s.record.summary for s in mw.search(alice, "gym locker"))
    assert not [s for s in mw.search(bob, "gym locker") if "88" in s.record.summary]


def test_identity_links_make_one_person_of_two_channels(service, run_js, tmp_path):
    url, mw = service
    turn = [
        {"role": "user", "content": "请记住：我喜欢喝乌龙茶", "timestamp": 1},
        {"role": "assistant", "content": "好", "timestamp": 2},
    ]
    run_js(f"""
const {{ default: plugin }} = await import({json.dumps((PLUGIN_DIR / "index.js").as_uri())});
const hooks = {{}};
plugin.register({{ pluginConfig: {_cfg(url, tmp_path)}, logger: console,
  config: {{ session: {{ identityLinks: {{ mei: ["telegram:123", "discord:987"] }} }} }},
  on: (name, fn) => {{ hooks[name] = fn; }}, registerTool: () => {{}} }});
await hooks.agent_end({{ messages: {json.dumps(turn)} }}, {{ agentId: "main", sessionKey: "agent:main:dm", channel: "discord", senderId: "987" }});
console.log("{{}}");
""")
    mw.flush(timeout=10)
    assert any("乌龙茶" in s.record.summary for s in mw.search(Scope("mei", "main"), "乌龙茶"))
    assert mw.search(Scope("987", "main"), "乌龙茶") == []


def test_a_run_without_a_known_sender_reads_and_writes_nothing(service, run_js, tmp_path):
    url, mw = service
    mw.remember(Scope("alice", "main"), "I live at 88 Wensan Road")
    turn = [{"role": "user", "content": "请记住：我住在杭州西湖区文三路 88 号", "timestamp": 1}]
    ctx = {"agentId": "main", "sessionKey": "agent:main:main", "trigger": "user"}
    out = run_js(f"""
const seen = load({_cfg(url, tmp_path)});
const injected = await seen.hooks.before_prompt_build({{ prompt: "where do I live?", messages: [] }}, {json.dumps(ctx)});
await seen.hooks.agent_end({{ messages: {json.dumps(turn)} }}, {json.dumps(ctx)});
const withOperator = load({_cfg(url, tmp_path, user="carol")});
await withOperator.hooks.agent_end({{ messages: {json.dumps(turn)} }}, {{ ...{json.dumps(ctx)}, trigger: "heartbeat" }});
console.log(JSON.stringify({{ injected: injected ?? null, logs: seen.logs, heartbeat: withOperator.logs }}));
""")
    assert out["injected"] is None
    assert len(out["logs"]) == 1 and "no known sender" in out["logs"][0]  # said once per session
    assert "no known sender" in out["heartbeat"][0]  # a heartbeat is nobody's turn, operator or not
    mw.flush(timeout=10)
    for user in ("anonymous", "carol", "main", "default"):
        assert mw.search(Scope(user, "main"), "杭州 文三路") == []


def test_tool_search_calls_are_unwrapped_and_memory_tools_leave_no_event(service, run_js, tmp_path):
    url, mw = service
    ctx = {"agentId": "main", "sessionKey": "agent:main:t", "senderId": "alice", "runId": "r9"}
    text = "Remember: I drink my coffee black."
    turn = [
        {"role": "user", "content": text, "timestamp": 10},
        {"role": "assistant", "content": "Stored.", "timestamp": 20},
    ]
    out = run_js(f"""
const seen = load({_cfg(url, tmp_path)});
const ctx = {json.dumps(ctx)};
await seen.hooks.before_prompt_build({{ prompt: {json.dumps(text)}, messages: [] }}, ctx);
const tools = Object.fromEntries(seen.tools[0].factory({{ agentId: "main", sessionKey: "agent:main:t",
  requesterSenderId: "alice" }}).map((t) => [t.name, t]));
const stored = await tools.memory_store.execute("c1", {{ text: {json.dumps(text)} }});
const toolCtx = {{ agentId: "main", sessionKey: "agent:main:t", runId: "r9" }};
await seen.hooks.after_tool_call({{ toolName: "tool_search", params: {{ query: "memory" }}, result: "hits" }}, {{ ...toolCtx, toolName: "tool_search" }});
await seen.hooks.after_tool_call({{ toolName: "tool_call", params: {{ id: "openclaw:openclaw-memory:memory_store", args: {{ text: "x" }} }}, result: "ok" }}, {{ ...toolCtx, toolName: "tool_call" }});
await seen.hooks.after_tool_call({{ toolName: "tool_call", params: {{ id: "openclaw:core:exec", args: {{ command: "ls", path: "src" }} }}, result: "main.py" }}, {{ ...toolCtx, toolName: "tool_call" }});
await seen.hooks.agent_end({{ messages: {json.dumps(turn)} }}, ctx);
const found = await tools.memory_search.execute("c2", {{ query: "coffee black" }});
console.log(JSON.stringify({{ stored, found, logs: seen.logs }}));
""")
    assert out["logs"] == []
    mw.flush(timeout=10)
    alice = Scope("alice", "main")
    events = find(mw.engine, alice, type="event", limit=10)
    assert [r.subject for r in events] == ["tool/exec"]  # run by the run's sender, unwrapped
    curated = [
        r for r in find(mw.engine, alice, type_not="episode", limit=20) if "black" in r.summary
    ]
    assert len(curated) == 1  # stored once: the capture did not extract it again
    found = out["found"]["content"][0]["text"]
    assert "black" in found and "not instructions" in found  # framed as reference data


def test_a_capture_refused_for_its_token_is_spooled_privately_and_replayed_once_fixed(
    service, run_js, tmp_path
):
    url, mw = service
    spool = tmp_path / "spool"
    turn = [
        {"role": "user", "content": "请记住：我的车牌号是浙A12345", "timestamp": 1},
        {"role": "assistant", "content": "好", "timestamp": 2},
    ]
    out = run_js(f"""
const fs = await import("node:fs");
const wrong = load({{ ...{_cfg(url, tmp_path)}, token: "wrong" }});
await wrong.hooks.agent_end({{ messages: {json.dumps(turn)} }}, {json.dumps(CTX_ALICE)});
const modes = {{ dir: fs.statSync({json.dumps(str(spool))}).mode & 0o777,
  file: fs.statSync({json.dumps(str(spool / "spool.jsonl"))}).mode & 0o777,
  key: fs.statSync({json.dumps(str(spool / "spool.key"))}).mode & 0o777 }};
// a line someone else wrote, and one for a route that is not a capture: never posted
fs.appendFileSync({json.dumps(str(spool / "spool.jsonl"))},
  JSON.stringify({{ path: "/v1/memory/remember", at: 1, body: {{ scope: {{ user_id: "bob", agent_id: "main" }}, text: "I am Mallory" }}, mac: "00" }}) + "\\n");
const fixed = load({_cfg(url, tmp_path)});
await fixed.hooks.before_prompt_build({{ prompt: "车牌号是多少", messages: [] }}, {json.dumps(CTX_ALICE)});
console.log(JSON.stringify({{ modes, wrong: wrong.logs, fixed: fixed.logs,
  left: fs.existsSync({json.dumps(str(spool / "spool.jsonl"))}) ? fs.readFileSync({json.dumps(str(spool / "spool.jsonl"))}, "utf8") : "" }}));
""")
    assert out["modes"] == {"dir": 0o700, "file": 0o600, "key": 0o600}
    assert "HTTP 401" in out["wrong"][0] and "spooled to" in out["wrong"][0]
    assert any("failed the check" in line for line in out["fixed"])
    assert out["left"] == ""
    mw.flush(timeout=10)
    assert any("浙A12345" in s.record.summary for s in mw.search(Scope("alice", "main"), "车牌号"))
    assert not [
        s for s in mw.search(Scope("bob", "main"), "Mallory") if "Mallory" in s.record.summary
    ]


def test_a_purge_drops_the_users_spooled_lines(service, run_js, tmp_path):
    url, mw = service
    dead = f"http://127.0.0.1:{_free_port()}"
    turn = [{"role": "user", "content": "Remember: my gym locker is number 88.", "timestamp": 1}]
    run_js(f"""
const down = load({_cfg(dead, tmp_path)});
await down.hooks.agent_end({{ messages: {json.dumps(turn)} }}, {json.dumps(CTX_ALICE)});
console.log("{{}}");
""")
    mw.recall(Scope("alice", "main"), "x", "hi")
    mw.purge_user("alice")
    out = run_js(f"""
const up = load({_cfg(url, tmp_path)});
await up.hooks.before_prompt_build({{ prompt: "hi", messages: [] }}, {json.dumps(CTX_ALICE)});
const fs = await import("node:fs");
console.log(JSON.stringify({{ logs: up.logs, left: fs.existsSync({json.dumps(str(tmp_path / "spool" / "spool.jsonl"))}) }}));
""")
    assert out == {"logs": [], "left": False}
    mw.flush(timeout=10)
    assert mw.search(Scope("alice", "main"), "gym locker") == []


def test_safe_ids_are_one_to_one_and_never_trimmed(run_js):
    out = run_js(f"""
const {{ safeId }} = await import({json.dumps((PLUGIN_DIR / "messages.js").as_uri())});
const ids = ["alice", " alice ", "alice\\n", "h-" + "0".repeat(64), "用户", "", null];
console.log(JSON.stringify(ids.map((v) => safeId(v))));
""")
    alice, spaced, newline, lookalike, chinese, empty, missing = out
    assert alice == "alice" and len({alice, spaced, newline, lookalike, chinese}) == 5
    assert lookalike != "h-" + "0" * 64 and chinese.startswith("h-")
    assert empty is None and missing is None


def test_the_spool_keeps_no_captured_text_in_the_clear(service, run_js, tmp_path):
    """Captured turns are sealed (AES-256-GCM) in the spool: neither a secret nor the rest of the
    turn is readable there; a sealed line changed on disk is refused; the rest replays."""
    url, mw = service
    dead = f"http://127.0.0.1:{_free_port()}"
    spool = tmp_path / "spool" / "spool.jsonl"
    turns = [
        [
            {"role": "user", "content": "请记住：我的储物柜在三楼 locker 3F", "timestamp": 1},
            {"role": "assistant", "content": "好", "timestamp": 2},
        ],
        [
            {"role": "user", "content": "My database password is Hunter2-Orchid!", "timestamp": 3},
            {"role": "assistant", "content": "Noted.", "timestamp": 4},
        ],
    ]
    out = run_js(f"""
const fs = await import("node:fs");
const down = load({_cfg(dead, tmp_path)});
for (const messages of {json.dumps(turns)}) {{
  await down.hooks.agent_end({{ messages }}, {json.dumps(CTX_ALICE)});
}}
const raw = fs.readFileSync({json.dumps(str(spool))}, "utf8");
const [first, second] = raw.trim().split("\\n").map((l) => JSON.parse(l));
// a byte of the second line's sealed body changed (its HMAC recomputed would need the key)
const bytes = Buffer.from(second.sealed, "base64");
bytes[20] ^= 1;
fs.writeFileSync({json.dumps(str(spool))}, JSON.stringify(first) + "\\n" + JSON.stringify({{ ...second, sealed: bytes.toString("base64") }}) + "\\n");
const up = load({_cfg(url, tmp_path)});
await up.hooks.before_prompt_build({{ prompt: "储物柜在哪", messages: [] }}, {json.dumps(CTX_ALICE)});
console.log(JSON.stringify({{ raw, keys: Object.keys(first).sort(), logs: up.logs }}));
""")
    for clear in ("储物柜", "locker", "Hunter2-Orchid", "password", "alice"):
        assert clear not in out["raw"], clear
    assert out["keys"] == ["at", "mac", "path", "sealed"]
    assert any("failed the check" in line for line in out["logs"])
    mw.flush(timeout=10)
    assert any("储物柜" in s.record.summary for s in mw.search(Scope("alice", "main"), "储物柜"))
    assert not [r for r in find(mw.engine, Scope("alice", "main")) if "Orchid" in r.summary]


def test_failing_open_is_counted_and_warned_once_per_outage(service, run_js, tmp_path):
    """Recalls while the service is away run without memory: each is counted in failopen.json
    (which doctor reads), and the user sees one warning when an outage starts and one when it
    ends, not a line per turn."""
    url, _ = service
    client = json.dumps((PLUGIN_DIR / "client.js").as_uri())
    out = run_js(f"""
const fs = await import("node:fs");
const {{ createClient }} = await import({client});
let up = false;
const logs = [];
const logger = {{ warn: (m) => logs.push(m), info: () => {{}}, error: () => {{}} }};
const refused = () => Promise.reject(Object.assign(new TypeError("fetch failed"), {{ cause: {{ code: "ECONNREFUSED" }} }}));
const client = createClient({{ serviceUrl: "{url}", token: "{TOKEN}", spoolDir: {json.dumps(str(tmp_path / "spool"))}, timeoutMs: 5000 }},
  logger, (u, o) => (up ? fetch(u, o) : refused()));
const recall = () => client.post("/v1/recall", {{ scope: {{ user_id: "alice", agent_id: "main" }}, session_id: "s1", prompt: "hi" }});
const answers = [];
for (const state of [false, false, false, true, true, false, false]) {{ up = state; answers.push(await recall()); }}
await client.failOpen.settled();
const file = {json.dumps(str(tmp_path / "spool" / "failopen.json"))};
console.log(JSON.stringify({{ logs, answered: answers.map((a) => a !== null),
  count: JSON.parse(fs.readFileSync(file, "utf8")), mode: fs.statSync(file).mode & 0o777 }}));
""")
    assert out["answered"] == [False, False, False, True, True, False, False]
    assert len(out["logs"]) == 3, out["logs"]  # outage, back again, outage
    assert "cannot be reached" in out["logs"][0] and "WITHOUT long-term memory" in out["logs"][0]
    assert "answers again; 3 call(s) ran without it" in out["logs"][1]
    assert "cannot be reached" in out["logs"][2]
    count = out["count"]
    assert (count["count"], count["outages"], count["spooled"]) == (5, 2, 0)
    assert "ECONNREFUSED" in count["last_error"] and out["mode"] == 0o600


def test_a_late_answer_to_a_call_sent_before_an_outage_does_not_end_it(run_js, tmp_path):
    """A slow answer that lands after calls were refused was sent before the outage began: it says
    nothing about now, so the outage goes on (one warning), and the next delivered call ends it."""
    client = json.dumps((PLUGIN_DIR / "client.js").as_uri())
    out = run_js(f"""
const {{ createClient }} = await import({client});
const logs = [];
const logger = {{ warn: (m) => logs.push(m), info: () => {{}}, error: () => {{}} }};
let release;
const held = new Promise((r) => {{ release = r; }});
const answer = () => new Response(JSON.stringify({{ ok: true }}), {{ status: 200 }});
const refused = () => Promise.reject(Object.assign(new TypeError("fetch failed"), {{ cause: {{ code: "ECONNREFUSED" }} }}));
let mode = "held";
const fetchImpl = () => (mode === "held" ? held.then(answer) : mode === "down" ? refused() : Promise.resolve(answer()));
const client = createClient({{ serviceUrl: "http://127.0.0.1:9", token: "t", spoolDir: {json.dumps(str(tmp_path / "spool"))}, timeoutMs: 5000 }},
  logger, fetchImpl);
const call = () => client.post("/v1/recall", {{ prompt: "hi" }});
const slow = call();
mode = "down";
const during = [await call(), await call()];
release();
const late = await slow;
const afterLate = logs.length;
await call();
mode = "up";
await call();
await client.failOpen.settled();
console.log(JSON.stringify({{ logs, afterLate, answered: [late !== null, ...during.map((a) => a !== null)] }}));
""")
    assert out["answered"] == [True, False, False]
    assert out["afterLate"] == 1, out["logs"]  # the outage's warning, and no "answers again"
    assert len(out["logs"]) == 2, out["logs"]
    assert "cannot be reached" in out["logs"][0]
    assert "answers again; 3 call(s) ran without it" in out["logs"][1]


def test_the_first_prompt_waits_for_a_service_still_starting_and_gets_its_memory(run_js, tmp_path):
    """A gateway that starts before the service (warming up, port not open yet): the first
    prompt waits, bounded, and its recall carries memory; a service that never comes costs
    one bounded wait, then nothing."""
    mw = MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(tmp_path / "data"), "embedding_model": "hash"}}
    )
    mw.remember(Scope("alice", "main"), "我对花生过敏，推荐菜的时候要避开花生")
    port = _free_port()
    server = build_server(create_app(mw, token=TOKEN), host="127.0.0.1", port=port)
    thread = threading.Thread(target=server.run, daemon=True)
    starter = threading.Timer(1.5, thread.start)  # the service opens its port 1.5 s later
    starter.start()
    dead = f"http://127.0.0.1:{_free_port()}"
    try:
        out = run_js(f"""
const seen = load({_cfg(f"http://127.0.0.1:{port}", tmp_path, startupWaitMs=8000)});
await seen.hooks.gateway_start({{}}, {{}});
const first = await seen.hooks.before_prompt_build({{ prompt: "今晚推荐一道菜？", messages: [] }}, {json.dumps(CTX_ALICE)});
const never = load({_cfg(dead, tmp_path, startupWaitMs=600)});
let t0 = Date.now();
await never.hooks.before_prompt_build({{ prompt: "hi", messages: [] }}, {json.dumps(CTX_ALICE)});
const firstWait = Date.now() - t0;
t0 = Date.now();
await never.hooks.before_prompt_build({{ prompt: "hi", messages: [] }}, {json.dumps(CTX_ALICE)});
console.log(JSON.stringify({{ first: first ?? null, firstWait, secondWait: Date.now() - t0,
  logs: seen.logs, neverLogs: never.logs }}));
""")
    finally:
        starter.join()
        server.should_exit = True
        thread.join(timeout=10)
        mw.close()
    assert out["first"] is not None and "花生" in out["first"]["appendSystemContext"]
    assert any("is ready after" in line for line in out["logs"])
    assert 600 <= out["firstWait"] < 4000
    assert out["secondWait"] < 500  # gave up once: later turns do not wait again
    assert any("was not ready within 600 ms" in line for line in out["neverLogs"])


def test_a_config_naming_only_the_token_file_reaches_the_service(service, run_js, tmp_path):
    url, mw = service
    mw.remember(Scope("alice", "main"), "I live at 88 Wensan Road")
    token_file = tmp_path / "service.token"
    token_file.write_text(TOKEN + "\n")
    cfg = _cfg(url, tmp_path, token="", tokenFile=str(token_file))
    out = run_js(f"""
const seen = load({cfg});
const injected = await seen.hooks.before_prompt_build({{ prompt: "Where do I live?", messages: [] }}, {json.dumps(CTX_ALICE)});
console.log(JSON.stringify({{ injected: injected ?? null, logs: seen.logs }}));
""")
    assert out["logs"] == []
    assert "Wensan" in out["injected"]["appendSystemContext"]


def test_a_run_without_a_sender_or_operator_says_what_to_run(service, run_js, tmp_path):
    url, _ = service
    ctx = {"agentId": "main", "sessionKey": "agent:main:main", "trigger": "user"}
    out = run_js(f"""
const seen = load({_cfg(url, tmp_path)}, {{ OPENCLAW_MEMORY_USER: "" }});
await seen.hooks.before_prompt_build({{ prompt: "where do I live?", messages: [] }}, {json.dumps(ctx)});
console.log(JSON.stringify({{ logs: seen.logs }}));
""")
    assert len(out["logs"]) == 1
    assert "openclaw-memory openclaw install --user <name>" in out["logs"][0]
    assert "plugins.entries.openclaw-memory.config.user" in out["logs"][0]
