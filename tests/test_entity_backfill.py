"""Entity links for the records stored before entity memory existed (store/entity_linking.py).

A store is written with entity memory, then taken back to the schema before it (the entity
tables gone, the migrations after it forgotten) and opened again: the migrations note every
record as the backlog, and the backfill must link them exactly as the writes did (same
entities, aliases, first and last seen, links), in Chinese and English, on SQLite and
PostgreSQL, in batches of any size, and a second run must change nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
from store_backends import RECORD_STORES

from openclaw_memory.runtime.factory import maintenance_ports
from openclaw_memory.errors import ValidationError
from openclaw_memory.maintain.runner import link_backlog, link_batch
from openclaw_memory.store.ports import RecordStore
from openclaw_memory.lang.entities import mentions_of, named_in
from openclaw_memory.types import MemoryRecord, MemoryType, Scope, Status
from store_helpers import writer_of
from openclaw_memory.store import inspect

ALICE, BOB = Scope("alice", "a1"), Scope("bob", "a1")
WS = Scope("alice", "a1", "work")

TEXTS = [
    (ALICE, "Melanie ran a charity race in May."),
    (ALICE, "Mel is short for Melanie, by the way."),
    (ALICE, "Caroline moved to Lisbon last year."),
    (ALICE, "In Lisbon, Caroline joined a support group."),
    (ALICE, "用户的同事王伟在北京工作。"),
    (ALICE, "小王是王伟的昵称，他上周去了上海。"),
    (WS, "The Acme project ships in June; Caroline leads it."),
    (BOB, "Bob visited Quasimodo's pond with Caroline."),
    (BOB, "张伟下个月去杭州出差。"),
    (ALICE, "Yesterday Melanie painted a sunrise."),
    (ALICE, "Nothing here names anyone at all."),
]


def _records() -> list[MemoryRecord]:
    out = []
    for n, (scope, text) in enumerate(TEXTS, start=1):
        episode = n % 3 == 0
        out.append(
            MemoryRecord(
                id=f"m{n}",
                scope=scope,
                type=MemoryType.EPISODE if episode else MemoryType.FACT,
                summary=text,
                session_id="s1" if episode else None,
                entities=("Acme",) if "Acme" in text else (),
                created_at=1000.0 + 10 * n,
                updated_at=1000.0 + 10 * n,
            )
        )
    return out


def write(store: RecordStore, records: list[MemoryRecord]) -> None:
    with store.transaction():
        for r in records:
            store.insert(r, None, "none", mentions=mentions_of(r))


def snapshot(store: RecordStore, records: list[MemoryRecord]) -> dict[str, Any]:
    """Entity memory as the port shows it, without the backend's entity ids."""
    out: dict[str, Any] = {}
    for scope in (ALICE, BOB, WS):
        ids = [r.id for r in records if r.scope.key == scope.key]
        linked = store.entities_of(scope, ids)
        names = store.entity_names(scope, {e for es in linked.values() for e in es})
        out[scope.key] = {
            "entities": sorted(store.entity_list(scope), key=lambda e: e["name"]),
            "links": {rid: sorted(names[e] for e in es) for rid, es in linked.items()},
        }
    return out


# ---- taking a store back to the schema before entity memory ----------------------------------


def _sqlite_before(tmp: Path, store: RecordStore) -> RecordStore:
    from openclaw_memory.store.sqlite import SQLiteStore

    inspect.execute(
        store,
        [
            "DROP TRIGGER ent_links_delete",
            "DROP TRIGGER ent_links_forget",
            "DROP TABLE entity_links",
            "DROP TABLE entity_aliases",
            "DROP TABLE entities",
            "DROP TABLE entity_backfill",
            "DELETE FROM schema_version WHERE version >= 10",
        ],
    )
    store.close()
    return SQLiteStore.open(tmp / "memory.db")


def _postgres_before(tmp: Path, store: RecordStore) -> RecordStore:
    from pg_server import database_for

    from openclaw_memory.store.postgres import PostgresRecordStore

    inspect.execute(
        store,
        [
            "DROP FUNCTION ent_record_gone() CASCADE",
            "DROP FUNCTION ent_orphan() CASCADE",
            "DROP FUNCTION ent_aliases_gone() CASCADE",
            "DROP TABLE entity_links",
            "DROP TABLE entity_aliases",
            "DROP TABLE entities",
            "DROP TABLE entity_backfill",
            "DELETE FROM schema_version WHERE version >= 6",
        ],
    )
    store.close()
    return PostgresRecordStore.open(database_for(tmp))


BEFORE: dict[str, Callable[[Path, RecordStore], RecordStore]] = {
    "sqlite": _sqlite_before,
    "postgres": _postgres_before,
}


@pytest.fixture(params=sorted(BEFORE))
def backend(request, tmp_path):
    """(store, take_back): a store of the backend and what takes it to the old schema."""
    made: list[RecordStore] = [RECORD_STORES[request.param](tmp_path)]

    def take_back() -> RecordStore:
        made.append(BEFORE[request.param](tmp_path, made[-1]))
        return made[-1]

    yield made[0], take_back
    made[-1].close()


def test_a_fresh_store_has_no_backlog(backend):
    store, _ = backend
    write(store, _records())
    assert link_batch(store, 100) == (0, 0)


@pytest.mark.parametrize("batch", [1, 4, 500])
def test_the_backfill_links_older_records_as_their_writes_did(backend, batch):
    store, take_back = backend
    records = _records()
    write(store, records)
    # forgotten after the others were written: it loses its links, its names keep their first
    # sighting at its time (Lisbon), as the backfill must leave them too
    records[2] = records[2].replace(status=Status.INACTIVE, updated_at=2000.0)
    with store.transaction():
        store.update(records[2], None, "none", reindex=False, mentions=mentions_of(records[2]))
    fresh = snapshot(store, records)
    lisbon = next(e for e in fresh[ALICE.key]["entities"] if e["name"] == "Lisbon")
    assert lisbon["first_seen"] == records[2].created_at
    assert fresh[ALICE.key]["links"]["m2"] == ["Melanie"]  # the alias was linked
    assert "王伟" in fresh[ALICE.key]["links"]["m6"]
    assert "m3" not in fresh[ALICE.key]["links"]

    store = take_back()
    assert store.entity_list(ALICE) == []  # the old store: no entity memory
    examined, calls = 0, 0
    while True:
        n, left = link_batch(store, batch)
        examined, calls = examined + n, calls + 1
        if not left:
            break
    assert examined == len(records) and calls == -(-len(records) // batch)
    assert snapshot(store, records) == fresh

    assert link_batch(store, batch) == (0, 0)  # done: nothing changes
    assert snapshot(store, records) == fresh


def test_the_backlog_is_the_records_of_the_migration_and_linked_ones_stay(backend):
    store, take_back = backend
    records = _records()
    write(store, records[:4])
    store = take_back()
    write(store, records[4:])  # written after the migration: linked on write, no backlog
    rewritten = records[0].replace(summary="Melanie ran a charity race in Porto.", version=2)
    with store.transaction():  # rewritten since: linked again by its update
        store.update(rewritten, None, "none", reindex=True, mentions=mentions_of(rewritten))
    before = snapshot(store, records)
    assert before[ALICE.key]["links"]["m1"] == ["Melanie", "Porto"]
    assert [r.id for r in store.entity_backlog(500)] == ["m2", "m3", "m4"]  # m1 is linked
    assert link_batch(store, 500) == (4, 0)
    after = snapshot(store, records)
    for scope_key, part in before.items():
        for rid, names in part["links"].items():
            assert after[scope_key]["links"][rid] == names
    assert after[ALICE.key]["links"]["m4"] == ["Caroline", "Lisbon"]
    assert after[ALICE.key]["links"]["m2"] == ["Melanie"]


@pytest.mark.parametrize(
    ("at", "now_says"),
    [(2, "Caroline moved to Porto last year."), (4, "用户的同事王伟在上海工作。")],
)
def test_a_record_not_read_as_it_is_ends_the_batch_before_it(backend, at, now_says):
    """What each record names is read before the store's write transaction: a record whose
    text was not read as it is now (or not read at all) waits for the next batch."""
    store, take_back = backend
    records = _records()
    write(store, records)
    fresh = snapshot(store, records)
    store = take_back()
    backlog = store.entity_backlog(500)
    assert [r.id for r in backlog] == [r.id for r in records]
    named = [(r, named_in(r.text, r.entities)) for r in backlog]
    other = backlog[at].replace(summary=now_says)
    named[at] = (other, named_in(other.text, other.entities))
    assert store.backfill_entity_links(named, 500) == (at, len(records) - at)
    assert store.backfill_entity_links([], 500) == (0, len(records) - at)  # none read
    assert link_batch(store, 500) == (len(records) - at, 0)
    assert snapshot(store, records) == fresh


def test_a_bad_batch_size_is_refused(backend):
    store, _ = backend
    with pytest.raises(ValidationError, match="limit: expected an integer >= 1, found 0"):
        store.entity_backlog(0)
    with pytest.raises(ValidationError, match="limit: expected an integer >= 1, found 0"):
        store.backfill_entity_links([], 0)


def test_the_in_memory_store_has_nothing_to_link():
    store = RECORD_STORES["memory"](Path("."))
    write(store, _records())
    assert store.entity_backlog(10) == []
    assert link_batch(store, 10) == (0, 0)


def test_maintenance_links_the_backlog_within_its_budget(backend):
    store, take_back = backend
    records = _records()
    write(store, records)
    fresh = snapshot(store, records)
    store = take_back()
    assert link_backlog(store, budget=4) == 4  # the rest waits for the next run
    assert link_backlog(store, budget=None) == len(records) - 4
    assert link_backlog(store, budget=None) == 0
    assert snapshot(store, records) == fresh


@pytest.mark.postgres
def test_a_store_copied_into_postgres_keeps_its_backlog(tmp_path, pg_dsn):
    from openclaw_memory.store.postgres import PostgresDatabase
    from openclaw_memory.store.postgres.migrate import copy_store
    from openclaw_memory.store.postgres import PostgresRecordStore

    records = _records()
    old = RECORD_STORES["sqlite"](tmp_path)
    write(old, records)
    fresh = snapshot(old, records)
    old = _sqlite_before(tmp_path, old)
    assert link_batch(old, 3) == (3, len(records) - 3)  # begun, then copied
    old.close()
    target = PostgresDatabase(pg_dsn)
    copy_store(tmp_path / "memory.db", target)
    store = PostgresRecordStore(target)
    try:
        assert link_batch(store, 500) == (len(records) - 3, 0)
        assert snapshot(store, records) == fresh
    finally:
        store.close()


@pytest.mark.real_store("SQLite's schema taken back to before entity memory")
@pytest.mark.sqlite_only  # takes SQLite's schema back; PostgreSQL's: the tests above
def test_a_maintenance_run_over_the_store_links_the_backlog(config, clock):
    from openclaw_memory.runtime.engine import MemoryEngine
    from openclaw_memory.maintain import run_maintenance
    from openclaw_memory.types import Candidate

    eng = MemoryEngine.open(config, clock=clock, background=False)
    for text in ("Caroline moved to Lisbon last year.", "小王是王伟的昵称，他上周去了上海。"):
        writer_of(eng).write(ALICE, [Candidate(MemoryType.EPISODE, text)], session_id="s1")
    fresh = sorted(eng.store.entity_list(ALICE), key=lambda e: e["name"])
    path = eng.db.path
    eng.close()
    _sqlite_before(Path(path).parent, RECORD_STORES["sqlite"](Path(path).parent))
    eng = MemoryEngine.open(config, clock=clock, background=False)
    try:
        assert eng.store.entity_list(ALICE) == []
        assert (
            run_maintenance(maintenance_ports(eng), ALICE).entity_backlog == 0
        )  # one partition: not its job
        report = run_maintenance(maintenance_ports(eng))
        assert report.entity_backlog >= 2 and report.changed == 0
        assert sorted(eng.store.entity_list(ALICE), key=lambda e: e["name"]) == fresh
        assert run_maintenance(maintenance_ports(eng)).entity_backlog == 0
    finally:
        eng.close()
