"""The ids a record's vectors go under in every vector index: its own id, and one per
sentence part (the record's id, a mark, the part's number)."""

from __future__ import annotations

from ..lang.text import MAX_SENTENCE_PARTS

#: a sentence-part vector's id: its record's id, this mark, its number (from 1)
PART_MARK = "#"


def part_ids(record_id: str, n: int = MAX_SENTENCE_PARTS) -> list[str]:
    """The index ids of a record's first n sentence-part vectors."""
    return [f"{record_id}{PART_MARK}{k}" for k in range(1, n + 1)]


def record_of(vector_id: str) -> str:
    """The record a vector id belongs to (itself, or the record of a sentence part)."""
    return vector_id.split(PART_MARK, 1)[0]
