"""Linking a record to the entities it names: one algorithm over every backend's rows.

With the row operations it needs of a backend (`EntityRows`; the SQL store's are
`records.SqlEntityRows`) and the resumable backlog of records stored before entity memory existed.
"""

from __future__ import annotations

import math
import heapq
from typing import Protocol, Sequence, Any, Callable
from ..lang.entities import NAME, Entity, Mentions, nickname_of, normalise
from ..types import MemoryRecord, Status
from .sql import Dialect, row_to_record
from ..errors import ValidationError

# Linking a record to the entities it names: one algorithm over every backend's rows.
#
# What a record names is read on the write side (lang/entities.py `mentions_of`: the aliases its
# text states, the entities of its text and its `entities` field) and comes with the record; the
# store never reads a text in a language. Which of those names are one entity (a stated alias, a
# nickname that begins exactly one longer name) and when a sentence's first capitalised word
# counts (known from elsewhere): that is decided here, once; each backend only answers
# `EntityRows` (a few row operations inside its own write transaction). So SQLite, PostgreSQL and
# the in-memory fake file the same text under the same entities (the contract tests compare
# them).

#: (user id, agent id): entities belong to the pair, whatever the workspace
Owner = tuple[str, str]


class EntityRows(Protocol):
    """The row operations linking needs, in the caller's write transaction."""

    def resolve(self, owner: Owner, key: str) -> int | None:
        """The entity filed under `key`: as an alias first, then as its own key."""

    def by_key(self, owner: Owner, key: str) -> int | None:
        """The entity whose own key is `key` (aliases not consulted)."""

    def create(self, owner: Owner, e: Entity, at: float) -> int | None:
        """A new entity for e, seen at `at`; None when one with its key exists already."""

    def seen(self, eid: int, at: float) -> None:
        """Widen the entity's first and last seen to include `at`."""

    def keys_extending(self, owner: Owner, key: str, limit: int) -> list[tuple[int, str]]:
        """(id, key) of entities whose key begins with `key` and is longer, in key order."""

    def keys_among(self, owner: Owner, keys: Sequence[str]) -> list[tuple[int, str]]:
        """(id, key) of entities whose key is one of `keys`, in key order."""

    def put_alias(self, owner: Owner, alias: str, eid: int, rid: int) -> None:
        """`alias` (a key) names entity eid, as record rid stated; replaces an older alias."""

    def merge(self, source: int, target: int) -> None:
        """Entity `source` is `target`: its links and aliases move over, it goes; target's
        first seen takes source's when earlier."""

    def unlink(self, rid: int) -> None:
        """Remove the record's links (an entity left without links goes, with its aliases)."""

    def add_links(self, owner: Owner, rid: int, ids: Sequence[int], at: float) -> None:
        """Link the record to these entities (a link that exists stays as it is)."""


def link(rows: EntityRows, rid: int, r: MemoryRecord, named: Mentions) -> None:
    """(Re)link record `rid` to what it names (`named`, read by its writer: lang/entities.py
    `mentions_of`); a forgotten record keeps no links."""
    rows.unlink(rid)
    if r.status is Status.INACTIVE:
        return
    owner = (r.scope.user_id, r.scope.agent_id)
    ids: set[int] = set()
    for alias, name in named.aliases:
        eid = _entity(rows, owner, Entity(name, NAME), r.created_at, rid)
        _add_alias(rows, owner, alias, eid, rid)
        ids.add(eid)
    for e in named.entities:
        if e.weak and rows.resolve(owner, e.key) is None:
            continue  # a sentence's first word: a name only when known from elsewhere
        ids.add(_entity(rows, owner, e, r.created_at, rid))
    rows.add_links(owner, rid, sorted(ids), r.created_at)


def _entity(rows: EntityRows, owner: Owner, e: Entity, at: float, rid: int) -> int:
    """The id of e's entity (by alias, then key, then nickname), created if new; seen at `at`."""
    eid = rows.resolve(owner, e.key)
    if eid is None and e.kind == NAME:
        eid = _by_nickname(rows, owner, e, rid)
    if eid is None:
        new = rows.create(owner, e, at)
        if new is not None:
            _absorb_nicknames(rows, owner, new, e, rid)
            return new
        eid = rows.resolve(owner, e.key)
        assert eid is not None  # create() found its key taken
    rows.seen(eid, at)
    return eid


def _add_alias(rows: EntityRows, owner: Owner, alias: str, eid: int, rid: int) -> None:
    """`alias` names entity eid from now on; an entity filed under the alias merges into it."""
    key = normalise(alias)
    old = rows.by_key(owner, key)
    if old is not None and old != eid:
        rows.merge(old, eid)
    rows.put_alias(owner, key, eid, rid)


def _by_nickname(rows: EntityRows, owner: Owner, e: Entity, rid: int) -> int | None:
    """A short name that begins exactly one longer known name (Mel, Melanie) is its alias."""
    key = e.key
    if len(key) < 3 or not key.isascii():
        return None
    found = rows.keys_extending(owner, key, 20)
    longer = nickname_of(e.name, [k for _, k in found])
    if longer is None:
        return None
    eid = next(i for i, k in found if k == longer)
    _add_alias(rows, owner, key, eid, rid)
    return eid


def _absorb_nicknames(rows: EntityRows, owner: Owner, eid: int, e: Entity, rid: int) -> None:
    """A new long name takes over a known short one that begins it (Melanie after Mel)."""
    key = e.key
    if e.kind != NAME or not key.isascii() or " " in key or len(key) < 4:
        return
    for _, short in rows.keys_among(owner, [key[:n] for n in range(3, len(key))]):
        if nickname_of(short, [key]) == key:
            _add_alias(rows, owner, short, eid, rid)


def idf(df: int, total: int) -> float:
    """How much naming an entity tells: log(total / df) / log(total) over the scope's `total`
    live memories, `df` of them linked to it; 1 for a name in one memory, 0 for one in all."""
    if total <= 1 or df <= 0:
        return 1.0 if df > 0 else 0.0
    return max(0.0, min(1.0, math.log(total / df) / math.log(total)))


# Entity links for the records written before entity memory existed: a resumable backlog.
#
# Entity memory (SQLite's migration 10, PostgreSQL's 6) links each record on write; the records
# already stored then had no links. The next migration (SQLite's 11, PostgreSQL's 7) notes the
# backlog in `entity_backfill`: the records up to the newest one at that moment (none in a new
# store). Maintenance works through it a batch at a time, so a large store opens at once and is
# linked in the background: it reads the batch's records that want links (`backlog`), reads what
# each names outside the store (lang/entities.py `named_in`), and hands that to `backfill`, which
# files the batch in one write transaction.
#
# The records are linked oldest first, as their writes would have linked them (the same
# entities, aliases and nicknames, first and last seen from the records' creation times), those
# linked already (written after the migration, or rewritten since) left as they are. A record
# forgotten or replaced since was linked while it was live, so it is linked too, and its links go
# when the backlog is done: its names keep the kind and spelling it gave them first, their first
# sighting its time, the aliases it stated, as on a store that had entity memory all along
# (until then the entity channel, which reads live records only, does not see them). Each batch
# moves the cursor in its own transaction: a run stopped anywhere resumes where it stopped, and
# running it again over a done backlog changes nothing. A record whose text or `entities` field
# changed after maintenance read it (or that it did not read) ends the batch before it: the next
# batch reads it again.

#: records a batch examines (one write transaction)
BATCH = 500

#: a backlog record as maintenance read it, with what it names
Named = tuple[MemoryRecord, Mentions]


def _checked(limit: int) -> int:
    if limit < 1:
        raise ValidationError(f"limit: expected an integer >= 1, found {limit}")
    return limit


class _Batch:
    """The backlog's next `limit` records on conn (none when it is done): the cursor, the
    backlog's end, the rows and the rids among them linked already."""

    def __init__(self, conn: Any, dialect: Dialect, limit: int) -> None:
        self.conn, self.mark = conn, dialect.mark
        state = self.run("SELECT next_rid, upto FROM entity_backfill").fetchone()
        self.start, self.upto = (int(state[0]), int(state[1])) if state is not None else (0, 0)
        self.rows: list[Any] = []
        self.linked: set[int] = set()
        if state is None:
            return
        self.rows = self.run(
            "SELECT * FROM records WHERE rid > ? AND rid <= ? ORDER BY rid LIMIT ?",
            (self.start, self.upto, limit),
        ).fetchall()
        if self.rows:
            first, last = int(self.rows[0]["rid"]), int(self.rows[-1]["rid"])
            self.linked = {
                int(r[0])
                for r in self.run(
                    "SELECT DISTINCT rid FROM entity_links WHERE rid >= ? AND rid <= ?",
                    (first, last),
                ).fetchall()
            }

    def run(self, statement: str, args: tuple = ()) -> Any:
        return self.conn.execute(statement.replace("?", self.mark), args)

    def left_after(self, rid: int) -> int:
        return int(
            self.run(
                "SELECT COUNT(*) FROM records WHERE rid > ? AND rid <= ?", (rid, self.upto)
            ).fetchone()[0]
        )


def backlog(conn: Any, dialect: Dialect, limit: int = BATCH) -> list[MemoryRecord]:
    """The records of the backlog's next `limit` that want links (not linked yet), oldest
    first; none when the backlog is done."""
    batch = _Batch(conn, dialect, _checked(limit))
    return [row_to_record(row) for row in batch.rows if int(row["rid"]) not in batch.linked]


def backfill(
    conn: Any, dialect: Dialect, rows: EntityRows, named: Sequence[Named], limit: int = BATCH
) -> tuple[int, int]:
    """Link the backlog's next `limit` records, in conn's write transaction, with `rows` on the
    same connection and what each record names as maintenance read it (`named`: `backlog`'s
    records with their mentions); returns (records examined, records left)."""
    batch = _Batch(conn, dialect, _checked(limit))
    if not batch.rows:
        return 0, 0
    read = {r.id: (r, m) for r, m in named}
    retired = _Retired(rows, _still_linked(batch.run, batch.start))
    examined, last = 0, batch.start
    for row in batch.rows:
        rid, record = int(row["rid"]), row_to_record(row)
        mentions: Mentions | None = None
        if rid not in batch.linked:
            mentions = _as_read(read.get(record.id), record)
            if mentions is None:
                break  # not read as it is now: the next batch reads it again
        retired.before(record)
        if mentions is not None:
            link(rows, rid, record.replace(status=Status.ACTIVE), mentions)
            if record.status is Status.INACTIVE:
                retired.add(_retired_at(record), rid, record.id)
        examined, last = examined + 1, rid
    if examined:
        batch.run("UPDATE entity_backfill SET next_rid = ?", (last,))
    left = batch.left_after(last)
    if not left:  # done: what is no longer live keeps no links
        retired.unlink_until(math.inf)
    return examined, left


def _as_read(named: Named | None, record: MemoryRecord) -> Mentions | None:
    """What `record` names, when maintenance read it as it is now (its text and `entities`)."""
    if named is None or (named[0].text, named[0].entities) != (record.text, record.entities):
        return None
    return named[1]


def _retired_at(record: MemoryRecord) -> float:
    """When a record stopped being live: replaced (superseded_at), else forgotten (its update)."""
    return record.superseded_at if record.superseded_at is not None else record.updated_at


def _still_linked(run: Callable[..., Any], upto: int) -> list[tuple[float, int, str]]:
    """(retired at, rid, id) of the backlog's records up to `upto` that are no longer live but
    still linked (earlier batches linked them; they lose their links when they retired)."""
    return [
        (float(r[1]), int(r[0]), r[2])
        for r in run(
            "SELECT r.rid, COALESCE(r.superseded_at, r.updated_at), r.id FROM records r "
            "WHERE r.rid <= ? AND r.status = 'inactive' "
            "AND EXISTS (SELECT 1 FROM entity_links l WHERE l.rid = r.rid)",
            (upto,),
        ).fetchall()
    ]


class _Retired:
    """The backlog's retired records still linked, unlinked when their writes unlinked them: a
    replaced version just before the record replacing it is linked (consolidation retires the
    old one first), any other at the first record created after it retired. An entity left
    without links goes then, as it went on the store that had entity memory."""

    def __init__(self, rows: EntityRows, found: list[tuple[float, int, str]]) -> None:
        self.rows = rows
        self.heap = [(at, rid) for at, rid, _ in found]
        heapq.heapify(self.heap)
        self.by_id = {record_id: rid for _, rid, record_id in found}
        self.gone: set[int] = set()

    def add(self, at: float, rid: int, record_id: str) -> None:
        heapq.heappush(self.heap, (at, rid))
        self.by_id[record_id] = rid

    def before(self, record: MemoryRecord) -> None:
        """Unlink what had retired by the time `record` was written."""
        self.unlink_until(record.created_at)
        replaced = self.by_id.get(record.prev_id or "")
        if replaced is not None:
            self._unlink(replaced)

    def unlink_until(self, until: float) -> None:
        while self.heap and self.heap[0][0] < until:
            self._unlink(heapq.heappop(self.heap)[1])

    def _unlink(self, rid: int) -> None:
        if rid not in self.gone:
            self.gone.add(rid)
            self.rows.unlink(rid)
