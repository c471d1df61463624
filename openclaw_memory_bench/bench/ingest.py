"""Sustained ingest on a fresh store, as a bench run measures it (run.py, step 6)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from openclaw_memory.config import MemoryConfig
from openclaw_memory.types import Scope, Turn
from . import synth
from .backends import empty_store, storage_overrides
from .options import BenchOptions
from .read_path import bench_middleware
from .store import bench_config


def ingest(
    opts: BenchOptions,
    config: MemoryConfig | None,
    embedder: Any,
    backend: str = "sqlite",
    dsn: str = "",
) -> dict[str, Any]:
    """Sustained ingest on fresh stores: after_response + flush, then ingest() batched per session."""
    turns = synth.make_turns(opts.ingest, opts.users, opts.seed)
    out: dict[str, Any] = {"turns": len(turns)}
    for mode, feed in (("", _feed_after_response), ("batched_", _feed_ingest)):
        with (
            tempfile.TemporaryDirectory(prefix="ocm-bench-ingest-") as tmp,
            empty_store(backend, dsn) as scratch,
        ):
            storage = storage_overrides(backend, scratch)
            cfg = bench_config(Path(tmp) / "data", opts.embedder, base=config, storage=storage)
            mw = bench_middleware(cfg, embedder)
            try:
                t0, c0 = time.perf_counter(), time.process_time()
                feed(mw, turns)
                mw.flush()
                elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
                stored = mw.engine.store.record_count()
                failures = mw.worker.failures
            finally:
                mw.close()
        out.update(
            {
                f"{mode}memories": stored,
                f"{mode}seconds": round(elapsed, 2),
                f"{mode}memories_per_s": round(stored / elapsed, 1),
                f"{mode}turns_per_s": round(len(turns) / elapsed, 1),
                f"{mode}cpu_ms_per_memory": round(cpu * 1000 / max(1, stored), 2),
            }
        )
        if failures:
            out[f"{mode}failed_jobs"] = failures
    return out


def _feed_after_response(mw: Any, turns: Sequence[synth.SynthTurn]) -> None:
    from openclaw_memory.middleware import ChatRequest

    history: dict[str, list[dict]] = {}
    for t in turns:
        messages = history.setdefault(
            t.session_id, [{"role": "system", "content": synth.system_prompt(t.lang)}]
        )
        messages.append({"role": "user", "content": t.user})
        mw.after_response(ChatRequest(Scope(t.user_id), t.session_id, list(messages)), t.assistant)
        messages.append({"role": "assistant", "content": t.assistant})


def _feed_ingest(mw: Any, turns: Sequence[synth.SynthTurn]) -> None:
    sessions: dict[tuple[str, str], list[Turn]] = {}
    for t in turns:
        group = sessions.setdefault((t.user_id, t.session_id), [])
        group.append(
            Turn(
                Scope(t.user_id),
                t.session_id,
                t.user,
                t.assistant,
                f"{t.session_id}#{len(group) + 1}",
            )
        )
    for group in sessions.values():
        mw.ingest(group)
