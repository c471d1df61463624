"""`openclaw-memory migrate --to`: a SQLite store copied into PostgreSQL, counts checked, and
the copy read back through the PostgreSQL record store as the SQLite one reads it."""

from __future__ import annotations

import pytest

from openclaw_memory.cli import main
from openclaw_memory.engine import MemoryEngine
from openclaw_memory.store import records as rec
from openclaw_memory.types import Candidate, Channel, MemoryType, Scope

pytestmark = pytest.mark.postgres

ALICE, BOB = Scope("alice"), Scope("bob")


def _fill(engine: MemoryEngine) -> None:
    for scope in (ALICE, BOB):
        engine.write(
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
        engine.write(
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
    from openclaw_memory.store.postgres.store import PostgresRecordStore

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
