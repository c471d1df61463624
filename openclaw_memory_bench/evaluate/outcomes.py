"""Per-question outcomes and the folds protocol: the instruments a before/after comparison reads.

An outcome is one question's fate in one run, a flat JSON object (one line of `--questions-out`):

    {"id", "set", "retriever", "conversation", "category",
     "hit": {"5": bool, "10": bool, "20": bool},          (LongMemEval: turn level)
     "session_hit": {...},                                  (LongMemEval only)
     "injected": bool,
     "evidence_ranks": {"<turn id>": rank | null},          (1-based, in the ranked top k)
     "channels": {"<turn id>": ["vector", "keyword", ...]}} (of the first memory covering it)

Folds split a set by conversation (LongMemEval: a question is its own conversation), so a number
fitted on some folds is scored on the others: `fold_of` is a pure function of the conversation
ids of the run, and `fold_figures` gives each fold's figures from the outcomes alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from openclaw_memory.errors import ValidationError
from .metrics import mean

__all__ = ["evidence_ranks", "fold_figures", "fold_of", "outcome"]


def evidence_ranks(
    ranked: Sequence[AbstractSet[str]], gold: Sequence[str]
) -> dict[str, int | None]:
    """Each gold id's 1-based rank: the first memory of `ranked` that covers it, or None."""
    out: dict[str, int | None] = {}
    for g in gold:
        out[g] = next((i + 1 for i, item in enumerate(ranked) if g in item), None)
    return out


def outcome(
    *,
    question: Any,
    set_name: str,
    retriever: str,
    scores: Mapping[str, float],
    ranked: Sequence[AbstractSet[str]],
    channels: Sequence[Sequence[str]] | None,
    injected: bool,
    ks: Sequence[int],
) -> dict[str, Any]:
    """One question's outcome from what the runner already computed for it."""
    ranks = evidence_ranks(ranked, question.evidence)
    row: dict[str, Any] = {
        "id": question.id,
        "set": set_name,
        "retriever": retriever,
        "conversation": question.conversation_id,
        "category": question.category,
        "hit": {str(k): _hit(scores, "", k) for k in ks},
        "injected": bool(injected),
        "evidence_ranks": ranks,
        "channels": {
            g: list(channels[r - 1]) if channels is not None and r is not None else []
            for g, r in ranks.items()
        },
    }
    if any(key.startswith("session.") for key in scores):
        row["hit"] = {str(k): _hit(scores, "turn.", k) for k in ks}
        row["session_hit"] = {str(k): _hit(scores, "session.", k) for k in ks}
    return row


def _hit(scores: Mapping[str, float], prefix: str, k: int) -> bool:
    return scores.get(f"{prefix}recall_all@{k}", 0.0) >= 1.0


def fold_of(conversation_ids: Sequence[str], k: int) -> dict[str, int]:
    """Conversation id -> fold (0..k-1): the ids in sorted order dealt out in turn, so every
    fold holds whole conversations and the split does not depend on the file's order."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 2:
        raise ValidationError(f"folds: expected an integer >= 2, found {k!r}")
    ids = sorted(set(conversation_ids))
    if len(ids) < k:
        raise ValidationError(
            f"folds: expected at most as many folds as conversations ({len(ids)}), found {k}"
        )
    return {cid: i % k for i, cid in enumerate(ids)}


def fold_figures(outcomes: Sequence[Mapping[str, Any]], k: int) -> dict[str, Any]:
    """Each fold's question count and hit rates (recall_all at each k, injected), and the spread
    (largest minus smallest) of each figure across the folds."""
    folds = fold_of([o["conversation"] for o in outcomes], k)
    rows: list[dict[str, Any]] = []
    for f in range(k):
        mine = [o for o in outcomes if folds[o["conversation"]] == f]
        figures = {
            f"recall_all@{n}": mean(float(o["hit"][n]) for o in mine) for n in mine[0]["hit"]
        }
        if "session_hit" in mine[0]:
            figures.update(
                {
                    f"session.recall_all@{n}": mean(float(o["session_hit"][n]) for o in mine)
                    for n in mine[0]["session_hit"]
                }
            )
        figures["injected_recall_all"] = mean(float(o["injected"]) for o in mine)
        conversations = sorted({o["conversation"] for o in mine})
        rows.append({"fold": f, "conversations": conversations, "questions": len(mine), **figures})
    names = [key for key in rows[0] if key not in ("fold", "conversations", "questions")]
    spread = {n: max(r[n] for r in rows) - min(r[n] for r in rows) for n in names}
    return {"k": k, "by": "conversation", "folds": rows, "spread": spread}
