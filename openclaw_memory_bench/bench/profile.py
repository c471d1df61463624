"""Where before_request spends its time: a stack sampler over real requests, folded into stages.

A daemon thread looks at the measuring thread's Python stack every couple of milliseconds
(`sys._current_frames`, with a short GIL switch interval so it is not starved while the
thread runs Python code) and counts, for each stage function of the read path, the samples whose
stack contains it; time in C code (SQLite, Chroma's Rust core, the embedder, jieba's regexes)
is charged to the Python function that called it. Unlike cProfile, this does not inflate
Python-heavy stages (cProfile charges its own per-call overhead to every call: a per-character
loop looks ten times bigger than it is). Stages nest (sanitize runs inside assemble), so shares
do not add up to 100%.
"""

from __future__ import annotations

import importlib
import sys
import threading
import time
from collections import Counter
from typing import Any, Callable, Sequence

#: (label, "module:qualname") in pipeline order; stages whose function is gone are skipped.
STAGES = (
    ("before_request (total)", "openclaw_memory.middleware:MemoryMiddleware.before_request"),
    ("sessions.open (new hook, a write)", "openclaw_memory.capture.pipeline:Sessions.open"),
    ("worker.wait (read-your-writes)", "openclaw_memory.core.worker:Worker.wait"),
    ("recall", "openclaw_memory.recall.recaller:Recaller.recall"),
    ("  build_query (terms, dates, kinds)", "openclaw_memory.recall.query:build_query"),
    ("    analyse (the request read once)", "openclaw_memory.recall.analyse:analyse"),
    ("  embedding text (names aside)", "openclaw_memory.recall.channels:embedding_text"),
    ("  query embedding", "openclaw_memory.embed.embedding:embed_query"),
    ("  vector channel (Chroma)", "openclaw_memory.recall.channels:VectorChannel.propose"),
    ("    Chroma query", "openclaw_memory.store.vector:ChromaIndex.query"),
    ("  keyword channel (FTS5)", "openclaw_memory.recall.channels:KeywordChannel.propose"),
    ("    FTS5 query (SQLite)", "openclaw_memory.store.records:keyword_search"),
    ("  kind channel", "openclaw_memory.recall.channels:KindChannel.propose"),
    ("  recent channel", "openclaw_memory.recall.channels:RecentChannel.propose"),
    ("  subject channel", "openclaw_memory.recall.channels:SubjectChannel.propose"),
    ("  profile channel", "openclaw_memory.recall.channels:ProfileChannel.propose"),
    ("  summary channel", "openclaw_memory.recall.channels:SummaryChannel.propose"),
    ("  entity channel (+ one hop)", "openclaw_memory.recall.channels:EntityChannel.propose"),
    ("  read ahead (beside the embedding)", "openclaw_memory.recall.pool:read_ahead"),
    ("  load records + vectors", "openclaw_memory.recall.pool:load"),
    ("  background level", "openclaw_memory.embed.embedding:Background.level"),
    ("  gate signals", "openclaw_memory.recall.recaller:Recaller._gate_signals"),
    ("  score + rank", "openclaw_memory.recall.rank:score_pool"),
    ("    keyword hits", "openclaw_memory.recall.rank:keyword_hits"),
    ("  cover sessions (lists)", "openclaw_memory.recall.head:cover_sessions"),
    ("  neighbouring turns", "openclaw_memory.recall.recaller:attach_context"),
    ("  touch (access counts, a write)", "openclaw_memory.runtime.engine:MemoryEngine.touch"),
    ("assemble (budget + render)", "openclaw_memory.inject.assemble:BlockAssembler.assemble"),
    ("  pack", "openclaw_memory.inject.assemble:pack"),
    ("  render_record", "openclaw_memory.inject.render:render_record"),
    ("  sanitize (escape)", "openclaw_memory.inject.escape:sanitize"),
    ("  count_tokens (tiktoken)", "openclaw_memory.core.tokens:count_tokens"),
    ("inject into messages", "openclaw_memory.inject.render:inject"),
    ("all jieba tokenizing", "openclaw_memory.lang.text:tokenize"),
)


def _code_key(path: str) -> tuple[str, int, str] | None:
    module, _, qualname = path.partition(":")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return None
    code = getattr(obj, "__code__", None)
    return (code.co_filename, code.co_firstlineno, code.co_name) if code else None


SWITCH_INTERVAL = 0.0002


class StackSampler:
    """Counts, per code object, the samples of one thread's stack that contain it."""

    def __init__(self, thread_id: int, interval: float = 0.002) -> None:
        self.thread_id = thread_id
        self.interval = interval
        self.counts: Counter[tuple[str, int, str]] = Counter()
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-sampler", daemon=True)

    def __enter__(self) -> "StackSampler":
        # Python code keeps the GIL for up to the switch interval (5 ms): shortened, the sampler
        # gets its turn on time whether the sampled thread runs Python or C code.
        self._switch = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        sys.setswitchinterval(self._switch)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            frame = sys._current_frames().get(self.thread_id)
            seen = set()
            while frame is not None:
                code = frame.f_code
                seen.add((code.co_filename, code.co_firstlineno, code.co_name))
                frame = frame.f_back
            self.counts.update(seen)
            self.samples += 1


def profile_calls(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[dict[str, Any]]:
    """Run fn over items under the sampler; [{"stage", "ms_per_call", "share"}] in STAGES order."""
    t0 = time.perf_counter()
    with StackSampler(threading.get_ident()) as sampler:
        for item in items:
            fn(item)
    per_call_ms = (time.perf_counter() - t0) * 1000 / max(1, len(items))
    keys = [(label, _code_key(path)) for label, path in STAGES]
    found = [
        (label, sampler.counts[key])
        for label, key in keys
        if key is not None and key in sampler.counts
    ]
    total = found[0][1] if found and found[0][0] == STAGES[0][0] else sampler.samples
    return [
        {
            "stage": label,
            "ms_per_call": round(per_call_ms * n / max(1, total), 2),
            "share": round(n / max(1, total), 3),
        }
        for label, n in found
    ]


def format_profile(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["where before_request spends its time (stack samples; nested stages overlap):"]
    for r in rows:
        lines.append(f"  {r['stage']:<38} {r['ms_per_call']:>8.2f} ms  {r['share']:>6.1%}")
    return "\n".join(lines)
