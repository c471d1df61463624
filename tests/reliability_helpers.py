"""Shared code for the reliability suite (tests/test_reliability_*.py).

- configs, byte scans of the store's files, process figures (RSS, threads, children);
- a `chroma run` server for the multi-process tests;
- a fork server: one Python process that imports the package once and forks writer children on
  request, so a crash test can SIGKILL fifty writers without paying fifty interpreter start-ups.
  Run as `python tests/reliability_helpers.py forkserver`; the tasks its children run are below.

Imported by path-insertion (pytest puts tests/ on sys.path; there is no tests/__init__.py).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
import urllib.request
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve()
if str(ROOT) not in sys.path:  # the fork server runs this file directly
    sys.path.insert(0, str(ROOT))

from openclaw_memory.config import MemoryConfig, config_from_dict  # noqa: E402

BASE_TIME = 1_700_000_000.0


def hash_config(data_dir: str | Path, **sections: Mapping[str, Any]) -> MemoryConfig:
    """A config on data_dir with the hash embedder, plus section overrides (nested dicts)."""
    from pg_server import storage_overrides  # the backend under test (SQLite unless chosen)

    storage = {
        "data_dir": str(data_dir),
        "embedding_model": "hash",
        # every tier in Chroma: the suite damages, purges and recovers Chroma's files
        "vector_store": {"exact_below": 0},
        **storage_overrides(data_dir),
    }
    data: dict[str, Any] = {"storage": storage}
    for key, value in sections.items():
        node = data.setdefault(key, {})
        for k, v in value.items():
            if isinstance(v, Mapping) and isinstance(node.get(k), Mapping):
                node[k] = {**node[k], **v}
            else:
                node[k] = v
    return config_from_dict(data)


def fast_dir(fallback: Path, prefix: str = "ocm-rel-") -> tuple[Path, bool]:
    """A fresh directory on /dev/shm when it has room (Chroma fsyncs every write, tens of ms on a
    slow disk; on tmpfs they are nearly free), else fallback. Also says whether it must be removed."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > 2 * 1024**3:
        import tempfile

        return Path(tempfile.mkdtemp(prefix=prefix, dir=shm)), True
    fallback.mkdir(parents=True, exist_ok=True)
    return fallback, False


# ---- bytes on disk ------------------------------------------------------------------------


def store_files(cfg: MemoryConfig) -> list[Path]:
    """The SQLite file, its -wal and -shm, and every file under the Chroma directory."""
    db = cfg.sqlite_file
    files = [
        p for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}-journal")) if p.exists()
    ]
    if cfg.chroma_dir.exists():
        files += sorted(p for p in cfg.chroma_dir.rglob("*") if p.is_file())
    return files


def encodings(text: str) -> list[bytes]:
    """The ways a string can sit in a file: UTF-8, and JSON's \\u escapes for non-ASCII."""
    forms = [text.encode("utf-8")]
    escaped = json.dumps(text, ensure_ascii=True)[1:-1].encode("ascii")
    if escaped not in forms:
        forms.append(escaped)
    return forms


def _word_byte(b: bytes) -> bool:
    return bool(b) and (b.isascii() and b.isalnum() or b in (b"-", b"_"))


def _bounded(blob: bytes, needle: bytes) -> bool:
    """needle occurs in blob with no identifier byte (ASCII letter, digit, - or _) around it."""
    start = blob.find(needle)
    while start != -1:
        before = blob[start - 1 : start]
        after = blob[start + len(needle) : start + len(needle) + 1]
        if not _word_byte(before) and not _word_byte(after):
            return True
        start = blob.find(needle, start + 1)
    return False


def needs_boundary(text: str) -> bool:
    """Short or hex-only strings collide with ids, UUID groups, hashes and binary data by chance:
    for them a hit only counts when it stands alone (not inside a run of identifier characters)."""
    return len(text) < 8 or all(c in "0123456789abcdefABCDEF" for c in text)


def find_in_files(files: Iterable[Path], needles: Iterable[str]) -> dict[str, list[str]]:
    """{needle: [file names where it was found]} for the needles found in any file's bytes."""
    blobs = []
    for p in files:
        try:
            blobs.append((p, p.read_bytes()))
        except FileNotFoundError:  # a -wal that went away between listing and reading
            continue
    found: dict[str, list[str]] = {}
    for needle in needles:
        where = []
        for path, blob in blobs:
            for form in encodings(needle):
                hit = _bounded(blob, form) if needs_boundary(needle) else form in blob
                if hit:
                    where.append(path.name)
                    break
        if where:
            found[needle] = where
    return found


# ---- process figures ----------------------------------------------------------------------


def status_field(name: str, pid: int | str = "self") -> int:
    """An integer field of /proc/<pid>/status (VmRSS in kB, Threads, ...)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1])
    raise KeyError(name)


def rss_mb() -> float:
    return status_field("VmRSS") / 1024


def child_pids(pid: int | None = None) -> set[int]:
    """Direct children of a process (every thread's children list)."""
    pid = os.getpid() if pid is None else pid
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out |= {int(x) for x in (task / "children").read_text().split()}
        except (FileNotFoundError, ProcessLookupError):
            continue
    return out


# ---- a Chroma server ----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chroma_bin() -> str:
    here = Path(sys.executable).parent / "chroma"
    found = str(here) if here.exists() else shutil.which("chroma")
    if not found:
        raise RuntimeError("the `chroma` CLI (installed with chromadb) is missing")
    return found


class ChromaServer:
    """`chroma run` on 127.0.0.1 and a free port, storing under path; stop() ends it."""

    def __init__(self, path: Path) -> None:
        self.port = free_port()
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self._log = open(path / "server.log", "wb")
        self.proc = subprocess.Popen(
            [
                chroma_bin(),
                "run",
                "--path",
                str(path / "db"),
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(
                    f"http://127.0.0.1:{self.port}/api/v2/heartbeat", timeout=1
                ).read()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(
            "chroma server did not start: "
            + (path / "server.log").read_text(errors="replace")[-2000:]
        )

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=20)
        self._log.close()


# ---- the fork server (test side) ----------------------------------------------------------


class ForkServer:
    """Spawn task children from a pre-imported Python process; wait for or kill them by pid."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE), "forkserver"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=str(ROOT),
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False", "PYTHONHASHSEED": "0"},
            text=True,
            bufsize=1,
        )
        ready = self.proc.stdout.readline().strip()
        if ready != "ready":
            raise RuntimeError(f"fork server did not start (said {ready!r})")

    def _call(self, **msg: Any) -> dict:
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("fork server died")
        return json.loads(line)

    def spawn(self, task: str, out: Path, err: Path, **kwargs: Any) -> int:
        """Fork a child running TASKS[task](**kwargs) with stdout -> out and stderr -> err."""
        return int(
            self._call(op="spawn", task=task, kwargs=kwargs, out=str(out), err=str(err))["pid"]
        )

    def wait(self, pid: int) -> int:
        """The child's exit code, or minus the signal number that ended it."""
        return int(self._call(op="wait", pid=pid)["status"])

    def kill(self, pid: int) -> int:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return self.wait(pid)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self._call(op="quit")
            except (RuntimeError, BrokenPipeError, OSError):
                pass
            self.proc.wait(timeout=30)


def read_lines(path: Path) -> list[str]:
    """Complete lines written so far (a line cut by a kill, without its newline, is dropped)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    lines = text.split("\n")
    return lines[:-1]


# ---- the fork server (server side) --------------------------------------------------------


def _serve() -> None:
    # Import everything the children use before any fork, and check nothing started a thread:
    # forking a process with threads can deadlock the child.
    import chromadb  # noqa: F401
    import llama_index.vector_stores.chroma  # noqa: F401

    import openclaw_memory.runtime.factory  # noqa: F401
    import openclaw_memory.maintain  # noqa: F401
    import openclaw_memory.middleware  # noqa: F401
    from openclaw_memory.lang.text import fts_document
    from openclaw_memory.core.tokens import count_tokens

    fts_document("预热 jieba 的词典 warm up")  # jieba and tiktoken load lazily: once, here
    count_tokens("warm up")
    if threading.active_count() != 1:
        print(f"threads: {threading.active_count()}", flush=True)
        return
    print("ready", flush=True)
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["op"] == "quit":
            print("{}", flush=True)
            return
        if msg["op"] == "wait":
            _, status = os.waitpid(msg["pid"], 0)
            print(json.dumps({"status": os.waitstatus_to_exitcode(status)}), flush=True)
            continue
        pid = os.fork()
        if pid == 0:
            _child(msg)
        print(json.dumps({"pid": pid}), flush=True)


def _child(msg: dict) -> None:
    code = 1
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        os.dup2(os.open(msg["out"], flags, 0o644), 1)
        os.dup2(os.open(msg["err"], flags, 0o644), 2)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        sys.stdout = open(1, "w", buffering=1, encoding="utf-8", closefd=False)
        sys.stderr = open(2, "w", buffering=1, encoding="utf-8", closefd=False)
        TASKS[msg["task"]](**msg["kwargs"])
        sys.stdout.flush()
        code = 0
    except BaseException:  # noqa: BLE001 - the child reports and exits; the test reads stderr
        traceback.print_exc()
        sys.stderr.flush()
    finally:
        os._exit(code)


# ---- tasks --------------------------------------------------------------------------------

_SUBJECTS = ("drink", "editor", "city", "饮料", "编辑器")
_VALUES = ("green tea", "black coffee", "vim", "emacs", "Lisbon", "乌龙茶", "拿铁", "北京")


def _crash_candidates(rng: random.Random, n: int, tag: str) -> list:
    from openclaw_memory.types import Candidate, Channel, MemoryType

    out = []
    for j in range(n):
        kind = rng.choice(("fact", "fact", "preference", "event", "episode", "decision"))
        value = rng.choice(_VALUES)
        subject = rng.choice(_SUBJECTS)
        if kind == "event":
            out.append(
                Candidate(
                    MemoryType.EVENT,
                    f"build {tag}-{j} finished: {value}",
                    subject="tool/build",
                    channel=Channel.TOOL,
                    turn_ids=(f"{tag}#{j}",),
                )
            )
        elif kind == "episode":
            out.append(
                Candidate(MemoryType.EPISODE, f"用户说 {value} {tag}-{j}", turn_ids=(f"{tag}#{j}",))
            )
        elif kind == "decision":
            out.append(Candidate(MemoryType.DECISION, f"decided to use {value}", subject=subject))
        else:
            mtype = MemoryType.FACT if kind == "fact" else MemoryType.PREFERENCE
            out.append(
                Candidate(
                    mtype, f"the {subject} is {value}", subject=subject, channel=Channel.EXPLICIT
                )
            )
    return out


def crash_writer(
    data_dir: str, seed: int, batches: int = 100_000, doctor_first: bool = False
) -> None:
    """Write batches through the writer with the background indexer on; after each
    batch commits, print `ACK <user> <agent> <id>` per record, flushed, until killed."""
    from openclaw_memory.core.clock import FakeClock
    from openclaw_memory.runtime.engine import MemoryEngine
    from openclaw_memory.runtime.factory import build_writer, maintenance_ports
    from openclaw_memory.write.forget import forget_record
    from openclaw_memory.maintain import doctor, run_maintenance
    from openclaw_memory.types import Scope

    rng = random.Random(seed)
    clock = FakeClock(BASE_TIME + seed * 100_000)
    cfg = hash_config(
        data_dir,
        storage={"background_indexing": True},
        forgetting={"compaction_trigger": 6, "compaction_batch": 4},
    )
    eng = MemoryEngine.open(cfg, clock=clock, background=True)
    writer = build_writer(eng)
    print("OPEN", flush=True)
    if doctor_first:
        doctor(maintenance_ports(eng), repair=True)
        print("DOCTOR", flush=True)
    scopes = [Scope(f"u{i}", a) for i in range(3) for a in ("main", "coder")]
    mine: dict[Scope, list[str]] = {s: [] for s in scopes}
    for b in range(batches):
        scope = rng.choice(scopes)
        results = writer.write(
            scope, _crash_candidates(rng, rng.randint(1, 5), f"w{seed}b{b}"), session_id=f"s{seed}"
        )
        for r in results:
            if r.record is not None:
                mine[scope].append(r.record.id)
                print(f"ACK {scope.user_id} {scope.agent_id} {r.record.id}", flush=True)
        roll = rng.random()
        if roll < 0.08 and mine[scope]:
            forget_record(eng.store, eng.clock, scope, rng.choice(mine[scope]))
            eng.written()
        elif roll < 0.12:
            run_maintenance(maintenance_ports(eng), scope)
        clock.advance(60.0)
    eng.close()


def conc_worker(
    data_dir: str,
    port: int,
    prefix: str,
    proc: int,
    sessions: int,
    turns: int,
    race_user: str,
    race_values: list[str],
) -> None:
    """One of the racing processes: sessions of turns, explicit memories and restatements of the
    shared preference subject, through a middleware on the shared store (Chroma over HTTP)."""
    from openclaw_memory.core.clock import FakeClock
    from openclaw_memory.runtime.factory import build_middleware
    from openclaw_memory.middleware import ChatRequest
    from openclaw_memory.types import Scope

    rng = random.Random(proc)
    cfg = hash_config(
        data_dir,
        storage={
            "vector_store": {
                "kind": "http",
                "host": "127.0.0.1",
                "port": port,
                "collection_prefix": prefix,
            }
        },
    )
    mw = build_middleware(cfg, clock=FakeClock(BASE_TIME + proc * 1000))
    race = Scope(race_user, "main")
    try:
        for s in range(sessions):
            scope = Scope(f"p{proc}u{s % 3}", "main")
            sid = f"p{proc}s{s}"
            history: list[dict] = []
            for t in range(turns):
                token = f"ptok{proc}x{s}x{t}"
                history.append(
                    {"role": "user", "content": f"note {token}: the build uses cache {token}"}
                )
                req = ChatRequest(scope, sid, list(history))
                if t == turns - 1:
                    mw.before_request(req)
                mw.after_response(req, "noted")
                history.append({"role": "assistant", "content": "noted"})
                print(f"TURN {scope.user_id} {scope.agent_id} {token}", flush=True)
            fact = mw.remember(
                scope,
                f"remember that project pfact{proc}x{s} ships on Friday",
                type="fact",
                subject=f"pfact{proc}x{s}",
            )
            print(f"ACK {scope.user_id} {scope.agent_id} {fact.record.id}", flush=True)
            hits = mw.search(scope, f"pfact{proc}x{s}")
            print(f"RYW {int(fact.record.id in {h.record.id for h in hits})}", flush=True)
            res = mw.remember(
                race, f"I prefer {rng.choice(race_values)}", type="preference", subject="drink"
            )
            print(f"RACE {res.action} {res.record.id}", flush=True)
        mw.flush()
    finally:
        mw.close()
    print("DONE", flush=True)


def open_db(path: str, proc: int, go_file: str) -> None:
    """Wait for go_file, then open the SQLite store (migrating a fresh one) and write to it."""
    from openclaw_memory.store import inspect
    from openclaw_memory.store.sqlite import SQLiteStore

    while not os.path.exists(go_file):
        time.sleep(0.0005)
    store = SQLiteStore.open(path)
    inspect.insert(store, "meta", key=f"opener{proc}", value="here")
    store.close()
    print(f"ACK opener{proc}", flush=True)


TASKS = {"crash_writer": crash_writer, "conc_worker": conc_worker, "open_db": open_db}

if __name__ == "__main__" and sys.argv[1:] == ["forkserver"]:
    _serve()
