"""Whole-store work in the in-memory store, and its logs.

Forgetting look-ups, reindex, doctor, purge, export and import; the audit, the outbox, sessions,
the short-term window and the maintenance log, as the SQL store keeps them. Over 600 lines: the
fake's half of the whole-store port, kept beside each other as `sql_store.py` keeps the real one.
"""

from __future__ import annotations

from typing import Any, Sequence, Iterator
from ...lang.text import search_tokens, sentence_parts
from ...types import AuditEntry, MemoryRecord, MemoryType, Scope, Status, WindowMessage
from ..ports import content_hash, hashed_user, ListPage, ListQuery, UnusedQuery
from .records import RecordsMixin, scope_key
from .base import MemoryBase

# Whole-store work in the in-memory store: forgetting look-ups, reindex, doctor, purge, export and import.

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

    def unused(self, scope: Scope, q: UnusedQuery) -> list[MemoryRecord]:
        kept = set(q.kept_types)
        return self._select(
            scope,
            lambda r: (
                r.status in (Status.ACTIVE, Status.ARCHIVED)
                and r.type.value not in kept
                and r.source.channel.value != "explicit"
                and r.importance <= q.max_importance
                and (r.last_accessed_at if r.last_accessed_at is not None else r.updated_at)
                <= q.cutoff
            ),
            q.limit,
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


# The in-memory store's logs: audit, outbox, sessions, the short-term window, maintenance.

# The audit log and the outbox of the in-memory store.


class AuditMixin(MemoryBase):
    # ---- audit ----------------------------------------------------------------------------

    def audit(self, entry: AuditEntry) -> None:
        e = entry
        self.s.audit.append(
            {"seq": self.s.next_seq(), "at": e.at, "user_id": e.scope.user_id}
            | {"agent_id": e.scope.agent_id, "record_id": e.record_id, "action": e.action}
            | {"channel": e.channel, "reason": e.reason, "writer": e.writer}
        )

    def audit_log(
        self, scope: Scope, record_id: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        rows = [
            dict(a)
            for a in reversed(self.s.audit)
            if (a["user_id"], a["agent_id"]) == scope_key(scope)
            and (not record_id or a["record_id"] == record_id)
        ]
        return rows[:limit]

    def audit_of(self, scope: Scope, ids: Sequence[str], limit: int = 500) -> list[dict[str, Any]]:
        wanted = set(ids)
        rows = [
            dict(a)
            for a in self.s.audit
            if a["record_id"] in wanted and (a["user_id"], a["agent_id"]) == scope_key(scope)
        ]
        return sorted(rows, key=lambda a: (-a["at"], -a["seq"]))[:limit]

    # ---- outbox ---------------------------------------------------------------------------

    def pending(self, scope: Scope | None = None) -> int:
        return len(self._entries(scope))

    def _entries(self, scope: Scope | None) -> list[dict[str, Any]]:
        if scope is None:
            return list(self.s.outbox)
        return [e for e in self.s.outbox if (e["user_id"], e["agent_id"]) == scope_key(scope)]

    def next_entries(self, scope: Scope | None, limit: int) -> list[dict[str, Any]]:
        return [dict(e) for e in self._entries(scope)[:limit]]

    def done(self, seqs: Sequence[int]) -> None:
        gone = set(seqs)
        with self.transaction():
            self.s.outbox = [e for e in self.s.outbox if e["seq"] not in gone]


# Sessions, the short-term window, the maintenance lease and log, in lists and dicts.


class LogsMixin(MemoryBase):
    # ---- sessions -------------------------------------------------------------------------

    def session(self, scope: Scope, session_id: str) -> dict[str, Any] | None:
        row = self.s.sessions.get((scope.user_id, scope.agent_id, session_id))
        if row is None:
            return None
        return {k: row[k] for k in ("started_at", "last_active_at", "ended_at")}

    def open_session(self, scope: Scope, session_id: str, now: float) -> bool:
        key = (scope.user_id, scope.agent_id, session_id)
        with self.transaction():
            row = self.s.sessions.get(key)
            if row is None:
                self.s.sessions[key] = {
                    "id": session_id,
                    "user_id": scope.user_id,
                    "agent_id": scope.agent_id,
                    "started_at": now,
                    "last_active_at": now,
                    "ended_at": None,
                    "end_reason": None,
                    "summary_id": None,
                    "order": self.s.next_seq(),
                }
                return True
            row.update(last_active_at=now, ended_at=None)
            return False

    def end_session(
        self, scope: Scope, session_id: str, now: float, reason: str, summary_id: str | None
    ) -> None:
        row = self.s.sessions.get((scope.user_id, scope.agent_id, session_id))
        if row is not None:
            row.update(ended_at=now, end_reason=reason, summary_id=summary_id or row["summary_id"])

    def participants(self, agent_id: str, session_id: str) -> list[str]:
        rows = [r for (_, a, s), r in self.s.sessions.items() if a == agent_id and s == session_id]
        return [r["user_id"] for r in sorted(rows, key=lambda r: (r["started_at"], r["order"]))]

    # ---- the short-term window ------------------------------------------------------------

    def append_message(self, scope: Scope, message: WindowMessage) -> None:
        m = message
        self.s.messages.append(
            {"seq": self.s.next_seq(), "session_id": m.session_id, "user_id": scope.user_id}
            | {"agent_id": scope.agent_id, "role": m.role, "content": m.content}
            | {"tokens": m.tokens, "turn_id": m.turn_id, "created_at": m.at, "in_window": 1}
        )

    def _session_messages(self, scope: Scope, session_id: str) -> list[dict[str, Any]]:
        return [
            m
            for m in self.s.messages
            if (m["user_id"], m["agent_id"], m["session_id"])
            == (scope.user_id, scope.agent_id, session_id)
        ]

    def window_messages(self, scope: Scope, session_id: str) -> list[dict[str, Any]]:
        return [
            {k: m[k] for k in ("seq", "role", "content", "tokens", "turn_id")}
            for m in self._session_messages(scope, session_id)
            if m["in_window"]
        ]

    def leave_window(self, scope: Scope, session_id: str, seqs: Sequence[int] | None) -> None:
        chosen = None if seqs is None else set(seqs)
        for m in self._session_messages(scope, session_id):
            if chosen is None or m["seq"] in chosen:
                m["in_window"] = 0

    def captured_turn_ids(self, scope: Scope, session_id: str) -> set[str]:
        return {
            m["turn_id"]
            for m in self._session_messages(scope, session_id)
            if m["turn_id"] is not None
        }

    def session_messages(self, scope: Scope, session_id: str, limit: int = 5000) -> list[dict]:
        return [
            {k: m[k] for k in ("turn_id", "role", "content")}
            for m in self._session_messages(scope, session_id)
            if m["turn_id"] is not None and m["content"] != ""
        ][:limit]

    def prune_messages(
        self, user_id: str | None, agent_id: str | None, before: float, keep: int
    ) -> int:
        chosen = [
            m
            for m in self.s.messages
            if (user_id is None or m["user_id"] == user_id)
            and (agent_id is None or m["agent_id"] == agent_id)
        ]
        newer: dict[tuple[str, str, str], int] = {}
        stale = set()
        for m in reversed(chosen):  # newest first, as ROW_NUMBER() ... ORDER BY seq DESC
            key = (m["user_id"], m["agent_id"], m["session_id"])
            newer[key] = newer.get(key, 0) + 1
            if (
                not m["in_window"]
                and m["created_at"] <= before
                and newer[key] > keep
                and m["content"] != ""
            ):
                stale.add(m["seq"])
        done = 0
        kept = []
        for m in self.s.messages:
            if m["seq"] not in stale:
                kept.append(m)
            elif m["role"] == "user" and m["turn_id"] is not None:
                m.update(content="", tokens=0)  # the row keeps the turn's key
                kept.append(m)
                done += 1
            else:
                done += 1
        self.s.messages = kept
        return done

    # ---- the maintenance lease and run log ------------------------------------------------

    def acquire_lease(self, name: str, holder: str, now: float, seconds: float) -> bool:
        with self.transaction():
            row = self.s.leases.get(name)
            if row is None or row["expires_at"] <= now or row["holder"] == holder:
                self.s.leases[name] = {"holder": holder, "expires_at": now + seconds}
            return self.s.leases[name]["holder"] == holder

    def release_lease(self, name: str, holder: str) -> None:
        row = self.s.leases.get(name)
        if row is not None and row["holder"] == holder:
            del self.s.leases[name]

    def lease(self, name: str, now: float) -> dict[str, Any] | None:
        row = self.s.leases.get(name)
        return dict(row) if row is not None and row["expires_at"] > now else None

    def begin_run(self, trigger: str, holder: str, now: float) -> int:
        for r in self.s.runs:
            if r["status"] == "running":
                r["status"] = "abandoned"
        run_id = len(self.s.runs) + 1
        self.s.runs.append(
            {
                "id": run_id,
                "trigger": trigger,
                "holder": holder,
                "started_at": now,
                "finished_at": None,
                "status": "running",
                "counts": None,
                "error": None,
            }
        )
        return run_id

    def finish_run(
        self, run_id: int, now: float, status: str, counts: str, error: str | None
    ) -> None:
        for r in self.s.runs:
            if r["id"] == run_id:
                r.update(finished_at=now, status=status, counts=counts, error=error)

    def recent_runs(self, limit: int) -> list[dict[str, Any]]:
        rows = sorted(self.s.runs, key=lambda r: (-r["started_at"], -r["id"]))
        return [dict(r) for r in rows[: int(limit)]]
