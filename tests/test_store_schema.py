"""Migrations: a store made by an older version is brought up to date on open."""

from __future__ import annotations

from openclaw_memory.lang.entities import mentions_of
from openclaw_memory.store import inspect, schema
from openclaw_memory.store.sqlite import Database
from openclaw_memory.store.sqlite import SQLiteStore


def test_an_older_store_gets_the_content_hash_index_and_the_replay_check_uses_it(
    tmp_path, monkeypatch
):
    path = tmp_path / "memory.db"
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:2])
    Database(path).close()
    monkeypatch.undo()
    db = Database(path)
    try:
        assert db.schema_version == len(schema.MIGRATIONS)
        plan = " ".join(
            str(tuple(r))
            for r in inspect.rows(
                SQLiteStore(db),
                "EXPLAIN QUERY PLAN SELECT * FROM records WHERE user_id = ? AND agent_id = ? "
                "AND (type = ? AND content_hash = ?) ORDER BY updated_at DESC LIMIT 20",
                ("u", "a", "episode", "h"),
            )
        )
        assert "rec_hash" in plan
    finally:
        db.close()
    held = inspect.file_rows(path, "SELECT MAX(version) FROM schema_version")
    assert held[0][0] == len(schema.MIGRATIONS)


def test_a_record_reads_back_with_every_field(tmp_path):
    """row_to_record maps every column back (enums, JSON lists, the scope), whatever the rows."""
    import numpy as np

    from openclaw_memory.store import records as rec
    from openclaw_memory.types import Channel, MemoryRecord, MemoryType, Scope, Source, Status

    db = Database(tmp_path / "m.db")
    r = MemoryRecord(
        id="mem_1",
        scope=Scope("u1", "a1", "ws"),
        type=MemoryType.DECISION,
        summary="用 Postgres",
        subject="db",
        detail="because",
        session_id="s1",
        tags=("t1", "t2"),
        entities=("Postgres",),
        importance=0.7,
        confidence=0.8,
        source=Source(Channel.EXPLICIT, "s0", ("s0#1", "s0#2"), "tester"),
        status=Status.INACTIVE,
        version=3,
        prev_id="mem_0",
        superseded_at=5.0,
        created_at=1.0,
        updated_at=2.0,
        last_accessed_at=3.0,
        access_count=4,
        expires_at=9.0,
        doubt_of="mem_x",
        links=("mem_a",),
    )
    plain = MemoryRecord(
        id="mem_2", scope=Scope("u1", "a1", "ws"), type=MemoryType.EPISODE, summary="hi"
    )
    with db.write() as con:
        rec.insert(con, r, np.ones(4, dtype=np.float32), "hash", mentions=mentions_of(r))
        rec.insert(con, plain, None, "hash", mentions=mentions_of(plain))
    with db.read() as con:
        got = rec.get_many(con, Scope("u1", "a1", "ws"), ["mem_1", "mem_2"])
    assert got == {"mem_1": r, "mem_2": plain}
    assert (
        got["mem_1"].scope is got["mem_2"].scope
    )  # one validated Scope per (user, agent, workspace)
    db.close()


def test_lookups_by_id_use_the_id_index_not_the_users_rows(tmp_path):
    """get_many, touch and delete_records look rows up by id (SQLite otherwise walked every row of
    the user on a (user, agent) index)."""
    import numpy as np

    from openclaw_memory.store import records as rec
    from openclaw_memory.types import MemoryRecord, MemoryType, Scope

    db = Database(tmp_path / "m.db")
    scope = Scope("u1")
    recs = [
        MemoryRecord(
            id=f"mem_{i}",
            scope=scope,
            type=(MemoryType.FACT, MemoryType.EPISODE)[i % 2],
            summary=f"s{i % 3}",
        )
        for i in range(12)
    ]
    with db.write() as con:
        for r in recs:
            rec.insert(con, r, np.ones(4, dtype=np.float32), "hash", mentions=mentions_of(r))
    seen: list[str] = []
    con = db._conn
    con.set_trace_callback(seen.append)
    with db.read() as c:
        got = rec.get_many(c, scope, [r.id for r in reversed(recs)] + ["mem_missing"])
        assert rec.get_many(c, Scope("u2"), ["mem_1"]) == {}
    with db.write() as c:
        rec.touch(c, scope, ["mem_1", "mem_2"], 5.0)
        rec.delete_records(c, scope, ["mem_3"])
    con.set_trace_callback(None)
    looked_up = [
        s for s in seen if " IN (" in s and "records" in s and not s.startswith("DELETE FROM v")
    ]
    assert len(looked_up) >= 4
    for sql in looked_up:
        plan = " ".join(
            str(row[3]) for row in inspect.rows(SQLiteStore(db), "EXPLAIN QUERY PLAN " + sql)
        )
        if "FROM records " in sql or sql.startswith("UPDATE records"):
            assert "sqlite_autoindex_records_1 (id=?)" in plan, (sql, plan)
    assert sorted(got) == sorted(r.id for r in recs)  # every stored id, the missing one left out
    db.close()
