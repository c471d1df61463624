"""Resource bounds: a soak of 10,000 turns through one middleware.

Twenty users with five sessions each send turns (after_response), a before_request every hundred
turns, an explicit preference every hundred turns, and a short-term window small enough that a
session summary is written every twenty-odd turns of a session. At every thousand turns the queue
is flushed and VmRSS read from /proc/self/status.

Bounds and why:
- RSS: after the first half (store, collections, caches warmed up) the second half may add at
  most RSS_BOUND_MB. Without the vector index the middleware's RSS is flat after warm-up (measured:
  +1 MB over 3,000 turns); what grows with data is Chroma's in-process index (native memory, 16-27
  kB per record indexed in the second half here). 24 MB over 5,000 turns fails for a leak of about
  5 kB per turn or more.
- the worker queue never holds more than worker.queue_size jobs (a small 32 here, so the
  back-pressure path runs: after_response waits when the queue is full);
- after close(), no thread that the middleware started is alive and no child process remains.

The store lives on /dev/shm when there is room: the soak measures the process, not the disk, and
on a slow disk Chroma's fsyncs (tens of ms per write) would make the run several times longer.
"""

from __future__ import annotations

import gc
import shutil
import threading
import time

import pytest
from reliability_helpers import BASE_TIME, child_pids, fast_dir, hash_config, rss_mb, status_field

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.middleware import ChatRequest
from openclaw_memory.types import Scope
from openclaw_memory.store import inspect

pytestmark = pytest.mark.slow

TURNS = 10_000
USERS = 20
SESSIONS = 5
CHECKPOINT = 1000
QUEUE = 32
RSS_BOUND_MB = 24.0
STORES = 5  # opened and closed one after another
DRINKS = ("green tea", "black coffee", "oolong", "matcha", "espresso")
CHAT = (
    "what does this error mean?",
    "can you explain the stack trace",
    "how do I write a unit test for this",
    "今天的部署失败了，帮我看看日志",
    "这个函数为什么这么慢",
    "why is the build red again",
    "write a haiku about rust",
    "帮我写一个SQL查询",
    "we decided to use postgres because it is stable",
    "下一步：把服务迁移到新集群",
)


@pytest.fixture
def data_dir(tmp_path):
    path, remove = fast_dir(tmp_path, "ocm-soak-")
    yield path
    if remove:
        shutil.rmtree(path, ignore_errors=True)


def _turn(mw, clock: FakeClock, i: int) -> None:
    scope, session = Scope(f"user{i % USERS}", "main"), f"s{(i // USERS) % SESSIONS}"
    if i % 100 == 0:
        text = f"remember that I prefer {DRINKS[(i // 100) % len(DRINKS)]} in the morning"
    else:
        text = f"{CHAT[(i // USERS) % len(CHAT)]} (case {i % 53})"
    req = ChatRequest(
        scope,
        session,
        [{"role": "system", "content": "You are helpful."}, {"role": "user", "content": text}],
    )
    if i % 100 == 7:
        mw.before_request(req)
    mw.after_response(
        req, f"Here is an answer about {CHAT[(i * 3) % len(CHAT)]}; check item {i % 13}."
    )
    clock.advance(30)


def test_10000_turns_keep_memory_queue_and_threads_bounded(data_dir, capsys):
    threads_before = set(threading.enumerate())
    os_threads_before = status_field("Threads")
    children_before = child_pids()
    cfg = hash_config(
        data_dir,
        extraction={"store_episodes": False},
        worker={"queue_size": QUEUE},
        short_term={"summary_threshold": 700, "window_size": 40, "max_tokens": 1500},
    )
    clock = FakeClock(BASE_TIME)
    mw = build_middleware(cfg, clock=clock)
    rss: list[float] = []
    depth = 0
    started = time.monotonic()
    try:
        for i in range(TURNS):
            _turn(mw, clock, i)
            depth = max(depth, mw.worker.depth())
            if (i + 1) % CHECKPOINT == 0:
                mw.flush()
                gc.collect()
                rss.append(round(rss_mb(), 1))
        mw.flush()
        assert mw.worker.failures == 0
        held = inspect.select(mw.engine.store, "records", ("type",))
        kinds = {t: sum(r["type"] == t for r in held) for t in {r["type"] for r in held}}
    finally:
        mw.close()
    elapsed = time.monotonic() - started
    os_threads_closed = status_field("Threads")  # process-wide native pools may start once and stay
    again = build_middleware(
        cfg, clock=clock
    )  # and a reopen of the same store leaves no thread either
    again.close()
    time.sleep(0.5)
    os_threads_reopened = status_field("Threads")
    deadline = time.monotonic() + 10
    while set(threading.enumerate()) - threads_before and time.monotonic() < deadline:
        time.sleep(0.1)
    stray = [t.name for t in set(threading.enumerate()) - threads_before]
    growth = rss[-1] - rss[len(rss) // 2 - 1]
    with capsys.disabled():
        print(
            f"\nsoak: {TURNS} turns in {elapsed:.0f} s ({data_dir.parent}), records {kinds}, RSS MB at each "
            f"{CHECKPOINT}: {rss}, second-half growth {growth:.1f} MB (bound {RSS_BOUND_MB}), max queue depth "
            f"{depth}/{QUEUE}, stray threads {stray}, OS threads before {os_threads_before}, after close "
            f"{os_threads_closed}, after reopen+close {os_threads_reopened}, children {sorted(child_pids() - children_before)}"
        )
    assert kinds.get("summary", 0) >= 150, "the soak must exercise session summaries"
    assert depth <= QUEUE
    assert growth <= RSS_BOUND_MB, f"RSS grew {growth:.1f} MB over the second half: {rss}"
    assert stray == []
    assert os_threads_reopened <= os_threads_closed + 1, (
        "a reopened and closed store kept native threads"
    )
    assert child_pids() - children_before == set()


def test_closed_stores_give_back_their_native_threads(tmp_path, capsys):
    """MemoryEngine.close releases the embedded Chroma client: its System (native runtime threads,
    memory, SQLite pool) stops, so a process that opens and closes stores does not accumulate them
    (before the fix each store left ~6 OS threads and ~4 MB)."""

    def open_and_close(path) -> None:
        mw = build_middleware(hash_config(path), clock=FakeClock(BASE_TIME))
        mw.remember(Scope("u"), "remember that my cat is called Miso")
        assert mw.search(Scope("u"), "cat Miso"), "the store must really be used"
        mw.close()

    open_and_close(tmp_path / "warm-up")  # process-wide pools start once and may stay
    time.sleep(0.5)
    before = status_field("Threads")
    for k in range(STORES):
        open_and_close(tmp_path / f"store{k}")
    time.sleep(0.5)
    grown = status_field("Threads") - before
    with capsys.disabled():
        print(
            f"\nclose: {STORES} stores opened and closed: OS threads {before} -> {before + grown}"
        )
    assert grown <= 2, f"{grown} more OS threads after {STORES} stores were opened and closed"
