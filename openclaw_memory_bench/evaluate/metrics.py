"""Retrieval metrics over ranked lists of memories, each covering a set of gold-comparable ids.

A retrieved item is a SET of ids (turn ids, or session ids at session level): a memory that
covers several turns (a summary, a merged fact) counts as retrieving each of them, and still
takes one of the k places. `gold` is the set of evidence ids; it must not be empty.

All functions are pure and return values in [0, 1], higher is better.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet

from openclaw_memory.errors import ValidationError

Ranked = Sequence[AbstractSet[str]]


def _check(gold: AbstractSet[str], k: int) -> None:
    if not gold:
        raise ValidationError("gold: expected at least one evidence id, found none")
    if not isinstance(k, int) or k < 1:
        raise ValidationError(f"k: expected an integer >= 1, found {k!r}")


def covered_at_k(ranked: Ranked, k: int) -> set[str]:
    """Union of the ids covered by the first k items."""
    out: set[str] = set()
    for item in ranked[:k]:
        out.update(item)
    return out


def recall_all_at_k(ranked: Ranked, gold: AbstractSet[str], k: int) -> float:
    """1.0 if every gold id is covered by the top k items, else 0.0."""
    _check(gold, k)
    return 1.0 if set(gold) <= covered_at_k(ranked, k) else 0.0


def recall_any_at_k(ranked: Ranked, gold: AbstractSet[str], k: int) -> float:
    """1.0 if at least one gold id is covered by the top k items, else 0.0."""
    _check(gold, k)
    return 1.0 if set(gold) & covered_at_k(ranked, k) else 0.0


def evidence_recall_at_k(ranked: Ranked, gold: AbstractSet[str], k: int) -> float:
    """Share of the gold ids covered by the top k items."""
    _check(gold, k)
    return len(set(gold) & covered_at_k(ranked, k)) / len(gold)


def _gain_weight(rank: int) -> float:
    # LongMemEval's DCG: rank 1 counts in full, rank r >= 2 is divided by log2(r), so ranks 1
    # and 2 weigh the same (the discount starts at rank 3). Kept as is to match its numbers.
    return 1.0 if rank <= 2 else 1.0 / math.log2(rank)


def ndcg_any_at_k(ranked: Ranked, gold: AbstractSet[str], k: int) -> float:
    """nDCG@k with binary relevance, as LongMemEval's official retrieval evaluation computes it.

    DCG@k = sum over ranks r = 1..k of rel_r * w(r), with w(1) = w(2) = 1 and w(r) = 1/log2(r)
    for r >= 3 (LongMemEval's discount). An item is relevant (rel = 1) when it covers a gold id
    that no higher-ranked item covered: a repeat of already-found evidence earns nothing, which
    keeps the score in [0, 1] when memories overlap. The ideal DCG puts min(k, |gold|) relevant
    items at the top; nDCG = DCG / ideal DCG. With one id per item and no repeats this is
    exactly the official number.
    """
    _check(gold, k)
    seen: set[str] = set()
    dcg = 0.0
    for rank, item in enumerate(ranked[:k], start=1):
        new = (set(item) & set(gold)) - seen
        if new:
            dcg += _gain_weight(rank)
            seen |= new
    ideal = sum(_gain_weight(r) for r in range(1, min(k, len(gold)) + 1))
    return dcg / ideal


def to_sessions(
    ranked: Ranked, session_of: Callable[[str], str] | Mapping[str, str]
) -> list[frozenset[str]]:
    """Map ranked turn-id sets to session-id sets, dropping sessions already seen higher up.

    An item whose sessions all appeared earlier is removed, so it takes no place: the k-th
    item of the result is the k-th distinct session reached (LongMemEval's turn-to-session
    evaluation does the same by widening k until k distinct sessions are covered).
    """
    lookup = session_of.__getitem__ if isinstance(session_of, Mapping) else session_of
    seen: set[str] = set()
    out: list[frozenset[str]] = []
    for item in ranked:
        new = frozenset(lookup(t) for t in item) - seen
        if new:
            out.append(new)
            seen |= new
    return out


METRICS: Mapping[str, Callable[[Ranked, AbstractSet[str], int], float]] = {
    "recall_all": recall_all_at_k,
    "recall_any": recall_any_at_k,
    "evidence_recall": evidence_recall_at_k,
    "ndcg_any": ndcg_any_at_k,
}


def score_at_ks(
    ranked: Ranked, gold: AbstractSet[str], ks: Iterable[int], prefix: str = ""
) -> dict[str, float]:
    """Every metric at every k, keyed "<prefix><metric>@<k>" (e.g. "turn.recall_all@10")."""
    return {f"{prefix}{name}@{k}": fn(ranked, gold, k) for k in ks for name, fn in METRICS.items()}


# ---------------------------------------------------------------------------- aggregation


def mean(values: Iterable[float]) -> float:
    """Arithmetic mean; 0.0 for no values."""
    vals = list(values)
    return sum(vals) / len(vals) if vals else 0.0


def mean_rows(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Key-wise mean of metric rows that share their keys (order of the first row)."""
    if not rows:
        return {}
    return {key: mean(r[key] for r in rows) for key in rows[0]}


def mean_by_category(
    rows: Iterable[tuple[str, Mapping[str, float]]],
) -> dict[str, dict[str, float]]:
    """Key-wise mean of metric rows per category, categories sorted by name."""
    groups: dict[str, list[Mapping[str, float]]] = defaultdict(list)
    for category, row in rows:
        groups[category].append(row)
    return {c: mean_rows(groups[c]) for c in sorted(groups)}


def percentile(values: Iterable[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation between ranks; 0.0 for no values."""
    if not 0 <= q <= 100:
        raise ValidationError(f"q: expected a percentile between 0 and 100, found {q!r}")
    vals = sorted(values)
    if not vals:
        return 0.0
    pos = (len(vals) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(vals) - 1)
    return vals[lo] + (vals[hi] - vals[lo]) * (pos - lo)


def latency_summary(values_ms: Iterable[float]) -> dict[str, float]:
    """{"p50": .., "p95": ..} of latencies in milliseconds."""
    vals = list(values_ms)
    return {"p50": percentile(vals, 50), "p95": percentile(vals, 95)}
