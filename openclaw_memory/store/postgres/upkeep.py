"""Reindex's and doctor's work in PostgreSQL: stored vectors, the outbox as a whole and the
keyword index's gaps."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...lang.text import sentence_parts
from ...types import MemoryRecord, Scope, memory_text
from . import keywords
from .db import PostgresDatabase
from .sql import to_record
from .writes import _put_vector


class Upkeep:
    db: PostgresDatabase

    def put_vector(self, record: MemoryRecord, vector: np.ndarray, model: str) -> None:
        with self.db.write() as c:
            _put_vector(c, record, vector, model)

    def part_stale_ids(self, max_parts: int, scope: Scope | None = None) -> list[str]:
        """Live records whose stored sentence-part vectors are not the ones `max_parts` asks
        for (a store written before sentence vectors, or under another setting)."""
        sql = (
            "SELECT r.id, r.subject, r.summary, r.detail, v.dim, octet_length(v.parts) "
            "FROM records r JOIN vectors v ON v.record_id = r.id WHERE r.status <> 'inactive'"
        )
        args: list = []
        if scope is not None:
            sql += " AND r.user_id = %s AND r.agent_id = %s"
            args += [scope.user_id, scope.agent_id]
        out = []
        with self.db.read() as c:
            rows = c.execute(sql + " ORDER BY r.rid", args).fetchall()
        for rid, subject, summary, detail, dim, size in rows:
            have = (size or 0) // (4 * dim)
            if have != len(sentence_parts(memory_text(subject, summary, detail), max_parts)):
                out.append(rid)
        return out

    def retire_vectors(self, model: str, dim: int) -> int:
        """Drop stored vectors of another model or dimension, or of no record; record `model`
        as the store's embedder. Returns how many were dropped."""
        with self.db.write() as c:
            dropped = c.execute(
                "DELETE FROM vectors v WHERE v.model <> %s OR v.dim <> %s "
                "OR NOT EXISTS (SELECT 1 FROM records r WHERE r.id = v.record_id)",
                (model, dim),
            ).rowcount
            c.execute(
                "INSERT INTO meta(key, value) VALUES ('embedder', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (model,),
            )
        return int(dropped or 0)

    def orphan_vector_rows(self, *, delete: bool = False) -> int:
        """Stored vectors of no record (deleted when `delete`); returns how many."""
        orphan = (
            "FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.id = v.record_id)"
        )
        with self.db.read() as c:
            n = int(c.execute(f"SELECT COUNT(*) {orphan}").fetchone()[0])
        if delete and n:
            with self.db.write() as c:
                c.execute(f"DELETE {orphan}")
        return n

    def last_outbox_seq(self) -> int:
        with self.db.read() as c:
            return int(c.execute("SELECT COALESCE(MAX(seq), 0) FROM outbox").fetchone()[0])

    def clear_outbox(self, upto: int) -> int:
        """Drop the entries queued up to `upto` (a full rebuild covered them)."""
        with self.db.write() as c:
            return int(c.execute("DELETE FROM outbox WHERE seq <= %s", (upto,)).rowcount or 0)

    def pending_by_scope(self) -> dict[tuple[str, str], set[str]]:
        """Records with outbox entries still to apply, by (user, agent)."""
        out: dict[tuple[str, str], set[str]] = {}
        with self.db.read() as c:
            for user_id, agent_id, record_id in c.execute(
                "SELECT user_id, agent_id, record_id FROM outbox"
            ).fetchall():
                out.setdefault((user_id, agent_id), set()).add(record_id)
        return out

    def keyword_index_gaps(self) -> tuple[list[int], list[str]]:
        """Keyword rows of no record, and records with no keyword row."""
        with self.db.read() as c:
            orphan = [
                r[0]
                for r in c.execute(
                    "SELECT d.rid FROM keyword_docs d "
                    "WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.rid = d.rid) ORDER BY d.rid"
                ).fetchall()
            ]
            missing = [
                r[0]
                for r in c.execute(
                    "SELECT r.id FROM records r "
                    "WHERE NOT EXISTS (SELECT 1 FROM keyword_docs d WHERE d.rid = r.rid) "
                    "ORDER BY r.rid"
                ).fetchall()
            ]
        return orphan, missing

    def repair_keyword_index(self, orphan: Sequence[int], missing: Sequence[str]) -> None:
        with self.db.write() as c:
            keywords.unindex(c, list(orphan))
            rows = c.execute(
                "SELECT * FROM records WHERE id = ANY(%s) ORDER BY rid", (list(missing),)
            ).fetchall()
            for row in rows:
                r = to_record(row)
                keywords.index(c, row["rid"], r.scope, r.text)

    def optimize_keyword_index(self) -> None:
        """Nothing to merge: deleted keyword rows are gone from the tables at once (`vacuum`
        then makes their space reusable)."""
