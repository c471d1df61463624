"""The values the storage ports pass: scored ids, the console's page query and page, and the
hashes every backend files texts and purged users under (ports.py)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..types import MemoryRecord

#: (record id, score in [0, 1]) best first
Scored = list[tuple[str, float]]


class TierVector(NamedTuple):
    """One record of a scope's tier as the vector index would hold it (`tier_vectors`)."""

    id: str
    type: str
    workspace: str  # "" for a record of no workspace
    vec: np.ndarray
    parts: np.ndarray | None  # its sentence-part vectors (k, d), if any


#: a tier's records by status: "hot" the live ones, "cold" the archive (as the indexer files them)
TIER_STATUS = {"hot": "active", "cold": "archived"}


def text_hash(text: str) -> str:
    """The key a text (and its vector) is filed under, in every backend."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def content_hash(record: MemoryRecord) -> str:
    return text_hash(record.text)


def hashed_user(user_id: str) -> str:
    """What stays of a purged user id in the audit log, in every backend."""
    return "sha256:" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class ListQuery:
    """One page of a scope's memories for the console, ordered by `column` then a row cursor
    (keyset paging: `after` is the last row's (sort value, row key))."""

    statuses: tuple[str, ...]
    column: str = "updated_at"  # or "created_at"
    order: str = "desc"
    type: str = ""
    types: tuple[str, ...] = ()  # any of these types (empty: no restriction)
    subject: str = ""  # a prefix
    text: str = ""  # keyword filter: its newest `text_cap` matches
    created_from: float | None = None
    created_to: float | None = None  # exclusive
    after: tuple[float, int] | None = None
    size: int = 50
    text_cap: int = 2_000
    count_cap: int = 10_000


@dataclass
class ListPage:
    rows: list[MemoryRecord]
    next_after: tuple[float, int] | None
    total: int  # at most count_cap + 1
    text_filter: bool
