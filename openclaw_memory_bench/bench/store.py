"""Build the benchmark's memory store once, cache it, and hand out throw-away copies.

A store of N synthetic memories over U users is written through the writer (`MemoryWriter.write`)
in batches of up to 64 (one session per batch, the fake clock at the batch's time), then indexed into the
per-user Chroma collections. The finished data dir, its manifest and a question bank are kept
under the cache dir, keyed by (N, U, embedder, seed, synth and write-path code versions); a build lands under a
temporary name and is renamed into place, so an interrupted build is never mistaken for a cache.
Measurements always run on a copy, so they never change the cache.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.config import MemoryConfig, config_from_dict, load_config
from openclaw_memory.errors import OpenClawMemoryError
from openclaw_memory.types import Scope
from . import synth
from .synth import SynthMemory, SynthQuery

BATCH = 64
DEFAULT_CACHE_DIR = Path("~/.cache/openclaw-memory/bench").expanduser()

Progress = Callable[[str], None]


class BenchError(OpenClawMemoryError):
    """A benchmark store could not be built or read."""


def bench_config(
    data_dir: Path,
    embedder: str,
    base: MemoryConfig | None = None,
    storage: dict[str, Any] | None = None,
) -> MemoryConfig:
    """The config a bench store runs under: embedded stores in data_dir, offline rule extraction;
    `storage` adds settings (the backend and its DSN, see backends.storage_overrides)."""
    overrides = {
        "storage": {
            "data_dir": str(data_dir),
            "sqlite_path": "memory.db",
            "embedding_model": embedder,
            "vector_store": {"kind": "embedded", "path": "chroma"},
            **(storage or {}),
        },
        "extraction": {"mode": "rules", "llm": {"provider": "none"}},
    }
    return config_from_dict(overrides, base=base or load_config())


def cache_key(records: int, users: int, embedder: str, seed: int, copies: int = 1) -> str:
    """The cached store's name: its parameters, the generator's code and the write path's code
    (a store written by older consolidation or indexing code, say without sentence vectors, is
    not measured as if it were current); `-x<copies>` for a replicated store (replicate.py)."""
    from ..evaluate.memory_system import write_path_code

    safe = embedder.replace(":", "-").replace("/", "-")
    copied = f"-x{copies}" if copies > 1 else ""
    return (
        f"n{records}-u{users}-{safe}-s{seed}{copied}-{synth.synth_version()}"
        f"-w{write_path_code()[:8]}"
    )


def batches(memories: Sequence[SynthMemory], size: int = BATCH) -> Iterator[list[SynthMemory]]:
    """Consecutive memories of one session, at most `size` at a time."""
    batch: list[SynthMemory] = []
    for m in memories:
        if batch and (len(batch) >= size or m.session_id != batch[0].session_id):
            yield batch
            batch = []
        batch.append(m)
    if batch:
        yield batch


def build_store(
    dest: Path,
    records: int,
    users: int,
    embedder: str,
    seed: int,
    progress: Progress | None = None,
    copies: int = 1,
) -> dict[str, Any]:
    """Write the synthetic corpus into dest/data; save dest/manifest.json and dest/questions.json.
    With copies > 1, records/copies memories go through the write path and the store is then
    copied up to `records` (replicate.py)."""
    from openclaw_memory.embed.embedding import build_embedder
    from openclaw_memory.runtime.engine import MemoryEngine
    from openclaw_memory.runtime.factory import build_writer

    from .replicate import check, replicate

    check(records, users, copies)
    cfg = bench_config(dest / "data", embedder)
    clock = FakeClock(synth.BASE_TIME)
    model = build_embedder(embedder)
    engine = MemoryEngine.open(cfg, clock=clock, embedder=model, background=False)
    writer = build_writer(engine)
    bank: list[SynthQuery] = []
    written, started = 0, time.perf_counter()
    try:
        for n, memories in enumerate(synth.iter_users(records // copies, users, seed), start=1):
            scope = Scope(memories[0].user_id)
            for batch in batches(memories):
                clock.set(batch[-1].at)
                results = writer.write(
                    scope,
                    [m.candidate for m in batch],
                    session_id=batch[0].session_id,
                    writer="bench",
                )
                written += sum(1 for r in results if r.action != "skip")
            engine.sync_index(scope)
            bank.extend(synth.question_bank(memories, seed))
            if progress and (n == users or n % max(1, users // 20) == 0):
                progress(
                    f"built {n}/{users} users, {written} memories, {time.perf_counter() - started:.0f}s"
                )
    finally:
        engine.close()
    copied = None
    if copies > 1:
        if progress:
            progress(f"copying the {written} memories written {copies} times in all")
        copied = replicate(dest / "data", copies, cfg, model)
    manifest = {
        "records": records,
        "users": users,
        "embedder": embedder,
        "seed": seed,
        "written": written,
        "replicated": copied,
        "synth_version": synth.synth_version(),
        "build_seconds": round(time.perf_counter() - started, 1),
    }
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=2))
    (dest / "questions.json").write_text(
        json.dumps([dataclasses.asdict(q) for q in bank], ensure_ascii=False)
    )
    return manifest


def _build_in_subprocess(
    dest: Path, records: int, users: int, embedder: str, seed: int, copies: int = 1
) -> None:
    """Run build_store in a fresh interpreter (`python -m openclaw_memory_bench.bench._build ...`)."""
    root = str(Path(__file__).resolve().parents[2])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p),
    }
    cmd = [
        sys.executable,
        "-m",
        "openclaw_memory_bench.bench._build",
        str(dest),
        str(records),
        str(users),
        embedder,
        str(seed),
        str(copies),
    ]
    code = subprocess.run(cmd, env=env, check=False).returncode
    if code != 0:
        raise BenchError(f"cache_dir: building the bench store in {dest} failed (exit code {code})")


def ensure_store(
    cache_dir: Path,
    records: int,
    users: int,
    embedder: str,
    seed: int,
    *,
    in_subprocess: bool = True,
    progress: Progress | None = None,
    copies: int = 1,
) -> Path:
    """The cached store for these parameters, built first if absent.

    With in_subprocess=True the build runs in a fresh interpreter, so its memory peak does not count
    in the measuring process's maxrss.
    """
    final = Path(cache_dir).expanduser() / cache_key(records, users, embedder, seed, copies)
    if (final / "manifest.json").is_file():
        return final
    tmp = final.with_name(f"{final.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if progress:
        progress(f"building the bench store {final.name} (cached afterwards)")
    try:
        if in_subprocess:
            _build_in_subprocess(tmp, records, users, embedder, seed, copies)
        else:
            build_store(tmp, records, users, embedder, seed, progress=progress, copies=copies)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        tmp.rename(final)
    except OSError:  # another run finished the same build first: keep theirs
        shutil.rmtree(tmp, ignore_errors=True)
    return final


def load_entry(entry: Path) -> tuple[dict[str, Any], list[SynthQuery]]:
    manifest = json.loads((entry / "manifest.json").read_text())
    questions = [SynthQuery(**q) for q in json.loads((entry / "questions.json").read_text())]
    return manifest, questions


def copy_data(entry: Path, dest: Path) -> Path:
    """A private copy of the cached data dir (SQLite + WAL + Chroma) to measure on."""
    target = dest / "data"
    shutil.copytree(entry / "data", target)
    return target


def disk_usage(data_dir: Path) -> dict[str, float]:
    """MB on disk: the SQLite file, its WAL (+ shm) and the Chroma directory."""

    def size(paths: Sequence[Path]) -> float:
        return sum(p.stat().st_size for p in paths if p.is_file()) / 2**20

    db = data_dir / "memory.db"
    chroma = [p for p in (data_dir / "chroma").rglob("*")] if (data_dir / "chroma").exists() else []
    out = {
        "sqlite_mb": size([db]),
        "wal_mb": size([Path(f"{db}-wal"), Path(f"{db}-shm")]),
        "chroma_mb": size(chroma),
    }
    out["total_mb"] = sum(out.values())
    return {k: round(v, 2) for k, v in out.items()}
