"""Concurrency: 50 sessions on threads and 4 processes write and recall on one store at once.

SQLite is shared as a file (WAL, BEGIN IMMEDIATE, busy timeout). Chroma's embedded
PersistentClient is not safe across processes (Chroma's own docs; and here two processes opening
a fresh directory at once failed with "table collections already exists"), so the store's vector
index is a real `chroma run` server reached over HTTP (`storage.vector_store.kind: http`) by the
test process and by the writer processes alike.

Checked: no "database is locked" (or any other error) surfaces in any thread or process, no
acknowledged write is lost, every session reads its own writes, and racing consolidations of one
preference subject (threads and processes restating and changing it) leave exactly one active
version: one insert in all, every other write an update.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from reliability_helpers import BASE_TIME, ChromaServer, ForkServer, hash_config, read_lines
from store_helpers import rows

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.middleware import ChatRequest
from openclaw_memory.types import Scope
from openclaw_memory.store import inspect

pytestmark = pytest.mark.slow

THREADS = 50
PROCESSES = 4
SESSIONS_PER_PROCESS = 4
TURNS = 2
RACE = Scope("racer", "main")
RACE_VALUES = ["green tea", "black coffee", "乌龙茶", "green tea"]


@pytest.fixture(scope="module")
def chroma(tmp_path_factory):
    server = ChromaServer(tmp_path_factory.mktemp("chroma-server"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def forkserver():
    fs = ForkServer()
    yield fs
    fs.close()


class Problems(logging.Handler):
    """Every warning or error logged anywhere in the process while installed."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(
            f"{record.levelname} {record.name}: {record.getMessage()} {record.exc_text or ''}"
        )


def _http_config(data: Path, port: int, prefix: str):
    return hash_config(
        data,
        storage={
            "vector_store": {
                "kind": "http",
                "host": "127.0.0.1",
                "port": port,
                "collection_prefix": prefix,
            }
        },
    )


def _session(mw, t: int, out: dict) -> None:
    """One thread's session: turns with before_request, an explicit fact, a search, a race write."""
    rng = random.Random(t)
    scope, sid = Scope(f"t{t % 25}", "main"), f"t{t}"
    history: list[dict] = []
    for k in range(TURNS):
        token = f"ttok{t}x{k}"
        history.append({"role": "user", "content": f"note {token}: the deploy uses region {token}"})
        req = ChatRequest(scope, sid, list(history))
        if k == TURNS - 1:  # recall once the session has written something
            mw.before_request(req)
        mw.after_response(req, "noted")
        history.append({"role": "assistant", "content": "noted"})
        out["turns"].append((scope, token))
    fact = mw.remember(
        scope, f"remember that project tfact{t} ships on Monday", type="fact", subject=f"tfact{t}"
    )
    out["acks"].append((scope, fact.record.id))
    out["ryw"].append(fact.record.id in {h.record.id for h in mw.search(scope, f"tfact{t} ships")})
    if rng.random() < 0.5:  # turns of the racing scope queue up at the same time
        mw.after_response(
            ChatRequest(RACE, sid, [{"role": "user", "content": f"racing turn {t} about drinks"}]),
            "ok",
        )
    race = mw.remember(
        RACE, f"I prefer {rng.choice(RACE_VALUES)}", type="preference", subject="drink"
    )
    out["race"].append(race.action)


def _run_threads(mw) -> tuple[dict, list[str]]:
    out: dict = {"turns": [], "acks": [], "ryw": [], "race": []}
    errors: list[str] = []

    def run(t: int) -> None:
        try:
            _session(mw, t, out)
        except Exception as exc:  # noqa: BLE001 - collected and asserted empty below
            errors.append(f"thread {t}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=run, args=(t,), name=f"session-{t}") for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=600)
    assert not any(th.is_alive() for th in threads), "a session thread hangs"
    return out, errors


def _process_results(tmp: Path) -> dict:
    out: dict = {"turns": [], "acks": [], "ryw": [], "race": [], "done": 0, "stderr": ""}
    for p in range(PROCESSES):
        for line in read_lines(tmp / f"p{p}.out"):
            kind, *rest = line.split()
            if kind == "TURN":
                out["turns"].append((Scope(rest[0], rest[1]), rest[2]))
            elif kind == "ACK":
                out["acks"].append((Scope(rest[0], rest[1]), rest[2]))
            elif kind == "RYW":
                out["ryw"].append(rest[0] == "1")
            elif kind == "RACE":
                out["race"].append(rest[0])
            elif kind == "DONE":
                out["done"] += 1
        out["stderr"] += (tmp / f"p{p}.err").read_text(errors="replace")
    return out


def _check_store(mw, turns, acks) -> None:
    eng = mw.engine
    found = rows(eng, "SELECT id, user_id, agent_id, type, status, summary FROM records")
    groups = rows(
        eng,
        "SELECT user_id, agent_id, type, subject, COUNT(*) FROM records WHERE status = 'active' "
        "AND doubt_of IS NULL AND subject IS NOT NULL AND type IN ('profile', 'preference', 'fact', 'task') "
        "GROUP BY 1, 2, 3, 4 HAVING COUNT(*) > 1",
    )
    race = "user_id = ? AND agent_id = ? AND type = 'preference' AND subject = 'drink'"
    race_active = rows(
        eng,
        f"SELECT COUNT(*) FROM records WHERE {race} AND status = 'active'",
        (RACE.user_id, RACE.agent_id),
    )[0][0]
    # every change links to the version it replaced: a second chain root means two writers both
    # found no live version and both inserted
    race_roots = rows(
        eng,
        f"SELECT COUNT(*) FROM records WHERE {race} AND prev_id IS NULL",
        (RACE.user_id, RACE.agent_id),
    )[0][0]
    by_id = {r["id"]: r for r in found}
    lost = [
        (s, rid)
        for s, rid in acks
        if rid not in by_id
        or (by_id[rid]["user_id"], by_id[rid]["status"]) != (s.user_id, "active")
    ]
    assert lost == [], f"{len(lost)} acknowledged memories lost or not active: {lost[:5]}"
    episodes: dict[tuple[str, str], str] = {}
    for r in found:
        if r["type"] == "episode":
            key = (r["user_id"], r["agent_id"])
            episodes[key] = episodes.get(key, "") + "\n" + r["summary"]
    missing = [tok for s, tok in turns if tok not in episodes.get((s.user_id, s.agent_id), "")]
    assert missing == [], f"{len(missing)} captured turns lost, e.g. {missing[:5]}"
    assert [tuple(g) for g in groups] == [], "more than one active version of a subject"
    assert race_active == 1 and race_roots == 1


def test_50_threads_and_4_processes_share_one_store(tmp_path, chroma, forkserver, capsys):
    data, prefix = tmp_path / "data", "conc"
    mw = build_middleware(_http_config(data, chroma.port, prefix), clock=FakeClock(BASE_TIME))
    problems = Problems()
    logging.getLogger().addHandler(problems)
    started = time.monotonic()
    try:
        pids = [
            forkserver.spawn(
                "conc_worker",
                tmp_path / f"p{p}.out",
                tmp_path / f"p{p}.err",
                data_dir=str(data),
                port=chroma.port,
                prefix=prefix,
                proc=p,
                sessions=SESSIONS_PER_PROCESS,
                turns=TURNS,
                race_user=RACE.user_id,
                race_values=RACE_VALUES,
            )
            for p in range(PROCESSES)
        ]
        threads, errors = _run_threads(mw)
        statuses = [forkserver.wait(pid) for pid in pids]
        mw.flush()
        procs = _process_results(tmp_path)
        elapsed = time.monotonic() - started
        assert errors == [], errors[:5]
        assert statuses == [0] * PROCESSES, procs["stderr"][-3000:]
        assert procs["done"] == PROCESSES
        assert "locked" not in procs["stderr"] and "Traceback" not in procs["stderr"], procs[
            "stderr"
        ][-3000:]
        assert [p for p in problems.records if "locked" in p] == []
        assert [p for p in problems.records if p.startswith(("ERROR", "CRITICAL"))] == []
        assert mw.worker.failures == 0
        turns, acks = threads["turns"] + procs["turns"], threads["acks"] + procs["acks"]
        assert len(turns) == TURNS * (THREADS + PROCESSES * SESSIONS_PER_PROCESS)
        _check_store(mw, turns, acks)
        ryw = threads["ryw"] + procs["ryw"]
        assert all(ryw), f"{ryw.count(False)} of {len(ryw)} sessions did not find their own fact"
        race = threads["race"] + procs["race"]
        assert (
            race.count("insert") <= 1 and len(race) == THREADS + PROCESSES * SESSIONS_PER_PROCESS
        ), race
        with capsys.disabled():
            print(
                f"\nconcurrency: {THREADS} threads + {PROCESSES} processes, {len(turns)} turns, {len(acks)} "
                f"acknowledged memories, {len(race)} racing writes ({race.count('insert')} insert), "
                f"{len(problems.records)} warnings {dict(Counter(p[:70] for p in problems.records))}, "
                f"{elapsed:.0f} s"
            )
    finally:
        logging.getLogger().removeHandler(problems)
        mw.close()


TRIALS = 8  # rounds of six processes (3 of 40 rounds failed before the WAL switch was retried)


@pytest.mark.sqlite_only  # SQLite's file lock, WAL switch and migration race
def test_processes_opening_a_fresh_store_at_once_all_work(tmp_path, forkserver):
    """Several agents start together on an empty data dir: each must migrate or wait, then write."""
    failures = []
    for trial in range(TRIALS):
        data, go = tmp_path / f"fresh{trial}", tmp_path / f"go{trial}"
        data.mkdir()
        pids = [
            forkserver.spawn(
                "open_db",
                tmp_path / f"f{trial}-{p}.out",
                tmp_path / f"f{trial}-{p}.err",
                path=str(data / "memory.db"),
                proc=p,
                go_file=str(go),
            )
            for p in range(6)
        ]
        time.sleep(0.3)
        go.touch()
        statuses = [forkserver.wait(pid) for pid in pids]
        errs = "".join(
            (tmp_path / f"f{trial}-{p}.err").read_text(errors="replace") for p in range(6)
        )
        if statuses != [0] * 6:
            failures.append(errs.strip().splitlines()[-1])
            continue
        mode = inspect.file_rows(data / "memory.db", "PRAGMA journal_mode")[0][0]
        keys = inspect.file_rows(data / "memory.db", "SELECT key FROM meta")
        openers = sum(1 for r in keys if r["key"].startswith("opener"))
        if (mode, openers) != ("wal", 6):
            failures.append(f"journal mode {mode}, {openers} of 6 writes")
    assert failures == [], (
        f"{len(failures)} of {TRIALS} trials had a process fail: {sorted(set(failures))}"
    )
