"""Training data for fusion from the ranker's own features (`eval ... --features-out FILE`).

One JSON line per question: the question's set, conversation, id, language (the language pack's
code of its text) and evidence, and every candidate holding a place in the ranking (kept, or only
below the relevance bar, as `retrieve` counts them) with its rank, its components in the ranker's
order and its label:

    {"set", "conversation", "question", "lang", "category", "evidence": [turn ids],
     "features": ["semantic", "keyword", ...],
     "candidates": [{"rank", "label": 0 | 1, "covers": [evidence turn ids], "x": [floats]}]}

A candidate's label is 1 when the turns it delivers (its provenance and its window's, what the
metrics count) hold an evidence turn of the question; `covers` says which, so a ranking of the
candidates can be scored as R_all@k without the store (`fit.recall_all`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from openclaw_memory.errors import ValidationError
from openclaw_memory.recall.rank import FUSED
from openclaw_memory.types import ScoredMemory

__all__ = ["feature_row", "read_features", "write_features"]


def feature_row(
    question: Any, ranked: Sequence[ScoredMemory], lang: str, set_name: str = ""
) -> dict[str, Any]:
    """One question's candidates with their components and labels (`ranked` in rank order)."""
    gold = list(question.evidence)
    wanted = set(gold)
    candidates = []
    for s in ranked:
        covers = sorted(wanted.intersection(s.turn_ids))
        candidates.append(
            {
                "rank": s.rank,
                "label": int(bool(covers)),
                "covers": covers,
                "x": [round(float(s.components.get(name, 0.0)), 5) for name in FUSED],
            }
        )
    return {
        "set": set_name,
        "conversation": question.conversation_id,
        "question": question.id,
        "lang": lang,
        "category": question.category,
        "evidence": gold,
        "features": list(FUSED),
        "candidates": candidates,
    }


def write_features(path: str | Path, rows: Iterable[Mapping[str, Any]]) -> int:
    """Rows as JSON lines, written whole or not at all; the number written."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    n = 0
    with open(tmp, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    os.replace(tmp, target)
    return n


def read_features(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    """The rows of one or more features files; a malformed line is a ValidationError naming the
    file, the line and the field."""
    rows: list[dict[str, Any]] = []
    for path in paths:
        for n, row in enumerate(_lines(Path(path)), start=1):
            _check(row, f"{path}:{n}")
            rows.append(row)
    if not rows:
        raise ValidationError(
            f"features: expected at least one question in {list(map(str, paths))}"
        )
    return rows


def _lines(path: Path) -> Iterator[Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValidationError(f"{path}: cannot read the features file ({exc})") from exc
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                yield json.loads(line)
            except ValueError as exc:
                raise ValidationError(f"{path}:{n}: expected a JSON object ({exc})") from exc


def _check(row: Any, where: str) -> None:
    if not isinstance(row, dict):
        raise ValidationError(f"{where}: expected a JSON object, found {type(row).__name__}")
    for key in ("conversation", "lang", "features", "candidates"):
        if key not in row:
            raise ValidationError(f"{where}: '{key}': expected a field of every line, found none")
    if list(row["features"]) != list(FUSED):
        raise ValidationError(
            f"{where}: 'features': expected {list(FUSED)}, found {row['features']!r}"
        )
    for i, c in enumerate(row["candidates"]):
        if (
            not isinstance(c, dict)
            or c.get("label") not in (0, 1)
            or len(c.get("x", ())) != len(FUSED)
        ):
            raise ValidationError(
                f"{where}: 'candidates[{i}]': expected {{label: 0 or 1, x: {len(FUSED)} numbers}}, "
                f"found {c!r}"
            )
