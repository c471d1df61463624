"""Explanations: why each memory was (or was not) injected.

Seed 000 §6: to debug a wrong answer you need to see why this memory and not that one. Two
views of one InjectionPlan: a fixed-width table for a terminal (CJK characters count two columns,
so the columns line up) and a JSON-safe dict for logs and the HTTP bridge.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from ..types import InjectionPlan, MemoryRecord, ScoredMemory

SUMMARY_WIDTH = 40
_SPACE = re.compile(r"\s+")


def display_width(text: str) -> int:
    """Columns text takes in a terminal: wide and fullwidth characters 2, combining marks 0."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Cc", "Cf", "Mn", "Me"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _clip(text: str, width: int) -> str:
    """One line of at most width columns, with an ellipsis when cut."""
    text = _SPACE.sub(" ", text)
    text = "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf")).strip()
    if display_width(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = display_width(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def _pad(text: str, width: int) -> str:
    return text + " " * (width - display_width(text))


def _num(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:.4f}"


def _component_keys(candidates: Sequence[ScoredMemory]) -> list[str]:
    return sorted({k for c in candidates for k in c.components})


def _row(c: ScoredMemory, keys: Sequence[str]) -> list[str]:
    return [
        str(c.rank),
        "kept" if c.kept else "dropped",
        _num(c.score),
        *(_num(c.components.get(k)) for k in keys),
        ",".join(c.channels) or "-",
        c.record.type.value,
        _clip(c.record.summary, SUMMARY_WIDTH),
        _clip(c.reason, 200) or "-",
    ]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(display_width(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def fmt(cells: list[str]) -> str:
        padded = [_pad(cell, w) for cell, w in zip(cells[:-1], widths, strict=False)]
        return "  ".join([*padded, cells[-1]]).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return [fmt(header), rule, *(fmt(r) for r in rows)]


def explain_table(plan: InjectionPlan) -> str:
    """A fixed-width table, one row per candidate, in rank order.

    Columns: rank, kept/dropped, final score, one column per component score (the union of
    component names, sorted; "-" where a candidate has none), channels, type, short summary,
    reason. A first line names the query, position and tokens per section.
    """
    candidates = sorted(plan.candidates, key=lambda c: (c.rank <= 0, c.rank))
    keys = _component_keys(candidates)
    sections = ", ".join(f"{k} {v}" for k, v in plan.sections.items()) or "none"
    lines = [
        f"query: {_clip(plan.query, 80)} | position: {plan.position} | "
        f"tokens: {plan.tokens} ({sections})"
    ]
    header = ["rank", "fate", "score", *keys, "channels", "type", "summary", "reason"]
    if candidates:
        lines += _table(header, [_row(c, keys) for c in candidates])
    else:
        lines.append("(no candidates)")
    for record in plan.to_confirm:
        lines.append(f"to confirm: {record.id} {_clip(record.summary, 60)}")
    return "\n".join(lines)


def entity_of(c: ScoredMemory) -> str | None:
    """The entity that brought the memory in: "Melanie" (the request names her), "Boston (hop)"
    (a strong candidate names it) or "Melanie (speaker)" (the request asks about her, and she
    said it: recall/speaker_channel.py); None when no entity did."""
    for name in c.channels:
        kind, _, entity = name.partition(":")
        if entity and kind == "entity":
            return entity
        if entity and kind in ("hop", "speaker"):
            return f"{entity} ({kind})"
    return None


def _round(value: float) -> float | None:
    return round(float(value), 4) if math.isfinite(value) else None


def record_to_json(record: MemoryRecord) -> dict[str, Any]:
    """The fields of a record an explanation needs, JSON-safe."""
    return {
        "id": record.id,
        "type": record.type.value,
        "subject": record.subject,
        "summary": record.summary,
        "status": record.status.value,
        "version": record.version,
        "created_at": record.created_at,
    }


def plan_to_json(plan: InjectionPlan) -> dict[str, Any]:
    """A JSON-safe dict of the plan: scores rounded to 4 places, records cut to their key fields."""
    return {
        "query": plan.query,
        "position": plan.position,
        "tokens": plan.tokens,
        "sections": {str(k): int(v) for k, v in plan.sections.items()},
        "block": plan.block,
        "candidates": [
            {
                "rank": c.rank,
                "kept": c.kept,
                "score": _round(c.score),
                "components": {k: _round(v) for k, v in sorted(c.components.items())},
                "channels": list(c.channels),
                "entity": entity_of(c),
                "reason": c.reason,
                "record": record_to_json(c.record),
            }
            for c in sorted(plan.candidates, key=lambda c: (c.rank <= 0, c.rank))
        ],
        "to_confirm": [record_to_json(r) for r in plan.to_confirm],
    }
