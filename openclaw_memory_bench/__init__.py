"""Measuring openclaw_memory: retrieval evaluation (evaluate/) and benchmarks at scale (bench/).

Beside the runtime package, not inside it: openclaw_memory never imports this package; its CLI
loads `eval` and `bench` from here when it builds its parser. Both are also runnable on their
own: `python -m openclaw_memory_bench.evaluate` (the BM25 baseline) and
`python -m openclaw_memory_bench.bench bench`.
"""
