"""`openclaw-memory migrate --to`: a SQLite store copied into PostgreSQL, counts checked, and
the copy read back through the PostgreSQL record store as the SQLite one reads it."""

from __future__ import annotations

import pytest

from openclaw_memory.cli import main
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.store import records as rec
from openclaw_memory.lang.entities import mentions_of
from openclaw_memory.types import Candidate, Channel, MemoryType, Scope, WindowMessage
from store_helpers import writer_of

pytestmark = [pytest.mark.backend, pytest.mark.postgres]

ALICE, BOB = Scope("alice"), Scope("bob")


def _fill(engine: MemoryEngine) -> None:
    for scope in (ALICE, BOB):
        writer_of(engine).write(
            scope,
            [
                Candidate(
                    MemoryType.PREFERENCE, "我喜欢喝咖啡", subject="drink", channel=Channel.EXPLICIT
                ),
                Candidate(
                    MemoryType.FACT, "Lives in Lisbon", subject="city", channel=Channel.EXPLICIT
                ),
            ],
        )
        # a restatement that replaces the first: a version chain
        writer_of(engine).write(
            scope,
            [
                Candidate(
                    MemoryType.PREFERENCE,
                    "我现在喜欢喝茶",
                    subject="drink",
                    channel=Channel.EXPLICIT,
                )
            ],
        )


def test_migrate_copies_the_store_and_checks_counts(make_config, tmp_path, clock, pg_dsn, capsys):
    from openclaw_memory.store.postgres import PostgresRecordStore

    cfg = make_config(tmp_path)
    engine = MemoryEngine.open(cfg, clock=clock, background=False)
    try:
        _fill(engine)
        with engine.db.read() as db:
            want = {
                s: sorted((r.id, r.status.value, r.prev_id) for r in rec.query(db, s, limit=100))
                for s in (ALICE, BOB)
            }
            hits = rec.keyword_search(db, ALICE, "咖啡 Lisbon", statuses=("active", "inactive"))
        entities = {s: engine.store.entity_list(s) for s in (ALICE, BOB)}
        assert "Lisbon" in {e["name"] for e in entities[ALICE]}
    finally:
        engine.close()
    yaml = tmp_path / "c.yaml"
    yaml.write_text(
        f"storage:\n  data_dir: {tmp_path}\n  embedding_model: hash\n", encoding="utf-8"
    )
    assert main(["--config", str(yaml), "migrate", "--to", pg_dsn]) == 0
    out = capsys.readouterr().out
    assert "records" in out and "counts match" in out
    store = PostgresRecordStore.open(pg_dsn)
    try:
        for s in (ALICE, BOB):
            got = sorted(
                (r.id, r.status.value, r.prev_id)
                for r in store.listing(s, curated_only=False, limit=100)
            )
            assert got == want[s]
        assert {
            i
            for i, _ in store.keyword_search(ALICE, "咖啡 Lisbon", statuses=("active", "inactive"))
        } == {i for i, _ in hits}
        assert store.embedder() is not None and store.audit_log(ALICE)
        assert {s: store.entity_list(s) for s in (ALICE, BOB)} == entities  # relinked
    finally:
        store.close()
    # a second copy into the same database is refused and changes nothing
    assert main(["--config", str(yaml), "migrate", "--to", pg_dsn]) == 2
    assert "already holds records" in capsys.readouterr().err


#: SQLite tables a copy does not carry over, and why: FTS5's own (the keyword index is made
#: from their tokens), SQLite's and the schema's bookkeeping (each backend migrates its own),
#: leases (held by the processes of the store being left).
_NOT_COPIED = {"sqlite_sequence", "schema_version", "leases"}
#: derived rows both backends keep, compared row for row
_DERIVED = {
    "record_counts": "user_id, agent_id, status, type, n",
    "record_turns": "user_id, agent_id, turn_id, rid",
}


def test_migrate_copies_every_kind_of_row(make_config, tmp_path, clock, pg_dsn):
    """Every table of a SQLite store with rows in it arrives with as many rows (a new table the
    copy forgets fails here: the fill below must give it rows first), the derived ones equal."""
    import sqlite3

    import psycopg

    from openclaw_memory.store.sqlite import SQLiteStore

    cfg = make_config(tmp_path)
    engine = MemoryEngine.open(cfg, clock=clock, background=False)
    try:
        _fill(engine)
        writer_of(engine).write(
            ALICE,
            [
                Candidate(
                    MemoryType.FACT,
                    "Mel is short for Melanie, who lives in Porto",
                    subject="friend",
                    channel=Channel.EXPLICIT,
                    turn_ids=("t1",),
                )
            ],
        )
        s, now = engine.store, clock.now()
        s.open_session(ALICE, "s1", now)
        s.append_message(ALICE, WindowMessage("s1", "user", "我明天去波尔图", 9, "t1", now))
        s.acquire_lease("maintenance", "test", now, 60)
        s.finish_run(s.begin_run("manual", "test", now), now + 1, "ok", "{}", None)
    finally:
        engine.close()  # drains the outbox: the edit below queues an entry after it
    store = SQLiteStore.open(cfg.sqlite_file)
    try:
        mel = next(
            r for r in store.listing(ALICE, curated_only=False, limit=100) if r.subject == "friend"
        )
        with store.transaction():  # an edit in place: a kept version, an index entry queued
            store.save_version(mel, clock.now())
            store.update(mel, None, "hash", reindex=False, mentions=mentions_of(mel))
    finally:
        store.close()
    with sqlite3.connect(cfg.sqlite_file) as src:
        tables = [
            r[0]
            for r in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not r[0].startswith("records_fts") and r[0] not in _NOT_COPIED
        ]
        want = {t: src.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}
        derived = {
            t: sorted(src.execute(f"SELECT {cols} FROM {t}").fetchall())
            for t, cols in _DERIVED.items()
        }
    assert {t for t, n in want.items() if n == 0} == set(), "give every table rows to copy"
    yaml = tmp_path / "c.yaml"
    yaml.write_text(
        f"storage:\n  data_dir: {tmp_path}\n  embedding_model: hash\n", encoding="utf-8"
    )
    assert main(["--config", str(yaml), "migrate", "--to", pg_dsn]) == 0
    with psycopg.connect(pg_dsn) as dst:
        have = {t: dst.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}
        assert have == want
        for t, cols in _DERIVED.items():
            assert sorted(tuple(r) for r in dst.execute(f"SELECT {cols} FROM {t}")) == derived[t]
        docs, length = dst.execute("SELECT SUM(docs), SUM(length) FROM keyword_stats").fetchone()
        assert docs == want["records"]
        assert length == dst.execute("SELECT SUM(length) FROM keyword_docs").fetchone()[0]
        # the sequences continue after the copied keys: a new row takes no copied one's key
        top = dst.execute("SELECT MAX(rid) FROM records").fetchone()[0]
        assert dst.execute("SELECT nextval('records_rid_seq')").fetchone()[0] > top
