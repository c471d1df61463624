"""Export and import of a user's rows in SQLite: `store/portability_sql.py` with SQLite's
dialect, in the written order of each table (its rowid)."""

from __future__ import annotations

from typing import Any, Iterator

from ...types import MemoryRecord, Scope
from .. import portability_sql as shared
from ..dialect import SQLITE
from .base import SQLiteBase

USER_ROWS = shared.USER_ROWS


class PortabilityMixin(SQLiteBase):
    def user_records(
        self, user_id: str, agent_id: str | None = None, *, newest_first: bool = False
    ) -> list[MemoryRecord]:
        with self._read() as db:
            return shared.user_records(db, SQLITE, user_id, agent_id, newest_first=newest_first)

    def user_rows(
        self, table: str, user_id: str, agent_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        order = "seq" if table in ("audit", "messages") else "rowid"
        with self._read() as db:
            rows = shared.user_rows(db, SQLITE, table, user_id, agent_id, order)
        yield from rows

    def record_owner(self, record_id: str) -> tuple[str, str] | None:
        with self._read() as db:
            return shared.record_owner(db, SQLITE, record_id)

    def holds(self, scope: Scope, record: MemoryRecord) -> bool:
        with self._read() as db:
            return shared.holds(db, SQLITE, scope, record)

    def import_row(self, table: str, item: dict[str, Any]) -> int:
        with self._write() as db:
            return shared.import_row(db, SQLITE, table, item)
