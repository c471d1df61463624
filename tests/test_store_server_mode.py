"""Server mode: the same code path against a real `chroma run` server on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.errors import IndexMismatchError, StoreError
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of

pytestmark = [pytest.mark.backend, pytest.mark.server]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _chroma_bin() -> str:
    here = Path(sys.executable).parent / "chroma"
    found = str(here) if here.exists() else shutil.which("chroma")
    if not found:
        pytest.fail("the `chroma` CLI (installed with chromadb) is missing")
    return found


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory):
    port = _free_port()
    path = tmp_path_factory.mktemp("chroma-server")
    log = open(path / "server.log", "wb")
    proc = subprocess.Popen(
        [
            _chroma_bin(),
            "run",
            "--path",
            str(path / "db"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1).read()
            break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail(
            "chroma server did not start: "
            + (path / "server.log").read_text(errors="replace")[-2000:]
        )
    yield port
    proc.terminate()
    proc.wait(timeout=20)
    log.close()


def _config(make_config, tmp_path, port, embedder="hash"):
    return make_config(
        tmp_path,
        embedder,
        storage={
            "vector_store": {
                "kind": "http",
                "host": "127.0.0.1",
                "port": port,
                "collection_prefix": f"t{tmp_path.name[-8:]}",
            }
        },
    )


def test_write_then_search_through_the_server(make_config, tmp_path, clock, chroma_server):
    eng = MemoryEngine.open(
        _config(make_config, tmp_path, chroma_server), clock=clock, background=True
    )
    try:
        alice = Scope("alice")
        r = (
            writer_of(eng)
            .write(alice, [Candidate(MemoryType.FACT, "服务器模式下也能找到咖啡偏好")])[0]
            .record
        )
        hits = eng.semantic(alice, eng.embed_query("咖啡偏好"), limit=3)
        assert hits and hits[0][0] == r.id
        assert eng.semantic(Scope("bob"), eng.embed_query("咖啡偏好"), limit=3) == []
    finally:
        eng.close()


def test_server_index_from_another_embedder_is_refused(make_config, tmp_path, clock, chroma_server):
    cfg = _config(make_config, tmp_path, chroma_server, "hash:256")
    MemoryEngine.open(cfg, clock=clock, background=False).close()
    other = _config(make_config, tmp_path / "other", chroma_server, "hash:128")
    other = type(other)(
        **{
            **other.__dict__,
            "storage": cfg.storage.__class__(
                **{**other.storage.__dict__, "vector_store": cfg.storage.vector_store}
            ),
        }
    )
    with pytest.raises(IndexMismatchError, match="openclaw-memory reindex"):
        MemoryEngine.open(other, clock=clock, background=False)


def test_unreachable_server_is_a_clear_error(make_config, tmp_path, clock):
    cfg = _config(make_config, tmp_path, _free_port())
    with pytest.raises(StoreError, match="cannot reach Chroma server"):
        MemoryEngine.open(cfg, clock=clock, background=False)
