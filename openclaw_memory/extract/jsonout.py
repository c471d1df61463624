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


def parse_json_array(text: str) -> list[Any]:
    """The JSON array in an LLM reply; an object holding exactly one array is unwrapped."""
    for chunk in _candidates(text.strip(), "[", "]"):
        try:
            value = json.loads(chunk)
        except ValueError:
            continue
        if isinstance(value, dict):
            lists = [v for v in value.values() if isinstance(v, list)]
            value = lists[0] if len(lists) == 1 else value
        if isinstance(value, list):
            return value
    raise ExtractionError(f"LLM reply: expected a JSON array, found {_preview(text)}")


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
