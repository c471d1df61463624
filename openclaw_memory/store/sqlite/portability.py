"""Export and import of a user's rows in SQLite (the JSONL format, Markdown, OpenClaw files)."""

from __future__ import annotations

from typing import Any, Iterator

from ...types import MemoryRecord, MemoryType, Scope
from .. import records as rec
from .base import SQLiteBase

#: the user tables an export carries beside the records, and the columns that identify a row
USER_ROWS: dict[str, tuple[str, ...]] = {
    "versions": ("record_id", "version"),
    "audit": ("at", "agent_id", "record_id", "action", "reason"),
    "sessions": ("agent_id", "id"),
    "messages": ("agent_id", "session_id", "created_at", "role", "content"),
}


def _user_where(user_id: str, agent_id: str | None) -> tuple[str, list[str]]:
    if agent_id is None:
        return "user_id = ?", [user_id]
    return "user_id = ? AND agent_id = ?", [user_id, agent_id]


class PortabilityMixin(SQLiteBase):
    def user_records(
        self, user_id: str, agent_id: str | None = None, *, newest_first: bool = False
    ) -> list[MemoryRecord]:
        where, args = _user_where(user_id, agent_id)
        order = "created_at DESC, rid DESC" if newest_first else "rid"
        with self._read() as db:
            rows = db.execute(f"SELECT * FROM records WHERE {where} ORDER BY {order}", args)
            return [rec.row_to_record(r) for r in rows]

    def user_rows(
        self, table: str, user_id: str, agent_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        if table not in USER_ROWS:
            raise ValueError(f"table: expected one of {sorted(USER_ROWS)}, found {table!r}")
        where, args = _user_where(user_id, agent_id)
        order = "seq" if table in ("audit", "messages") else "rowid"
        with self._read() as db:
            rows = db.execute(
                f"SELECT * FROM {table} WHERE {where} ORDER BY {order}", args
            ).fetchall()
        for row in rows:
            yield {k: row[k] for k in row.keys() if k != "seq"}

    def record_owner(self, record_id: str) -> tuple[str, str] | None:
        with self._read() as db:
            row = db.execute(
                "SELECT user_id, agent_id FROM records WHERE id = ?", (record_id,)
            ).fetchone()
        return None if row is None else (row[0], row[1])

    def holds(self, scope: Scope, record: MemoryRecord) -> bool:
        """The store holds this record: its id, its text (any type, any status), or its
        summary under the same type and subject."""
        with self._read() as db:
            by_id = db.execute("SELECT 1 FROM records WHERE id = ?", (record.id,)).fetchone()
            return bool(
                by_id
                or db.execute(
                    "SELECT 1 FROM records WHERE user_id = ? AND agent_id = ? AND type IN "
                    f"({','.join('?' * len(MemoryType))}) AND content_hash = ? LIMIT 1",
                    (
                        scope.user_id,
                        scope.agent_id,
                        *(t.value for t in MemoryType),
                        rec.content_hash(record),
                    ),
                ).fetchone()
                or db.execute(  # the same summary under the same type and subject
                    "SELECT 1 FROM records WHERE user_id = ? AND agent_id = ? AND type = ? "
                    "AND subject IS ? AND summary = ? LIMIT 1",
                    (
                        scope.user_id,
                        scope.agent_id,
                        record.type.value,
                        record.subject,
                        record.summary,
                    ),
                ).fetchone()
            )

    def import_row(self, table: str, item: dict[str, Any]) -> int:
        """Add one exported row of a user table unless a row with its identity is there;
        returns 1 when added. Unknown keys are ignored."""
        key = USER_ROWS[table]
        with self._write() as db:
            columns = {row[1] for row in db.execute(f"PRAGMA table_info({table})")} - {"seq"}
            values = {k: v for k, v in item.items() if k in columns}
            if table == "versions":
                values["turn_ids"] = values.get("turn_ids") or "[]"
            ident = ("user_id", *key)
            cond = " AND ".join(f"{k} IS ?" for k in ident)
            if db.execute(
                f"SELECT 1 FROM {table} WHERE {cond} LIMIT 1", [values.get(k) for k in ident]
            ).fetchone():
                return 0
            names = sorted(values)
            db.execute(
                f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                [values[n] for n in names],
            )
        return 1
