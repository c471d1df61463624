"""Writing records in PostgreSQL: rows, keyword rows, vectors, versions and the outbox.

Each method runs inside `transaction()` (joining the caller's), so a record, its keyword rows,
its vector and its outbox entry commit together.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any, Iterator, Sequence

import numpy as np

from ...types import MemoryRecord, Scope, Status
from ..records import content_hash
from . import keywords
from .db import Connection, PostgresDatabase
from .entities import link_record
from .sql import COLUMN_NAMES, COLUMNS, PLACEHOLDERS, row_values, scope_sql


class Writes:
    """Transactions and the record writes of the PostgreSQL record store."""

    db: PostgresDatabase

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Group the calls inside into one atomic write; nested transactions join the outer."""
        with self.db.write():
            yield

    def in_transaction(self) -> bool:
        return self.db.nested()

    def insert(self, record: MemoryRecord, vector: np.ndarray | None, model: str) -> None:
        with self.db.write() as c:
            rid = c.execute(
                f"INSERT INTO records ({COLUMNS}) VALUES ({PLACEHOLDERS}) RETURNING rid",
                row_values(record),
            ).fetchone()[0]
            keywords.index(c, rid, record.scope, record.text)
            link_record(c, rid, record)
            if vector is not None:
                _put_vector(c, record, vector, model)
            if record.status is not Status.INACTIVE:
                _enqueue(c, record, "upsert", record.created_at)

    def update(
        self, record: MemoryRecord, vector: np.ndarray | None, model: str, *, reindex: bool
    ) -> None:
        sets = ", ".join(f"{name} = %s" for name in COLUMN_NAMES[1:])
        with self.db.write() as c:
            row = c.execute(
                f"UPDATE records SET {sets} WHERE id = %s RETURNING rid",
                (*row_values(record)[1:], record.id),
            ).fetchone()
            if row is not None:  # a forgotten record loses its links, a restored one regains them
                link_record(c, row[0], record)
            if reindex and row is not None:
                keywords.unindex(c, [row[0]])
                keywords.index(c, row[0], record.scope, record.text)
                if vector is not None:
                    _put_vector(c, record, vector, model)
            op = "delete" if record.status is Status.INACTIVE else "upsert"
            _enqueue(c, record, op, record.updated_at)

    def put_parts(self, record: MemoryRecord, parts: np.ndarray | None) -> None:
        blob = None if parts is None or not len(parts) else _blob(parts)
        with self.db.write() as c:
            c.execute(
                "UPDATE vectors SET parts = %s WHERE record_id = %s AND content_hash = %s",
                (blob, record.id, content_hash(record)),
            )

    def save_version(self, old: MemoryRecord, superseded_at: float) -> None:
        with self.db.write() as c:
            c.execute(
                "INSERT INTO versions(record_id, version, user_id, agent_id, summary, detail, "
                "channel, confidence, turn_ids, valid_from, superseded_at) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (record_id, version) DO UPDATE SET user_id = EXCLUDED.user_id, "
                "agent_id = EXCLUDED.agent_id, summary = EXCLUDED.summary, "
                "detail = EXCLUDED.detail, channel = EXCLUDED.channel, "
                "confidence = EXCLUDED.confidence, turn_ids = EXCLUDED.turn_ids, "
                "valid_from = EXCLUDED.valid_from, superseded_at = EXCLUDED.superseded_at",
                (
                    old.id,
                    old.version,
                    old.scope.user_id,
                    old.scope.agent_id,
                    old.summary,
                    old.detail,
                    old.source.channel.value,
                    old.confidence,
                    json.dumps(list(old.source.turn_ids)),
                    old.updated_at,
                    superseded_at,
                ),
            )

    def touch(self, scope: Scope, ids: Sequence[str], at: float) -> None:
        if not ids:
            return
        where, args = scope_sql(scope)
        with self.db.write() as c:
            c.execute(
                "UPDATE records SET access_count = access_count + 1, last_accessed_at = %s "
                f"WHERE {where} AND id = ANY(%s)",
                (at, *args, list(ids)),
            )

    def delete_records(self, scope: Scope, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        where, args = scope_sql(scope)
        with self.db.write() as c:
            rows = c.execute(
                f"SELECT rid, id FROM records WHERE {where} AND id = ANY(%s) ORDER BY rid",
                (*args, list(dict.fromkeys(ids))),
            ).fetchall()
            return _delete_rows(c, scope, rows)


def _delete_rows(c: Connection, scope: Scope, rows: Sequence[Any]) -> int:
    """Delete these (rid, id) rows with their keyword rows, vectors and versions; queue deletes."""
    if not rows:
        return 0
    rids, got = [r[0] for r in rows], [r[1] for r in rows]
    keywords.unindex(c, rids)
    c.execute("DELETE FROM vectors WHERE record_id = ANY(%s)", (got,))
    c.execute("DELETE FROM versions WHERE record_id = ANY(%s)", (got,))
    c.execute("DELETE FROM records WHERE rid = ANY(%s)", (rids,))
    c.executemany(
        "INSERT INTO outbox(record_id, user_id, agent_id, op, created_at) "
        "VALUES (%s, %s, %s, 'delete', 0)",
        [(i, scope.user_id, scope.agent_id) for i in got],
    )
    return len(got)


def _blob(arr: np.ndarray) -> bytes:
    return np.asarray(arr, dtype=np.float32).tobytes()


def _put_vector(c: Connection, r: MemoryRecord, vec: np.ndarray, model: str) -> None:
    arr = np.asarray(vec, dtype=np.float32)
    c.execute(
        "INSERT INTO vectors(record_id, model, content_hash, dim, vec) VALUES (%s, %s, %s, %s, %s) "
        "ON CONFLICT (record_id) DO UPDATE SET model = EXCLUDED.model, "
        "content_hash = EXCLUDED.content_hash, dim = EXCLUDED.dim, vec = EXCLUDED.vec, parts = NULL",
        (r.id, model, content_hash(r), int(arr.shape[0]), arr.tobytes()),
    )


def _enqueue(c: Connection, r: MemoryRecord, op: str, at: float) -> None:
    c.execute(
        "INSERT INTO outbox(record_id, user_id, agent_id, op, created_at) "
        "VALUES (%s, %s, %s, %s, %s)",
        (r.id, r.scope.user_id, r.scope.agent_id, op, at),
    )
