"""Fusion weights fitted on labelled candidates (`features.py`), scored out of fold.

The ranker's fused score is a weighted mean of components in [0, 1]; only the order it makes
matters, so a model is a vector of non-negative weights, shipped normalised to sum 1 (a fusion
table, `openclaw_memory/recall/rank.py`). Two fits, both plain numpy:

- listwise (default): per question, a softmax over its candidates' scores; the loss is the mean
  negative log-probability of its evidence candidates (questions without one teach nothing);
- logistic: each candidate on its own, its label against the sigmoid of its score plus a bias.

Both minimise by projected gradient descent (Adam steps, weights clipped at 0: a component is
"higher is better", so a negative weight is not a fusion the ranker can use) with a small L2
penalty. Folds split by conversation (a set's conversation is one unit; `fold_keys`), so a figure
of a fitted model is scored on conversations it was not fitted on. `recall_all` scores an order of
the candidates the way the metrics count a hit: every evidence turn covered by the top k.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from openclaw_memory.errors import ValidationError
from openclaw_memory.recall.rank import FUSED
from .outcomes import fold_of

__all__ = ["Question", "fit", "fold_keys", "questions_of", "recall_all", "MODELS"]

#: Adam's step size, iterations and the L2 penalty on the weights
STEP = 0.05
ITERATIONS = 400
L2 = 1e-3


@dataclass(frozen=True)
class Question:
    """One question's candidates: components (n x len(FUSED)), labels, the evidence each covers,
    and the order the run ranked them in (the hand fusion's order)."""

    key: str
    lang: str
    set_name: str
    x: np.ndarray
    y: np.ndarray
    covers: tuple[frozenset[str], ...]
    evidence: frozenset[str]
    ranks: np.ndarray


def questions_of(rows: Sequence[Mapping[str, Any]]) -> list[Question]:
    """The features file's rows (`features.read_features`) as arrays."""
    out = []
    for row in rows:
        cands = row["candidates"]
        x = np.array([c["x"] for c in cands], dtype=float).reshape(len(cands), len(FUSED))
        out.append(
            Question(
                key=f"{row.get('set', '')}|{row['conversation']}",
                lang=str(row["lang"]),
                set_name=str(row.get("set", "")),
                x=x,
                y=np.array([c["label"] for c in cands], dtype=float),
                covers=tuple(frozenset(c.get("covers", ())) for c in cands),
                evidence=frozenset(row.get("evidence", ())),
                ranks=np.array([c.get("rank", i + 1) for i, c in enumerate(cands)], dtype=float),
            )
        )
    return out


def fold_keys(questions: Sequence[Question], k: int) -> dict[str, int]:
    """Conversation key ("set|conversation") -> fold: sorted keys dealt in turn (`fold_of`)."""
    return fold_of([q.key for q in questions], k)


# ---------------------------------------------------------------------------- the fits


def _adam(grad: Callable[[np.ndarray], np.ndarray], w: np.ndarray, free: int = 0) -> np.ndarray:
    """Projected Adam: every entry but the last `free` ones clipped at 0 after each step."""
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, ITERATIONS + 1):
        g = grad(w)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w = w - STEP * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        n = len(w) - free
        w[:n] = np.maximum(w[:n], 0.0)
    return w


def _listwise(questions: Sequence[Question]) -> np.ndarray:
    useful = [q for q in questions if q.y.sum() > 0 and len(q.y) > 1]
    if not useful:
        raise ValidationError("features: expected questions with a labelled candidate, found none")
    x = np.concatenate([q.x for q in useful])
    target = np.concatenate([q.y / q.y.sum() for q in useful])
    starts = np.cumsum([0] + [len(q.y) for q in useful])[:-1]
    group = np.repeat(np.arange(len(useful)), [len(q.y) for q in useful])

    def grad(w: np.ndarray) -> np.ndarray:
        s = x @ w
        top = np.maximum.reduceat(s, starts)[group]
        e = np.exp(s - top)
        p = e / np.add.reduceat(e, starts)[group]
        return x.T @ (p - target) / len(useful) + L2 * w

    return _adam(grad, np.ones(len(FUSED)))


def _logistic(questions: Sequence[Question]) -> np.ndarray:
    x = np.concatenate([q.x for q in questions])
    y = np.concatenate([q.y for q in questions])
    if not 0 < y.sum() < len(y):
        raise ValidationError("features: expected both labels among the candidates, found one")
    xb = np.hstack([x, np.ones((len(x), 1))])

    def grad(w: np.ndarray) -> np.ndarray:
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -30, 30)))
        g = xb.T @ (p - y) / len(y)
        g[:-1] += L2 * w[:-1]
        return g

    return _adam(grad, np.zeros(len(FUSED) + 1), free=1)[:-1]


MODELS: Mapping[str, Callable[[Sequence[Question]], np.ndarray]] = {
    "listwise": _listwise,
    "logistic": _logistic,
}


def fit(questions: Sequence[Question], model: str = "listwise") -> dict[str, float]:
    """Weights fitted on `questions`, normalised to sum 1 (rounded to 4 places)."""
    if model not in MODELS:
        raise ValidationError(f"model: expected one of {sorted(MODELS)}, found {model!r}")
    w = MODELS[model](questions)
    if w.sum() <= 0:
        raise ValidationError("features: the fit left every weight at 0 (no component helps)")
    w = w / w.sum()
    return {name: round(float(v), 4) for name, v in zip(FUSED, w)}


# ---------------------------------------------------------------------------- scoring


def recall_all(q: Question, weights: Mapping[str, float] | None, k: int = 10) -> float:
    """1.0 when the top k candidates, ordered by `weights` (None: the run's own ranks), cover
    every evidence turn of the question."""
    if weights is None:
        order = np.argsort(q.ranks, kind="stable")
    else:
        s = q.x @ np.array([weights[name] for name in FUSED])
        order = np.lexsort((q.ranks, -s))  # ties: the run's order
    covered: set[str] = set()
    for i in order[:k]:
        covered |= q.covers[i]
    return 1.0 if q.evidence and q.evidence <= covered else 0.0


def mean_recall(
    questions: Sequence[Question],
    weights_of: Callable[[Question], Mapping[str, float] | None],
    k: int = 10,
) -> float:
    """Mean R_all@k of the questions, each ordered by the weights `weights_of` gives it."""
    if not questions:
        return 0.0
    return float(np.mean([recall_all(q, weights_of(q), k) for q in questions]))


def by_language(
    questions: Sequence[Question], model: str, pooled: bool = False
) -> dict[str, dict[str, float]]:
    """Weights per language code fitted on that language's questions (`pooled`: one fit over
    every language, the same weights for each)."""
    langs = sorted({q.lang for q in questions})
    if pooled:
        w = fit(questions, model)
        return {lang: w for lang in langs}
    return {lang: fit([q for q in questions if q.lang == lang], model) for lang in langs}


def out_of_fold(
    questions: Sequence[Question], k: int, model: str, pooled: bool = False
) -> dict[str, dict[str, dict[str, float]]]:
    """Conversation key -> the per-language weights fitted on every other fold."""
    folds = fold_keys(questions, k)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for f in range(k):
        train = [q for q in questions if folds[q.key] != f]
        weights = by_language(train, model, pooled)
        for key, g in folds.items():
            if g == f:
                out[key] = weights
    return out
