"""Timing helpers: latencies with time.perf_counter, percentiles, a concurrent burst, memory.

These read the wall clock because they measure; no memory rule ever sees these numbers.
"""

from __future__ import annotations

import resource
import statistics
import threading
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypeVar

T = TypeVar("T")


def percentile(samples: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation; 0.0 for no samples."""
    if not samples:
        return 0.0
    xs = sorted(samples)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summary_ms(samples: Sequence[float], qs: Sequence[int] = (50, 95, 99)) -> dict[str, float]:
    """{"p50": .., "p95": ..} in milliseconds from samples in seconds."""
    return {f"p{q}": round(percentile(samples, q) * 1000.0, 3) for q in qs}


def timed(fn: Callable[[T], Any], items: Sequence[T]) -> list[float]:
    """Seconds per call of fn(item), one call after the other."""
    out: list[float] = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        out.append(time.perf_counter() - t0)
    return out


def burst(fn: Callable[[T], Any], per_thread: Sequence[Sequence[T]]) -> tuple[list[float], float]:
    """One thread per item list, released together; (seconds per call, wall seconds overall)."""
    barrier = threading.Barrier(len(per_thread) + 1)
    lock = threading.Lock()
    samples: list[float] = []
    errors: list[BaseException] = []

    def run(items: Sequence[T]) -> None:
        mine: list[float] = []
        barrier.wait()
        try:
            mine = timed(fn, items)
        except BaseException as exc:  # surfaced after join, in the caller's thread
            errors.append(exc)
        with lock:
            samples.extend(mine)

    threads = [
        threading.Thread(target=run, args=(items,), name=f"bench-{i}")
        for i, items in enumerate(per_thread)
    ]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    if errors:
        raise errors[0]
    return samples, wall


def paced(
    fn: Callable[[T], Any], per_thread: Sequence[Sequence[T]], mean_gap_s: float, seed: int
) -> tuple[list[float], float]:
    """Open-loop sessions: each thread waits an exponential think time (mean mean_gap_s) before
    each call, like users who read the answer before typing again. Returns seconds per call and
    wall seconds overall."""
    import random

    gaps = [
        [random.Random(f"{seed}:{i}:{j}").expovariate(1.0 / mean_gap_s) for j in range(len(items))]
        for i, items in enumerate(per_thread)
    ]

    def pace(pair: tuple[float, T]) -> Any:
        time.sleep(pair[0])
        t0 = time.perf_counter()
        fn(pair[1])
        return time.perf_counter() - t0

    lock = threading.Lock()
    samples: list[float] = []

    def run_one(pair: tuple[float, T]) -> None:
        took = pace(pair)
        with lock:
            samples.append(took)

    # burst's own samples include the think times; the ones collected here do not
    _, wall = burst(run_one, [list(zip(g, items)) for g, items in zip(gaps, per_thread)])
    return samples, wall


def rss_mb() -> dict[str, float]:
    """Peak (getrusage maxrss) and current (/proc/self/status VmRSS) resident memory, in MB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux
    current = 0.0
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                current = float(line.split()[1]) / 1024.0
    return {"max_rss_mb": round(peak, 1), "vm_rss_mb": round(current, 1)}


def median_merge(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Merge repeated results: numbers become their median, mappings merge recursively."""
    first = runs[0]
    out: dict[str, Any] = {}
    for key, value in first.items():
        values = [r[key] for r in runs if key in r]
        if isinstance(value, Mapping):
            out[key] = median_merge(values)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            med = statistics.median(values)
            out[key] = (
                type(value)(med) if isinstance(value, int) and med == int(med) else round(med, 3)
            )
        else:
            out[key] = value
    return out
