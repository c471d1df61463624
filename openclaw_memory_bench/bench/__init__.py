"""Benchmarks of the middleware at scale: synthetic stores, latency, throughput, memory, disk.

`openclaw-memory bench` (see cli.py) builds a deterministic synthetic store once per
(records, users, embedder, seed, generator version), caches it, and measures a copy.
"""

from .run import BenchOptions, run_bench
from .synth import (
    SynthMemory,
    SynthQuery,
    SynthTurn,
    make_queries,
    make_turns,
    question_bank,
    user_memories,
)

__all__ = [
    "BenchOptions",
    "SynthMemory",
    "SynthQuery",
    "SynthTurn",
    "make_queries",
    "make_turns",
    "question_bank",
    "run_bench",
    "user_memories",
]
