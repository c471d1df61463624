"""The real provider end to end: LlamaIndex's OpenAILike over real HTTP to our fake server.

Needs the `openai` extra (`pip install 'openclaw-memory[openai]'`); skipped without it unless
OPENCLAW_MEMORY_REQUIRE_PROVIDER=1 (set by .ci/run), which makes a missing extra a failure.
"""

from __future__ import annotations

import importlib.util
import json
import os

import pytest

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.config import LLMConfig
from openclaw_memory.extract.llm_chain import LLMExtractor
from openclaw_memory.extract.base import DEFAULT_PROMPTS_DIR
from openclaw_memory.extract.rules import RuleExtractor
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.llm.fake_openai import FakeOpenAIServer
from openclaw_memory.llm import build_llm
from openclaw_memory.middleware import ChatRequest
from openclaw_memory.types import MemoryType, Scope, Turn
from store_helpers import find

if importlib.util.find_spec("llama_index.llms.openai_like") is None:
    if os.environ.get("OPENCLAW_MEMORY_REQUIRE_PROVIDER") == "1":
        pytest.fail(
            "OPENCLAW_MEMORY_REQUIRE_PROVIDER=1 but the openai extra is not installed",
            pytrace=False,
        )
    pytest.skip("needs pip install 'openclaw-memory[openai]'", allow_module_level=True)

MARCH_4_2024 = 1_709_510_400.0
KEY_ENV = "OCM_FAKE_PROVIDER_KEY"

FACTS = json.dumps(
    {
        "facts": [
            {
                "type": "profile",
                "subject": "location",
                "fact": "用户住在杭州",
                "certainty": 0.9,
                "replaces": "上海",
            },
            {
                "type": "task",
                "subject": "task/marathon",
                "fact": "The user is training for the Berlin marathon",
                "certainty": 0.85,
                "entities": ["Berlin"],
            },
        ]
    },
    ensure_ascii=False,
)


@pytest.fixture
def server():
    with FakeOpenAIServer() as fake:
        yield fake


def extractor(server: FakeOpenAIServer, timeout: float = 10.0) -> LLMExtractor:
    cfg = LLMConfig(
        provider="openai_like",
        model="fake-model",
        api_base=server.api_base,
        api_key_env=KEY_ENV,
        timeout_seconds=timeout,
    )
    clock = FakeClock(MARCH_4_2024)
    llm = build_llm(cfg, env={KEY_ENV: "sk-fake-123"})
    return LLMExtractor(
        llm, RuleExtractor(clock), DEFAULT_PROMPTS_DIR, clock, timeout_seconds=timeout
    )


TURN = Turn(
    Scope("u1"),
    "s1",
    "我从上海搬到杭州了, and Berlin is in September: 42 km, wish me luck",
    turn_id="s1#1",
)


def test_structured_output_over_http_becomes_candidates(server):
    server.push(FACTS)
    found = extractor(server).extract(TURN)
    by_subject = {c.subject: c for c in found}
    assert by_subject["location"].summary == "用户住在杭州"
    assert by_subject["location"].replaces == "上海"
    assert by_subject["location"].type is MemoryType.PROFILE
    marathon = by_subject["task/marathon"]
    assert marathon.type is MemoryType.TASK and marathon.entities == ("Berlin",)
    assert marathon.turn_ids == ("s1#1",)

    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-fake-123"
    assert request.body["model"] == "fake-model"
    assert "Today's date is 2024-03-04" in request.prompt
    assert "User: 我从上海搬到杭州了" in request.prompt and '{"facts": [...]}' in request.prompt


@pytest.mark.parametrize(
    "reply",
    [
        "Sorry, I can't help with that.",
        '{"facts": [{"type": "profile"}]}',  # no element has a fact
        '{"memories": "none"}',
    ],
)
def test_bad_output_over_http_falls_back_to_rules(server, reply):
    server.push(reply)
    found = extractor(server).extract(TURN)
    assert found == RuleExtractor(FakeClock(MARCH_4_2024)).extract(TURN)
    assert len(server.requests) == 1


def test_server_errors_fall_back_to_rules_after_the_one_retry(server):
    server.push(500, 500)
    found = extractor(server).extract(TURN)
    assert found == RuleExtractor(FakeClock(MARCH_4_2024)).extract(TURN)
    assert len(server.requests) == 2  # max_retries=1: one retry, then the rule chain


def test_the_middleware_stores_what_the_provider_extracted(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-fake-456")
    server.push(FACTS)
    project = tmp_path / "project.yaml"
    project.write_text(
        "storage:\n  data_dir: data\n  embedding_model: hash\n"
        "extraction:\n  mode: llm\n  llm:\n    provider: openai_like\n    model: fake-model\n"
        f"    api_base: {server.api_base}\n    api_key_env: {KEY_ENV}\n    timeout_seconds: 10\n",
        encoding="utf-8",
    )
    mw = build_middleware(str(project), clock=FakeClock(MARCH_4_2024), background=False)
    try:
        scope = Scope("alice", "main")
        request = ChatRequest(scope, "s1", [{"role": "user", "content": TURN.user}])
        mw.before_request(request)
        mw.after_response(request, "好的 / good luck")
        mw.flush()
        stored = {r.subject: r.summary for r in find(mw.engine, scope, type_not="episode")}
    finally:
        mw.close()
    assert stored.get("task/marathon") == "The user is training for the Berlin marathon"
    assert [r.headers["authorization"] for r in server.requests] == ["Bearer sk-fake-456"]


def test_the_fake_server_dates_its_replies_by_the_injected_clock():
    import urllib.request

    with FakeOpenAIServer(["好的 ok"], clock=FakeClock(MARCH_4_2024)) as fake:
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
        req = urllib.request.Request(
            f"{fake.api_base}/chat/completions", body, {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            reply = json.loads(resp.read())
    assert (
        reply["created"] == int(MARCH_4_2024)
        and reply["choices"][0]["message"]["content"] == "好的 ok"
    )
