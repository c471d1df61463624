"""Several service processes, one memory: two `openclaw-memory serve` processes on one
PostgreSQL database and one `chroma run` server. What one process stores, the other recalls on
the next request; a SIGKILLed process loses no acknowledged write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from reliability_helpers import ChromaServer, free_port

pytestmark = [pytest.mark.backend, pytest.mark.postgres, pytest.mark.server]

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "tok-processes"
AUTH = {"authorization": f"Bearer {TOKEN}"}
USERS = [f"user{n:02d}" for n in range(20)]
# one Chinese and one English fact per user, each with the user's own word
FACTS = [
    ("请记住：我的项目代号是{w}", "项目代号"),
    ("remember that my locker code word is {w}", "locker code word"),
]
WORDS = [f"kw{n:02d}zeta" for n in range(20)]


def _serve(tmp: Path, name: str, dsn: str, chroma_port: int) -> tuple[subprocess.Popen, str]:
    data = tmp / name
    data.mkdir()
    cfg = data / "memory.yaml"
    cfg.write_text(
        "storage:\n"
        f"  data_dir: {data}\n"
        "  embedding_model: hash\n"
        "  backend: postgres\n"
        "  vector_store:\n"
        "    kind: http\n"
        "    host: 127.0.0.1\n"
        f"    port: {chroma_port}\n",
        encoding="utf-8",
    )
    port = free_port()
    env = {
        **os.environ,
        "OPENCLAW_MEMORY_TOKEN": TOKEN,
        "OPENCLAW_MEMORY_PG_DSN": dsn,  # the DSN from the environment, not the YAML
        "PYTHONPATH": str(ROOT),
    }
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
        stdout=subprocess.DEVNULL,
        stderr=open(data / "stderr.log", "wb"),
        cwd=data,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError((data / "stderr.log").read_text(errors="replace")[-3000:])
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code < 500:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    raise AssertionError("service did not become healthy")


def _post(url: str, path: str, body: dict) -> dict:
    resp = httpx.post(f"{url}/v1{path}", json=body, headers=AUTH, timeout=60)
    assert resp.status_code == 200, f"{path}: {resp.status_code} {resp.text[:300]}"
    return resp.json()


def test_two_processes_share_one_memory(tmp_path, pg_dsn):
    chroma = ChromaServer(tmp_path / "chroma")
    procs: list[subprocess.Popen] = []
    try:
        a, url_a = _serve(tmp_path, "a", pg_dsn, chroma.port)
        b, url_b = _serve(tmp_path, "b", pg_dsn, chroma.port)
        procs += [a, b]
        acked: list[tuple[str, str, str]] = []
        for user, word in zip(USERS, WORDS):
            scope = {"user_id": user, "agent_id": "main"}
            for text, _ in FACTS:
                out = _post(
                    url_a, "/memory/remember", {"scope": scope, "text": text.format(w=word)}
                )
                assert out["memory"] is not None, out
                acked.append((user, word, out["memory"]["id"]))
        misses = []
        for user, word in zip(USERS, WORDS):  # recalled through the other process
            scope = {"user_id": user, "agent_id": "main"}
            for _, query in FACTS:
                found = _post(url_b, "/memory/search", {"scope": scope, "query": query})
                texts = " ".join(m["summary"] for m in found["memories"])
                if word not in texts:
                    misses.append((user, query))
                others = [w for w in WORDS if w != word and w in texts]
                assert not others, f"{user} sees another user's memory: {others}"
        assert misses == [], f"{len(misses)} of {2 * len(USERS)} missed: {misses[:5]}"
        # SIGKILL the writer: every acknowledged write is still there for the survivor
        a.send_signal(signal.SIGKILL)
        a.wait(timeout=30)
        for user, _, rid in acked:
            got = _post(
                url_b, "/memory/get", {"scope": {"user_id": user, "agent_id": "main"}, "id": rid}
            )
            assert got["memory"]["id"] == rid
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
        chroma.stop()
