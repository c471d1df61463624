"""`serve` runs the scheduled maintenance by itself: a real service process on a loopback port."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from mcp_helpers import free_port

from openclaw_memory.maintain import runner as runs
from openclaw_memory.store.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # a served process and its maintenance loop, over ten seconds
def test_serve_runs_maintenance_by_itself_and_answers_cleanup(tmp_path):
    cfg = tmp_path / "memory.yaml"
    cfg.write_text(
        f"storage:\n  data_dir: {tmp_path / 'data'}\n  embedding_model: hash\n"
        "maintenance:\n  check_seconds: 0.2\n  interval_hours: 6.0\n"
    )
    port = free_port()
    env = {**os.environ, "OPENCLAW_MEMORY_TOKEN": "tok", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "openclaw_memory",
            "--config",
            str(cfg),
            "serve",
            "--port",
            str(port),
        ],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        logged = []
        while time.monotonic() < deadline and not logged:
            assert proc.poll() is None, proc.stderr.read()
            if (tmp_path / "data" / "memory.db").exists():
                db = SQLiteStore.open(tmp_path / "data" / "memory.db")
                logged = [r for r in runs.recent(db, 5) if r["status"] == "ok"]
                db.close()
            time.sleep(0.2)
        assert logged and logged[0]["trigger"] == "schedule", "serve logged no maintenance run"
        done = httpx.post(
            f"{url}/service/cleanup",
            json={"wait_ms": 8000},
            timeout=20,
            headers={"authorization": "Bearer tok"},
        ).json()
        assert done["flushed"] is True and done["maintenance"] == "not_due"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
