"""Direct look-ups into the SQLite store for tests: a test may ask a question no stage asks
(the package itself goes through the record store's intention-named methods)."""

from __future__ import annotations

from typing import Any, Sequence

from openclaw_memory.store import records as rec
from openclaw_memory.types import MemoryRecord, Scope


def find(
    engine: Any,
    scope: Scope,
    *,
    where: str = "1",
    args: Sequence[Any] = (),
    order: str = "updated_at DESC",
    limit: int = 100,
) -> list[MemoryRecord]:
    """Records of scope matching an SQL condition, as the engine's retired `find` returned them."""
    with engine.db.read() as db:
        return rec.query(db, scope, where=where, args=args, order=order, limit=limit)
