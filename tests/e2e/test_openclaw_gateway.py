"""End to end through a running OpenClaw Gateway (2026.9.6): long sessions, compaction, Tool Search.

One `openclaw gateway run` process serves every turn, driven over its OpenAI-compatible HTTP
endpoint (`POST /v1/chat/completions` with `x-openclaw-session-key`), so a 30-turn session costs
seconds per turn instead of a CLI start each. The Gateway's runs carry no channel sender; the
Gateway's $OPENCLAW_MEMORY_USER names the operator they belong to (docs/openclaw.md, "Whose memory").
Same toolchain and skip rules as test_openclaw_e2e.py.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time

import httpx
import pytest

from .fake_model import FakeModelServer, system_text
from .test_openclaw_e2e import World, _free_port, toolchain  # noqa: F401 - the fixture is used

pytestmark = [pytest.mark.e2e, pytest.mark.openclaw]

OPERATOR = "mei"
MEI = {"user_id": OPERATOR, "agent_id": "main"}
GATEWAY_TOKEN = "e2e-gateway-token"
PLATE = "记住：我的车牌号是浙A12345。"
LOCKER = "Remember: my gym locker is number 88."


class Gateway:
    """The World plus a Gateway process and a chat() that runs one turn through it."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.port = _free_port()
        self.proc: subprocess.Popen | None = None

    def configure(self) -> None:
        path = self.world.home / ".openclaw" / "openclaw.json"
        data = json.loads(path.read_text())
        data["gateway"] = {
            "mode": "local",
            "port": self.port,
            "bind": "loopback",
            "auth": {"mode": "token", "token": GATEWAY_TOKEN},
            "http": {"endpoints": {"chatCompletions": {"enabled": True}}},
        }
        path.write_text(json.dumps(data, indent=2))

    def start(self) -> None:
        argv = [
            str(self.world.tools.openclaw),
            "gateway",
            "run",
            "--bind",
            "loopback",
            "--port",
            str(self.port),
        ]
        self.proc = subprocess.Popen(
            argv,
            env=self.world.env(OPENCLAW_MEMORY_USER=OPERATOR),
            cwd=self.world.tmp,
            stdout=open(self.world.tmp / "gateway.log", "w"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, (self.world.tmp / "gateway.log").read_text()[-3000:]
            try:
                if (
                    httpx.get(
                        f"{self.url}/v1/models", headers=self.headers(), timeout=5
                    ).status_code
                    == 200
                ):
                    return
            except httpx.HTTPError:
                pass
            time.sleep(1)
        raise AssertionError("the gateway did not come up within 300 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def headers(self, session: str | None = None) -> dict[str, str]:
        out = {"authorization": f"Bearer {GATEWAY_TOKEN}"}
        if session:
            out["x-openclaw-session-key"] = f"agent:main:{session}"
        return out

    def chat(self, session: str, text: str) -> list[dict]:
        """One turn; returns the model requests it made."""
        before = len(self.world.model.chat_requests())
        resp = httpx.post(
            f"{self.url}/v1/chat/completions",
            headers=self.headers(session),
            timeout=300,
            json={"model": "openclaw/main", "messages": [{"role": "user", "content": text}]},
        )
        assert resp.status_code == 200, resp.text[-2000:]
        return self.world.model.chat_requests()[before:]

    def compact(self, session: str) -> subprocess.CompletedProcess:
        """`openclaw sessions compact` of one session, as its user runs it."""
        return subprocess.run(
            [str(self.world.tools.openclaw), "sessions", "compact", f"agent:main:{session}"],
            env=self.world.env(),
            cwd=self.world.tmp,
            capture_output=True,
            text=True,
            timeout=600,
        )

    def log(self) -> str:
        return (self.world.tmp / "gateway.log").read_text(errors="replace")


@pytest.fixture(scope="module")
def gateway(toolchain, tmp_path_factory):  # noqa: F811 - pytest fixture
    started = time.monotonic()
    with FakeModelServer() as model:
        world = World(tmp_path_factory.mktemp("openclaw-gateway"), toolchain, model)
        gw = Gateway(world)
        try:
            world.write_openclaw_config()
            world.start_service()
            world.install_plugin()
            world.tune_plugin(recallTimeoutMs=5000, timeoutMs=5000, spoolDir=str(world.spool))
            gw.configure()
            mark = time.monotonic()
            gw.start()
            world.timings["gateway start"] = round(time.monotonic() - mark, 1)
            world.timings["setup"] = round(time.monotonic() - started, 1)
            yield gw
        finally:
            gw.stop()
            world.stop_service()
            print(f"\nopenclaw gateway e2e timings (s): {json.dumps(world.timings)}")


def _flushed(world: World) -> None:
    """Wait for the operator's queued captures (a search waits for them: read-your-writes)."""
    world.api("/v1/memory/search", {"scope": MEI, "query": "flush", "limit": 1})


def test_facts_after_turn_20_of_a_30_turn_session_are_recalled_in_a_new_session(gateway):
    mark = time.monotonic()
    for n in range(1, 31):
        text = {21: PLATE, 22: LOCKER}.get(
            n, f"第{n}轮：今天天气不错，随便聊聊。Small talk, turn {n}."
        )
        gateway.chat("long", text)
    gateway.world.timings["30 turns"] = round(time.monotonic() - mark, 1)
    system = system_text(gateway.world.model.chat_requests()[-1])
    assert "Do not cite file paths or line numbers for memories" in system  # our guidance
    assert "Source: <path#line>" not in system  # not memory-core's
    _flushed(gateway.world)
    plate = system_text(gateway.chat("fresh-1", "我的车牌号是多少？")[0])
    locker = system_text(gateway.chat("fresh-2", "What is my gym locker number?")[0])
    assert "浙A12345" in plate
    assert "88" in locker and "locker" in locker.lower()


def test_a_compaction_through_the_gateway_then_a_new_fact_both_recalled_and_a_summary_written(
    gateway,
):
    world = gateway.world
    gateway.chat("compact-me", "请记住：我女儿叫小米，今年五岁。")
    gateway.chat("compact-me", "We decided to move to Lisbon next spring.")
    mark = time.monotonic()
    proc = gateway.compact("compact-me")
    world.timings["compact"] = round(time.monotonic() - mark, 1)
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-2000:]
    gateway.chat("compact-me", "Remember: my dentist is called Okafor, on Rua Augusta.")
    _flushed(world)
    summaries = world.records(user_id=OPERATOR, type="summary")
    assert summaries, "before_compaction wrote no summary record"
    old = system_text(gateway.chat("after-compact-1", "我女儿叫什么名字？")[0])
    new = system_text(gateway.chat("after-compact-2", "Who is my dentist?")[0])
    assert "小米" in old
    assert "Okafor" in new


def test_memory_store_through_tool_search_stores_the_fact_once_and_no_event(gateway):
    world = gateway.world
    fact = "I prefer window seats on long flights."
    world.model.queue_tool_call("tool_search", {"query": "store a memory"})
    world.model.queue_tool_call(
        "tool_call", {"id": "openclaw:openclaw-memory:memory_store", "args": {"text": fact}}
    )
    requests = gateway.chat("tools-1", f"Please remember this: {fact}")
    assert len(requests) >= 3, "expected the tool_search and tool_call round trips"
    tool_results = json.dumps(
        [m for m in requests[-1]["messages"] if m.get("role") == "tool"], ensure_ascii=False
    )
    assert (
        "memory_store" in tool_results
        or "stored" in tool_results.lower()
        or "added" in tool_results.lower()
    )
    _flushed(world)
    stored = [
        r for r in world.records(user_id=OPERATOR, type_not="episode") if "window seats" in r[2]
    ]
    assert len(stored) == 1, stored
    events = world.records(user_id=OPERATOR, type="event")
    assert not [
        e for e in events if "tool_call" in e[2] or "tool_search" in e[2] or "memory_" in e[2]
    ], events
    assert "plugin tool name conflict" not in gateway.log()


#: an assistant's session as its user runs it: mostly requests for help (questions to the
#: assistant, commands, small talk), in both languages, none of which is a memory
REQUESTS = [
    "What's the capital of Australia?",
    "帮我把“早上好”翻译成法语。",
    "Translate 'see you tomorrow' into Spanish.",
    "帮我算一下 37 乘以 12 等于多少。",
    "How far is Mars from the Sun?",
    "解释一下什么是量子纠缠。",
    "Write a haiku about autumn leaves.",
    "推荐几本好看的科幻小说。",
    "How do I reverse a list in Python?",
    "今天适合穿什么颜色的衣服？",
    "Give me three synonyms for 'happy'.",
    "光速是多少？",
    "What is the boiling point of water at sea level?",
    "帮我写一句生日祝福语。",
    "Summarise the plot of Hamlet in two sentences.",
    "二十四节气里第一个是什么？",
    "Hello, how are you today?",
    "用一句话解释一下区块链。",
    "Convert 100 Fahrenheit to Celsius.",
    "给我讲个冷笑话。",
    "What's a good name for a goldfish?",
    "北京到上海的高铁要多久？",
    "List the planets of the solar system.",
    "帮我想一个周末活动的标题。",
    "Explain recursion to a child.",
    "怎么煮溏心蛋？",
    "What does 'carpe diem' mean?",
    "推荐一首适合跑步听的歌。",
    "Why is the sky blue?",
    "帮我检查这句话的语法：I has a apple。",
    "What time zone is Tokyo in?",
    "What rhymes with 'orange'?",
    "帮我把这段话改得更正式一点：明天见。",
    "How many ounces are in a pound?",
    "谢谢，你真棒！",
]
#: the user's own facts and one about another person (by relation and name), at these turns;
#: one mixes a statement with a request
FACTS = {
    4: "记住：我儿子Leo对芒果过敏。",
    11: "I work as a nurse at St. Mary's hospital.",
    17: "我下周去成都出差，帮我查下那边的天气。",
    23: "My wife Ana plays the violin in an orchestra.",
    35: "Remember: my bike is a green Brompton.",
}
#: (a question in a new session, what its block must hold)
ASKED = [
    ("我儿子对什么过敏？", "芒果"),
    ("Where do I work?", "St. Mary"),
    ("我下周去哪里出差？", "成都"),
    ("What does my wife play?", "violin"),
    ("What bike do I have?", "Brompton"),
]


def test_a_40_turn_assistant_session_with_a_compaction_keeps_the_facts_and_no_requests(gateway):
    world = gateway.world
    requests = iter(REQUESTS)
    turns = [FACTS.get(n) or next(requests) for n in range(1, 41)]
    mark = time.monotonic()
    for n, text in enumerate(turns, start=1):
        gateway.chat("assistant", text)
        if n == 30:
            proc = gateway.compact("assistant")
            # the plugin's compaction hook runs before OpenClaw summarises; OpenClaw's own
            # safeguard may refuse the scripted model's summary of a long session, which is
            # OpenClaw's outcome, not memory's: what memory wrote is checked below
            compacted = proc.stdout[-1000:] + proc.stderr[-1000:]
    world.timings["40 assistant turns"] = round(time.monotonic() - mark, 1)
    _flushed(world)
    # the son's fact is the son's: no profile record of the user speaks of him
    profile = world.records(user_id=OPERATOR, type="profile", status="active")
    assert not [r for r in profile if re.search(r"Leo|儿子|\bson\b", r[2], re.I)]
    # the compaction wrote a summary, and no summary lists the user's requests
    summaries = [r[2] for r in world.records(user_id=OPERATOR, type="summary")]
    assert summaries, compacted
    for summary in summaries:
        assert "Open questions" not in summary
        assert not [r for r in REQUESTS if r in summary]
    for n, (question, answer) in enumerate(ASKED):
        block = system_text(gateway.chat(f"assistant-next-{n}", question)[0])
        assert answer in block, (question, block[-2000:])
        echoed = [r for r in REQUESTS if r in block]
        assert not echoed, (question, echoed)
        assert "Open questions" not in block
