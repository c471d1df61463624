"""Export and import of a user's rows in PostgreSQL (the JSONL format, Markdown, OpenClaw
files)."""

from __future__ import annotations

from typing import Any, Iterator

from ...types import MemoryRecord, Scope
from ..records import content_hash
from .db import PostgresDatabase
from .sql import to_records

#: the user tables an export carries beside the records, the columns that identify a row, and
#: the order rows are read in (the written order: these tables have no serial key of their own)
USER_ROWS: dict[str, tuple[str, ...]] = {
    "versions": ("record_id", "version"),
    "audit": ("at", "agent_id", "record_id", "action", "reason"),
    "sessions": ("agent_id", "id"),
    "messages": ("agent_id", "session_id", "created_at", "role", "content"),
}
_ORDER = {
    "versions": "superseded_at, record_id, version",
    "audit": "seq",
    "sessions": "started_at, agent_id, id",
    "messages": "seq",
}


def _user_where(user_id: str, agent_id: str | None) -> tuple[str, list[str]]:
    if agent_id is None:
        return "user_id = %s", [user_id]
    return "user_id = %s AND agent_id = %s", [user_id, agent_id]


class Portability:
    db: PostgresDatabase

    def user_records(
        self, user_id: str, agent_id: str | None = None, *, newest_first: bool = False
    ) -> list[MemoryRecord]:
        where, args = _user_where(user_id, agent_id)
        order = "created_at DESC, rid DESC" if newest_first else "rid"
        with self.db.read() as c:
            rows = c.execute(f"SELECT * FROM records WHERE {where} ORDER BY {order}", args)
            return to_records(rows.fetchall())

    def user_rows(
        self, table: str, user_id: str, agent_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        if table not in USER_ROWS:
            raise ValueError(f"table: expected one of {sorted(USER_ROWS)}, found {table!r}")
        where, args = _user_where(user_id, agent_id)
        with self.db.read() as c:
            rows = c.execute(
                f"SELECT * FROM {table} WHERE {where} ORDER BY {_ORDER[table]}", args
            ).fetchall()
        for row in rows:
            yield {k: row[k] for k in row.keys() if k != "seq"}

    def record_owner(self, record_id: str) -> tuple[str, str] | None:
        with self.db.read() as c:
            row = c.execute(
                "SELECT user_id, agent_id FROM records WHERE id = %s", (record_id,)
            ).fetchone()
        return None if row is None else (row[0], row[1])

    def holds(self, scope: Scope, record: MemoryRecord) -> bool:
        """The store holds this record: its id, its text (any type, any status), or its
        summary under the same type and subject."""
        with self.db.read() as c:
            row = c.execute(
                "SELECT EXISTS (SELECT 1 FROM records WHERE id = %s) "
                "OR EXISTS (SELECT 1 FROM records WHERE user_id = %s AND agent_id = %s "
                "AND content_hash = %s) "
                "OR EXISTS (SELECT 1 FROM records WHERE user_id = %s AND agent_id = %s "
                "AND type = %s AND subject IS NOT DISTINCT FROM %s AND summary = %s)",
                (
                    record.id,
                    scope.user_id,
                    scope.agent_id,
                    content_hash(record),
                    scope.user_id,
                    scope.agent_id,
                    record.type.value,
                    record.subject,
                    record.summary,
                ),
            ).fetchone()
        return bool(row[0])

    def import_row(self, table: str, item: dict[str, Any]) -> int:
        """Add one exported row of a user table unless a row with its identity is there;
        returns 1 when added. Unknown keys are ignored."""
        key = USER_ROWS[table]
        with self.db.write() as c:
            columns = {
                r[0]
                for r in c.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_name = %s",
                    (table,),
                ).fetchall()
            } - {"seq"}
            values = {k: v for k, v in item.items() if k in columns}
            if table == "versions":
                values["turn_ids"] = values.get("turn_ids") or "[]"
            ident = ("user_id", *key)
            cond = " AND ".join(f"{k} IS NOT DISTINCT FROM %s" for k in ident)
            if c.execute(
                f"SELECT 1 FROM {table} WHERE {cond} LIMIT 1", [values.get(k) for k in ident]
            ).fetchone():
                return 0
            names = sorted(values)
            c.execute(
                f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join(['%s'] * len(names))})",
                [values[n] for n in names],
            )
        return 1
