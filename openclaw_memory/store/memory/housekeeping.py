"""Whole-store work in the in-memory store: forgetting look-ups, reindex, doctor, purge, export and import."""

from __future__ import annotations

from typing import Any, Sequence, Iterator
from ...lang.text import search_tokens, sentence_parts
from ...types import MemoryRecord, MemoryType, Scope, Status
from ..ports import content_hash, hashed_user, ListPage, ListQuery
from .records import RecordsMixin

# Forgetting look-ups, reindex, doctor, purge, export/import and the console list, in dicts.


class HousekeepingMixin(RecordsMixin):
    # ---- forgetting -----------------------------------------------------------------------

    def scopes(self, user_id: str | None = None) -> list[Scope]:
        keys = {
            (r.scope.user_id, r.scope.agent_id)
            for r in self.s.records.values()
            if user_id is None or r.scope.user_id == user_id
        }
        return [Scope(u, a) for u, a in sorted(keys)]

    def expired(self, scope: Scope, now: float, limit: int) -> list[MemoryRecord]:
        rows = self._select(
            scope,
            lambda r: (
                r.status is Status.ACTIVE and r.expires_at is not None and r.expires_at <= now
            ),
        )
        return sorted(rows, key=lambda r: r.expires_at or 0.0)[:limit]

    def unused(
        self,
        scope: Scope,
        kept_types: Sequence[str],
        max_importance: float,
        cutoff: float,
        limit: int,
    ) -> list[MemoryRecord]:
        kept = set(kept_types)
        return self._select(
            scope,
            lambda r: (
                r.status in (Status.ACTIVE, Status.ARCHIVED)
                and r.type.value not in kept
                and r.source.channel.value != "explicit"
                and r.importance <= max_importance
                and (r.last_accessed_at if r.last_accessed_at is not None else r.updated_at)
                <= cutoff
            ),
            limit,
        )

    def _events(self, scope: Scope, subject: str | None) -> list[MemoryRecord]:
        return self._select(
            scope,
            lambda r: (
                r.status is Status.ACTIVE and r.type.value == "event" and r.subject == subject
            ),
        )

    def crowded_event_subjects(self, scope: Scope, more_than: int) -> list[str | None]:
        counts: dict[str | None, int] = {}
        for r in self._select(
            Scope(scope.user_id, scope.agent_id),
            lambda r: r.status is Status.ACTIVE and r.type.value == "event",
        ):
            counts[r.subject] = counts.get(r.subject, 0) + 1
        found = [s for s, n in counts.items() if n > more_than]
        return sorted(found, key=lambda s: (s is not None, s or ""))

    def live_event_count(self, scope: Scope, subject: str | None) -> int:
        return len(self._events(Scope(scope.user_id, scope.agent_id), subject))

    def oldest_live_events(
        self, scope: Scope, subject: str | None, limit: int
    ) -> list[MemoryRecord]:
        return sorted(self._events(scope, subject), key=lambda r: r.created_at)[:limit]

    def _curated(self, scope: Scope, uncapped: Sequence[str]) -> list[MemoryRecord]:
        skip = set(uncapped)
        return self._select(scope, lambda r: r.status is Status.ACTIVE and r.type.value not in skip)

    def curated_count(self, scope: Scope, uncapped: Sequence[str]) -> int:
        return len(self._curated(Scope(scope.user_id, scope.agent_id), uncapped))

    def lowest_value(self, scope: Scope, uncapped: Sequence[str], limit: int) -> list[MemoryRecord]:
        def value(r: MemoryRecord) -> tuple:
            kept = r.type is MemoryType.PROFILE or r.source.channel.value == "explicit"
            used = r.last_accessed_at if r.last_accessed_at is not None else r.updated_at
            return (kept, r.importance, used, r.access_count, r.created_at, self.s.rids[r.id])

        return sorted(self._curated(scope, uncapped), key=value)[:limit]

    # ---- records across scopes, stored vectors --------------------------------------------

    def records_by_id(self, ids: Sequence[str]) -> list[MemoryRecord]:
        wanted = set(ids)
        return [r for r in self.s.records.values() if r.id in wanted]

    def live_statuses(self, scope: Scope) -> dict[str, str]:
        part = Scope(scope.user_id, scope.agent_id)
        return {r.id: r.status.value for r in self._scoped(part) if r.status is not Status.INACTIVE}

    def record_count(self) -> int:
        return len(self.s.records)

    def live_count(self) -> int:
        return sum(1 for r in self.s.records.values() if r.status is not Status.INACTIVE)

    def embedder(self) -> str | None:
        return self.s.meta.get("embedder")

    def set_embedder(self, name: str) -> None:
        self.s.meta["embedder"] = name

    def _live(self, scope: Scope | None) -> list[MemoryRecord]:
        rows = self.s.records.values() if scope is None else self._scoped(scope)
        return [r for r in rows if r.status is not Status.INACTIVE]

    def stale_vector_ids(self, model: str, dim: int, scope: Scope | None = None) -> list[str]:
        out = []
        for r in self._live(None if scope is None else Scope(scope.user_id, scope.agent_id)):
            v = self.s.vectors.get(r.id)
            if (
                v is None
                or v["model"] != model
                or v["dim"] != int(dim)
                or v["content_hash"] != content_hash(r)
            ):
                out.append(r.id)
        return out

    def part_stale_ids(self, max_parts: int, scope: Scope | None = None) -> list[str]:
        out = []
        for r in self._live(None if scope is None else Scope(scope.user_id, scope.agent_id)):
            v = self.s.vectors.get(r.id)
            if v is None:
                continue
            have = 0 if v["parts"] is None else len(v["parts"]) // v["dim"]
            if have != len(sentence_parts(r.text, max_parts)):
                out.append(r.id)
        return out

    def retire_vectors(self, model: str, dim: int) -> int:
        gone = [
            i
            for i, v in self.s.vectors.items()
            if v["model"] != model or v["dim"] != int(dim) or i not in self.s.records
        ]
        for i in gone:
            del self.s.vectors[i]
        self.s.meta["embedder"] = model
        return len(gone)

    def orphan_vector_rows(self, *, delete: bool = False) -> int:
        gone = [i for i in self.s.vectors if i not in self.s.records]
        if delete:
            for i in gone:
                del self.s.vectors[i]
        return len(gone)

    # ---- outbox and keyword index as a whole ----------------------------------------------

    def last_outbox_seq(self) -> int:
        return max((e["seq"] for e in self.s.outbox), default=0)

    def clear_outbox(self, upto: int) -> int:
        before = len(self.s.outbox)
        self.s.outbox = [e for e in self.s.outbox if e["seq"] > upto]
        return before - len(self.s.outbox)

    def pending_by_scope(self) -> dict[tuple[str, str], set[str]]:
        out: dict[tuple[str, str], set[str]] = {}
        for e in self.s.outbox:
            out.setdefault((e["user_id"], e["agent_id"]), set()).add(e["record_id"])
        return out

    def keyword_index_gaps(self) -> tuple[list[int], list[str]]:
        # the keyword rows are keyed by record id here: a record always has its tokens
        return [], [i for i in self.s.records if i not in self.s.tokens]

    def repair_keyword_index(self, orphan: Sequence[int], missing: Sequence[str]) -> None:
        for i in missing:
            if i in self.s.records:
                self.s.tokens[i] = search_tokens(self.s.records[i].text)

    def optimize_keyword_index(self) -> None:
        """Nothing to merge: a deleted record's tokens are gone with it."""

    # ---- purge ----------------------------------------------------------------------------

    @staticmethod
    def _of_user(row: dict[str, Any], user_id: str, agent_id: str | None) -> bool:
        return row["user_id"] == user_id and (agent_id is None or row["agent_id"] == agent_id)

    def user_agents(self, user_id: str, agent_id: str | None = None) -> list[str]:
        found = {
            r.scope.agent_id
            for r in self.s.records.values()
            if r.scope.user_id == user_id and agent_id in (None, r.scope.agent_id)
        }
        for rows in self._user_tables().values():
            found |= {x["agent_id"] for x in rows if self._of_user(x, user_id, agent_id)}
        return sorted(found)

    def _user_tables(self) -> dict[str, list[dict[str, Any]]]:
        return {
            "versions": list(self.s.versions.values()),
            "outbox": self.s.outbox,
            "messages": self.s.messages,
            "sessions": list(self.s.sessions.values()),
            "audit": self.s.audit,
        }

    def purge_user(
        self, user_id: str, agent_id: str | None, at: float, writer: str
    ) -> dict[str, int]:
        with self.transaction():
            ids = [
                r.id
                for r in self.s.records.values()
                if r.scope.user_id == user_id and agent_id in (None, r.scope.agent_id)
            ]
            counts = {
                "records": len(ids),
                "fts": sum(1 for i in ids if i in self.s.tokens),
                "vectors": sum(1 for i in ids if i in self.s.vectors),
            }
            for i in ids:
                self._drop_entities(i)
                self.s.records.pop(i)
                self.s.rids.pop(i, None)
                self.s.tokens.pop(i, None)
                self.s.vectors.pop(i, None)
            mine = lambda x: self._of_user(x, user_id, agent_id)  # noqa: E731
            counts["versions"] = sum(1 for v in self.s.versions.values() if mine(v))
            self.s.versions = {k: v for k, v in self.s.versions.items() if not mine(v)}
            counts["outbox"] = sum(1 for e in self.s.outbox if mine(e))
            self.s.outbox = [e for e in self.s.outbox if not mine(e)]
            counts["messages"] = sum(1 for m in self.s.messages if mine(m))
            self.s.messages = [m for m in self.s.messages if not mine(m)]
            counts["sessions"] = sum(1 for s in self.s.sessions.values() if mine(s))
            self.s.sessions = {k: s for k, s in self.s.sessions.items() if not mine(s)}
            counts["audit"] = sum(1 for a in self.s.audit if mine(a))
            self.s.audit = [a for a in self.s.audit if not mine(a)]
            summary = ", ".join(f"{k} {v}" for k, v in counts.items())
            self.audit_purge_request(user_id, agent_id, at, f"purged user: {summary}", writer)
            return counts

    def episodes_of_turns(self, scope: Scope, turns: Sequence[str]) -> list[str]:
        wanted = set(turns)
        return [
            r.id
            for r in self._scoped(scope)
            if r.type.value == "episode" and wanted & set(r.source.turn_ids)
        ]

    def purge_records(
        self, scope: Scope, ids: Sequence[str], turns: Sequence[str]
    ) -> dict[str, int]:
        with self.transaction():
            counts = {"vectors": sum(1 for i in ids if i in self.s.vectors)}
            counts["records"] = self.delete_records(scope, ids)
            gone, key = set(ids), (scope.user_id, scope.agent_id)
            before = len(self.s.audit)
            self.s.audit = [
                a
                for a in self.s.audit
                if not ((a["user_id"], a["agent_id"]) == key and a["record_id"] in gone)
            ]
            counts["audit"] = before - len(self.s.audit)
            said = set(turns)
            before = len(self.s.messages)
            self.s.messages = [
                m
                for m in self.s.messages
                if not ((m["user_id"], m["agent_id"]) == key and m["turn_id"] in said)
            ]
            counts["messages"] = before - len(self.s.messages)
            return counts

    def purged_at(self, user_id: str, agent_id: str) -> float | None:
        hashed = hashed_user(user_id)
        return max(
            (
                a["at"]
                for a in self.s.audit
                if a["user_id"] == hashed
                and a["action"] == "purge"
                and a["agent_id"] in ("*", agent_id)
            ),
            default=None,
        )

    def audit_purge_request(
        self, user_id: str, agent_id: str | None, at: float, reason: str, writer: str
    ) -> None:
        self.s.audit.append(
            {
                "seq": self.s.next_seq(),
                "at": at,
                "user_id": hashed_user(user_id),
                "agent_id": agent_id or "*",
                "record_id": None,
                "action": "purge",
                "channel": "admin",
                "reason": reason,
                "writer": writer,
            }
        )

    def counts_by_scope(self) -> list[dict[str, Any]]:
        counts: dict[tuple[str, str, str, str], int] = {}
        for r in self.s.records.values():
            key = (r.scope.user_id, r.scope.agent_id, r.status.value, r.type.value)
            counts[key] = counts.get(key, 0) + 1
        return [
            {"user_id": u, "agent_id": a, "status": s, "type": t, "n": n}
            for (u, a, s, t), n in counts.items()
        ]


# Export, import and the console's list, over the in-memory store's dicts.

#: the columns that identify an imported row of each user table (as the SQLite store's)
_IDENTITY = {
    "versions": ("record_id", "version"),
    "audit": ("at", "agent_id", "record_id", "action", "reason"),
    "sessions": ("agent_id", "id"),
    "messages": ("agent_id", "session_id", "created_at", "role", "content"),
}


class PortabilityMixin(HousekeepingMixin):
    # ---- export and import ----------------------------------------------------------------

    def user_records(
        self, user_id: str, agent_id: str | None = None, *, newest_first: bool = False
    ) -> list[MemoryRecord]:
        rows = [
            r
            for r in self.s.records.values()
            if r.scope.user_id == user_id and agent_id in (None, r.scope.agent_id)
        ]
        if newest_first:
            return sorted(rows, key=lambda r: (-r.created_at, -self.s.rids[r.id]))
        return rows

    def user_rows(
        self, table: str, user_id: str, agent_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        if table not in _IDENTITY:
            raise ValueError(f"table: expected one of {sorted(_IDENTITY)}, found {table!r}")
        for row in self._user_tables()[table]:
            if self._of_user(row, user_id, agent_id):
                yield {k: v for k, v in row.items() if k not in ("seq", "order", "in_window")}

    def record_owner(self, record_id: str) -> tuple[str, str] | None:
        r = self.s.records.get(record_id)
        return None if r is None else (r.scope.user_id, r.scope.agent_id)

    def holds(self, scope: Scope, record: MemoryRecord) -> bool:
        if record.id in self.s.records:
            return True
        part, h = Scope(scope.user_id, scope.agent_id), content_hash(record)
        return any(
            content_hash(r) == h
            or (
                r.type is record.type
                and r.subject == record.subject
                and r.summary == record.summary
            )
            for r in self._scoped(part)
        )

    def import_row(self, table: str, item: dict[str, Any]) -> int:
        ident = ("user_id", *_IDENTITY[table])
        if any(all(row.get(k) == item.get(k) for k in ident) for row in self._user_tables()[table]):
            return 0
        row = dict(item)
        if table == "versions":
            row["turn_ids"] = row.get("turn_ids") or "[]"
            self.s.versions[(row["record_id"], row["version"])] = row
        elif table == "sessions":
            row = {"ended_at": None, "end_reason": None, "summary_id": None, **row}
            row.setdefault("order", self.s.next_seq())
            self.s.sessions[(row["user_id"], row["agent_id"], row["id"])] = row
        elif table == "messages":
            self.s.messages.append({"in_window": 1, **row, "seq": self.s.next_seq()})
        else:
            self.s.audit.append({**row, "seq": self.s.next_seq()})
        return 1

    # ---- the console's list ---------------------------------------------------------------

    def list_page(self, scope: Scope, q: ListQuery) -> ListPage:
        part = Scope(scope.user_id, scope.agent_id)
        hits = None
        if q.text.strip():
            found = self.keyword_search(
                part, q.text, statuses=[s.value for s in Status], limit=10**9
            )
            hits = set(sorted((i for i, _ in found), key=lambda i: -self.s.rids[i])[: q.text_cap])
        rows = [
            r
            for r in self._scoped(part)
            if r.status.value in q.statuses
            and (not q.type or r.type.value == q.type)
            and (not q.types or r.type.value in q.types)
            and (not q.subject or (r.subject or "").startswith(q.subject))
            and (q.created_from is None or r.created_at >= q.created_from)
            and (q.created_to is None or r.created_at < q.created_to)
            and (hits is None or r.id in hits)
        ]
        keyed = [((getattr(r, q.column), self.s.rids[r.id]), r) for r in rows]
        keyed.sort(key=lambda x: x[0], reverse=q.order == "desc")
        if q.after is not None:
            after = q.after
            keyed = [k for k in keyed if (k[0] < after if q.order == "desc" else k[0] > after)]
        page = keyed[: q.size]
        more = len(keyed) > q.size
        total = min(len(rows), q.count_cap + 1) if hits is None else len(rows)
        return ListPage(
            [r for _, r in page], page[-1][0] if more and page else None, total, hits is not None
        )
