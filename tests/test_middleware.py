"""MemoryMiddleware: the hooks, the injection position, the window, summaries, background capture."""

from __future__ import annotations

import threading

import pytest

from openclaw_memory.capture.events import ToolEvent
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.middleware import ChatRequest, MemoryMiddleware
from openclaw_memory.types import MemoryType, Scope
from store_helpers import find, stored_bytes

ALICE, BOB = Scope("alice", "main"), Scope("bob", "main")
SYSTEM = {"role": "system", "content": "You are helpful."}


@pytest.fixture
def mw(config, clock):
    m = build_middleware(config, clock=clock)
    yield m
    m.close()


def say(mw, scope, session, text, reply="ok, noted.", history=None):
    msgs = [SYSTEM, *(history or []), {"role": "user", "content": text}]
    req = ChatRequest(scope, session, msgs)
    res = mw.before_request(req)
    mw.after_response(req, reply)
    return res


def ask(mw, scope, session, text):
    return mw.before_request(
        ChatRequest(scope, session, [SYSTEM, {"role": "user", "content": text}])
    )


@pytest.mark.parametrize(
    "statement,question,needle",
    [
        ("请记住：我对花生过敏", "推荐几道川菜", "花生"),
        ("Remember that I am allergic to peanuts", "suggest a dinner recipe", "peanut"),
    ],
)
def test_memory_of_turn_n_is_injected_right_after_the_system_prompt_at_turn_n_plus_1(
    mw, statement, question, needle
):
    say(mw, ALICE, "s1", statement)
    res = ask(mw, ALICE, "s2", question)
    assert res.messages[0] == SYSTEM
    assert res.messages[1]["role"] == "system" and needle in res.messages[1]["content"].lower()
    assert res.messages[1]["content"].startswith("<memory-context>")
    assert res.messages[-1] == {"role": "user", "content": question}
    assert res.plan.position == "after_system" and res.plan.tokens > 0


def test_one_users_memory_never_reaches_another(mw):
    say(mw, ALICE, "s1", "请记住：我的项目代号是猎鹰")
    res = ask(mw, BOB, "b1", "我的项目代号是什么")
    assert "猎鹰" not in str(res.messages)
    assert res.plan.block == ""


def test_after_response_returns_before_the_capture_runs(config, clock):
    mw = build_middleware(config, clock=clock)
    gate = threading.Event()
    real = mw.extractor.extract

    def slow_extract(turn):
        gate.wait(10)
        return real(turn)

    mw.extractor.extract = slow_extract
    try:
        req = ChatRequest(
            ALICE,
            "s1",
            [SYSTEM, {"role": "user", "content": "remember that my cat is called Miso"}],
        )
        mw.after_response(req, "noted")
        assert mw.worker.pending(ALICE) == 1  # queued, not done
        gate.set()
        mw.flush(timeout=10)
        assert mw.worker.pending(ALICE) == 0
        assert any("Miso" in r.summary for r in find(mw.engine, ALICE))
    finally:
        gate.set()
        mw.close()


@pytest.mark.parametrize("position,expect_index", [("after_system", 1), ("before_user_input", 2)])
def test_injection_position_from_config(make_config, tmp_path, clock, position, expect_index):
    mw = build_middleware(make_config(tmp_path, injection={"position": position}), clock=clock)
    try:
        say(mw, ALICE, "s1", "remember that I prefer tabs over spaces")
        res = mw.before_request(
            ChatRequest(
                ALICE,
                "s2",
                [
                    SYSTEM,
                    {"role": "assistant", "content": "hi"},
                    {"role": "user", "content": "tabs or spaces?"},
                ],
            )
        )
        assert "<memory-context>" in res.messages[expect_index]["content"]
        assert res.messages[-1]["content"] == "tabs or spaces?"
    finally:
        mw.close()


def test_system_prefix_template_wraps_the_block_in_the_system_message(make_config, tmp_path, clock):
    cfg = make_config(
        tmp_path,
        injection={
            "position": "system_prefix",
            "system_prefix": "【历史记忆】\n{memory_block}\n【当前输入】",
        },
    )
    mw = build_middleware(cfg, clock=clock)
    try:
        say(mw, ALICE, "s1", "请记住：我喜欢用表格回复")
        res = ask(mw, ALICE, "s2", "总结一下这周的工作")
        assert len(res.messages) == 2
        assert res.messages[0]["content"].startswith("You are helpful.")
        assert "【历史记忆】\n<memory-context>" in res.messages[0]["content"]
    finally:
        mw.close()


def test_short_term_window_is_bounded_by_tokens_and_survives_a_restart(
    make_config, tmp_path, clock
):
    cfg = make_config(
        tmp_path, short_term={"max_tokens": 60, "window_size": 50, "summary_threshold": 10_000}
    )
    mw = build_middleware(cfg, clock=clock)
    for i in range(12):
        say(mw, ALICE, "s1", f"message number {i} talks about topic {i} in some detail", reply="")
    mw.flush()
    window = mw.short_term.window(ALICE, "s1")
    assert mw.short_term.tokens(ALICE, "s1") <= 60 and window[-1]["content"].startswith(
        "message number 11"
    )
    mw.close()
    again = build_middleware(cfg, clock=clock)
    try:
        assert again.short_term.window(ALICE, "s1") == window
    finally:
        again.close()


def test_window_over_threshold_becomes_a_summary_with_provenance(make_config, tmp_path, clock):
    cfg = make_config(
        tmp_path, short_term={"max_tokens": 4000, "window_size": 100, "summary_threshold": 80}
    )
    mw = build_middleware(cfg, clock=clock)
    try:
        history = []
        for text in [
            "We decided to use Postgres because the team knows it well.",
            "Next step: write the migration scripts tomorrow.",
            "Should we shard by tenant? Not decided yet.",
            "The deadline is fixed: release must ship before March.",
        ]:
            say(
                mw,
                ALICE,
                "s1",
                text,
                reply="Understood, that is recorded in detail for later use.",
                history=history,
            )
            history += [
                {"role": "user", "content": text},
                {"role": "assistant", "content": "Understood."},
            ]
        mw.flush()
        summaries = find(mw.engine, ALICE, type="summary")
        assert summaries, "a summary should replace the window"
        s = summaries[0]
        assert s.source.channel.value == "summary" and len(s.source.turn_ids) >= 2
        assert "<memory-context>" not in s.summary
        window = mw.short_term.window(ALICE, "s1")
        assert window[0]["role"] == "summary"
    finally:
        mw.close()


def test_session_end_summarizes_and_the_next_session_starts_with_context(mw):
    say(mw, ALICE, "s1", "请记住：我叫王小明")
    say(mw, ALICE, "s1", "我们决定下周一上线新版本，因为测试已经全部通过")
    mw.on_session_end(ALICE, "s1", "end")
    mw.flush()
    plan = mw.on_session_start(ALICE, "s2")
    assert "王小明" in plan.block
    assert any(c.record.type is MemoryType.SUMMARY for c in plan.candidates)


def test_save_hook_turns_a_tool_call_into_an_event(mw):
    mw.on_tool_event(
        ALICE,
        "s1",
        ToolEvent(
            "write_file",
            {"path": "src/app.py", "mode": "w"},
            "permission denied",
            ok=False,
            files=("src/app.py",),
        ),
    )
    mw.flush()
    ev = find(mw.engine, ALICE, type="event")[0]
    assert (
        ev.subject == "tool/write_file"
        and "failed" in ev.summary
        and "permission denied" in ev.summary
    )
    assert "src/app.py" in ev.detail and ev.source.channel.value == "tool"


def test_process_event_updates_the_task_without_an_llm(mw):
    mw.record_process_event(ALICE, "task/PRD-223", "in_progress", "移动端权限申请流程")
    mw.record_process_event(
        ALICE, "task/PRD-223", "blocked", "移动端权限申请流程", reason="等待安全评审"
    )
    tasks = find(mw.engine, ALICE, type="task", status="active")
    assert len(tasks) == 1 and "blocked" in tasks[0].summary and tasks[0].version == 2
    events = find(mw.engine, ALICE, type="event")
    assert len(events) == 1 and "等待安全评审" in events[0].summary


def test_secrets_never_reach_storage(mw, config):
    say(mw, ALICE, "s1", "my password is Hunter2-Zebra-77, remember that I use vim", reply="ok")
    mw.flush()
    mw.engine.store.vacuum()
    assert b"Hunter2-Zebra-77" not in stored_bytes(mw.engine)


def test_capture_messages_skips_turns_already_captured(mw):
    msgs = [
        SYSTEM,
        {"role": "user", "content": "remember my editor is helix"},
        {"role": "assistant", "content": "ok"},
    ]
    assert mw.capture_messages(ALICE, "s1", msgs) == 1
    mw.flush()
    msgs += [
        {"role": "user", "content": "and my shell is fish"},
        {"role": "assistant", "content": "ok"},
    ]
    assert mw.capture_messages(ALICE, "s1", msgs) == 1
    mw.flush()
    assert mw.capture_messages(ALICE, "s1", msgs) == 0


def test_remember_and_forget_tools(mw):
    res = mw.remember(ALICE, "I prefer dark roast coffee")
    assert res.record.source.channel.value == "explicit"
    assert [s.record.id for s in mw.search(ALICE, "dark roast coffee")][0] == res.record.id
    assert mw.forget(ALICE, memory_id=res.record.id) == [res.record.id]
    assert all(s.record.id != res.record.id for s in mw.search(ALICE, "dark roast coffee"))


def test_remember_refuses_a_secret(mw):
    from openclaw_memory.errors import ValidationError

    with pytest.raises(ValidationError, match="secret"):
        mw.remember(ALICE, "api key sk-proj-abcdefghijklmnopqrstuvwxyz123456")


def test_bad_messages_are_a_clear_error_and_nothing_is_lost(mw):
    from openclaw_memory.errors import ValidationError

    good = mw.remember(ALICE, "the build server is ci-3")
    with pytest.raises(ValidationError, match="role"):
        mw.before_request(ChatRequest(ALICE, "s1", [{"role": "wizard", "content": "hi"}]))
    with pytest.raises(ValidationError, match="session_id"):
        mw.before_request(ChatRequest(ALICE, "", [{"role": "user", "content": "hi"}]))
    assert mw.get(ALICE, good.record.id).summary == "the build server is ci-3"


def test_constructor_takes_its_collaborators(config, clock):
    built = build_middleware(config, clock=clock)
    try:
        assert isinstance(built, MemoryMiddleware)
        assert built.engine.clock is clock
    finally:
        built.close()


@pytest.mark.parametrize(
    "fact,command,question,gone",
    [
        ("请记住：我下周三要去杭州出差", "忘掉去杭州出差那件事吧", "我下周三有什么安排", "杭州"),
        (
            "Remember that my trip to Oslo is on Friday",
            "Please forget about my trip to Oslo",
            "what is on Friday",
            "oslo",
        ),
    ],
)
def test_explicit_forget_takes_effect_on_the_next_request(mw, fact, command, question, gone):
    say(mw, ALICE, "s1", fact)
    assert gone in ask(mw, ALICE, "s1", question).plan.block.lower()
    say(mw, ALICE, "s1", command)
    assert gone not in ask(mw, ALICE, "s1", question).plan.block.lower()
    audit = [a for a in mw.engine.audit_log(ALICE) if a["action"] == "deactivate"]
    assert audit and all(a["reason"].startswith("forgotten on request") for a in audit)


def test_injected_memories_are_reinforced_in_the_background_and_others_are_not(mw):
    injected = mw.remember(ALICE, "我的项目代号是猎鹰 the project code name is Falcon").record
    unrelated = mw.remember(ALICE, "the printer on floor 3 is broken").record
    res = ask(mw, ALICE, "s1", "项目代号是什么？ what is the project code name?")
    assert injected.id in {c.record.id for c in res.plan.candidates if c.kept}
    assert unrelated.id not in {c.record.id for c in res.plan.candidates if c.kept}
    mw.flush()
    counts = {
        r.id: (r.access_count, r.last_accessed_at)
        for r in (mw.get(ALICE, injected.id), mw.get(ALICE, unrelated.id))
    }
    assert counts[injected.id][0] == 1 and counts[injected.id][1] is not None
    assert counts[unrelated.id] == (0, None)


def test_a_job_without_barrier_does_not_hold_up_the_users_next_read_but_a_full_flush_waits():
    from openclaw_memory.core.worker import Job, Worker

    worker, gate, done = Worker(), threading.Event(), []
    worker.submit(Job(ALICE, lambda: (gate.wait(10), done.append("touch")), "touch", barrier=False))
    assert worker.wait(ALICE, timeout=0.5)  # the user's reads go on
    assert not worker.wait(timeout=0.2)  # a flush of everything still waits for it
    gate.set()
    assert worker.wait(timeout=10) and done == ["touch"]
    worker.close()


def test_a_continuing_session_is_only_read_until_its_activity_stamp_is_a_minute_old(engine, clock):
    from openclaw_memory.capture.pipeline import Sessions

    sessions = Sessions(engine.store, clock)

    def stamp():
        row = engine.store.session(ALICE, "s1")
        return row["last_active_at"], row["ended_at"]

    assert sessions.open(ALICE, "s1") is True
    start = clock.now()
    clock.advance(30)
    assert sessions.open(ALICE, "s1") is False and stamp() == (start, None)
    clock.advance(31)
    assert sessions.open(ALICE, "s1") is False and stamp() == (start + 61, None)
    sessions.end(ALICE, "s1", "end", None)
    clock.advance(1)
    assert sessions.open(ALICE, "s1") is False and stamp() == (start + 62, None)  # reopened at once


def test_a_transcript_sent_again_before_its_capture_ran_is_captured_once(config, clock):
    mw = build_middleware(config, clock=clock)
    gate, real = threading.Event(), mw.extractor.extract
    mw.extractor.extract = lambda turn: (gate.wait(10), real(turn))[1]
    transcript = [
        {"role": "user", "content": "remember that my cat is called Miso"},
        {"role": "assistant", "content": "noted"},
        {"role": "user", "content": "我住在杭州"},
    ]
    try:
        assert mw.capture_messages(ALICE, "s1", transcript) == 2
        assert mw.capture_messages(ALICE, "s1", transcript) == 0  # still queued: not again
        assert mw.capture_messages(BOB, "s1", transcript) == 2  # another user's turns are theirs
        gate.set()
        mw.flush(timeout=10)
        assert mw.capture_messages(ALICE, "s1", transcript) == 0  # written: not again either
        window = [m for m in mw.short_term.window(ALICE, "s1") if m["role"] == "user"]
        assert [m["content"] for m in window] == [
            "remember that my cat is called Miso",
            "我住在杭州",
        ]
        # a purge drops what was queued, and the same transcript may then be captured anew
        busy = threading.Event()
        mw.jobs.submit(BOB, lambda: busy.wait(10), "another user's job, holding the worker")
        assert mw.capture_messages(ALICE, "s2", transcript) == 2
        mw.purge_user(
            "alice"
        )  # the queued capture is dropped (from the queue, or when its turn comes)
        assert mw.capture_messages(ALICE, "s2", transcript) == 2
        busy.set()
        mw.flush(timeout=10)
        window = [m for m in mw.short_term.window(ALICE, "s2") if m["role"] == "user"]
        assert len(window) == 2  # captured once, by the capture queued after the purge
    finally:
        gate.set()
        mw.close()


def test_closing_a_closed_middleware_does_nothing(tmp_path):
    from openclaw_memory import Scope, build_middleware
    from openclaw_memory.testing import harness_config

    mw = build_middleware(harness_config(tmp_path / "store"))
    mw.remember(Scope("alice"), "I live in Lisbon")
    mw.close()
    mw.close()  # a `with` block and an explicit close may both run: the second is a no-op
    mw.flush()  # an adapter that only flushes a middleware it does not own may come last
