"""Export, import and the console's list, over the in-memory store's dicts."""

from __future__ import annotations

from typing import Any, Iterator

from ...types import MemoryRecord, Scope, Status
from ..ports import ListPage, ListQuery, content_hash
from .housekeeping import HousekeepingMixin

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
