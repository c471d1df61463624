"""Records, recall and consolidation look-ups, versions and outbox, in dicts (keyword and vector
reads: search.py)."""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ...write.policy import type_values, types_where
from ...lang.text import search_tokens
from ...types import MemoryRecord, Scope, Status
from ..ports import content_hash
from .base import in_scope
from .entities import EntitiesMixin
from .search import SearchMixin

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

    def insert(self, record: MemoryRecord, vector: np.ndarray | None, model: str) -> None:
        with self.transaction():
            if record.id in self.s.records:
                raise ValueError(f"record id {record.id!r} exists already")
            self.s.records[record.id] = record
            self.s.rids[record.id] = self.s.next_seq()
            self.s.tokens[record.id] = search_tokens(record.text)
            self._link_entities(record)
            if vector is not None:
                self.put_vector(record, vector, model)
            if record.status is not Status.INACTIVE:
                self._enqueue(record, "upsert", record.created_at)

    def update(
        self, record: MemoryRecord, vector: np.ndarray | None, model: str, *, reindex: bool
    ) -> None:
        with self.transaction():
            if record.id not in self.s.records:
                return
            self.s.records[record.id] = record
            self._link_entities(record)  # a forgotten record loses its links
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
        subjects = [r.subject for r in self._scoped(scope) if r.status is Status.ACTIVE]
        return list(dict.fromkeys(s for s in subjects if s is not None))[:limit]

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
        rows = self._select(
            scope,
            lambda r: (
                r.status is Status.ACTIVE
                and r.type.value == "episode"
                and r.created_at <= at
                and r.id != exclude
            ),
        )
        return sorted(rows, key=lambda r: -r.created_at)[:limit]

    def live_episodes_saying(
        self, scope: Scope, summary: str, *, exclude: str, limit: int = 50
    ) -> list[MemoryRecord]:
        rows = self._select(
            scope,
            lambda r: (
                r.status is Status.ACTIVE
                and r.type.value == "episode"
                and r.summary == summary
                and r.id != exclude
            ),
        )
        return _newest_update(rows)[:limit]

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
