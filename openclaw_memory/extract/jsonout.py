"""Reading JSON out of LLM replies, which wrap it in code fences or chatter more often than not."""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import ExtractionError

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def _candidates(text: str, opener: str, closer: str) -> list[str]:
    out = [text]
    fenced = _FENCE.search(text)
    if fenced:
        out.append(fenced.group(1))
    start, end = text.find(opener), text.rfind(closer)
    if 0 <= start < end:
        out.append(text[start : end + 1])
    return out


def parse_json_value(text: str) -> list[Any] | dict[str, Any]:
    """The JSON array or object in an LLM reply (fenced, or among chatter), whichever comes first."""
    stripped = text.strip()
    for opener, closer in sorted((("[", "]"), ("{", "}")), key=lambda p: _position(stripped, p[0])):
        for chunk in _candidates(stripped, opener, closer):
            try:
                value = json.loads(chunk)
            except ValueError:
                continue
            if isinstance(value, (list, dict)):
                return value
    raise ExtractionError(f"LLM reply: expected a JSON array or object, found {_preview(text)}")


def _position(text: str, opener: str) -> int:
    at = text.find(opener)
    return at if at >= 0 else len(text)


def parse_json_object(text: str) -> dict[str, Any]:
    """The JSON object in an LLM reply."""
    for chunk in _candidates(text.strip(), "{", "}"):
        try:
            value = json.loads(chunk)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    raise ExtractionError(f"LLM reply: expected a JSON object, found {_preview(text)}")


def _preview(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")
