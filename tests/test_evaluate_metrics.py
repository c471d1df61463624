"""Retrieval metrics, table-driven with hand-computed values."""

from __future__ import annotations

import math

import pytest

from openclaw_memory.errors import ValidationError
from openclaw_memory_bench.evaluate.metrics import (
    covered_at_k,
    evidence_recall_at_k,
    latency_summary,
    mean,
    mean_by_category,
    mean_rows,
    ndcg_any_at_k,
    percentile,
    recall_all_at_k,
    recall_any_at_k,
    score_at_ks,
    to_sessions,
)


def R(*items: str) -> list[frozenset[str]]:
    """Ranked list from strings: "a" is one id, "a+b" a memory covering a and b."""
    return [frozenset(item.split("+")) for item in items]


L3 = 1 / math.log2(3)
L4 = 1 / math.log2(4)

RECALL_CASES = [
    # ranked, gold, k, recall_all, recall_any, evidence_recall
    (R("a", "b", "c"), {"a", "c"}, 1, 0.0, 1.0, 0.5),
    (R("a", "b", "c"), {"a", "c"}, 2, 0.0, 1.0, 0.5),
    (R("a", "b", "c"), {"a", "c"}, 3, 1.0, 1.0, 1.0),
    (R("x", "y"), {"a"}, 5, 0.0, 0.0, 0.0),
    (R(), {"a"}, 5, 0.0, 0.0, 0.0),
    # a memory covering three turns counts for each and takes ONE place
    (R("x", "a+b+c", "d"), {"a", "b", "c", "d"}, 1, 0.0, 0.0, 0.0),
    (R("x", "a+b+c", "d"), {"a", "b", "c", "d"}, 2, 0.0, 1.0, 0.75),
    (R("x", "a+b+c", "d"), {"a", "b", "c", "d"}, 3, 1.0, 1.0, 1.0),
    # repeats of the same turn earn nothing more
    (R("a", "a", "a"), {"a", "b"}, 3, 0.0, 1.0, 0.5),
    # Chinese ids are plain strings too
    (R("会话1#2", "会话2#1"), {"会话2#1"}, 2, 1.0, 1.0, 1.0),
]


@pytest.mark.parametrize(("ranked", "gold", "k", "r_all", "r_any", "ev"), RECALL_CASES)
def test_recall_metrics(ranked, gold, k, r_all, r_any, ev):
    assert recall_all_at_k(ranked, gold, k) == r_all
    assert recall_any_at_k(ranked, gold, k) == r_any
    assert evidence_recall_at_k(ranked, gold, k) == pytest.approx(ev)


NDCG_CASES = [
    # ranked, gold, k, expected (LongMemEval discount: w1 = w2 = 1, w_r = 1/log2(r) for r >= 3)
    (R("a"), {"a"}, 5, 1.0),
    (R("x", "a"), {"a"}, 5, 1.0),  # rank 2 is not discounted in the official formula
    (R("x", "y", "a"), {"a"}, 5, L3),
    (R("x", "y", "z", "a"), {"a"}, 5, L4),
    (R("x", "y", "a"), {"a"}, 2, 0.0),
    (R("a", "x", "b"), {"a", "b"}, 5, (1 + L3) / 2),
    (R("x", "a", "b"), {"a", "b"}, 5, (1 + L3) / 2),
    (R("a", "b"), {"a", "b", "c"}, 2, 1.0),  # ideal has only k places
    (R("x", "y", "a", "b"), {"a", "b"}, 5, (L3 + L4) / 2),
    # one memory covering both gold turns is one relevant place: ideal assumes one id per place
    (R("a+b"), {"a", "b"}, 5, 0.5),
    # a repeat of found evidence is not relevant again
    (R("a", "a", "b"), {"a", "b"}, 5, (1 + L3) / 2),
    (R("x", "y"), {"a"}, 5, 0.0),
]


@pytest.mark.parametrize(("ranked", "gold", "k", "expected"), NDCG_CASES)
def test_ndcg_any(ranked, gold, k, expected):
    assert ndcg_any_at_k(ranked, gold, k) == pytest.approx(expected)


@pytest.mark.parametrize(
    "fn", [recall_all_at_k, recall_any_at_k, evidence_recall_at_k, ndcg_any_at_k]
)
def test_metrics_reject_empty_gold_and_bad_k(fn):
    with pytest.raises(ValidationError, match="gold"):
        fn(R("a"), set(), 5)
    with pytest.raises(ValidationError, match="k"):
        fn(R("a"), {"a"}, 0)


def test_covered_at_k_is_union_of_top_k():
    assert covered_at_k(R("a+b", "c", "d"), 2) == {"a", "b", "c"}


def test_to_sessions_dedupes_preserving_rank():
    session_of = {"s1#1": "s1", "s1#2": "s1", "s1#3": "s1", "s2#1": "s2", "s3#1": "s3"}
    ranked = R("s1#1", "s1#2", "s2#1+s1#3", "s1#3", "s3#1")
    assert to_sessions(ranked, session_of) == R("s1", "s2", "s3")
    assert to_sessions(ranked, lambda t: t.split("#")[0]) == R("s1", "s2", "s3")


def test_to_sessions_changes_what_k_reaches():
    session_of = lambda t: t.split("#")[0]
    ranked = R("s1#1", "s1#2", "s1#3", "s2#1")
    assert recall_any_at_k(ranked, {"s2#1"}, 2) == 0.0
    assert recall_any_at_k(to_sessions(ranked, session_of), {"s2"}, 2) == 1.0


def test_score_at_ks_keys_and_values():
    row = score_at_ks(R("x", "a"), {"a"}, (1, 2), prefix="turn.")
    assert row == {
        "turn.recall_all@1": 0.0,
        "turn.recall_any@1": 0.0,
        "turn.evidence_recall@1": 0.0,
        "turn.ndcg_any@1": 0.0,
        "turn.recall_all@2": 1.0,
        "turn.recall_any@2": 1.0,
        "turn.evidence_recall@2": 1.0,
        "turn.ndcg_any@2": 1.0,
    }


def test_mean_and_mean_rows():
    assert mean([]) == 0.0
    assert mean([1, 0, 0, 1]) == 0.5
    assert mean_rows([{"a": 1.0, "b": 0.0}, {"a": 0.0, "b": 0.5}]) == {"a": 0.5, "b": 0.25}
    assert mean_rows([]) == {}


def test_mean_by_category():
    rows = [
        ("temporal", {"m": 1.0}),
        ("multi-hop", {"m": 0.0}),
        ("temporal", {"m": 0.0}),
        ("temporal", {"m": 0.5}),
        ("单跳", {"m": 1.0}),
    ]
    out = mean_by_category(rows)
    assert out == {"multi-hop": {"m": 0.0}, "temporal": {"m": 0.5}, "单跳": {"m": 1.0}}
    assert list(out) == sorted(out)


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        ([1, 2, 3, 4], 50, 2.5),
        ([1, 2, 3, 4], 95, 3.85),
        ([4, 1, 3, 2], 0, 1.0),
        ([4, 1, 3, 2], 100, 4.0),
        ([7], 95, 7.0),
        ([], 50, 0.0),
        (list(range(1, 101)), 95, 95.05),
    ],
)
def test_percentile(values, q, expected):
    assert percentile(values, q) == pytest.approx(expected)


def test_percentile_rejects_out_of_range():
    with pytest.raises(ValidationError, match="q"):
        percentile([1, 2], 101)


def test_latency_summary():
    assert latency_summary([10.0, 20.0, 30.0, 40.0, 1000.0]) == {
        "p50": 30.0,
        "p95": pytest.approx(808.0),
    }
