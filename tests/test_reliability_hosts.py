"""Across hosts, read-your-writes holds: two `openclaw-memory serve` processes on one PostgreSQL
database (and one `chroma run` server); a capture answered 202 by one is in the very next recall
through the other. Each process queues captures in memory; the recall waits (bounded) for the
pending marks its scope has in the shared database (service/app.py, SharedPending)."""

from __future__ import annotations

import subprocess
import time

import httpx
import pytest
from reliability_helpers import ChromaServer
from test_store_postgres_processes import AUTH, _serve

pytestmark = [pytest.mark.backend, pytest.mark.postgres, pytest.mark.server]

USERS = [f"host{n:02d}" for n in range(10)]
WORDS = [f"kw{n:02d}omega" for n in range(10)]
FILLERS = 2  # captures of 30 turns each: 60 jobs ahead of the one under test


def test_a_capture_through_one_process_is_recalled_at_once_through_the_other(tmp_path, pg_dsn):
    chroma = ChromaServer(tmp_path / "chroma")
    procs: list[subprocess.Popen] = []
    try:
        a, url_a = _serve(tmp_path, "a", pg_dsn, chroma.port)
        b, url_b = _serve(tmp_path, "b", pg_dsn, chroma.port)
        procs += [a, b]
        misses, waits = [], []
        for user, word in zip(USERS, WORDS):
            scope = {"user_id": user, "agent_id": "main"}
            turn = [
                {"role": "user", "content": f"请记住：我的项目代号是{word}", "id": "m1"},
                {"role": "assistant", "content": "好的，记住了。"},
            ]
            # other users' captures first, so the one under test waits in the first process's
            # queue behind them, as on a busy gateway
            for n in range(FILLERS):
                busy = {"user_id": f"busy{n:02d}", "agent_id": "main"}
                filler = [
                    message
                    for t in range(30)
                    for message in (
                        {"role": "user", "content": f"会议记录第{t}条：讨论了预算和排期 notes {t}"},
                        {"role": "assistant", "content": "好的，已记下。"},
                    )
                ]
                httpx.post(
                    f"{url_a}/v1/capture",
                    json={"scope": busy, "session_id": f"b{user}", "messages": filler},
                    headers=AUTH,
                    timeout=60,
                )
            sent = httpx.post(
                f"{url_a}/v1/capture",
                json={"scope": scope, "session_id": "s1", "messages": turn},
                headers=AUTH,
                timeout=60,
            )
            assert sent.status_code == 202, sent.text
            start = time.monotonic()
            got = httpx.post(
                f"{url_b}/v1/recall",
                json={"scope": scope, "session_id": "s2", "prompt": "我的项目代号是什么？"},
                headers=AUTH,
                timeout=60,
            )
            waits.append(time.monotonic() - start)
            assert got.status_code == 200, got.text
            if word not in got.json()["block"]:
                misses.append(user)
        print(
            f"\nrecall through the other process: {len(USERS) - len(misses)} of {len(USERS)}; "
            f"slowest recall {max(waits):.2f} s"
        )
        assert misses == [], f"{len(misses)} of {len(USERS)} captures not recalled at once"
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
        chroma.stop()
