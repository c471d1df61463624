"""Retrieval evaluation: dataset loaders (LoCoMo, LongMemEval), metrics, a runner and a baseline.

Independent of the memory engine: anything that implements `EvalSystem` can be scored.
"""

from .baseline import BM25System
from .datasets import (
    Conversation,
    EvalSession,
    EvalTurn,
    Question,
    load_locomo,
    load_longmemeval,
    user_turns_only,
)
from .metrics import (
    evidence_recall_at_k,
    latency_summary,
    mean_by_category,
    ndcg_any_at_k,
    percentile,
    recall_all_at_k,
    recall_any_at_k,
    to_sessions,
)
from .progress import ProgressBar
from .report import format_report
from .runner import EvalSystem, render_full_context, run_locomo, run_longmemeval

__all__ = [
    "BM25System",
    "Conversation",
    "EvalSession",
    "EvalSystem",
    "EvalTurn",
    "ProgressBar",
    "Question",
    "evidence_recall_at_k",
    "format_report",
    "latency_summary",
    "load_locomo",
    "load_longmemeval",
    "mean_by_category",
    "ndcg_any_at_k",
    "percentile",
    "recall_all_at_k",
    "recall_any_at_k",
    "render_full_context",
    "run_locomo",
    "run_longmemeval",
    "to_sessions",
    "user_turns_only",
]
