"""Linking a record to the entities it names: one algorithm over every backend's rows.

Which names a text holds, which of them are one entity (a stated alias, a nickname that begins
exactly one longer name), when a sentence's first capitalised word counts: that is decided
here, once; each backend only answers `EntityRows` (a few row operations inside its own write
transaction). So SQLite, PostgreSQL and the in-memory fake file the same text under the same
entities (the contract tests compare them).
"""

from __future__ import annotations

import math
from typing import Protocol, Sequence

from ..extract.entities import NAME, Entity, aliases, extract, nickname_of, normalise
from ..types import MemoryRecord, Status

#: a given name longer than this is a path or a sentence, not a name
MAX_NAME = 60

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


def link(rows: EntityRows, rid: int, r: MemoryRecord) -> None:
    """(Re)link record `rid` to the entities its text and its `entities` field name; a
    forgotten record keeps no links."""
    rows.unlink(rid)
    if r.status is Status.INACTIVE:
        return
    owner = (r.scope.user_id, r.scope.agent_id)
    given = tuple(e for e in r.entities if 0 < len(e) <= MAX_NAME)
    ids: set[int] = set()
    for alias, name in aliases(r.text):
        eid = _entity(rows, owner, Entity(name, NAME), r.created_at, rid)
        _add_alias(rows, owner, alias, eid, rid)
        ids.add(eid)
    for e in extract(r.text, given):
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
