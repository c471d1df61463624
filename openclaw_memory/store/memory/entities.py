"""Entity memory in the in-memory store: entities, aliases and links in dicts, linked by the
same algorithm as every backend (`store/entity_linking.py`)."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ...errors import ValidationError
from ...extract.entities import Entity
from ...types import MemoryRecord, Scope
from ..entity_linking import Owner, idf, link
from .base import MemoryBase, State


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


class EntitiesMixin(MemoryBase):
    def _link_entities(self, record: MemoryRecord) -> None:
        link(MemoryEntityRows(self.s), self.s.rids[record.id], record)

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

    def backfill_entity_links(self, limit: int = 500) -> tuple[int, int]:
        """Nothing to link: this store links every record on write and never held older ones."""
        if limit < 1:
            raise ValidationError(f"limit: expected an integer >= 1, found {limit}")
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
