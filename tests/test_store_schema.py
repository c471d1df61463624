"""Migrations: a store made by an older version is brought up to date on open."""

from __future__ import annotations

import sqlite3

from openclaw_memory.store import schema
from openclaw_memory.store.db import Database


def test_an_older_store_gets_the_content_hash_index_and_the_replay_check_uses_it(tmp_path, monkeypatch):
    path = tmp_path / "memory.db"
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:2])
    Database(path).close()
    monkeypatch.undo()
    db = Database(path)
    try:
        assert db.schema_version == len(schema.MIGRATIONS)
        with db.read() as conn:
            plan = " ".join(str(tuple(r)) for r in conn.execute(
                "EXPLAIN QUERY PLAN SELECT * FROM records WHERE user_id = ? AND agent_id = ? "
                "AND (type = ? AND content_hash = ?) ORDER BY updated_at DESC LIMIT 20", ("u", "a", "episode", "h")))
        assert "rec_hash" in plan
    finally:
        db.close()
    assert sqlite3.connect(path).execute("SELECT MAX(version) FROM schema_version").fetchone()[0] == len(schema.MIGRATIONS)
