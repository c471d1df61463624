"""Records' vectors and sentence-part vectors in SQLite's `vectors` table, filed under the
text they embed (`content_hash`)."""

from __future__ import annotations

import sqlite3
from typing import Any, Iterable, Sequence

import numpy as np

from ..types import MemoryRecord, Scope
from .port_values import TIER_STATUS, TierVector, content_hash


def put_vector(db: sqlite3.Connection, r: MemoryRecord, vec: np.ndarray, model: str) -> None:
    arr = np.asarray(vec, dtype=np.float32)
    db.execute(
        "INSERT OR REPLACE INTO vectors(record_id, model, content_hash, dim, vec) VALUES (?, ?, ?, ?, ?)",
        (r.id, model, content_hash(r), int(arr.shape[0]), arr.tobytes()),
    )


def put_parts(db: sqlite3.Connection, r: MemoryRecord, parts: np.ndarray | None) -> None:
    """Attach sentence-part vectors to the record's vector row, if that row holds the vector of
    this very text (`put_vector` writes a row without parts)."""
    blob = (
        None if parts is None or not len(parts) else np.asarray(parts, dtype=np.float32).tobytes()
    )
    db.execute(
        "UPDATE vectors SET parts = ? WHERE record_id = ? AND content_hash = ?",
        (blob, r.id, content_hash(r)),
    )


def vectors_for(db: sqlite3.Connection, ids: Sequence[str]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for chunk in _chunks(list(ids), 500):
        marks = ",".join("?" * len(chunk))
        for row in db.execute(
            f"SELECT record_id, vec FROM vectors WHERE record_id IN ({marks})", chunk
        ):
            out[row["record_id"]] = np.frombuffer(row["vec"], dtype=np.float32)
    return out


def vectors_with_parts(
    db: sqlite3.Connection, ids: Sequence[str]
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """`vectors_for` and, in the same read, record id -> its sentence-part vectors (k, d) for
    the records that have parts."""
    vecs: dict[str, np.ndarray] = {}
    parts: dict[str, np.ndarray] = {}
    for chunk in _chunks(list(ids), 500):
        marks = ",".join("?" * len(chunk))
        for row in db.execute(
            f"SELECT record_id, vec, dim, parts FROM vectors WHERE record_id IN ({marks})", chunk
        ):
            vecs[row["record_id"]] = np.frombuffer(row["vec"], dtype=np.float32)
            if row["parts"] is not None:
                parts[row["record_id"]] = np.frombuffer(row["parts"], dtype=np.float32).reshape(
                    -1, row["dim"]
                )
    return vecs, parts


def tier_vectors(
    db: Any, scope: Scope, tier: str, at_most: int | None = None, mark: str = "?"
) -> list[TierVector] | None:
    """The vectors of a (user, agent)'s tier, every workspace's, or None when the tier holds more
    than `at_most` records (counted on the scope index first, reading no vector). `db`: a SQLite
    connection, or PostgreSQL's (`mark` "%s"): the same two statements."""
    key = (scope.user_id, scope.agent_id, TIER_STATUS[tier])
    if at_most is not None:
        (n,) = db.execute(
            "SELECT COUNT(*) FROM (SELECT 1 FROM records WHERE user_id = {m} AND agent_id = {m} "
            "AND status = {m} LIMIT {m}) AS t".format(m=mark),
            (*key, int(at_most) + 1),
        ).fetchone()
        if n > at_most:
            return None
    rows = db.execute(
        "SELECT r.id, r.type, r.workspace, v.vec, v.dim, v.parts FROM records r "
        "JOIN vectors v ON v.record_id = r.id "
        "WHERE r.user_id = {m} AND r.agent_id = {m} AND r.status = {m}".format(m=mark),
        key,
    ).fetchall()
    return [_tier_vector(*row) for row in rows]


def _tier_vector(
    rid: str, type_: str, workspace: str | None, vec: bytes, dim: int, parts: bytes | None
) -> TierVector:
    """A `TierVector` from a row's columns (every SQL backend stores vectors as float32 bytes)."""
    return TierVector(
        rid,
        type_,
        workspace or "",
        np.frombuffer(vec, dtype=np.float32),
        None if parts is None else np.frombuffer(parts, dtype=np.float32).reshape(-1, dim),
    )


def _chunks(items: list, size: int) -> Iterable[list]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
