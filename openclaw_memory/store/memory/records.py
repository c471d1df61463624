"""Records, recall and consolidation look-ups, versions, outbox and entity memory, in dicts."""

from __future__ import annotations

import json
import numpy as np
from typing import Any, Iterable, Sequence, Callable
from ...errors import ValidationError
from ...lang.entities import Entity, Mentions
from ...types import MemoryRecord, Scope, Status
from ..entity_linking import Named, Owner, idf, link
from .base import MemoryBase, State, in_scope, SearchMixin
from ...core.policy import type_values, types_where
from ...lang.text import search_tokens
from ..ports import content_hash

# Entity memory in the in-memory store: entities, aliases and links in dicts, linked by the
# same algorithm as every backend (`store/entity_linking.py`).


class MemoryEntityRows:
    """`entity_linking.EntityRows` over the store's state; removing links removes an entity
    left without any, and its aliases (as the SQLite store's triggers do)."""

    def __init__(self, s: State) -> None:
        self.e = s.entities

    def _key(self, owner: Owner, key: str) -> int | None:
        for eid, row in self.e.entities.items():
            if (row["user_id"], row["agent_id"], row["key"]) == (*owner, key):
                return eid
        return None

    def resolve(self, owner: Owner, key: str) -> int | None:
        alias = self.e.aliases.get((*owner, key))
        return alias[0] if alias is not None else self._key(owner, key)

    def by_key(self, owner: Owner, key: str) -> int | None:
        return self._key(owner, key)

    def create(self, owner: Owner, e: Entity, at: float) -> int | None:
        if self._key(owner, e.key) is not None:
            return None
        self.e.seq += 1
        self.e.entities[self.e.seq] = {
            "user_id": owner[0],
            "agent_id": owner[1],
            "key": e.key,
            "name": e.name,
            "kind": e.kind,
            "first_seen": at,
            "last_seen": at,
        }
        return self.e.seq

    def seen(self, eid: int, at: float) -> None:
        row = self.e.entities[eid]
        row["first_seen"], row["last_seen"] = min(row["first_seen"], at), max(row["last_seen"], at)

    def _owned(self, owner: Owner) -> list[tuple[int, str]]:
        return sorted(
            (
                (i, r["key"])
                for i, r in self.e.entities.items()
                if (r["user_id"], r["agent_id"]) == owner
            ),
            key=lambda row: row[1],
        )

    def keys_extending(self, owner: Owner, key: str, limit: int) -> list[tuple[int, str]]:
        return [(i, k) for i, k in self._owned(owner) if k.startswith(key) and k != key][:limit]

    def keys_among(self, owner: Owner, keys: Sequence[str]) -> list[tuple[int, str]]:
        wanted = set(keys)
        return [(i, k) for i, k in self._owned(owner) if k in wanted]

    def put_alias(self, owner: Owner, alias: str, eid: int, rid: int) -> None:
        self.e.aliases[(owner[0], owner[1], alias)] = (eid, rid)

    def merge(self, source: int, target: int) -> None:
        for (eid, rid), link_row in list(self.e.links.items()):
            if eid == source:
                self.e.links.setdefault((target, rid), link_row)
        for key, (eid, rid) in list(self.e.aliases.items()):
            if eid == source:
                self.e.aliases[key] = (target, rid)
        first = self.e.entities[source]["first_seen"]
        row = self.e.entities[target]
        row["first_seen"] = min(row["first_seen"], first)
        self._remove_links(lambda eid, rid: eid == source)
        self._remove_entity(source)

    def unlink(self, rid: int) -> None:
        self._remove_links(lambda eid, r: r == rid)

    def add_links(self, owner: Owner, rid: int, ids: Sequence[int], at: float) -> None:
        for eid in ids:
            self.e.links.setdefault((eid, rid), (*owner, at))

    def drop_record(self, rid: int) -> None:
        """A deleted record: its links and the aliases it stated go."""
        self.unlink(rid)
        for key in [k for k, (_, r) in self.e.aliases.items() if r == rid]:
            del self.e.aliases[key]

    def _remove_links(self, gone: Any) -> None:
        dropped = {eid for eid, rid in self.e.links if gone(eid, rid)}
        self.e.links = {k: v for k, v in self.e.links.items() if not gone(*k)}
        linked = {eid for eid, _ in self.e.links}
        for eid in dropped - linked:
            self._remove_entity(eid)

    def _remove_entity(self, eid: int) -> None:
        self.e.entities.pop(eid, None)
        for key in [k for k, (e, _) in self.e.aliases.items() if e == eid]:
            del self.e.aliases[key]


def _check_limit(limit: int) -> None:
    if limit < 1:
        raise ValidationError(f"limit: expected an integer >= 1, found {limit}")


class EntitiesMixin(MemoryBase):
    def _link_entities(self, record: MemoryRecord, mentions: Mentions) -> None:
        link(MemoryEntityRows(self.s), self.s.rids[record.id], record, mentions)

    def _drop_entities(self, record_id: str) -> None:
        rid = self.s.rids.get(record_id)
        if rid is not None:
            MemoryEntityRows(self.s).drop_record(rid)

    def _owner_entities(self, scope: Scope) -> dict[int, dict[str, Any]]:
        owner = (scope.user_id, scope.agent_id)
        return {
            i: r
            for i, r in self.s.entities.entities.items()
            if (r["user_id"], r["agent_id"]) == owner
        }

    def _records_by_rid(self, scope: Scope) -> dict[int, MemoryRecord]:
        return {self.s.rids[r.id]: r for r in self._scoped(scope)}

    def entity_backlog(self, limit: int = 500) -> list[MemoryRecord]:
        """No backlog: this store links every record on write and never held older ones."""
        _check_limit(limit)
        return []

    def backfill_entity_links(self, named: Sequence[Named], limit: int = 500) -> tuple[int, int]:
        """Nothing to link (see `entity_backlog`)."""
        _check_limit(limit)
        return 0, 0

    def entities_named(self, scope: Scope, keys: Iterable[str]) -> dict[int, str]:
        mine = self._owner_entities(scope)
        out: dict[int, str] = {}
        for key in sorted({k for k in keys if k}):
            for i, row in mine.items():
                if row["key"] == key:
                    out[i] = row["name"]
            alias = self.s.entities.aliases.get((scope.user_id, scope.agent_id, key))
            if alias is not None and alias[0] in mine:
                out[alias[0]] = mine[alias[0]]["name"]
        return out

    def entity_weights(self, scope: Scope, ids: Sequence[int]) -> dict[int, float]:
        owner = (scope.user_id, scope.agent_id)
        total = sum(
            1
            for r in self.s.records.values()
            if (r.scope.user_id, r.scope.agent_id) == owner
            and r.status.value in ("active", "archived")
        )
        wanted = set(ids)
        df: dict[int, int] = {}
        for (eid, _), (user, agent, _) in self.s.entities.links.items():
            if eid in wanted and (user, agent) == owner:
                df[eid] = df.get(eid, 0) + 1
        return {eid: idf(n, total) for eid, n in df.items()}

    def records_naming(
        self,
        scope: Scope,
        ids: Sequence[int],
        *,
        statuses: Sequence[str] = ("active",),
        limit: int = 200,
    ) -> list[tuple[str, int]]:
        wanted, by_rid = set(ids), self._records_by_rid(scope)
        owner = (scope.user_id, scope.agent_id)
        rows = [
            (seen, rid, eid)
            for (eid, rid), (user, agent, seen) in self.s.entities.links.items()
            if eid in wanted
            and (user, agent) == owner
            and rid in by_rid
            and by_rid[rid].status.value in statuses
        ]
        rows.sort(key=lambda row: (-row[0], -row[1], row[2]))
        return [(by_rid[rid].id, eid) for _, rid, eid in rows[:limit]]

    def entities_of(self, scope: Scope, record_ids: Sequence[str]) -> dict[str, set[int]]:
        wanted = set(record_ids)
        by_rid = {rid: r for rid, r in self._records_by_rid(scope).items() if r.id in wanted}
        out: dict[str, set[int]] = {}
        for eid, rid in self.s.entities.links:
            if rid in by_rid:
                out.setdefault(by_rid[rid].id, set()).add(eid)
        return out

    def entity_names(self, scope: Scope, ids: Iterable[int]) -> dict[int, str]:
        mine = self._owner_entities(scope)
        return {i: mine[i]["name"] for i in sorted(set(ids)) if i in mine}

    def entity_list(self, scope: Scope, limit: int = 1000) -> list[dict[str, Any]]:
        mine = self._owner_entities(scope)
        links: dict[int, int] = {}
        for eid, _ in self.s.entities.links:
            links[eid] = links.get(eid, 0) + 1
        aliases: dict[int, list[str]] = {}
        for (user, agent, alias), (eid, _) in self.s.entities.aliases.items():
            if (user, agent) == (scope.user_id, scope.agent_id):
                aliases.setdefault(eid, []).append(alias)
        order = sorted(mine, key=lambda i: (-links.get(i, 0), i))[:limit]
        return [
            {
                "name": mine[i]["name"],
                "kind": mine[i]["kind"],
                "aliases": sorted(aliases.get(i, [])),
                "first_seen": mine[i]["first_seen"],
                "last_seen": mine[i]["last_seen"],
                "links": links.get(i, 0),
            }
            for i in order
        ]


# Records, recall and consolidation look-ups, versions and outbox, in dicts (keyword and vector
# reads: search.py).

#: curated types distilled from turns (the policy table): a retired one marks its turns outdated
_DISTILLED = set(type_values(types_where(distilled=True)))


def _newest_update(rows: list[MemoryRecord]) -> list[MemoryRecord]:
    return sorted(rows, key=lambda r: -r.updated_at)


class RecordsMixin(SearchMixin, EntitiesMixin):
    # ---- writes ---------------------------------------------------------------------------

    def _enqueue(self, r: MemoryRecord, op: str, at: float) -> None:
        self.s.outbox.append(
            {
                "seq": self.s.next_seq(),
                "record_id": r.id,
                "user_id": r.scope.user_id,
                "agent_id": r.scope.agent_id,
                "op": op,
                "created_at": at,
            }
        )

    def put_vector(self, record: MemoryRecord, vector: np.ndarray, model: str) -> None:
        arr = np.array(vector, dtype=np.float32)
        self.s.vectors[record.id] = {
            "model": model,
            "content_hash": content_hash(record),
            "dim": int(arr.shape[0]),
            "vec": arr,
            "parts": None,
        }

    def insert(
        self, record: MemoryRecord, vector: np.ndarray | None, model: str, *, mentions: Mentions
    ) -> None:
        with self.transaction():
            if record.id in self.s.records:
                raise ValueError(f"record id {record.id!r} exists already")
            self.s.records[record.id] = record
            self.s.rids[record.id] = self.s.next_seq()
            self.s.tokens[record.id] = search_tokens(record.text)
            self._link_entities(record, mentions)
            if vector is not None:
                self.put_vector(record, vector, model)
            if record.status is not Status.INACTIVE:
                self._enqueue(record, "upsert", record.created_at)

    def update(
        self,
        record: MemoryRecord,
        vector: np.ndarray | None,
        model: str,
        *,
        reindex: bool,
        mentions: Mentions,
    ) -> None:
        with self.transaction():
            if record.id not in self.s.records:
                return
            self.s.records[record.id] = record
            self._link_entities(record, mentions)  # a forgotten record loses its links
            if reindex:
                self.s.tokens[record.id] = search_tokens(record.text)
                if vector is not None:
                    self.put_vector(record, vector, model)
            op = "delete" if record.status is Status.INACTIVE else "upsert"
            self._enqueue(record, op, record.updated_at)

    def put_parts(self, record: MemoryRecord, parts: np.ndarray | None) -> None:
        row = self.s.vectors.get(record.id)
        if row is not None and row["content_hash"] == content_hash(record):
            keep = parts is not None and len(parts)
            row["parts"] = np.array(parts, dtype=np.float32).reshape(-1) if keep else None

    def save_version(self, old: MemoryRecord, superseded_at: float) -> None:
        self.s.versions[(old.id, old.version)] = {
            "record_id": old.id,
            "version": old.version,
            "user_id": old.scope.user_id,
            "agent_id": old.scope.agent_id,
            "summary": old.summary,
            "detail": old.detail,
            "channel": old.source.channel.value,
            "confidence": old.confidence,
            "turn_ids": json.dumps(list(old.source.turn_ids)),
            "valid_from": old.updated_at,
            "superseded_at": superseded_at,
        }

    def touch(self, scope: Scope, ids: Sequence[str], at: float) -> None:
        with self.transaction():
            for i in dict.fromkeys(ids):
                r = self.s.records.get(i)
                if r is not None and in_scope(r, scope):
                    self.s.records[i] = r.replace(
                        access_count=r.access_count + 1, last_accessed_at=at
                    )

    def _drop(self, record_id: str) -> None:
        self._drop_entities(record_id)
        self.s.records.pop(record_id, None)
        self.s.rids.pop(record_id, None)
        self.s.tokens.pop(record_id, None)
        self.s.vectors.pop(record_id, None)
        for key in [k for k in self.s.versions if k[0] == record_id]:
            del self.s.versions[key]

    def delete_records(self, scope: Scope, ids: Sequence[str]) -> int:
        with self.transaction():
            gone = [
                self.s.records[i]
                for i in dict.fromkeys(ids)
                if i in self.s.records and in_scope(self.s.records[i], scope)
            ]
            for r in gone:
                self._drop(r.id)
                self._enqueue(r.replace(scope=Scope(scope.user_id, scope.agent_id)), "delete", 0)
            return len(gone)

    # ---- reads ----------------------------------------------------------------------------

    def _select(
        self, scope: Scope, keep: Callable[[MemoryRecord], bool], limit: int | None = None
    ) -> list[MemoryRecord]:
        rows = [r for r in self._scoped(scope) if keep(r)]
        return rows if limit is None else rows[:limit]

    def get(self, scope: Scope, record_id: str) -> MemoryRecord | None:
        r = self.s.records.get(record_id)
        return r if r is not None and in_scope(r, scope) else None

    def get_many(self, scope: Scope, ids: Iterable[str]) -> dict[str, MemoryRecord]:
        out = {}
        for i in dict.fromkeys(ids):
            r = self.get(scope, i)
            if r is not None:
                out[i] = r
        return out

    def in_written_order(self, scope: Scope, ids: Sequence[str]) -> list[MemoryRecord]:
        wanted = set(ids)
        return self._select(scope, lambda r: r.id in wanted)

    def live_subjects(self, scope: Scope, limit: int = 2000) -> list[str]:
        subjects = {r.subject for r in self._scoped(scope) if r.status is Status.ACTIVE}
        return sorted(s for s in subjects if s is not None)[:limit]

    def live_by_subject(
        self,
        scope: Scope,
        subjects: Sequence[str],
        *,
        types: Sequence[str] | None = None,
        limit: int = 20,
    ) -> list[MemoryRecord]:
        names, kinds = set(subjects), None if types is None else set(types)
        rows = self._select(
            scope,
            lambda r: (
                r.status is Status.ACTIVE
                and r.subject in names
                and (kinds is None or r.type.value in kinds)
            ),
        )
        return _newest_update(rows)[:limit]

    def recent_important(
        self, scope: Scope, since: float, min_importance: float, limit: int
    ) -> list[MemoryRecord]:
        rows = self._select(
            scope,
            lambda r: (
                r.status is Status.ACTIVE
                and r.updated_at >= since
                and r.importance >= min_importance
                and r.type.value not in ("episode", "summary")
            ),
        )
        return _newest_update(rows)[:limit]

    def profile(
        self, scope: Scope, types: Sequence[str], whitelist: Sequence[str], limit: int = 20
    ) -> list[MemoryRecord]:
        kinds, names = set(types), set(whitelist)
        rows = self._select(
            scope,
            lambda r: (
                r.status is Status.ACTIVE
                and r.type.value in kinds
                and r.doubt_of is None
                and (not names or r.subject in names)
            ),
        )
        return sorted(rows, key=lambda r: (-r.importance, -r.updated_at))[:limit]

    def latest_summaries(self, scope: Scope, count: int) -> list[MemoryRecord]:
        rows = self._select(
            scope, lambda r: r.status is Status.ACTIVE and r.type.value == "summary"
        )
        return sorted(rows, key=lambda r: -r.created_at)[: max(count, 0)]

    def live_claims(
        self,
        scope: Scope,
        types: Sequence[str],
        *,
        subject: str | None = None,
        created_before: float | None = None,
        limit: int = 500,
    ) -> list[MemoryRecord]:
        kinds = set(types)
        rows = self._select(
            scope,
            lambda r: (
                r.status is Status.ACTIVE
                and r.type.value in kinds
                and (subject is None or r.subject == subject)
                and r.doubt_of is None
                and (created_before is None or r.created_at <= created_before)
            ),
        )
        return _newest_update(rows)[:limit]

    def copies_of_text(
        self, scope: Scope, type_: str, content_hash_: str, limit: int = 20
    ) -> list[MemoryRecord]:
        rows = self._select(
            scope, lambda r: r.type.value == type_ and content_hash(r) == content_hash_
        )
        return _newest_update(rows)[:limit]

    def live_episodes_before(
        self, scope: Scope, at: float, limit: int, *, exclude: str | None = None
    ) -> list[MemoryRecord]:
        rows = self._live_episodes(scope, exclude, lambda r: r.created_at <= at)
        return sorted(rows, key=lambda r: -r.created_at)[:limit]

    def live_episodes_saying(
        self, scope: Scope, summary: str, *, exclude: str, limit: int = 50
    ) -> list[MemoryRecord]:
        rows = self._live_episodes(scope, exclude, lambda r: r.summary == summary)
        return _newest_update(rows)[:limit]

    def _live_episodes(
        self, scope: Scope, exclude: str | None, keep: Callable[[MemoryRecord], bool]
    ) -> list[MemoryRecord]:
        """The scope's live episodes, but `exclude`, that `keep` keeps."""
        return self._select(
            scope,
            lambda r: (
                r.status is Status.ACTIVE
                and r.type.value == "episode"
                and r.id != exclude
                and keep(r)
            ),
        )

    def session_episodes(
        self, scope: Scope, session_id: str, limit: int = 2000
    ) -> list[MemoryRecord]:
        rows = self._select(
            scope, lambda r: r.session_id == session_id and r.type.value == "episode"
        )
        return sorted(rows, key=lambda r: r.created_at)[:limit]

    def session_neighbours(
        self, scope: Scope, record_id: str, *, before: int, after: int, now: float
    ) -> tuple[list[MemoryRecord], list[MemoryRecord]]:
        r0 = self.get(scope, record_id)
        if r0 is None or r0.session_id is None:
            return [], []
        key0 = (r0.created_at, self.s.rids[r0.id])
        live = self._select(
            scope,
            lambda r: (
                r.session_id == r0.session_id
                and r.type.value == "episode"
                and r.status is Status.ACTIVE
                and (r.expires_at is None or r.expires_at > now)
            ),
        )
        keyed = sorted(((r.created_at, self.s.rids[r.id]), r) for r in live if r.id != r0.id)
        earlier = [r for k, r in reversed(keyed) if k < key0][: max(before, 0)]
        later = [r for k, r in keyed if k > key0][: max(after, 0)]
        return earlier, later

    def neighbours_of(
        self, scope: Scope, record_ids: Sequence[str], *, before: int, after: int, now: float
    ) -> dict[str, tuple[list[MemoryRecord], list[MemoryRecord]]]:
        return {
            rid: self.session_neighbours(scope, rid, before=before, after=after, now=now)
            for rid in record_ids
        }

    def successors(self, scope: Scope, record_id: str, limit: int = 100) -> list[MemoryRecord]:
        return _newest_update(self._select(scope, lambda r: r.prev_id == record_id))[:limit]

    def latest_successor(self, scope: Scope, record_id: str) -> MemoryRecord | None:
        found = [
            r
            for r in self.s.records.values()
            if r.prev_id == record_id
            and (r.scope.user_id, r.scope.agent_id) == (scope.user_id, scope.agent_id)
        ]
        return max(found, key=lambda r: r.version) if found else None

    def listing(
        self,
        scope: Scope,
        *,
        status: str | None = None,
        type_: str | None = None,
        curated_only: bool = False,
        oldest_first: bool = False,
        limit: int = 100,
    ) -> list[MemoryRecord]:
        rows = self._select(
            scope,
            lambda r: (
                (status is None or r.status.value == status)
                and (type_ is None or r.type.value == type_)
                and not (curated_only and r.type.value == "episode")
            ),
        )
        if oldest_first:
            return sorted(rows, key=lambda r: r.created_at)[:limit]
        return _newest_update(rows)[:limit]

    def retired_turns(self, scope: Scope, turn_ids: Sequence[str]) -> dict[str, str]:
        wanted = set(turn_ids)
        retired = sorted(
            (
                r
                for r in self._scoped(scope)
                if r.status is Status.INACTIVE and r.type.value in _DISTILLED
            ),
            key=lambda r: (r.type.value, self.s.rids[r.id]),
        )
        out: dict[str, str] = {}
        for r in retired:
            for t in r.source.turn_ids:
                if t in wanted:
                    out.setdefault(t, r.id)
        return out

    def versions(self, scope: Scope, record_id: str) -> list[dict[str, Any]]:
        rows = [
            dict(v)
            for (rid, _), v in self.s.versions.items()
            if rid == record_id and (v["user_id"], v["agent_id"]) == scope_key(scope)
        ]
        return sorted(rows, key=lambda v: v["version"])

    def versions_in_scope(self, scope: Scope, record_id: str) -> list[dict[str, Any]]:
        return self.versions(scope, record_id)


def scope_key(scope: Scope) -> tuple[str, str]:
    return scope.user_id, scope.agent_id
