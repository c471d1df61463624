"""The plugin test harness a user would use on their own YAML."""

from __future__ import annotations

from openclaw_memory.types import MemoryType
from store_helpers import find


def test_driver_replays_openclaw_hook_order_and_records_model_requests(
    ocm_conversation_factory, tmp_path
):
    yaml = tmp_path / "project.yaml"
    yaml.write_text(
        "long_term:\n  top_k: 3\ninjection:\n  position: before_user_input\n", encoding="utf-8"
    )
    chat = ocm_conversation_factory(yaml)
    chat.start_session("s1")
    chat.prompt("请记住：我对花生过敏")
    chat.prompt("我们决定周五去吃川菜，因为大家都喜欢辣")
    chat.tool_call("search_recipes", {"q": "川菜"}, "12 results", files=("recipes.json",))
    chat.end_session()
    chat.start_session("s2")
    chat.prompt("推荐几道川菜")
    request = chat.last_request
    assert request[-1]["content"] == "推荐几道川菜"
    assert (
        "花生" in request[-2]["content"] and request[-2]["role"] == "system"
    )  # before_user_input from the YAML
    events = find(chat.middleware.engine, chat.scope, type="event")
    assert events and events[0].subject == "tool/search_recipes"
    assert any(c.record.type is MemoryType.SUMMARY for c in chat.plans[-1].candidates)


def test_another_sender_sees_nothing(ocm_conversation_factory):
    chat = ocm_conversation_factory()
    chat.start_session("s1")
    chat.prompt("remember that my locker code hint is blue whale")
    chat.end_session()
    bob = chat.as_user("bob")
    bob.start_session("b1")
    bob.prompt("what is my locker code hint")
    assert "whale" not in str(bob.last_request)


def test_fixtures_give_fakes(ocm_llm, ocm_embedder, ocm_clock, ocm_middleware):
    assert ocm_middleware.engine.clock is ocm_clock
    assert len(ocm_embedder.get_text_embedding("x")) == ocm_embedder.dim
