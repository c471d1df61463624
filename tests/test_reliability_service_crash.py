"""A 202 is a promise: the service SIGKILLed while the real plugin client drives it loses no write
it acknowledged (200 or 202), and takes each capture once.

One node process runs the plugin's own HTTP client (service/plugin/client.js, the code OpenClaw
loads) and sends 1,000 writes, eight at a time: 500 captures (the body agent_end sends, with a
capture id) and 500 `remember` calls (the memory_store tool's route). It prints `ACK` for each
answered 200/202. The test SIGKILLs the service after 300 and 650 acknowledgements and once
more right after the last write, restarting it each time on the same data directory; the client
spools what was not acknowledged and replays it when the service is back. At the end every
acknowledged capture's turn is in the store exactly once and every acknowledged memory is there;
captures that were spooled instead are there too, once the spool drained.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from openclaw_memory.service.installer import PLUGIN_DIR
from openclaw_memory.store import inspect

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
TOKEN = "crash-token"
WRITES = 1000
KILL_AFTER_ACKS = (300, 650)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NODE is None, reason="node is not on PATH"),
]

DRIVER = """
import { createClient } from %(client)s;
const [url, token, spoolDir, total] = process.argv.slice(-4);
const logger = { warn: (m) => console.error(m), info: () => {}, error: (m) => console.error(m) };
const client = createClient({ serviceUrl: url, token, spoolDir, timeoutMs: 4000 }, logger);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tok = (i) => `zq${String(i).padStart(4, "0")}x`;
async function one(i) {
  const user = `u${i %% 5}`;
  const scope = { user_id: user, agent_id: "main" };
  if (i %% 2 === 0) {
    const body = { scope, session_id: `s-${user}`, messages: [
      { role: "user", content: `The parcel ${tok(i)} arrived at the depot on Elm Street 包裹${tok(i)}到了`, id: `m${i}` },
      { role: "assistant", content: "Noted, thanks for the update." },
    ] };
    return ["capture", await client.post("/v1/capture", body, { spool: true })];
  }
  const text = `Remember: my favourite tram is line ${tok(i)} 我最喜欢的电车是${tok(i)}`;
  return ["remember", await client.post("/v1/memory/remember", { scope, text })];
}
for (let start = 0; start < Number(total); start += 8) {
  const batch = [];
  for (let i = start; i < Math.min(start + 8, Number(total)); i++) batch.push(one(i).then(([k, out]) => [i, k, out]));
  let missed = 0;
  for (const [i, kind, out] of await Promise.all(batch)) {
    console.log(`${out ? "ACK" : "MISS"} ${kind} ${tok(i)}`);
    if (!out) missed += 1;
  }
  // the service is away: wait for it rather than burn the writes while it restarts
  for (let n = 0; missed && n < 600 && !(await fetch(`${url}/health`).then((r) => r.ok, () => false)); n++) await sleep(100);
}
console.log("SENT");
const deadline = Date.now() + 90000;
while ((await client.spool.pending()) && Date.now() < deadline) {
  await client.replaySpool(5000);
  if (await client.spool.pending()) await sleep(300);
}
console.log(`DONE ${(await client.spool.pending()) ? "spool-left" : "spool-empty"}`);
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """The real service process (`python -m openclaw_memory.service`), restartable."""

    def __init__(self, cfg: Path, port: int, cwd: Path) -> None:
        self.cfg, self.port, self.cwd = cfg, port, cwd
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None
        self.logs: list[str] = []

    def start(self) -> None:
        env = {**os.environ, "OPENCLAW_MEMORY_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "openclaw_memory.service", "--config", str(self.cfg)]
            + ["--port", str(self.port)],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
            cwd=self.cwd,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"service exited: {self.proc.stderr.read()}"
            try:
                if httpx.get(f"{self.url}/health", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise AssertionError("service did not become healthy")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        self.logs.append(self.proc.stderr.read())

    def stop(self) -> None:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
        self.logs.append(self.proc.stderr.read())


def _replayed(logs: list[str]) -> int:
    return sum(int(n) for log in logs for n in re.findall(r"(\d+) queued write\(s\)", log))


def test_sigkilled_service_loses_no_acknowledged_capture_or_memory(tmp_path):
    data = tmp_path / "data"
    cfg = tmp_path / "memory.yaml"
    cfg.write_text(
        f"storage:\n  data_dir: {data}\n  embedding_model: hash\nmaintenance:\n  enabled: false\n"
    )
    service = Service(cfg, _free_port(), tmp_path)
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER % {"client": json.dumps((PLUGIN_DIR / "client.js").as_uri())})
    started = time.monotonic()
    service.start()
    lines: list[str] = []
    node = subprocess.Popen(
        [NODE, str(driver), service.url, TOKEN, str(tmp_path / "spool"), str(WRITES)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    reader = threading.Thread(target=lambda: lines.extend(node.stdout), daemon=True)
    reader.start()
    kills = 0
    marks: list[float] = []  # seconds since the start at each kill and restart, for the report
    try:
        for after in KILL_AFTER_ACKS:
            while sum(ln.startswith("ACK") for ln in lines) < after and node.poll() is None:
                time.sleep(0.01)
            service.kill()  # in the middle of the writes: the worker's queue is not empty
            kills += 1
            marks.append(time.monotonic() - started)
            service.start()
            marks.append(time.monotonic() - started)
        while not any(ln.startswith("SENT") for ln in lines) and node.poll() is None:
            time.sleep(0.01)
        service.kill()  # right after the last write: what is queued is only in the journal
        kills += 1
        service.start()
        marks.append(time.monotonic() - started)
        assert node.wait(timeout=180) == 0
        reader.join(timeout=10)
        for _ in range(12):  # the replayed and resent writes are done before the store is read
            answer = httpx.post(
                f"{service.url}/service/cleanup",
                json={"wait_ms": 10000},
                headers={"authorization": f"Bearer {TOKEN}"},
                timeout=30,
            )
            assert answer.status_code == 200
            if answer.json()["pending"] == 0:
                break
        assert answer.json()["pending"] == 0
    finally:
        if node.poll() is None:
            node.kill()
        service.stop()
    seconds = time.monotonic() - started
    acked = {tuple(ln.split()[1:3]) for ln in lines if ln.startswith("ACK")}
    missed = {tuple(ln.split()[1:3]) for ln in lines if ln.startswith("MISS")}
    assert len(acked) + len(missed) == WRITES
    assert any(ln.startswith("DONE spool-empty") for ln in lines)
    # as SQL's LIKE matched them: a substring, ASCII letters in either case
    said = [
        r["content"].lower()
        for r in inspect.file_rows(data / "memory.db", "SELECT role, content FROM messages")
        if r["role"] == "user"
    ]
    kept = [
        r["summary"].lower()
        for r in inspect.file_rows(data / "memory.db", "SELECT type, summary FROM records")
        if r["type"] != "episode"
    ]
    turns = {
        tok: sum(f"the parcel {tok} ".lower() in text for text in said)
        for kind, tok in acked | missed
        if kind == "capture"
    }
    memories = {
        tok: sum(tok.lower() in text for text in kept) for kind, tok in acked if kind == "remember"
    }
    acked_captures = [tok for kind, tok in acked if kind == "capture"]
    lost = [tok for tok in acked_captures if turns[tok] == 0]
    lost += [tok for tok, n in memories.items() if n == 0]
    print(
        f"\n{kills} SIGKILLs in {seconds:.0f} s; acknowledged {len(acked)} of {WRITES} "
        f"({len(acked_captures)} captures, {len(memories)} memories), lost {len(lost)}; "
        f"{_replayed(service.logs)} journaled writes replayed at restarts; "
        f"{sum(1 for k, _ in missed if k == 'capture')} captures spooled and replayed by the plugin; "
        f"kills and restarts at {', '.join(f'{m:.0f}' for m in marks)} s"
    )
    assert lost == []
    assert all(n == 1 for n in turns.values()), "a capture taken twice or lost after its spool"
    assert len(acked_captures) > 200 and len(memories) > 200
    assert _replayed(service.logs) > 0  # the kills did leave queued writes for the journal
