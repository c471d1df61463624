"""Entity memory's reads on the SQLite store (statements in `store/entities.py`; the writes
run inside `insert` and `update`, `store/records.py`)."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ...types import Scope
from .. import entities as ent
from ..dialect import SQLITE
from ..entity_backfill import BATCH, backfill
from .base import SQLiteBase


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
