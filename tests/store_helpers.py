"""Look-ups into an engine's record store for tests: a test may ask a question no stage asks.
Through the store's public methods, so they answer on every backend (the in-memory store,
SQLite, PostgreSQL); what no public method answers goes through `openclaw_memory.store.inspect`."""

from __future__ import annotations

from typing import Any, Sequence
from weakref import WeakKeyDictionary

from openclaw_memory.runtime.factory import build_writer
from openclaw_memory.write.consolidate import MemoryWriter
from openclaw_memory.write.forget import forget_record, reactivate
from openclaw_memory.store import inspect
from openclaw_memory.types import MemoryRecord, Scope


def _value(field: Any) -> Any:
    return getattr(field, "value", field)


def find(
    engine: Any,
    scope: Scope,
    *,
    limit: int = 100,
    subject_prefix: str | None = None,
    type_not: str | None = None,
    status_not: str | None = None,
    **equal: Any,
) -> list[MemoryRecord]:
    """Records of the scope (every type and status) whose fields equal the given values
    (`type=`, `status=`, `subject=`, `summary=`, `id=`, ...), newest update first, at most
    `limit`; `type_not`, `status_not` and `subject_prefix` narrow further."""
    found = [
        r
        for r in engine.store.user_records(scope.user_id, scope.agent_id, newest_first=True)
        if scope.workspace is None or r.scope.workspace in (scope.workspace, None)
    ]

    def keep(r: MemoryRecord) -> bool:
        if any(_value(getattr(r, name)) != value for name, value in equal.items()):
            return False
        if type_not is not None and _value(r.type) == type_not:
            return False
        if status_not is not None and _value(r.status) == status_not:
            return False
        return subject_prefix is None or (r.subject or "").startswith(subject_prefix)

    kept = sorted((r for r in found if keep(r)), key=lambda r: -r.updated_at)
    return kept[:limit]


def stored_bytes(engine: Any) -> bytes:
    """Everything the engine's record store holds, as bytes to search for a text."""
    return inspect.stored_bytes(engine.store)


def rows(engine: Any, sql: str, args: Sequence[Any] = ()) -> list[Any]:
    """The rows of a read-only statement in SQLite's spelling, on SQLite or PostgreSQL (for the
    tests of the real backends: `openclaw_memory.store.inspect.rows`)."""
    return inspect.rows(engine.store, sql, args)


_WRITERS: WeakKeyDictionary[Any, MemoryWriter] = WeakKeyDictionary()


def writer_of(engine: Any) -> MemoryWriter:
    """The write stage over an open engine's ports, one per engine, as the factory builds it
    for a middleware (tests that write straight into a store, without a middleware)."""
    writer = _WRITERS.get(engine)
    if writer is None:
        writer = _WRITERS[engine] = build_writer(engine)
    return writer


def forget_in(engine: Any, scope: Scope, record_id: str, reason: str = "", **kw: Any) -> Any:
    """Deactivate one memory straight in an engine's store (`forget.forget_record`), then wake
    its indexer, as the middleware does."""
    record = forget_record(
        engine.store, engine.clock, scope, record_id, reason or "forgotten on request", **kw
    )
    engine.written()
    return record


def restore_in(engine: Any, scope: Scope, record_id: str) -> Any:
    """Undo a forget straight in an engine's store (`forget.reactivate`), then wake its indexer."""
    record = reactivate(engine.store, engine.clock, scope, record_id, model=engine.model_name)
    engine.written()
    return record
