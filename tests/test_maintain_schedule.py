"""Scheduled maintenance: the service runs TTL, the cap, compaction, cleanup and message pruning
by itself once the interval has passed (by the injected clock), one runner per store, each run
logged and shown by doctor."""

from __future__ import annotations

import re
import threading
import time
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient

from openclaw_memory.core.clock import DAY, FakeClock
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.maintain import runner as runs
from openclaw_memory.maintain.doctor import doctor
from openclaw_memory.maintain.runner import MaintenanceReport
from openclaw_memory.maintain.runner import HOUR
from openclaw_memory.maintain.runner import MaintenanceBusyError
from openclaw_memory.maintain.runner import MaintenanceScheduler
from openclaw_memory.service.app import create_app
from openclaw_memory.store.sqlite import SQLiteStore
from openclaw_memory.types import Candidate, Channel, MemoryType, Scope
from openclaw_memory.store import inspect
from store_helpers import find

T = MemoryType
ALICE = Scope("alice", "main")
BOB = Scope("bob", "main")
START = 1_760_000_000.0
TOKEN = "maint-token"
POLICY = {
    "maintenance": {"interval_hours": 6.0, "check_seconds": 3600.0, "lease_seconds": 600.0},
    "forgetting": {
        "event_ttl_days": 30.0,
        "compaction_trigger": 5,
        "compaction_batch": 3,
        "cleanup_unused_days": 10.0,
        "cleanup_max_importance": 0.4,
    },
    "long_term": {"max_facts_per_user": 4},
    "short_term": {"window_size": 2, "prune_after_days": 2.0, "keep_per_session": 4},
}


@pytest.fixture
def clock():
    return FakeClock(START)


@pytest.fixture
def service(tmp_path, clock):
    """The service as `serve` wires it: the app over the middleware, its scheduler on app.state."""
    overrides = {"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"}, **POLICY}
    mw = build_middleware(overrides=overrides, clock=clock)
    app = create_app(mw, token=TOKEN)
    app.state.maintenance = MaintenanceScheduler(mw.maintenance, mw.cfg.maintenance)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield mw, app.state.maintenance, client
    mw.close()


def _write(mw, scope, type_, summary, **kw):
    return mw.writer.write(scope, [Candidate(type_, summary, **kw)])[0].record


def _seed(mw, clock):
    """What the policy will act on, and what it must leave alone; returns the records by role."""
    r = {}
    # cap 4: five curated facts (the explicit one below too), the least important is archived
    r["facts"] = [
        _write(mw, ALICE, T.FACT, text, subject=subj, importance=imp)
        for text, subj, imp in [
            ("I live in Oslo", "city", 0.9),
            ("我是素食者", "diet", 0.8),
            ("My dog is called Rex", "dog", 0.7),
            ("I once tried skiing", "skiing", 0.5),
        ]
    ]
    # compaction: seven events of one subject, over the trigger of 5: the oldest three are compacted
    r["deploys"] = []
    for i in range(7):
        r["deploys"].append(
            _write(
                mw,
                ALICE,
                T.EVENT,
                f"deploy #{i} to staging succeeded 部署成功 {i}",
                subject="tool/deploy",
                importance=0.6,
            )
        )
        clock.advance(60)
    # TTL: an event that lives two days
    r["flight"] = _write(
        mw,
        ALICE,
        T.EVENT,
        "flight to Tokyo boards at gate 12",
        subject="travel",
        importance=0.6,
        ttl_seconds=2 * DAY,
    )
    # cleanup: an unimportant episode nobody uses
    r["chatter"] = _write(mw, ALICE, T.EPISODE, "聊了聊天气，今天有点冷", importance=0.3)
    # an explicit memory of the same low importance is never cleaned up
    r["explicit"] = _write(
        mw,
        ALICE,
        T.FACT,
        "remember my locker is 42",
        subject="locker",
        importance=0.3,
        channel=Channel.EXPLICIT,
    )
    # another user's lone fact: nothing applies to it
    r["bob"] = _write(mw, BOB, T.FACT, "Bob likes chess", subject="games", importance=0.5)
    # short-term messages: 6 turns in a session whose window holds 2 messages
    for i in range(6):
        mw.short_term.add_turn(ALICE, "s-old", f"question {i}", f"answer {i}", f"s-old#{i}")
    return r


def _statuses(mw, records):
    out = {}
    for rec in records:
        found = find(mw.engine, rec.scope, id=rec.id, limit=1)
        out[rec.id] = found[0].status.value if found else "deleted"
    return out


def _messages(mw, session):
    held = inspect.select(mw.engine.store, "messages", ("content",), session_id=session)
    return [r["content"] for r in held if r["content"] != ""]


def test_after_the_interval_the_service_applies_the_policy_and_nothing_else(service, clock):
    mw, scheduler, client = service
    assert scheduler.tick() is not None  # never run on this store: due at once (an empty run)
    r = _seed(mw, clock)
    everything = [*r["facts"], *r["deploys"], r["flight"], r["chatter"], r["explicit"], r["bob"]]
    before = _statuses(mw, everything)
    assert set(before.values()) == {"active"}

    clock.set(START + 5 * HOUR)  # the interval (6 h) has not passed since the first run
    assert scheduler.tick() is None
    assert len(runs.recent(mw.engine.store, 10)) == 1
    assert _statuses(mw, everything) == before and len(_messages(mw, "s-old")) == 12

    clock.set(START + 12 * DAY)  # past every threshold; fresh messages in a new session
    mw.short_term.add_turn(ALICE, "s-new", "new question", "new answer", "s-new#0")
    recent = _write(mw, ALICE, T.EPISODE, "今天也聊了天气", importance=0.3)
    report = scheduler.tick()

    assert isinstance(report, MaintenanceReport)
    after = _statuses(mw, [*everything, recent])
    expected = {
        **before,
        recent.id: "active",
        r["facts"][3].id: "archived",
        r["flight"].id: "archived",
        r["chatter"].id: "deleted",
        **{d.id: "archived" for d in r["deploys"][:3]},
    }
    assert after == expected
    summaries = find(mw.engine, ALICE, type="summary")
    assert len(summaries) == 1 and set(summaries[0].links) == {d.id for d in r["deploys"][:3]}
    assert _messages(mw, "s-old") == ["question 4", "answer 4", "question 5", "answer 5"]
    assert _messages(mw, "s-new") == ["new question", "new answer"]
    assert (
        report.expired,
        report.capped,
        report.summaries,
        report.compacted,
        report.deleted,
        report.messages_pruned,
    ) == (1, 1, 1, 3, 1, 8)
    latest = {}
    for row in mw.engine.audit_log(ALICE, limit=100):  # newest first
        latest.setdefault(row["record_id"], row)
    assert latest[r["flight"].id]["reason"] == "expired (ttl)"
    assert "cap" in latest[r["facts"][3].id]["reason"]
    assert latest[r["chatter"].id]["action"] == "delete"
    assert {latest[r["flight"].id]["writer"], latest[r["chatter"].id]["writer"]} == {
        "openclaw-memory maintenance"
    }

    # the run is logged, shown by doctor, and the next one waits for the interval again
    status = doctor(mw.maintenance, repair=False).maintenance
    latest = status["runs"][0]
    assert (
        latest["status"] == "ok"
        and latest["trigger"] == "schedule"
        and latest["counts"]["changed"] == 15
    )
    assert "by_scope" not in latest["counts"] and status["lease"] is None
    assert scheduler.tick() is None
    assert (
        client.post(
            "/service/cleanup", json={}, headers={"authorization": f"Bearer {TOKEN}"}
        ).json()["maintenance"]
        == "not_due"
    )


def test_gateway_stop_cleanup_flushes_and_starts_a_due_run(service, clock):
    mw, scheduler, client = service
    scheduler.tick()
    _write(
        mw, ALICE, T.EVENT, "backup finished", subject="backup", ttl_seconds=HOUR, importance=0.6
    )
    clock.advance(7 * HOUR)
    auth = {"authorization": f"Bearer {TOKEN}"}
    assert client.post("/service/cleanup", json={}).status_code == 401
    done = client.post("/service/cleanup", json={"wait_ms": 1000}, headers=auth).json()
    assert done["flushed"] is True and done["pending"] == 0 and done["maintenance"] == "started"
    deadline = time.monotonic() + 20
    while (
        len(runs.recent(mw.engine.store, 5)) < 2
        or runs.recent(mw.engine.store, 1)[0]["status"] == "running"
    ):
        assert time.monotonic() < deadline, "the nudged run did not finish"
        time.sleep(0.05)
    assert runs.recent(mw.engine.store, 1)[0]["counts"]["expired"] == 1
    bad = client.post("/service/cleanup", json={"wait_ms": -1}, headers=auth)
    assert bad.status_code == 422 and "wait_ms" in bad.text


def test_the_background_thread_runs_when_the_clock_passes_the_interval(tmp_path, clock):
    overrides = {
        "storage": {"data_dir": str(tmp_path), "embedding_model": "hash"},
        "maintenance": {"interval_hours": 1.0, "check_seconds": 0.05},
    }
    mw = build_middleware(overrides=overrides, clock=clock)
    scheduler = MaintenanceScheduler(mw.maintenance, mw.cfg.maintenance).start()
    try:
        _wait_for_runs(mw.engine.store, 1)
        time.sleep(0.3)
        assert (
            len(runs.recent(mw.engine.store, 10)) == 1
        )  # not due again while the clock stands still
        clock.advance(HOUR)
        _wait_for_runs(mw.engine.store, 2)
    finally:
        scheduler.stop()
        mw.close()


def _wait_for_runs(db, n):
    deadline = time.monotonic() + 20
    while len([r for r in runs.recent(db, 10) if r["status"] == "ok"]) < n:
        assert time.monotonic() < deadline, f"expected {n} maintenance run(s)"
        time.sleep(0.05)


def _process(db_path, clock, run, interval_hours=6.0):
    """A scheduler with a connection of its own, as another process on the store would have."""
    cfg = SimpleNamespace(
        enabled=True, interval_hours=interval_hours, check_seconds=1.0, lease_seconds=60.0
    )
    # the lease and the run log need only the store and the clock of the ports
    ports = SimpleNamespace(store=SQLiteStore.open(db_path), clock=clock)
    return MaintenanceScheduler(ports, cfg, run=run), ports.store


def test_one_runner_at_a_time_across_connections_and_the_lease_expires(tmp_path, clock):
    path = tmp_path / "memory.db"
    entered, release, calls = threading.Event(), threading.Event(), []

    def slow_run(engine):
        calls.append(engine)
        entered.set()
        assert release.wait(20)
        return MaintenanceReport()

    a, db_a = _process(path, clock, slow_run)
    b, db_b = _process(path, clock, lambda engine: calls.append(engine) or MaintenanceReport())
    worker = threading.Thread(target=a.tick)
    worker.start()
    try:
        assert entered.wait(20)
        assert b.tick() is None  # the lease is held by a
        with pytest.raises(MaintenanceBusyError, match=re.escape(a.holder)):
            b.run_now("cli")
        assert runs.lease(db_b, clock.now())["holder"] == a.holder
    finally:
        release.set()
        worker.join(20)
    assert b.tick() is None  # a's run is logged: not due for b either
    assert len(calls) == 1 and [r["status"] for r in runs.recent(db_b)] == ["ok"]

    # a runner that died keeps its lease only until it expires; its run is then marked abandoned
    assert runs.acquire(db_a, "dead-process", clock.now(), 60.0)
    runs.begin(db_a, "schedule", "dead-process", clock.now())
    clock.advance(7 * HOUR)
    assert b.tick() is not None
    assert [r["status"] for r in runs.recent(db_b)] == ["ok", "abandoned", "ok"]
    db_a.close()
    db_b.close()


def test_a_failing_run_is_logged_with_its_error(tmp_path, clock):
    def broken(engine):
        raise RuntimeError("disk full")

    sched, db = _process(tmp_path / "memory.db", clock, broken)
    with pytest.raises(RuntimeError):
        sched.tick()
    latest = runs.recent(db, 1)[0]
    assert latest["status"] == "failed" and "disk full" in latest["error"]
    assert runs.lease(db, clock.now()) is None  # released on failure
    assert sched.tick() is None  # and not retried in a loop before the interval
    db.close()


@pytest.mark.real_store("another opener of the SQLite file holds the lease")
def test_maintain_command_runs_under_the_lease_and_is_logged(tmp_path, capsys):
    from openclaw_memory.cli import main

    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"storage:\n  data_dir: {tmp_path / 'd'}\n  embedding_model: hash\n")
    assert main(["--config", str(cfg), "maintain"]) == 0
    assert main(["--config", str(cfg), "doctor", "--no-repair"]) == 0
    out = capsys.readouterr().out
    assert "maintenance: last run" in out and "(cli): ok, 0 change(s)" in out
    db = SQLiteStore.open(tmp_path / "d" / "memory.db")
    try:
        assert runs.acquire(db, "someone-else", time.time(), 60.0)
        assert main(["--config", str(cfg), "maintain"]) == 1
        assert "running in another process (someone-else)" in capsys.readouterr().err
    finally:
        db.close()


def test_a_pruned_turn_is_not_captured_again_when_the_host_resends_the_transcript(tmp_path, clock):
    """OpenClaw's agent_end sends the whole transcript every turn: the old turns of a long session
    must stay known as captured after their messages were pruned, in Chinese and English."""
    overrides = {"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"}, **POLICY}
    mw = build_middleware(overrides=overrides, clock=clock)
    try:
        transcript = []
        for i in range(6):
            transcript += [
                {"role": "user", "content": f"我的第{i}个问题：周末去哪里爬山好？", "id": f"m{i}"},
                {"role": "assistant", "content": f"answer {i}: try the western hills"},
            ]
        assert mw.capture_messages(ALICE, "s-long", transcript) == 6
        mw.flush()
        clock.advance(10 * DAY)
        pruned = mw.short_term.prune()
        assert pruned > 0 and len(_messages(mw, "s-long")) == 4  # keep_per_session rows with text
        before = _record_count(mw)

        transcript += [
            {"role": "user", "content": "One more: is Fragrant Hill open in winter?", "id": "m6"},
            {"role": "assistant", "content": "yes"},
        ]
        assert mw.capture_messages(ALICE, "s-long", transcript) == 1  # only the new turn
        mw.flush()
        assert _record_count(mw) - before <= 2  # the new turn's memories, nothing re-learnt
        emptied = inspect.count(mw.engine.store, "messages", session_id="s-long", content="")
        assert emptied == 4  # turns m0-m3: their user rows stay, emptied, as keys
        assert (
            mw.short_term.prune() == 2
        )  # turn m4 is now old too: its user row emptied, its reply dropped
        assert mw.short_term.prune() == 0  # an emptied row is not pruned again
        assert mw.capture_messages(ALICE, "s-long", transcript) == 0
    finally:
        mw.close()


def _record_count(mw) -> int:
    return inspect.count(mw.engine.store, "records", status="active")
