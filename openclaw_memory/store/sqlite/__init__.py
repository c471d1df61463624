"""The SQLite record store: the default source of truth (one file, WAL, FTS5 keyword index).

`SQLiteStore` implements `ports.RecordStore`; with its logs (sessions, the short-term window, the
maintenance log), the console's list, and a read-only view of a file another process owns.
"""

from __future__ import annotations

import sqlite3
import numpy as np
from typing import Any, Sequence, TYPE_CHECKING, Iterable
from ...types import Scope, MemoryRecord
from .records import SQLiteBase, EntitiesMixin, RecordsMixin
from ...lang.text import fts_query
from .. import records as rec
from ..ports import ListPage, ListQuery, hashed_user
from ..schema import scope_token
from pathlib import Path
from ..db import Database
from ..keys import StoreKey
from .housekeeping import HousekeepingMixin, PortabilityMixin, PurgeMixin
from ...errors import StoreError

# Sessions, the short-term message window and the maintenance log, in SQLite.


class LogsMixin(SQLiteBase):
    # ---- sessions -------------------------------------------------------------------------

    def session(self, scope: Scope, session_id: str) -> dict[str, Any] | None:
        with self._read() as db:
            row = db.execute(
                "SELECT started_at, last_active_at, ended_at FROM sessions "
                "WHERE user_id = ? AND agent_id = ? AND id = ?",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchone()
        return dict(row) if row is not None else None

    def open_session(self, scope: Scope, session_id: str, now: float) -> bool:
        with self._write() as db:
            row = db.execute(
                "SELECT ended_at FROM sessions WHERE user_id = ? AND agent_id = ? AND id = ?",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO sessions(id, user_id, agent_id, started_at, last_active_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (session_id, scope.user_id, scope.agent_id, now, now),
                )
                return True
            db.execute(
                "UPDATE sessions SET last_active_at = ?, ended_at = NULL "
                "WHERE user_id = ? AND agent_id = ? AND id = ?",
                (now, scope.user_id, scope.agent_id, session_id),
            )
            return False

    def end_session(
        self, scope: Scope, session_id: str, now: float, reason: str, summary_id: str | None
    ) -> None:
        with self._write() as db:
            db.execute(
                "UPDATE sessions SET ended_at = ?, end_reason = ?, "
                "summary_id = COALESCE(?, summary_id) WHERE user_id = ? AND agent_id = ? AND id = ?",
                (now, reason, summary_id, scope.user_id, scope.agent_id, session_id),
            )

    def participants(self, agent_id: str, session_id: str) -> list[str]:
        with self._read() as db:
            rows = db.execute(
                "SELECT user_id FROM sessions WHERE agent_id = ? AND id = ? ORDER BY started_at",
                (agent_id, session_id),
            ).fetchall()
        return [r[0] for r in rows]

    # ---- the short-term window ------------------------------------------------------------

    def append_message(
        self,
        scope: Scope,
        session_id: str,
        role: str,
        content: str,
        tokens: int,
        turn_id: str | None,
        at: float,
    ) -> None:
        with self._write() as db:
            db.execute(
                "INSERT INTO messages(session_id, user_id, agent_id, role, content, tokens, "
                "turn_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, scope.user_id, scope.agent_id, role, content, tokens, turn_id, at),
            )

    def window_messages(self, scope: Scope, session_id: str) -> list[dict[str, Any]]:
        with self._read() as db:
            rows = db.execute(
                "SELECT seq, role, content, tokens, turn_id FROM messages WHERE user_id = ? "
                "AND agent_id = ? AND session_id = ? AND in_window = 1 ORDER BY seq",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchall()
        return [dict(r) for r in rows]

    def window_tokens(self, scope: Scope, session_id: str) -> int:
        with self._read() as db:
            row = db.execute(
                "SELECT COALESCE(SUM(tokens), 0) FROM messages WHERE user_id = ? AND agent_id = ? "
                "AND session_id = ? AND in_window = 1",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchone()
        return int(row[0])

    def leave_window(self, scope: Scope, session_id: str, seqs: Sequence[int] | None) -> None:
        with self._write() as db:
            if seqs is None:
                db.execute(
                    "UPDATE messages SET in_window = 0 WHERE user_id = ? AND agent_id = ? "
                    "AND session_id = ?",
                    (scope.user_id, scope.agent_id, session_id),
                )
            elif seqs:
                db.execute(
                    f"UPDATE messages SET in_window = 0 WHERE seq IN ({','.join('?' * len(seqs))})",
                    list(seqs),
                )

    def captured_turn_ids(self, scope: Scope, session_id: str) -> set[str]:
        with self._read() as db:
            rows = db.execute(
                "SELECT DISTINCT turn_id FROM messages WHERE user_id = ? AND agent_id = ? "
                "AND session_id = ? AND turn_id IS NOT NULL",
                (scope.user_id, scope.agent_id, session_id),
            ).fetchall()
        return {r[0] for r in rows}

    def session_messages(self, scope: Scope, session_id: str, limit: int = 5000) -> list[dict]:
        with self._read() as db:
            return [
                dict(m)
                for m in db.execute(
                    "SELECT turn_id, role, content FROM messages WHERE user_id = ? AND agent_id = ? "
                    "AND session_id = ? AND turn_id IS NOT NULL AND content != '' "
                    f"ORDER BY seq LIMIT {int(limit)}",
                    (scope.user_id, scope.agent_id, session_id),
                )
            ]

    def prune_messages(
        self, user_id: str | None, agent_id: str | None, before: float, keep: int
    ) -> int:
        conds = [
            (c, v)
            for c, v in (("user_id = ?", user_id), ("agent_id = ?", agent_id))
            if v is not None
        ]
        where = ("WHERE " + " AND ".join(c for c, _ in conds)) if conds else ""
        args = (*[v for _, v in conds], before, int(keep))
        stale = (
            "SELECT seq FROM (SELECT seq, in_window, created_at, content, "
            "ROW_NUMBER() OVER (PARTITION BY user_id, agent_id, session_id ORDER BY seq DESC) "
            f"AS newer FROM messages {where}) WHERE in_window = 0 AND created_at <= ? "
            "AND newer > ? AND content != ''"
        )
        with self._write() as db:
            kept_keys = db.execute(
                f"UPDATE messages SET content = '', tokens = 0 WHERE seq IN ({stale}) "
                "AND role = 'user' AND turn_id IS NOT NULL",
                args,
            ).rowcount
            dropped = db.execute(f"DELETE FROM messages WHERE seq IN ({stale})", args).rowcount
            return int(kept_keys) + int(dropped)

    # ---- the maintenance lease and run log ------------------------------------------------

    def acquire_lease(self, name: str, holder: str, now: float, seconds: float) -> bool:
        with self._write() as db:
            db.execute(
                "INSERT INTO leases(name, holder, expires_at) VALUES (?, ?, ?) ON CONFLICT(name) "
                "DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at "
                "WHERE leases.expires_at <= ? OR leases.holder = excluded.holder",
                (name, holder, now + seconds, now),
            )
            row = db.execute("SELECT holder FROM leases WHERE name = ?", (name,)).fetchone()
        return row is not None and row[0] == holder

    def release_lease(self, name: str, holder: str) -> None:
        with self._write() as db:
            db.execute("DELETE FROM leases WHERE name = ? AND holder = ?", (name, holder))

    def lease(self, name: str, now: float) -> dict[str, Any] | None:
        with self._read() as db:
            row = db.execute(
                "SELECT holder, expires_at FROM leases WHERE name = ? AND expires_at > ?",
                (name, now),
            ).fetchone()
        return dict(row) if row else None

    def begin_run(self, trigger: str, holder: str, now: float) -> int:
        with self._write() as db:
            db.execute("UPDATE maintenance_runs SET status = 'abandoned' WHERE status = 'running'")
            cur = db.execute(
                "INSERT INTO maintenance_runs(trigger, holder, started_at, status) "
                "VALUES (?, ?, ?, 'running')",
                (trigger, holder, now),
            )
            return int(cur.lastrowid or 0)  # an INSERT always sets it

    def finish_run(
        self, run_id: int, now: float, status: str, counts: str, error: str | None
    ) -> None:
        with self._write() as db:
            db.execute(
                "UPDATE maintenance_runs SET finished_at = ?, status = ?, counts = ?, error = ? "
                "WHERE id = ?",
                (now, status, counts, error, run_id),
            )

    def recent_runs(self, limit: int) -> list[dict[str, Any]]:
        with self._read() as db:
            rows = db.execute(
                "SELECT * FROM maintenance_runs ORDER BY started_at DESC, id DESC LIMIT ?",
                (int(limit),),
            ).fetchall()
        return [dict(r) for r in rows]

    def last_run_started(self) -> float | None:
        with self._read() as db:
            row = db.execute("SELECT MAX(started_at) FROM maintenance_runs").fetchone()
        return None if row[0] is None else float(row[0])


# The console's memory list in SQLite: keyset pages served by the list indexes.
#
# Each status is one range of a list index (`rec_list_updated` / `rec_list_created`: status, sort
# value, rid, then every filter column), so a page reads index entries up to the cursor and its
# rows, never the rows the filters reject; "every status" merges one range per status. A text
# filter reads its keyword matches (at most `ListQuery.text_cap`) once, by rid.

_COLUMNS = {"updated_at", "created_at"}


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _conditions(scope: Scope, q: ListQuery) -> tuple[list[str], list[Any], bool]:
    """The filters as SQL, without the status (a page asks one status at a time). With a text
    filter the rows are found by their keyword matches: the `+` keeps SQLite from walking a
    (user, agent) index past every row of the user instead."""
    capped = bool(q.text.strip())
    c = "+" if capped else ""
    where = [f"{c}user_id = ?", f"{c}agent_id = ?"]
    args: list[Any] = [scope.user_id, scope.agent_id]
    if q.type:
        where.append(f"{c}type = ?")
        args.append(q.type)
    if q.types:
        where.append(f"{c}type IN ({','.join('?' * len(q.types))})")
        args += list(q.types)
    if q.subject:
        where.append("subject LIKE ? ESCAPE '\\'")
        args.append(_like_prefix(q.subject))
    if q.created_from is not None:
        where.append(f"{c}created_at >= ?")
        args.append(q.created_from)
    if q.created_to is not None:
        where.append(f"{c}created_at < ?")
        args.append(q.created_to)
    if capped:
        match = fts_query(q.text)
        if not match:
            where.append("0")
        else:
            where.append(
                "rid IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ? "
                "ORDER BY rowid DESC LIMIT ?)"
            )
            args += [
                f"scope : {scope_token(scope.user_id, scope.agent_id)} AND tokens : ({match})",
                q.text_cap,
            ]
    return where, args, capped


class ConsoleMixin(SQLiteBase):
    def counts_by_scope(self) -> list[dict[str, Any]]:
        # from the counts the store keeps by trigger (schema migration 8)
        with self._read() as db:
            rows = db.execute(
                "SELECT user_id, agent_id, status, type, n FROM record_counts WHERE n > 0"
            ).fetchall()
        return [dict(r) for r in rows]

    def list_page(self, scope: Scope, q: ListQuery) -> ListPage:
        if q.column not in _COLUMNS:
            raise ValueError(f"column: expected one of {sorted(_COLUMNS)}, found {q.column!r}")
        where, args, text_filter = _conditions(scope, q)
        with self._read() as db:
            if text_filter:
                total, keys = _text_keys(db, where, args, q)
            else:
                total, keys = _index_keys(db, where, args, q)
            keys.sort(reverse=q.order == "desc")
            more = len(keys) > q.size
            keys = keys[: q.size]
            marks = ",".join("?" * len(keys))
            found = (
                {
                    r["rid"]: r
                    for r in db.execute(
                        f"SELECT * FROM records WHERE rid IN ({marks})", [rid for _, rid in keys]
                    )
                }
                if keys
                else {}
            )
        rows = [rec.row_to_record(found[rid]) for _, rid in keys if rid in found]
        return ListPage(rows, keys[-1] if more and keys else None, total, text_filter)


def _index_keys(
    db: Any, where: list[str], args: list[Any], q: ListQuery
) -> tuple[int, list[tuple[float, int]]]:
    """The count (capped, by whichever covering index SQLite picks) and each status's next
    `size + 1` (sort value, rid) from its range of the list index on the column (none when
    nothing matches: a filter matching nothing reads the index once, not once per status)."""
    col, statuses = q.column, list(q.statuses)
    counted, count_args = (
        (where, args) if len(statuses) > 1 else ([*where, "status = ?"], [*args, *statuses])
    )
    total = db.execute(
        f"SELECT COUNT(*) FROM (SELECT 1 FROM records WHERE {' AND '.join(counted)} "
        f"LIMIT {q.count_cap + 1})",
        count_args,
    ).fetchone()[0]
    keys: list[tuple[float, int]] = []
    for status in statuses if total else ():
        part, part_args = [*where, "status = ?"], [*args, status]
        if q.after is not None:
            value, rid = q.after
            part, part_args = (
                [*part, f"({col}, rid) {'<' if q.order == 'desc' else '>'} (?, ?)"],
                [*part_args, value, rid],
            )
        direction = q.order.upper()
        keys += [
            (r[0], r[1])
            for r in db.execute(
                f"SELECT {col}, rid FROM records INDEXED BY rec_list_{col.split('_')[0]} "
                f"WHERE {' AND '.join(part)} ORDER BY {col} {direction}, rid {direction} LIMIT ?",
                (*part_args, q.size + 1),
            )
        ]
    return total, keys


def _text_keys(
    db: Any, where: list[str], args: list[Any], q: ListQuery
) -> tuple[int, list[tuple[float, int]]]:
    """The count and the (sort value, rid) after the cursor among the text filter's matches,
    read once by rid (the count and the page from the same read)."""
    rows = db.execute(
        f"SELECT {q.column}, rid, status FROM records WHERE {' AND '.join(where)}", args
    ).fetchall()
    matched = [(r[0], r[1]) for r in rows if r[2] in q.statuses]
    if q.after is None:
        return len(matched), matched
    cursor = q.after
    return len(matched), [k for k in matched if (k < cursor if q.order == "desc" else k > cursor)]


# The SQLite record store: the default source of truth (one file, WAL, FTS5 keyword index).
#
# `SQLiteStore` implements `ports.RecordStore`; its statements live in this package and in
# `store/records.py`, and every driver error (sqlite3's, or SQLCipher's for an encrypted store)
# leaves it as a `StoreError`.

__all__ = ["SQLiteStore", "hashed_user"]


class SQLiteStore(
    RecordsMixin,
    EntitiesMixin,
    LogsMixin,
    HousekeepingMixin,
    PurgeMixin,
    ConsoleMixin,
    PortabilityMixin,
):
    """The record store on one SQLite file (see `store/db.py` for the connection)."""

    @classmethod
    def open(cls, path: str | Path, *, key: StoreKey | None = None) -> "SQLiteStore":
        """The store at path; with a key, an encrypted (SQLCipher) one."""
        return cls(Database(path, key=key))

    @property
    def was_empty(self) -> bool:
        """The file existed with no bytes in it (it usually means the database was lost)."""
        return self.db.was_empty


if TYPE_CHECKING:  # the type checker holds the class to the port
    from ..ports import RecordStore

    _conforms: type[RecordStore] = SQLiteStore


# A read-only view of a store file another process owns: the benchmark's naive baseline and
# the evaluation's vector reuse read one without opening (or migrating) it as a store.


class ReadOnlyStore:
    """One read-only connection to a SQLite store file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.conn = sqlite3.connect(
                f"file:{self.path}?mode=ro", uri=True, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open read-only: {exc}") from exc
        self.conn.row_factory = sqlite3.Row

    def _rows(self, sql: str, args: Iterable[Any] = ()) -> list[sqlite3.Row]:
        try:
            return self.conn.execute(sql, tuple(args)).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from exc

    def embedder(self) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = 'embedder'")
        return str(rows[0][0]) if rows else None

    def vectors_by_text(self, model: str) -> list[tuple[str, np.ndarray]]:
        """(text hash, vector) of every stored vector made by `model`."""
        return [
            (r[0], np.frombuffer(r[1], dtype=np.float32))
            for r in self._rows("SELECT content_hash, vec FROM vectors WHERE model = ?", (model,))
        ]

    def parts_with_text(self, model: str) -> list[tuple[str | None, str, str | None, np.ndarray]]:
        """(subject, summary, detail, part vectors (k, d)) of every record with sentence-part
        vectors made by `model` (none from a store written before parts existed)."""
        columns = {row[1] for row in self._rows("PRAGMA table_info(vectors)")}
        if "parts" not in columns:
            return []
        rows = self._rows(
            "SELECT r.subject, r.summary, r.detail, v.dim, v.parts FROM vectors v "
            "JOIN records r ON r.id = v.record_id WHERE v.model = ? AND v.parts IS NOT NULL",
            (model,),
        )
        return [
            (r[0], r[1], r[2], np.frombuffer(r[4], dtype=np.float32).reshape(-1, r[3]))
            for r in rows
        ]

    def active_vectors(self, scope: Scope) -> tuple[list[str], np.ndarray | None]:
        """Ids and the (n, d) matrix of the stored vectors of the scope's active records."""
        rows = self._rows(
            "SELECT r.id AS id, v.vec AS vec FROM records r JOIN vectors v ON v.record_id = r.id "
            "WHERE r.user_id = ? AND r.agent_id = ? AND r.status = 'active'",
            (scope.user_id, scope.agent_id),
        )
        if not rows:
            return [], None
        matrix = np.frombuffer(b"".join(r["vec"] for r in rows), dtype=np.float32)
        return [r["id"] for r in rows], matrix.reshape(len(rows), -1)

    def keyword_search(self, scope: Scope, text: str, limit: int) -> list[tuple[str, float]]:
        """(id, BM25 relevance) best first, as the store's keyword search finds them."""
        try:
            return rec.keyword_search(self.conn, scope, text, limit=limit)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from exc

    def get_many(self, scope: Scope, ids: Iterable[str]) -> dict[str, MemoryRecord]:
        try:
            return rec.get_many(self.conn, scope, ids)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from exc

    def ids_saying(self, user_id: str, summary: str) -> set[str]:
        """Ids of the user's records (any agent, any status) with exactly this summary."""
        return {
            r[0]
            for r in self._rows(
                "SELECT id FROM records WHERE user_id = ? AND summary = ?", (user_id, summary)
            )
        }

    def close(self) -> None:
        self.conn.close()
