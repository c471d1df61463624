"""The SQLite store's records: its base (connection, transactions, error boundary), records, entities."""

from __future__ import annotations

import contextlib
import sqlite3
import numpy as np
from typing import Iterator, Any, Iterable, Sequence
from ...errors import StoreError
from ..db import Database, unreadable
from ...types import MemoryRecord, MemoryType, Scope
from .. import records as rec, records as ent
from ..ports import TierVector
from ..sql import SQLITE
from ..entity_linking import BATCH, backfill

# The SQLite store's base: its connection, transactions, and the error boundary.
#
# Every method of `SQLiteStore` reads or writes through `_read()` / `_write()`, which turn a
# driver error (`sqlite3.Error`, or SQLCipher's `Error` for an encrypted store) into the package's
# `StoreError` (naming the database file), so no driver exception leaves the store.


def store_error(path: object, exc: Exception) -> StoreError:
    """The package's error for a driver error: a damaged file names the remedy."""
    # "malformed", "not a database": the base class itself, not a busy or bad call (sqlite3's
    # or SQLCipher's, whose classes have the same names outside sqlite3's tree)
    if type(exc).__name__ == "DatabaseError":
        return unreadable(str(path), exc)
    return StoreError(f"{path}: {exc}")


class SQLiteBase:
    def __init__(self, db: Database) -> None:
        self.db = db

    @property
    def path(self) -> str:
        return str(self.db.path)

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        try:
            with self.db.read() as conn:
                yield conn
        except self.db.driver.Error as exc:
            raise store_error(self.db.path, exc) from exc

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        try:
            with self.db.write() as conn:
                yield conn
        except self.db.driver.Error as exc:
            raise store_error(self.db.path, exc) from exc

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic write (`BEGIN IMMEDIATE`); nested calls join the outer transaction."""
        with self._write():
            yield

    def in_transaction(self) -> bool:
        return self.db.nested()

    def vacuum(self) -> None:
        try:
            self.db.vacuum()
        except self.db.driver.Error as exc:
            raise StoreError(f"{self.db.path}: vacuum failed: {exc}") from exc

    def close(self) -> None:
        self.db.close()


# The record store's records, audit log and outbox, in SQLite (statements in `store/records.py`
# and here; each method is one intention of `ports.RecordStore`).


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


#: rec_profile's types in the order of its WHERE (store/schema.py, migration 9). SQLite reads a
#: partial index only for a query whose WHERE repeats the index's terms as literals in the same
#: order: bound parameters, or another order, sort every profile and preference of the user
#: instead (45-90 ms a recall at 100k memories).
_PROFILE_INDEX_TYPES = ("profile", "preference")


def _type_literals(types: Sequence[str]) -> str:
    """Memory types as SQL literals, rec_profile's first and in its order; only the package's
    own type names are ever written into a statement."""
    known = {t.value for t in MemoryType}
    unknown = sorted(set(types) - known)
    if unknown:
        raise StoreError(f"profile types: {unknown} are not memory types; expected {sorted(known)}")
    rank = {name: i for i, name in enumerate(_PROFILE_INDEX_TYPES)}
    ordered = sorted(set(types), key=lambda t: (rank.get(t, len(rank)), t))
    return ", ".join(f"'{t}'" for t in ordered)


class RecordsMixin(SQLiteBase):
    # ---- writes ---------------------------------------------------------------------------

    def insert(self, record: MemoryRecord, vector: np.ndarray | None, model: str) -> None:
        with self._write() as db:
            rec.insert(db, record, vector, model)

    def update(
        self, record: MemoryRecord, vector: np.ndarray | None, model: str, *, reindex: bool
    ) -> None:
        with self._write() as db:
            rec.update(db, record, vector, model, reindex=reindex)

    def put_parts(self, record: MemoryRecord, parts: np.ndarray | None) -> None:
        with self._write() as db:
            rec.put_parts(db, record, parts)

    def save_version(self, old: MemoryRecord, superseded_at: float) -> None:
        with self._write() as db:
            rec.save_version(db, old, superseded_at)

    def touch(self, scope: Scope, ids: Sequence[str], at: float) -> None:
        with self._write() as db:
            rec.touch(db, scope, ids, at)

    def delete_records(self, scope: Scope, ids: Sequence[str]) -> int:
        with self._write() as db:
            return rec.delete_records(db, scope, ids)

    # ---- reads ----------------------------------------------------------------------------

    def _query(
        self,
        scope: Scope,
        where: str,
        args: Sequence[Any] = (),
        order: str = "updated_at DESC",
        limit: int = 100,
    ) -> list[MemoryRecord]:
        with self._read() as db:
            return rec.query(db, scope, where=where, args=args, order=order, limit=limit)

    def get(self, scope: Scope, record_id: str) -> MemoryRecord | None:
        with self._read() as db:
            return rec.get(db, scope, record_id)

    def get_many(self, scope: Scope, ids: Iterable[str]) -> dict[str, MemoryRecord]:
        with self._read() as db:
            return rec.get_many(db, scope, ids)

    def in_written_order(self, scope: Scope, ids: Sequence[str]) -> list[MemoryRecord]:
        ids = list(dict.fromkeys(ids))
        if not ids:
            return []
        return self._query(scope, f"id IN ({_marks(ids)})", ids, order="rid", limit=len(ids))

    def live_subjects(self, scope: Scope, limit: int = 2000) -> list[str]:
        where, args = rec._scope_sql(scope)
        with self._read() as db:
            return [
                row[0]
                for row in db.execute(
                    f"SELECT DISTINCT subject FROM records WHERE {where} AND status = 'active' "
                    f"AND subject IS NOT NULL LIMIT {int(limit)}",
                    args,
                )
            ]

    def live_by_subject(
        self,
        scope: Scope,
        subjects: Sequence[str],
        *,
        types: Sequence[str] | None = None,
        limit: int = 20,
    ) -> list[MemoryRecord]:
        if not subjects:
            return []
        where, args = f"status = 'active' AND subject IN ({_marks(subjects)})", list(subjects)
        if types is not None:
            where += f" AND type IN ({_marks(types)})"
            args += list(types)
        return self._query(scope, where, args, limit=limit)

    def recent_important(
        self, scope: Scope, since: float, min_importance: float, limit: int
    ) -> list[MemoryRecord]:
        return self._query(
            scope,
            "status = 'active' AND updated_at >= ? AND importance >= ? "
            "AND type NOT IN ('episode', 'summary')",
            (since, min_importance),
            limit=limit,
        )

    def profile(
        self, scope: Scope, types: Sequence[str], whitelist: Sequence[str], limit: int = 20
    ) -> list[MemoryRecord]:
        where = f"status = 'active' AND type IN ({_type_literals(types)}) AND doubt_of IS NULL"
        args: list[Any] = []
        if whitelist:
            where += f" AND subject IN ({_marks(whitelist)})"
            args += list(whitelist)
        return self._query(
            scope, where, args, order="importance DESC, updated_at DESC", limit=limit
        )

    def latest_summaries(self, scope: Scope, count: int) -> list[MemoryRecord]:
        return self._query(
            scope, "status = 'active' AND type = 'summary'", order="created_at DESC", limit=count
        )

    def live_claims(
        self,
        scope: Scope,
        types: Sequence[str],
        *,
        subject: str | None = None,
        created_before: float | None = None,
        limit: int = 500,
    ) -> list[MemoryRecord]:
        where = f"status = 'active' AND type IN ({_marks(types)})"
        args: list[Any] = list(types)
        if subject is not None:
            where += " AND subject = ?"
            args.append(subject)
        where += " AND doubt_of IS NULL"
        if created_before is not None:
            where += " AND created_at <= ?"
            args.append(created_before)
        return self._query(scope, where, args, limit=limit)

    def copies_of_text(
        self, scope: Scope, type_: str, content_hash: str, limit: int = 20
    ) -> list[MemoryRecord]:
        return self._query(
            scope, "type = ? AND content_hash = ?", (type_, content_hash), limit=limit
        )

    def live_episodes_before(
        self, scope: Scope, at: float, limit: int, *, exclude: str | None = None
    ) -> list[MemoryRecord]:
        where = "status = 'active' AND type = 'episode' AND created_at <= ?"
        args: list[Any] = [at]
        if exclude is not None:
            where += " AND id != ?"
            args.append(exclude)
        return self._query(scope, where, args, order="created_at DESC", limit=limit)

    def live_episodes_saying(
        self, scope: Scope, summary: str, *, exclude: str, limit: int = 50
    ) -> list[MemoryRecord]:
        return self._query(
            scope,
            "status = 'active' AND type = 'episode' AND summary = ? AND id != ?",
            (summary, exclude),
            limit=limit,
        )

    def session_episodes(
        self, scope: Scope, session_id: str, limit: int = 2000
    ) -> list[MemoryRecord]:
        # `+type`: by the (user, agent, session) index; SQLite otherwise picked (user, agent,
        # type) and walked every episode of the user
        return self._query(
            scope,
            "session_id = ? AND +type = 'episode'",
            (session_id,),
            order="created_at",
            limit=limit,
        )

    def session_neighbours(
        self, scope: Scope, record_id: str, *, before: int, after: int, now: float
    ) -> tuple[list[MemoryRecord], list[MemoryRecord]]:
        with self._read() as db:
            return rec.session_neighbours(db, scope, record_id, before=before, after=after, now=now)

    def neighbours_of(
        self, scope: Scope, record_ids: Sequence[str], *, before: int, after: int, now: float
    ) -> dict[str, tuple[list[MemoryRecord], list[MemoryRecord]]]:
        with self._read() as db:
            return rec.neighbours_of(db, scope, record_ids, before=before, after=after, now=now)

    def successors(self, scope: Scope, record_id: str, limit: int = 100) -> list[MemoryRecord]:
        return self._query(scope, "prev_id = ?", (record_id,), limit=limit)

    def latest_successor(self, scope: Scope, record_id: str) -> MemoryRecord | None:
        # by the prev_id index: the scope is checked on the row found (`+`), or SQLite would
        # walk the user's whole (user, agent) index instead
        with self._read() as db:
            row = db.execute(
                "SELECT * FROM records WHERE prev_id = ? AND +user_id = ? AND +agent_id = ? "
                "ORDER BY version DESC LIMIT 1",
                (record_id, scope.user_id, scope.agent_id),
            ).fetchone()
        return rec.row_to_record(row) if row else None

    def listing(
        self,
        scope: Scope,
        *,
        status: str | None = None,
        type_: str | None = None,
        curated_only: bool = False,
        oldest_first: bool = False,
        limit: int = 100,
    ) -> list[MemoryRecord]:
        conds: list[str] = []
        args: list[Any] = []
        if status is not None:
            conds.append("status = ?")
            args.append(status)
        if type_ is not None:
            conds.append("type = ?")
            args.append(type_)
        if curated_only:
            conds.append("type != 'episode'")
        order = "created_at" if oldest_first else "updated_at DESC"
        return self._query(scope, " AND ".join(conds) or "1", args, order=order, limit=limit)

    def retired_turns(self, scope: Scope, turn_ids: Sequence[str]) -> dict[str, str]:
        if not turn_ids:
            return {}
        with self._read() as db:
            return rec.retired_turns(db, scope, turn_ids)

    def keyword_search(
        self, scope: Scope, text: str, *, statuses: Sequence[str] = ("active",), limit: int = 30
    ) -> list[tuple[str, float]]:
        with self._read() as db:
            hits = rec.keyword_search(db, scope, text, statuses=statuses, limit=limit)
        best = max((s for _, s in hits), default=0.0)
        return [(i, s / best) for i, s in hits] if best > 0 else hits

    def search_tokens(self, ids: Sequence[str]) -> dict[str, frozenset[str]]:
        with self._read() as db:
            return rec.search_tokens_for(db, ids)

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        with self._read() as db:
            return rec.vectors_for(db, ids)

    def vectors_with_parts(
        self, ids: Sequence[str]
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        with self._read() as db:
            return rec.vectors_with_parts(db, ids)

    def tier_vectors(
        self, scope: Scope, tier: str, at_most: int | None = None
    ) -> list[TierVector] | None:
        with self._read() as db:
            return rec.tier_vectors(db, scope, tier, at_most)

    def versions(self, scope: Scope, record_id: str) -> list[dict[str, Any]]:
        with self._read() as db:
            return rec.history(db, scope, record_id)

    def versions_in_scope(self, scope: Scope, record_id: str) -> list[dict[str, Any]]:
        """`versions` by the record id's index, the scope checked on the rows found."""
        with self._read() as db:
            return [
                dict(v)
                for v in db.execute(
                    "SELECT * FROM versions WHERE record_id = ? AND +user_id = ? AND +agent_id = ? "
                    "ORDER BY version",
                    (record_id, scope.user_id, scope.agent_id),
                )
            ]

    # ---- audit ----------------------------------------------------------------------------

    def audit(
        self,
        scope: Scope,
        record_id: str | None,
        action: str,
        reason: str,
        at: float,
        channel: str | None = None,
        writer: str | None = None,
    ) -> None:
        with self._write() as db:
            rec.audit(db, scope, record_id, action, reason, at, channel, writer)

    def audit_log(
        self, scope: Scope, record_id: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        with self._read() as db:
            if record_id:
                rows = db.execute(
                    "SELECT * FROM audit WHERE user_id = ? AND agent_id = ? AND record_id = ? "
                    "ORDER BY seq DESC LIMIT ?",
                    (scope.user_id, scope.agent_id, record_id, limit),
                ).fetchall()
            else:
                rows = db.execute(
                    "SELECT * FROM audit WHERE user_id = ? AND agent_id = ? ORDER BY seq DESC LIMIT ?",
                    (scope.user_id, scope.agent_id, limit),
                ).fetchall()
        return [dict(r) for r in rows]

    def audit_of(self, scope: Scope, ids: Sequence[str], limit: int = 500) -> list[dict[str, Any]]:
        if not ids:
            return []
        # by record id first (`+` keeps SQLite off the (user, agent) indexes, which would walk
        # every audit row of the user), then checked against the scope
        with self._read() as db:
            return [
                dict(a)
                for a in db.execute(
                    f"SELECT * FROM audit WHERE record_id IN ({_marks(ids)}) AND +user_id = ? "
                    f"AND +agent_id = ? ORDER BY at DESC, seq DESC LIMIT {int(limit)}",
                    (*ids, scope.user_id, scope.agent_id),
                )
            ]

    # ---- outbox ---------------------------------------------------------------------------

    def pending(self, scope: Scope | None = None) -> int:
        with self._read() as db:
            if scope is None:
                return int(db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])
            return int(
                db.execute(
                    "SELECT COUNT(*) FROM outbox WHERE user_id = ? AND agent_id = ?",
                    (scope.user_id, scope.agent_id),
                ).fetchone()[0]
            )

    def next_entries(self, scope: Scope | None, limit: int) -> list[dict[str, Any]]:
        with self._read() as db:
            if scope is None:
                rows = db.execute("SELECT * FROM outbox ORDER BY seq LIMIT ?", (limit,)).fetchall()
            else:
                rows = db.execute(
                    "SELECT * FROM outbox WHERE user_id = ? AND agent_id = ? ORDER BY seq LIMIT ?",
                    (scope.user_id, scope.agent_id, limit),
                ).fetchall()
        return [dict(r) for r in rows]

    def done(self, seqs: Sequence[int]) -> None:
        if seqs:
            with self._write() as db:
                db.execute(f"DELETE FROM outbox WHERE seq IN ({_marks(seqs)})", list(seqs))


# Entity memory's reads on the SQLite store (statements in `store/records.py`; the writes
# run inside `insert` and `update`, `store/records.py`).


class EntitiesMixin(SQLiteBase):
    def entities_named(self, scope: Scope, keys: Iterable[str]) -> dict[int, str]:
        with self._read() as db:
            return ent.lookup(db, scope, keys)

    def entity_weights(self, scope: Scope, ids: Sequence[int]) -> dict[int, float]:
        with self._read() as db:
            return ent.weights(db, scope, ids)

    def records_naming(
        self,
        scope: Scope,
        ids: Sequence[int],
        *,
        statuses: Sequence[str] = ("active",),
        limit: int = 200,
    ) -> list[tuple[str, int]]:
        with self._read() as db:
            return ent.linked(db, scope, ids, statuses=statuses, limit=limit)

    def entities_of(self, scope: Scope, record_ids: Sequence[str]) -> dict[str, set[int]]:
        if not record_ids:
            return {}
        with self._read() as db:
            return ent.of_records(db, scope, record_ids)

    def entity_names(self, scope: Scope, ids: Iterable[int]) -> dict[int, str]:
        with self._read() as db:
            return ent.names(db, scope, ids)

    def entity_list(self, scope: Scope, limit: int = 1000) -> list[dict[str, Any]]:
        with self._read() as db:
            return ent.of_scope(db, scope, limit)

    def backfill_entity_links(self, limit: int = BATCH) -> tuple[int, int]:
        with self._write() as db:
            return backfill(db, SQLITE, ent.SQLiteEntityRows(db), limit)
