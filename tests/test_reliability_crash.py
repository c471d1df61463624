"""Crash consistency: writers SIGKILLed at random points lose no acknowledged write, and doctor
leaves SQLite, the FTS index and the Chroma index in agreement (docs/design.md invariant 2).

A writer child (forked from a pre-imported fork server, see reliability_helpers) writes batches
through MemoryEngine.write with the background indexer on, and prints `ACK <user> <agent> <id>`
after each batch commits. The test kills it at a random moment (during open, during a doctor
run, mid-batch, mid-index), starts the next writer on the same store, and after a series of kills
reopens the store and checks it.
"""

from __future__ import annotations

import random
import signal
import time
from collections import Counter
from pathlib import Path

import pytest
from reliability_helpers import BASE_TIME, ForkServer, hash_config, read_lines
from store_helpers import rows, writer_of

from openclaw_memory.runtime.factory import maintenance_ports
from openclaw_memory.core.clock import FakeClock
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.maintain import doctor
from openclaw_memory.maintain.runner import tier_collections
from openclaw_memory.types import Scope
from openclaw_memory.store import inspect

pytestmark = pytest.mark.slow

STORES = 4
KILLS_PER_STORE = 13  # 52 kills in all


@pytest.fixture(scope="module")
def forkserver():
    fs = ForkServer()
    yield fs
    fs.close()


def _acks(lines: list[str]) -> int:
    return sum(1 for line in lines if line.startswith("ACK "))


def _kill_at_random_point(fs: ForkServer, rng: random.Random, pid: int, out: Path) -> int:
    """SIGKILL pid at a random moment: a fifth of the time blind (open, doctor, first batch),
    otherwise after a random number of acknowledged batches plus a random delay."""
    if rng.random() < 0.2:
        time.sleep(rng.uniform(0.0, 1.5))
    else:
        target = rng.randint(1, 40)
        deadline = time.monotonic() + 30
        while _acks(read_lines(out)) < target and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.3))
    return fs.kill(pid)


def _crash_store(
    fs: ForkServer, rng: random.Random, data: Path, store: int
) -> tuple[dict[str, tuple[str, str]], int]:
    """KILLS_PER_STORE writers on one store, each killed; the acknowledged ids and the kills."""
    acked: dict[str, tuple[str, str]] = {}
    kills = 0
    data.parent.mkdir(parents=True, exist_ok=True)
    for k in range(KILLS_PER_STORE):
        out, err = data.parent / f"s{store}k{k}.out", data.parent / f"s{store}k{k}.err"
        pid = fs.spawn(
            "crash_writer",
            out,
            err,
            data_dir=str(data),
            seed=store * 100 + k,
            doctor_first=rng.random() < 0.25,
        )
        status = _kill_at_random_point(fs, rng, pid, out)
        trouble = err.read_text(errors="replace") if err.exists() else ""
        assert "Traceback" not in trouble, f"writer {k} of store {store} failed:\n{trouble[-3000:]}"
        assert status == -signal.SIGKILL, (
            f"writer {k} of store {store} ended with {status}, not SIGKILL"
        )
        kills += 1
        for line in read_lines(out):
            if line.startswith("ACK "):
                _, user, agent, rid = line.split()
                acked[rid] = (user, agent)
    return acked, kills


def _assert_consistent(eng: MemoryEngine, acked: dict[str, tuple[str, str]]) -> int:
    """SQLite, FTS, the SQLite vectors and the Chroma tiers agree; every acked id is there."""
    if type(eng.store).__name__ == "SQLiteStore":
        assert rows(eng, "PRAGMA integrity_check")[0][0] == "ok"
    found = rows(eng, "SELECT id, user_id, agent_id, status FROM records")
    orphan, missing = eng.store.keyword_index_gaps()
    orphan_fts, missing_fts = len(orphan), len(missing)
    orphan_sql_vecs = eng.store.orphan_vector_rows()
    stale = eng.store.stale_vector_ids(eng.model_name, eng.index.dim)
    outbox = eng.store.pending()
    assert orphan_fts == 0 and missing_fts == 0, "FTS rows and records disagree"
    assert orphan_sql_vecs == 0 and stale == [], "SQLite vectors and records disagree"
    assert outbox == 0
    where = {r["id"]: (r["user_id"], r["agent_id"]) for r in found}
    lost = [rid for rid, owner in acked.items() if where.get(rid) != owner]
    assert lost == [], f"{len(lost)} acknowledged writes lost, e.g. {lost[:5]}"
    scopes = {Scope(u, a) for u, a in where.values()}
    for scope in scopes:
        mine = [
            r for r in found if (r["user_id"], r["agent_id"]) == (scope.user_id, scope.agent_id)
        ]
        for tier, status in (("hot", "active"), ("cold", "archived")):
            want = {r["id"] for r in mine if r["status"] == status}
            assert eng.index.ids(scope, tier) == want, f"{scope} {tier}: index and records disagree"
        live = {r["id"] for r in mine if r["status"] == "active"}
        if live:  # the HNSW segment loads and answers with live ids only
            hits = eng.index.query(scope, eng.embed_query("the drink is green tea"), 5)
            assert hits and {i for i, _ in hits} <= live
    known = {eng.index.collection_name(s, t) for s in scopes for t in ("hot", "cold")}
    assert set(tier_collections(eng.index)) <= known, "collections of no partition remain"
    return len(found)


def _check_store(data: Path, acked: dict[str, tuple[str, str]]) -> dict[str, int]:
    """Reopen, repair, and prove the store consistent; the figures for the report."""
    eng = MemoryEngine.open(hash_config(data), clock=FakeClock(BASE_TIME + 10**7), background=False)
    try:
        first = doctor(maintenance_ports(eng), repair=True)
        second = doctor(maintenance_ports(eng), repair=False)
        assert second.problems == 0, f"doctor still finds problems after repair: {second.to_dict()}"
        records = _assert_consistent(eng, acked)
        return {
            "acked": len(acked),
            "records": records,
            "outbox_replayed": first.drained,
            "repaired": sum(first.fixed.values()),
            **{f"fixed_{k}": v for k, v in first.fixed.items() if v},
        }
    finally:
        eng.close()


def test_sigkilled_writers_lose_no_acknowledged_write_and_doctor_reconciles(
    forkserver, tmp_path, capsys
):
    rng = random.Random(20_260_601)
    totals: Counter[str] = Counter()
    started = time.monotonic()
    for store in range(STORES):
        data = tmp_path / f"store{store}" / "data"
        acked, kills = _crash_store(forkserver, rng, data, store)
        assert len(acked) > 0, "no writer acknowledged anything: the kills came too early to test"
        figures = _check_store(data, acked)
        totals.update({"kills": kills, **figures})
        with capsys.disabled():
            print(f"\ncrash store {store}: {kills} kills survived, {figures}")
    with capsys.disabled():
        print(f"crash totals: {dict(totals)} in {time.monotonic() - started:.0f} s")
    assert totals["kills"] >= 50


@pytest.mark.sqlite_only  # the damage is made with SQLite's FTS5 statements
def test_the_checks_see_damage_and_doctor_repairs_it(tmp_path):
    """The consistency checks are not blind: a damaged index fails them until doctor repairs it."""
    from openclaw_memory.types import Candidate, MemoryType

    eng = MemoryEngine.open(hash_config(tmp_path), clock=FakeClock(BASE_TIME), background=False)
    try:
        scope = Scope("u0", "main")
        ids = [
            r.record.id
            for r in writer_of(eng).write(
                scope,
                [Candidate(MemoryType.FACT, f"the drink is tea number {i}") for i in range(4)],
            )
        ]
        eng.indexer.drain()
        _assert_consistent(eng, {i: ("u0", "main") for i in ids})
        eng.index.delete(scope, ids[:1])  # a record without its vector
        eng.index.upsert(
            scope,
            "hot",
            [("mem_orphan", eng.embed_query("orphan"), {"type": "fact", "workspace": ""})],
        )
        # an FTS row without a record, and a record without its FTS row
        inspect.insert(eng.store, "records_fts", rowid=999999, tokens="orphan tokens")
        [held] = inspect.select(eng.store, "records", ("rid",), id=ids[1])
        inspect.delete(eng.store, "records_fts", rowid=held["rid"])
        with pytest.raises(AssertionError):
            _assert_consistent(eng, {i: ("u0", "main") for i in ids})
        report = doctor(maintenance_ports(eng), repair=True)
        assert sum(report.fixed.values()) >= 4, report.to_dict()
        _assert_consistent(eng, {i: ("u0", "main") for i in ids})
    finally:
        eng.close()
