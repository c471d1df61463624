"""Export and import of a user's rows in PostgreSQL: `store/portability_sql.py` with
PostgreSQL's dialect. Versions and sessions have no serial key of their own, so their written
order is spelled out."""

from __future__ import annotations

from typing import Any, Iterator

from ...types import MemoryRecord, Scope
from .. import portability_sql as shared
from ..dialect import POSTGRES
from .db import PostgresDatabase

USER_ROWS = shared.USER_ROWS
_ORDER = {
    "versions": "superseded_at, record_id, version",
    "audit": "seq",
    "sessions": "started_at, agent_id, id",
    "messages": "seq",
}


class Portability:
    db: PostgresDatabase

    def user_records(
        self, user_id: str, agent_id: str | None = None, *, newest_first: bool = False
    ) -> list[MemoryRecord]:
        with self.db.read() as c:
            return shared.user_records(c, POSTGRES, user_id, agent_id, newest_first=newest_first)

    def user_rows(
        self, table: str, user_id: str, agent_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        with self.db.read() as c:
            rows = shared.user_rows(c, POSTGRES, table, user_id, agent_id, _ORDER.get(table, ""))
        yield from rows

    def record_owner(self, record_id: str) -> tuple[str, str] | None:
        with self.db.read() as c:
            return shared.record_owner(c, POSTGRES, record_id)

    def holds(self, scope: Scope, record: MemoryRecord) -> bool:
        with self.db.read() as c:
            return shared.holds(c, POSTGRES, scope, record)

    def import_row(self, table: str, item: dict[str, Any]) -> int:
        with self.db.write() as c:
            return shared.import_row(c, POSTGRES, table, item)
