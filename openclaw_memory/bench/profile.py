"""Where before_request spends its time: cProfile over real requests, folded into pipeline stages.

Each stage is a function of the read path, named by its dotted path; its share is that function's
cumulative time over the requests' total. Stages nest (sanitize runs inside assemble), so shares
do not add up to 100%. cProfile slows Python code more than C code (the embedder, SQLite,
Chroma's Rust core), so Python-heavy stages look somewhat bigger than they are unprofiled.
"""

from __future__ import annotations

import cProfile
import importlib
import pstats
from typing import Any, Callable, Sequence

#: (label, "module:qualname") in pipeline order; stages whose function is gone are skipped.
STAGES = (
    ("before_request (total)", "openclaw_memory.middleware:MemoryMiddleware.before_request"),
    ("sessions.open (new hook, a write)", "openclaw_memory.capture.sessions:Sessions.open"),
    ("worker.wait (read-your-writes)", "openclaw_memory.worker:Worker.wait"),
    ("recall", "openclaw_memory.recall.recaller:Recaller.recall"),
    ("  query embedding", "openclaw_memory.engine:MemoryEngine.embed_query"),
    ("  vector channel (Chroma)", "openclaw_memory.recall.channels:VectorChannel.propose"),
    ("  keyword channel (FTS5)", "openclaw_memory.recall.channels:KeywordChannel.propose"),
    ("  recent channel", "openclaw_memory.recall.channels:RecentChannel.propose"),
    ("  subject channel", "openclaw_memory.recall.channels:SubjectChannel.propose"),
    ("  profile channel", "openclaw_memory.recall.channels:ProfileChannel.propose"),
    ("  summary channel", "openclaw_memory.recall.channels:SummaryChannel.propose"),
    ("  load records + vectors", "openclaw_memory.recall.channels:load"),
    ("  score + rank", "openclaw_memory.recall.rank:score_pool"),
    ("    keyword coverage (jieba)", "openclaw_memory.recall.rank:keyword_coverage"),
    ("  touch (access counts, a write)", "openclaw_memory.engine:MemoryEngine.touch"),
    ("assemble (budget + render)", "openclaw_memory.working_memory:WorkingMemory.assemble"),
    ("  pack", "openclaw_memory.inject.budget:pack"),
    ("  render_record", "openclaw_memory.inject.render:render_record"),
    ("  sanitize (escape)", "openclaw_memory.inject.escape:sanitize"),
    ("  count_tokens (tiktoken)", "openclaw_memory.tokens:count_tokens"),
    ("inject into messages", "openclaw_memory.inject.position:inject"),
    ("all SQLite statements", "builtins:sqlite3.Connection.execute"),
    ("all jieba tokenizing", "openclaw_memory.text:tokenize"),
)


def _code_key(path: str) -> tuple[str, int, str] | None:
    module, _, qualname = path.partition(":")
    if module == "builtins":
        return ("~", 0, f"<method '{qualname.rsplit('.', 1)[-1]}' of '{qualname.rsplit('.', 1)[0]}' objects>")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return None
    code = getattr(obj, "__code__", None)
    return (code.co_filename, code.co_firstlineno, code.co_name) if code else None


def profile_calls(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[dict[str, Any]]:
    """Run fn over items under cProfile; [{"stage", "ms_per_call", "share"}] in STAGES order."""
    prof = cProfile.Profile()
    prof.enable()
    for item in items:
        fn(item)
    prof.disable()
    ps = pstats.Stats(prof)
    stats = ps.stats  # type: ignore[attr-defined]
    found = [(label, stats[key][3]) for label, path in STAGES
             if (key := _code_key(path)) is not None and key in stats]
    total = found[0][1] if found and found[0][0] == STAGES[0][0] else ps.total_tt  # type: ignore[attr-defined]
    return [{"stage": label, "ms_per_call": round(cum * 1000 / max(1, len(items)), 2),
             "share": round(cum / total, 3) if total else 0.0} for label, cum in found]


def format_profile(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["where before_request spends its time (cProfile; nested stages overlap):"]
    for r in rows:
        lines.append(f"  {r['stage']:<38} {r['ms_per_call']:>8.2f} ms  {r['share']:>6.1%}")
    return "\n".join(lines)
