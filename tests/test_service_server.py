"""The uvicorn runner: loopback guard, CLI glue, graceful shutdown that flushes queued writes."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from openclaw_memory.errors import ConfigError
from openclaw_memory.middleware import MemoryMiddleware
from openclaw_memory.types import Scope
from openclaw_memory.service.server import (
    add_openclaw_parser,
    add_serve_parser,
    check_bind,
    is_loopback,
    run_openclaw,
    serve,
    warm_up,
)
from store_helpers import find

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "host,expected",
    [
        ("127.0.0.1", True),
        ("127.8.9.1", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("example.com", False),
    ],
)
def test_is_loopback(host, expected):
    assert is_loopback(host) is expected


def test_check_bind_refuses_remote_hosts_unless_allowed():
    with pytest.raises(ConfigError) as err:
        check_bind("0.0.0.0", allow_remote=False)
    assert "0.0.0.0" in str(err.value) and "--allow-remote" in str(err.value)
    check_bind("0.0.0.0", allow_remote=True)
    check_bind("127.0.0.1", allow_remote=False)


class ClosingMiddleware:
    """A stand-in that only records close(); serve() must refuse before using it."""

    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_serve_refuses_a_public_host_before_starting():
    mw = ClosingMiddleware()
    with pytest.raises(ConfigError, match="not a loopback address"):
        serve(None, host="0.0.0.0", port=1, token="", middleware=mw)
    assert mw.closed == 0


class BrokenMiddleware(ClosingMiddleware):
    def search(self, scope, query, limit=10):
        raise RuntimeError("index is gone")


def test_a_failed_warm_up_is_reported_not_raised(capsys):
    warm_up(BrokenMiddleware())
    assert "warm-up failed (index is gone)" in capsys.readouterr().err


def test_warm_up_writes_nothing(tmp_path):
    mw = MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"}}
    )
    try:
        warm_up(mw)
        stored = find(mw.engine, Scope("openclaw-memory-warmup", "warmup"), limit=5)
    finally:
        mw.close()
    assert stored == []


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="openclaw-memory")
    sub = parser.add_subparsers(dest="command", required=True)
    add_serve_parser(sub)
    add_openclaw_parser(sub)
    return parser


def test_cli_parsers():
    args = _parser().parse_args(["serve", "--port", "9000", "--allow-remote", "--config", "x.yaml"])
    assert (args.port, args.allow_remote, args.serve_config, args.host) == (
        9000,
        True,
        Path("x.yaml"),
        None,
    )
    args = _parser().parse_args(["openclaw", "install", "--inject", "prepend_context"])
    assert (args.openclaw_command, args.inject, args.service_url) == (
        "install",
        "prepend_context",
        "http://127.0.0.1:8765",
    )
    with pytest.raises(SystemExit):
        _parser().parse_args(["openclaw", "install", "--inject", "system"])


def test_openclaw_install_without_openclaw_explains(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty PATH: no openclaw, no node
    args = _parser().parse_args(["openclaw", "install"])
    assert run_openclaw(args) == 2
    err = capsys.readouterr().err
    assert "openclaw was not found on PATH" in err and "scripts/openclaw-env.sh" in err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    # generous: the first start imports chromadb and opens the store, slow on a loaded machine
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"service exited early: {proc.stderr.read()}")
        try:
            if httpx.get(f"{url}/health", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise AssertionError("service did not become healthy")


@pytest.mark.slow  # a real subprocess: about 10 s each on an idle machine
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_signal_shuts_down_gracefully_and_flushes_queued_writes(tmp_path, sig):
    cfg = tmp_path / "memory.yaml"
    cfg.write_text(f"storage:\n  data_dir: {tmp_path / 'data'}\n  embedding_model: hash\n")
    port = _free_port()
    env = {**os.environ, "OPENCLAW_MEMORY_TOKEN": "tok", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "openclaw_memory.service",
            "--config",
            str(cfg),
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
        _wait_healthy(url, proc)
        assert httpx.post(f"{url}/v1/memory/search", json={}, timeout=5).status_code == 401
        turn = {
            "scope": {"user_id": "alice", "agent_id": "main"},
            "session_id": "s1",
            "messages": [{"role": "user", "content": "请记住：我对花生过敏"}],
        }
        resp = httpx.post(
            f"{url}/v1/capture", json=turn, headers={"authorization": "Bearer tok"}, timeout=10
        )
        assert resp.status_code == 202 and resp.json() == {"queued": 1}
        proc.send_signal(sig)  # at once: the capture is probably still queued
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "queued writes flushed" in proc.stderr.read()
    mw = MemoryMiddleware.from_config(cfg)
    try:
        found = mw.search(Scope("alice", "main"), "花生")
    finally:
        mw.close()
    assert any("花生" in s.record.summary for s in found)
