"""Faults and recovery: a damaged or lost store fails with a clear way out, never silently.

SQLite is the truth and Chroma a derived index (docs/design.md invariant 2), so:

- a damaged memory.db is named, with its remedy, by `search` and `doctor` (no traceback);
- a zero-length memory.db beside a full Chroma is not taken for a new store whose collections
  are all orphans: doctor refuses to drop them;
- a damaged chroma.sqlite3 does not stop `search` (it fails open to the keyword index, with a
  warning), and `reindex` and `doctor` rebuild it from SQLite;
- reads create no collections, and `doctor --no-repair` writes nothing;
- `purge --user` from another process while the service runs: the service keeps answering
  JSON, recovers, and its index drain does not fail.

Each test drives the real CLI (`python -m openclaw_memory`) or the real service.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from reliability_helpers import BASE_TIME, hash_config

from openclaw_memory.runtime.factory import maintenance_ports
from openclaw_memory.core.clock import FakeClock
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.types import Scope
from store_helpers import writer_of

pytestmark = pytest.mark.slow  # damaged stores, services and CLIs in other processes

ROOT = Path(__file__).resolve().parents[1]
ALICE, BOB = Scope("alice", "main"), Scope("bob", "main")


def _config_file(data: Path) -> Path:
    path = data.parent / f"{data.name}.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "storage": {
                    "data_dir": str(data),
                    "embedding_model": "hash",
                    "vector_store": {"exact_below": 0},
                }
            }
        )
    )
    return path


def cli(config: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The real command line, in its own process."""
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    return subprocess.run(
        [sys.executable, "-m", "openclaw_memory", "--config", str(config), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=str(ROOT),
        env=env,
    )


def _populate(data: Path) -> None:
    mw = build_middleware(hash_config(data), clock=FakeClock(BASE_TIME))
    try:
        mw.remember(ALICE, "my cat is called Flibbertigibbet", subject="cat")
        mw.remember(ALICE, "我最喜欢的城市是里斯本", subject="城市")
        mw.remember(BOB, "my dog is called Snollygoster", subject="dog")
        mw.flush()
    finally:
        mw.close()


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A populated store, copied by each test that damages it."""
    data = tmp_path_factory.mktemp("recovery") / "data"
    _populate(data)
    return data


def _copy(store: Path, tmp_path: Path) -> tuple[Path, Path]:
    import shutil

    data = tmp_path / "data"
    shutil.copytree(store, data)
    return data, _config_file(data)


def _no_traceback(proc: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]


@pytest.mark.parametrize("damage", ["garbage header", "truncated pages"])
def test_a_damaged_memory_db_is_named_with_its_remedy(store, tmp_path, damage):
    data, config = _copy(store, tmp_path)
    db = data / "memory.db"
    raw = bytearray(db.read_bytes())
    if damage == "garbage header":
        raw[:100] = b"\x5a" * 100
    else:  # keep the header, scramble every page after the first
        raw[4096:] = bytes((b * 7 + 13) % 256 for b in raw[4096:])
    db.write_bytes(bytes(raw))
    commands = [["search", "cat", "--user", "alice", "--agent", "main"], ["doctor"]]
    for args in commands if damage == "garbage header" else commands[1:]:  # one CLI start less
        proc = cli(config, *args)
        _no_traceback(proc)
        assert proc.returncode == 2, (args, proc.returncode, proc.stderr[-2000:])
        assert str(db) in proc.stderr and "backup" in proc.stderr and "reindex" in proc.stderr, (
            proc.stderr
        )


def _collections(data: Path) -> dict[str, int]:
    import sqlite3

    con = sqlite3.connect(f"file:{data / 'chroma' / 'chroma.sqlite3'}?mode=ro", uri=True)
    try:
        return {
            r[0]: r[1]
            for r in con.execute(
                "SELECT c.name, (SELECT COUNT(*) FROM embeddings e JOIN segments s ON e.segment_id = s.id "
                "WHERE s.collection = c.id) FROM collections c"
            )
        }
    finally:
        con.close()


def test_a_zero_length_memory_db_beside_a_full_index_deletes_no_collection(store, tmp_path):
    data, config = _copy(store, tmp_path)
    before = _collections(data)
    assert sum(1 for n in before if "_hot_" in n) == 2
    (data / "memory.db").write_bytes(b"")
    for p in (data / "memory.db-wal", data / "memory.db-shm"):
        p.unlink(missing_ok=True)
    proc = cli(config, "doctor")
    _no_traceback(proc)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "refused" in proc.stderr and "holds no records" in proc.stderr, proc.stderr
    assert _collections(data) == before, (
        "doctor deleted collections of a store whose database was lost"
    )


def _damage_chroma(data: Path) -> None:
    path = data / "chroma" / "chroma.sqlite3"
    raw = bytearray(path.read_bytes())
    raw[:100] = b"\x00\xff" * 50
    path.write_bytes(bytes(raw))


def test_a_damaged_chroma_fails_open_and_reindex_rebuilds_it(store, tmp_path):
    data, config = _copy(store, tmp_path)
    _damage_chroma(data)
    proc = cli(config, "search", "Flibbertigibbet", "--user", "alice", "--agent", "main", "--json")
    _no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Flibbertigibbet" in proc.stdout, "the keyword index must still answer"
    assert "vector" in proc.stderr and "reindex" in proc.stderr, "the warning must say what to run"
    proc = cli(config, "reindex", "--json")
    _no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["indexed"] == 3
    assert not list(data.glob("chroma.damaged-*")), "the damaged copy must not be kept"
    mw = build_middleware(hash_config(data), clock=FakeClock(BASE_TIME))
    try:
        assert mw.engine.index.unusable == ""
        near = mw.engine.semantic(
            ALICE, mw.engine.embed_query("my cat is called Flibbertigibbet"), limit=3
        )
    finally:
        mw.close()
    assert near, "the rebuilt vector index must answer"


def test_doctor_rebuilds_a_damaged_chroma_but_not_with_no_repair(store, tmp_path):
    data, config = _copy(store, tmp_path)
    _damage_chroma(data)
    damaged = (data / "chroma" / "chroma.sqlite3").read_bytes()
    proc = cli(config, "doctor", "--no-repair", "--json")
    _no_traceback(proc)
    assert proc.returncode == 1 and json.loads(proc.stdout)["found"]["unusable_vector_index"] == 1
    assert (data / "chroma" / "chroma.sqlite3").read_bytes() == damaged, (
        "--no-repair must write nothing"
    )
    proc = cli(config, "doctor", "--json")
    _no_traceback(proc)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["fixed"]["unusable_vector_index"] == 1 and report["healthy"]
    assert sum(1 for n in _collections(data) if "_hot_" in n) == 2


def test_reads_create_no_collection(store, tmp_path):
    from openclaw_memory.service.server import warm_up

    data, _ = _copy(store, tmp_path)
    before = set(_collections(data))
    mw = build_middleware(hash_config(data), clock=FakeClock(BASE_TIME))
    try:
        warm_up(mw)
        for i in range(5):
            mw.search(Scope(f"stranger{i}", "main"), "anything at all 随便")
            mw.recall(Scope(f"stranger{i}", "coder"), "s1", "what do you know about me?")
        assert mw.engine.index.count(Scope("stranger0", "main")) == 0
        report = __import__("openclaw_memory.maintain", fromlist=["doctor"]).doctor(
            mw.maintenance, repair=False
        )
    finally:
        mw.close()
    assert set(_collections(data)) == before, "a read created collections"
    assert report.found["orphan_collections"] == 0 and report.healthy


def _dump(data: Path) -> list[str]:
    import sqlite3

    con = sqlite3.connect(str(data / "memory.db"))
    try:
        return list(con.iterdump())
    finally:
        con.close()


def test_doctor_no_repair_writes_nothing_not_even_the_outbox(store, tmp_path):
    from openclaw_memory.runtime.engine import MemoryEngine
    from openclaw_memory.maintain import doctor
    from openclaw_memory.types import Candidate, MemoryType

    data, _ = _copy(store, tmp_path)
    eng = MemoryEngine.open(hash_config(data), clock=FakeClock(BASE_TIME), background=False)
    try:  # writes whose index work is still queued in the outbox, as after a crash
        writer_of(eng).write(
            ALICE, [Candidate(MemoryType.FACT, "my bike is called Quokkasaurus", subject="bike")]
        )
        writer_of(eng).write(
            BOB, [Candidate(MemoryType.FACT, "我的自行车叫翡翠", subject="自行车")]
        )
        pending = eng.store.pending()
        assert pending >= 2
        sqlite_before, chroma_before = _dump(data), _collections(data)
        report = doctor(maintenance_ports(eng), repair=False)
        sqlite_after, chroma_after = _dump(data), _collections(data)
    finally:
        eng.close()
    assert sqlite_after == sqlite_before, "doctor --no-repair changed the database"
    assert chroma_after == chroma_before, "doctor --no-repair changed the vector index"
    assert report.drained == 0 and report.outbox_pending == pending
    assert report.problems == 0, f"queued index work is not damage: {report.to_dict()}"


def test_purge_from_another_process_while_the_service_runs(tmp_path):
    """The CLI purges the user the service is serving; the service answers JSON throughout and
    recovers: the purged user gets an empty answer, then can write and find a memory again."""
    from fastapi.testclient import TestClient

    from openclaw_memory.service.app import create_app

    data = tmp_path / "data"
    config = _config_file(data)
    mw = build_middleware(hash_config(data))
    auth = {"authorization": "Bearer t0ken-for-the-test"}
    scope = {"user_id": "alice", "agent_id": "main"}
    try:
        app = create_app(mw, token="t0ken-for-the-test")
        with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:

            def post(path: str, body: dict) -> dict:
                resp = client.post(path, json={"scope": scope, **body}, headers=auth)
                assert resp.headers["content-type"].startswith("application/json"), resp.text[:300]
                assert resp.status_code == 200, resp.text[:500]
                return resp.json()

            post(
                "/v1/memory/remember",
                {"text": "my cat is called Flibbertigibbet", "subject": "cat"},
            )
            assert post("/v1/memory/search", {"query": "Flibbertigibbet"})["memories"]
            mw.flush()
            proc = cli(config, "purge", "--user", "alice", "--yes", "--json")
            assert proc.returncode == 0, proc.stderr[-2000:]
            assert json.loads(proc.stdout)["collections"] >= 1
            assert post("/v1/memory/search", {"query": "Flibbertigibbet"})["memories"] == []
            assert (
                "Flibbertigibbet"
                not in post("/v1/recall", {"session_id": "s9", "prompt": "what is my cat called?"})[
                    "block"
                ]
            )
            post(
                "/v1/memory/remember",
                {"text": "my parrot is called Quokkasaurus", "subject": "parrot"},
            )
            mw.flush()
            found = post("/v1/memory/search", {"query": "Quokkasaurus parrot"})["memories"]
        failures = mw.worker.failures
        near = mw.engine.semantic(
            Scope("alice", "main"),
            mw.engine.embed_query("my parrot is called Quokkasaurus"),
            limit=3,
        )
        outbox = mw.engine.store.pending()
    finally:
        mw.close()
    assert found and "Quokkasaurus" in found[0]["summary"]
    assert near, "the recreated collection must hold the new memory's vector"
    assert outbox == 0 and failures == 0, "the index drain failed after the purge"
