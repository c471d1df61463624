"""End to end in the real OpenClaw 2026.9.6: plugin hooks -> our service -> the model request.

Needs Node 24 and openclaw from `scripts/openclaw-env.sh` (cache: $OPENCLAW_CACHE, default
~/.cache/openclaw-memory). Skipped when they are absent, unless OPENCLAW_E2E=1, which makes a
missing setup a failure. Everything runs offline: OpenClaw talks to a fake OpenAI-compatible
model on 127.0.0.1 that records each request, so the test sees exactly what the model would see.

`openclaw agent --local` carries no channel sender (ctx.senderId is only set for channel
messages), so each run names its user the way a local operator would: OPENCLAW_MEMORY_USER.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from openclaw_memory.store import inspect

from .fake_model import MODEL_ID, FakeModelServer, system_text

pytestmark = [pytest.mark.e2e, pytest.mark.openclaw]

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "e2e-token"
ALICE = {"user_id": "alice", "agent_id": "main"}
BOB = {"user_id": "bob", "agent_id": "main"}
PREFERENCE = "请记住：我对花生过敏，推荐菜的时候要避开花生"
QUESTION = "今晚推荐一道菜？"
INJECTED = "OpenClaw plugin-injected system context"
OPENCLAW_PROMPT = "You are a personal assistant running inside OpenClaw"


@dataclass(frozen=True)
class Toolchain:
    node_dir: Path
    openclaw: Path


def find_toolchain() -> Toolchain | None:
    """Node 24 and openclaw as installed by scripts/openclaw-env.sh, or None."""
    cache = Path(os.environ.get("OPENCLAW_CACHE") or Path.home() / ".cache" / "openclaw-memory")
    nodes = sorted((cache / "node" / "node_modules").glob("node-linux-*/bin/node"))
    openclaw = cache / "openclaw" / "node_modules" / ".bin" / "openclaw"
    if not nodes or not openclaw.exists():
        return None
    return Toolchain(nodes[0].parent, openclaw)


@pytest.fixture(scope="module")
def toolchain() -> Toolchain:
    found = find_toolchain()
    if found is not None:
        return found
    hint = "run scripts/openclaw-env.sh (installs Node 24.22.3 and openclaw@2026.9.6 from npm)"
    if os.environ.get("OPENCLAW_E2E") == "1":
        pytest.fail(f"OPENCLAW_E2E=1 but Node 24 / openclaw are not in the cache: {hint}")
    pytest.skip(f"OpenClaw end-to-end test: {hint}, or set OPENCLAW_E2E=1 to require it")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class World:
    """An isolated OpenClaw home, the fake model, our service and helpers to drive them."""

    def __init__(self, tmp: Path, tools: Toolchain, model: FakeModelServer) -> None:
        self.tmp, self.tools, self.model = tmp, tools, model
        self.home = tmp / "home"
        self.spool = tmp / "spool"
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.service: subprocess.Popen | None = None
        self.timings: dict[str, float] = {}

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("OPENCLAW_MEMORY_", "XDG_")) and k != "OPENCLAW_STATE_DIR"
        }
        env.update(
            HOME=str(self.home),
            OPENCLAW_NO_UPDATE_CHECK="1",
            NO_COLOR="1",
            PATH=f"{self.tools.node_dir}{os.pathsep}{env.get('PATH', '')}",
            PYTHONPATH=str(ROOT),
            **extra,
        )
        return env

    def write_openclaw_config(self) -> None:
        provider = {
            "baseUrl": self.model.base_url,
            "apiKey": "sk-fake",
            "api": "openai-completions",
            "models": [
                {
                    "id": MODEL_ID,
                    "name": "Fake",
                    "input": ["text"],
                    "contextWindow": 128000,
                    "maxTokens": 4096,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                }
            ],
        }
        config = {
            "models": {"providers": {"fake": provider}},
            "agents": {"defaults": {"model": {"primary": f"fake/{MODEL_ID}"}}},
            "memory": {"search": {"provider": "none"}},
        }
        path = self.home / ".openclaw" / "openclaw.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(config, indent=2))

    def start_service(self) -> None:
        cfg = self.tmp / "memory.yaml"
        cfg.write_text(f"storage:\n  data_dir: {self.tmp / 'memory-data'}\n")
        self.service = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "openclaw_memory.service",
                "--config",
                str(cfg),
                "--port",
                str(self.port),
            ],
            env=self.env(OPENCLAW_MEMORY_TOKEN=TOKEN),
            cwd=self.tmp,
            stdout=subprocess.DEVNULL,
            stderr=open(self.tmp / "service.log", "w"),
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert self.service.poll() is None, (self.tmp / "service.log").read_text()
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.25)
        raise AssertionError("memory service did not start within 120 s")

    def stop_service(self, sig: int = signal.SIGKILL) -> None:
        if self.service is not None and self.service.poll() is None:
            self.service.send_signal(sig)
            self.service.wait(timeout=60)

    def install_plugin(self) -> str:
        argv = [
            sys.executable,
            "-m",
            "openclaw_memory",
            "openclaw",
            "install",
            "--openclaw-bin",
            str(self.tools.openclaw),
            "--service-url",
            self.url,
            "--token",
            TOKEN,
            # no operator in the plugin's config: each run here names its user in its own
            # environment (and a run naming nobody must read and write nothing)
            "--user",
            "",
        ]
        proc = subprocess.run(
            argv, env=self.env(), capture_output=True, text=True, timeout=600, cwd=self.tmp
        )
        assert proc.returncode == 0, proc.stderr + proc.stdout
        return proc.stdout

    def tune_plugin(self, **settings: Any) -> None:
        """Extra plugin settings, written the way a user edits openclaw.json."""
        path = self.home / ".openclaw" / "openclaw.json"
        data = json.loads(path.read_text())
        data["plugins"]["entries"]["openclaw-memory"]["config"].update(settings)
        path.write_text(json.dumps(data, indent=2))

    def agent(self, user: str | None, session: str, message: str) -> subprocess.Popen:
        argv = [
            str(self.tools.openclaw),
            "agent",
            "--local",
            "--agent",
            "main",
            "--session-key",
            f"agent:main:{session}",
            "--message",
            message,
            "--json",
        ]
        env = self.env(OPENCLAW_MEMORY_USER=user) if user else self.env()
        return subprocess.Popen(
            argv, env=env, cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    def records(self, type_not: str | None = None, **equal: str) -> list[tuple]:
        """(user_id, type, summary) of the store's records whose columns equal the given values
        (and whose type is not `type_not`), read from the SQLite file as OpenClaw's run left it."""
        path = self.tmp / "memory-data" / "memory.db"
        found = inspect.file_rows(path, "SELECT user_id, type, summary, status FROM records")
        return [
            (r["user_id"], r["type"], r["summary"])
            for r in found
            if all(r[k] == v for k, v in equal.items()) and r["type"] != type_not
        ]

    def turn(self, user: str | None, session: str, message: str) -> tuple[dict, str, list[dict]]:
        """Run one agent turn; returns (OpenClaw's JSON result, its stderr, the model requests)."""
        before = len(self.model.chat_requests())
        started = time.monotonic()
        proc = self.agent(user, session, message)
        out, err = proc.communicate(timeout=600)
        self.timings[f"{user}/{session}"] = round(time.monotonic() - started, 1)
        assert proc.returncode == 0, f"openclaw agent exit {proc.returncode}: {err[-3000:]}"
        return parse_result(out), err, self.model.chat_requests()[before:]

    def api(self, path: str, body: dict) -> dict:
        resp = httpx.post(
            f"{self.url}{path}", json=body, timeout=30, headers={"authorization": f"Bearer {TOKEN}"}
        )
        assert resp.status_code == 200, resp.text
        return resp.json()


def parse_result(stdout: str) -> dict:
    """The JSON document `openclaw agent --json` prints (log lines may precede it)."""
    return json.loads(stdout[stdout.index("{") :])


def answer_of(result: dict) -> str:
    return "".join(p.get("text") or "" for p in result.get("payloads", []))


@pytest.fixture(scope="module")
def world(toolchain, tmp_path_factory):
    started = time.monotonic()
    with FakeModelServer() as model:
        w = World(tmp_path_factory.mktemp("openclaw-e2e"), toolchain, model)
        try:
            w.write_openclaw_config()
            w.start_service()
            w.timings["service start"] = round(time.monotonic() - started, 1)
            mark = time.monotonic()
            report = w.install_plugin()
            w.timings["install"] = round(time.monotonic() - mark, 1)
            assert "allowConversationAccess" in report, report
            # Generous budgets: a loaded CI runner must not turn a slow recall into a flaky test.
            w.tune_plugin(recallTimeoutMs=5000, timeoutMs=5000, spoolDir=str(w.spool))
            yield w
        finally:
            w.stop_service()
            print(f"\nopenclaw e2e timings (s): {json.dumps(w.timings)}")


def test_install_is_idempotent(world):
    mark = time.monotonic()
    assert "no changes" in world.install_plugin()
    world.timings["install again"] = round(time.monotonic() - mark, 1)


def test_memory_reaches_the_model_for_its_sender_only(world):
    result, err, _ = world.turn("alice", "alice-1", PREFERENCE)
    assert answer_of(result)
    assert "openclaw-memory:" not in err, err  # no failure line from the plugin

    _, _, bob_requests = world.turn("bob", "bob-1", QUESTION)
    assert bob_requests
    for body in bob_requests:
        dumped = json.dumps(body, ensure_ascii=False)
        assert "花生" not in dumped and INJECTED not in dumped

    world.model.queue_tool_call("ls", {"path": "."})
    result, _, requests = world.turn("alice", "alice-2", QUESTION + " 顺便看看工作目录里有什么。")
    assert answer_of(result)
    assert len(requests) >= 2, "expected the tool call round trip"
    system = system_text(requests[0])
    assert OPENCLAW_PROMPT in system and INJECTED in system
    assert system.index(OPENCLAW_PROMPT) < system.index(INJECTED), (
        "memory must follow OpenClaw's prompt"
    )
    assert "花生" in system[system.index(INJECTED) :]
    users = [m for m in requests[0]["messages"] if m.get("role") == "user"]
    assert all("花生" not in json.dumps(m, ensure_ascii=False) for m in users)  # append_system mode

    tool_messages = [m for m in requests[-1]["messages"] if m.get("role") == "tool"]
    assert tool_messages, "OpenClaw ran the ls tool and sent its result back"
    events = [
        m
        for m in world.api("/v1/memory/search", {"scope": ALICE, "query": "ls", "limit": 10})[
            "memories"
        ]
        if m["type"] == "event"
    ]
    assert events and "ls" in events[0]["summary"]
    bob_events = world.api("/v1/memory/search", {"scope": BOB, "query": "ls", "limit": 10})[
        "memories"
    ]
    assert not [m for m in bob_events if m["type"] == "event"]
    alice_found = world.api("/v1/memory/search", {"scope": ALICE, "query": "花生过敏", "limit": 5})[
        "memories"
    ]
    assert any("花生" in m["summary"] for m in alice_found)
    bob_found = world.api("/v1/memory/search", {"scope": BOB, "query": "花生过敏", "limit": 10})[
        "memories"
    ]
    assert not [m for m in bob_found if "花生" in m["summary"]]


def test_a_run_without_a_sender_writes_nothing_for_anyone(world):
    for scope in (ALICE, BOB):  # let the earlier tests' captures land first
        world.api("/v1/memory/search", {"scope": scope, "query": "flush", "limit": 1})
    before = sorted(world.records())
    result, err, _ = world.turn(None, "nobody-1", "请记住：我住在杭州西湖区文三路 88 号")
    assert answer_of(result)
    assert "no known sender" in err  # said once per session
    time.sleep(2)  # a capture, had one been sent, would be queued by now
    assert sorted(world.records()) == before


def test_a_capture_refused_for_its_token_is_spooled_and_replayed_once_the_token_is_fixed(world):
    world.tune_plugin(token="not-the-token")
    _, err, _ = world.turn("alice", "alice-401", "Remember: my gym locker is number 88.")
    assert "HTTP 401" in err and "spooled to" in err
    spool = world.spool / "spool.jsonl"
    assert (
        oct(world.spool.stat().st_mode & 0o777) == "0o700"
        and oct(spool.stat().st_mode & 0o777) == "0o600"
    )
    world.tune_plugin(token=TOKEN)
    _, _, requests = world.turn("alice", "alice-402", "What is my gym locker number?")
    assert "88" in system_text(requests[0])  # replayed before this very recall
    assert not spool.exists() or not spool.read_text().strip()


def test_killing_the_service_mid_run_does_not_fail_the_turn(world):
    arrived, release = world.model.hold_next()
    started = time.monotonic()
    proc = world.agent("alice", "alice-3", "请记住：我喜欢喝乌龙茶")
    try:
        assert arrived.wait(timeout=300), "the model request never came"
        world.stop_service(signal.SIGKILL)  # recall is done; the capture will find nobody
    finally:
        release.set()
    out, err = proc.communicate(timeout=600)
    world.timings["alice/alice-3 (service killed)"] = round(time.monotonic() - started, 1)
    assert proc.returncode == 0, err[-3000:]
    assert answer_of(parse_result(out))
    # one warning for the outage, naming the capture it spooled
    assert "memory service cannot be reached (/v1/capture" in err
    assert "captures are spooled and replayed then" in err
    raw = (world.spool / "spool.jsonl").read_text(encoding="utf-8")
    spooled = [json.loads(line) for line in raw.splitlines()]
    assert any(e["path"] == "/v1/capture" and e.get("sealed") for e in spooled)
    assert "乌龙茶" not in raw  # sealed on disk, never in the clear
