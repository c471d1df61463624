"""Direct look-ups into the SQLite store for tests: a test may ask a question no stage asks
(the package itself goes through the record store's intention-named methods)."""

from __future__ import annotations

from typing import Any, Sequence
from weakref import WeakKeyDictionary

from openclaw_memory.runtime.factory import build_writer
from openclaw_memory.store import records as rec
from openclaw_memory.write.consolidate import MemoryWriter
from openclaw_memory.write.forget import forget_record, reactivate
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
    """Records of scope matching an SQL condition, as the engine's retired `find` returned them.
    On PostgreSQL `1` for true is spelled `1 = 1` (the connection translates `?` marks)."""
    cond = "1 = 1" if where.strip() == "1" else where
    with engine.db.read() as db:
        return rec.query(db, scope, where=cond, args=args, order=order, limit=limit)


def stored_bytes(engine: Any) -> bytes:
    """Everything the record store holds, as bytes to search for a text: the SQLite file, or
    every row of every table of the PostgreSQL database as text."""
    if type(engine.store).__name__ != "PostgresRecordStore":
        return engine.db.path.read_bytes()
    out: list[str] = []
    with engine.db.read() as db:
        tables = [
            r[0]
            for r in db.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            ).fetchall()
        ]
        for table in tables:
            out += [r[0] for r in db.execute(f'SELECT t::text FROM "{table}" t').fetchall()]
    return "\n".join(out).encode("utf-8")


def rows(engine: Any, sql: str, args: Sequence[Any] = ()) -> list[Any]:
    """The rows of a read-only SQL query written with SQLite's `?` marks, on either backend
    (rows answer `row[0]` and `row["name"]`)."""
    if type(engine.store).__name__ == "PostgresRecordStore":
        sql = sql.replace("?", "%s")
    with engine.db.read() as db:
        return list(db.execute(sql, tuple(args)).fetchall())


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
