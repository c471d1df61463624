"""Capture from a host transcript the way OpenClaw sends it, without OpenClaw.

Turn identity that survives a sliding window and a compaction, per-sender slices of a shared
session, nothing written for nobody, Tool Search calls unwrapped, memory tools never stored as
events, the live transcript's own turns left out of recall, and a fact stored through the tool
not extracted a second time. English and Chinese side by side.
"""

from __future__ import annotations

import pytest

from openclaw_memory.capture.events import ToolEvent, unwrap_tool_event
from openclaw_memory.capture import own_turns
from openclaw_memory.capture import transcript_turns
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.types import MemoryType, Scope
from store_helpers import find

ALICE, BOB = Scope("alice", "main"), Scope("bob", "main")


@pytest.fixture
def mw(config, clock):
    m = build_middleware(config, clock=clock)
    yield m
    m.close()


def turn(text: str, at: float, reply: str = "ok", sender: str | None = None) -> list[dict]:
    """A user message and its reply as OpenClaw records them (the reply carries the time)."""
    user = {"role": "user", "content": text, "timestamp": at - 1}
    if sender:
        user["sender"] = sender
    return [user, {"role": "assistant", "content": reply, "timestamp": at}]


def session_of(n: int, facts: dict[int, str]) -> list[dict]:
    out = []
    for i in range(1, n + 1):
        out += turn(facts.get(i, f"small talk number {i}"), 1_000_000 + i * 10)
    return out


def kinds(mw, scope, query, kind=None):
    return [s.record for s in mw.search(scope, query, 20) if kind is None or s.record.type == kind]


def test_a_turn_keeps_its_key_when_the_window_slides_or_is_compacted():
    full = session_of(30, {})
    keys = [t.key for t in transcript_turns(full)]
    assert len(set(keys)) == 30
    window = full[-40:]  # the last 20 turns, as a host that sends a window would
    assert [t.key for t in transcript_turns(window)] == keys[-20:]
    compacted = [
        {"role": "user", "content": "Summary of the conversation so far: ..."},
        *full[-10:],
    ]
    assert [t.key for t in transcript_turns(compacted)][1:] == keys[-5:]


def test_the_reply_time_wins_over_a_restamped_user_message_and_host_ids_win_over_both():
    live = turn("我的车牌号是浙A12345", 5000)
    persisted = [{**live[0], "timestamp": 4000}, live[1]]  # OpenClaw restamps the user message
    assert transcript_turns(live)[0].key == transcript_turns(persisted)[0].key
    with_id = [{**live[0], "id": "msg-77"}, live[1]]
    assert transcript_turns(with_id)[0].key == "msg-77"
    # no times at all: the same text twice is two turns
    bare = [{"role": "user", "content": "hi"}, {"role": "user", "content": "hi"}]
    assert len({t.key for t in transcript_turns(bare)}) == 2


@pytest.mark.parametrize(
    "fact,query,needle",
    [
        ("Remember: my gym locker is number 88.", "gym locker number", "88"),
        ("记住：我的车牌号是浙A12345。", "车牌号", "浙A12345"),
    ],
)
def test_facts_after_turn_20_of_a_long_session_are_captured(mw, fact, query, needle):
    for n in range(1, 31):  # agent_end after every turn, with the last 40 messages
        transcript = session_of(n, {22: fact})[-40:]
        mw.capture_messages(ALICE, "agent:main:long", transcript)
        mw.flush()
    assert any(needle in r.summary for r in kinds(mw, ALICE, query))
    users = [m for m in mw.short_term.window(ALICE, "agent:main:long") if m["role"] == "user"]
    assert len({m["turn_id"] for m in users}) == len(users)  # no turn captured twice


def test_a_fact_after_a_compaction_is_captured_and_the_kept_turns_are_not_again(mw):
    before = session_of(6, {})
    assert mw.capture_messages(ALICE, "s", before) == 6
    mw.flush()
    after = [
        {"role": "user", "content": "Summary: six turns of small talk"},
        *before[-4:],
        *turn("我住在杭州西湖区", 2_000_000),
    ]
    assert mw.capture_messages(ALICE, "s", after) == 2  # the summary message and the new turn
    mw.flush()
    assert any("杭州" in r.summary for r in kinds(mw, ALICE, "住在哪里"))


def test_a_shared_session_gives_each_sender_their_own_turns_only(mw):
    group = [
        *turn("我对虾过敏", 10, reply="好的，记住了", sender="bob"),
        *turn("I love hiking in the Alps", 20, reply="Noted!", sender="alice"),
    ]
    turns = transcript_turns(group)
    assert [t.user for t in own_turns(turns, "bob")] == ["我对虾过敏"]
    assert [t.reply for t in own_turns(turns, "alice")] == ["Noted!"]
    for scope in (ALICE, BOB):
        mw.recall(scope, "agent:main:group", "hi")  # each one spoke here
        mw.capture_messages(scope, "agent:main:group", group)
    mw.flush()
    assert any("虾" in r.summary for r in kinds(mw, BOB, "虾过敏"))
    assert not [r for r in kinds(mw, ALICE, "虾过敏") if "虾" in r.summary]
    assert any("Alps" in r.summary for r in kinds(mw, ALICE, "hiking Alps"))
    assert not [r for r in kinds(mw, BOB, "hiking Alps") if "Alps" in r.summary]


def test_a_turn_nobody_is_known_to_have_sent_is_written_for_nobody(mw):
    group = [
        *turn("我住在杭州西湖区文三路 88 号", 10, sender="bob"),
        *turn("heartbeat: anything new?", 20),
    ]  # a senderless run in the same session
    assert mw.capture_messages(ALICE, "agent:main:group", group) == 0
    mw.flush()
    assert kinds(mw, ALICE, "住在哪里 杭州") == [] and kinds(mw, ALICE, "heartbeat") == []
    # compaction names no sender: only people who spoke in the session get a summary
    assert mw.on_session_compaction("main", "agent:main:nobody-spoke", group) == []


def test_compaction_without_a_sender_summarises_each_participant_apart(mw):
    for scope, text in (
        (ALICE, "We decided to move to Lyon next month"),
        (BOB, "我们决定下个月搬到杭州"),
    ):
        mw.recall(scope, "agent:main:g", "hi")
        convo = turn(text, 10, sender=scope.user_id) + turn(
            "and that is all", 20, sender=scope.user_id
        )
        mw.capture_messages(scope, "agent:main:g", convo)
    mw.flush()
    assert mw.on_session_compaction("main", "agent:main:g") == [ALICE, BOB]
    mw.flush()
    alice = find(mw.engine, ALICE, type="summary", limit=5)
    bob = find(mw.engine, BOB, type="summary", limit=5)
    assert alice and "Lyon" in alice[0].summary and "杭州" not in alice[0].summary
    assert bob and "杭州" in bob[0].summary and "Lyon" not in bob[0].summary


@pytest.mark.parametrize(
    "event,stored",
    [
        (
            ToolEvent(
                "tool_call", {"id": "openclaw:openclaw-memory:memory_store", "args": {"text": "x"}}
            ),
            None,
        ),
        (ToolEvent("tool_search", {"query": "memory"}), None),
        (ToolEvent("tool_describe", {"id": "openclaw:core:ls"}), None),
        (ToolEvent("memory_search", {"query": "花生"}), None),
        (
            ToolEvent("tool_call", {"id": "openclaw:core:ls", "args": {"path": "src"}}, "main.py"),
            ("ls", {"path": "src"}),
        ),
        (ToolEvent("ls", {"path": "."}), ("ls", {"path": "."})),
    ],
)
def test_tool_search_calls_are_unwrapped_and_memory_tools_are_never_events(event, stored):
    out = unwrap_tool_event(event)
    assert (out if out is None else (out.tool, dict(out.arguments))) == stored


def test_a_memory_store_through_tool_search_leaves_no_event(mw):
    mw.on_tool_event(
        ALICE,
        "s",
        ToolEvent(
            "tool_call",
            {"id": "openclaw:openclaw-memory:memory_store", "args": {"text": "I like oolong"}},
            "stored",
        ),
    )
    mw.on_tool_event(
        ALICE,
        "s",
        ToolEvent("tool_call", {"id": "openclaw:core:exec", "args": {"cmd": "ls"}}, "a b"),
    )
    mw.flush()
    events = [r for r in find(mw.engine, ALICE, type="event", limit=10)]
    assert [r.subject for r in events] == ["tool/exec"]


@pytest.mark.parametrize(
    "text,query,needle",
    [
        ("Remember: I drink my coffee black, no sugar.", "coffee", "black"),
        ("请记住：我喝美式咖啡不加糖。", "咖啡", "美式"),
    ],
)
def test_a_fact_stored_through_the_tool_is_not_extracted_again_from_its_turn(
    mw, text, query, needle
):
    mw.remember(ALICE, text, session_id="s")
    transcript = turn(text, 100, reply="Stored.")
    key = transcript_turns(transcript)[0].key
    mw.capture_messages(ALICE, "s", transcript, stored_turns=[key])
    mw.flush()
    curated = [
        r for r in kinds(mw, ALICE, query) if r.type != MemoryType.EPISODE and needle in r.summary
    ]
    assert len(curated) == 1 and curated[0].source.channel.value == "explicit"


@pytest.mark.parametrize(
    "fact,question,needle",
    [
        ("Remember that my daughter is called Mia.", "what is my daughter called", "Mia"),
        ("请记住：我女儿叫小米。", "我女儿叫什么", "小米"),
    ],
)
def test_recall_leaves_out_what_the_live_transcript_still_holds(mw, fact, question, needle):
    transcript = turn(fact, 100)
    mw.recall(ALICE, "live", "hi")
    mw.capture_messages(ALICE, "live", transcript)
    mw.flush()
    live = [t.key for t in transcript_turns(transcript)]
    assert needle not in mw.recall(ALICE, "live", question, live_turns=live).block
    assert needle in mw.recall(ALICE, "live", question).block  # compacted away: recalled again
    assert needle in mw.recall(ALICE, "another", question, live_turns=live).block
