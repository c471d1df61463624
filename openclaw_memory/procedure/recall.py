"""Procedures are recalled by the kind of task a request asks for, and by nothing else.

A request that asks for a kind of task ("deploy the site again", 再帮我部署一下网站) gets the live
procedure of that kind (same verb and object head, `kind.TaskKind.same_task`); a request with
a verb but no object ("deploy it again", 再部署一次) gets the one procedure of that verb when
there is exactly one. Every other request gets none, whatever the similarity channels found: a
request about lunch never carries how the site was deployed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..store.ports import RecordStore
from ..types import MemoryRecord, MemoryType, ScoredMemory, Scope
from .kind import TaskKind, task_kind

#: procedures injected for one request at most
MAX_PROCEDURES = 2
#: live procedures of a scope read to find the request's kind
_POOL = 200


class ProcedureRecall:
    """Adds the procedures of the request's kind of task to the ranked candidates and takes out
    those the other channels brought for another kind."""

    def __init__(self, store: RecordStore, limit: int = MAX_PROCEDURES) -> None:
        self.store = store
        self.limit = limit

    def matching(self, scope: Scope, request: str) -> list[tuple[MemoryRecord, TaskKind]]:
        """The live procedures for the request's kind of task, newest first."""
        # the scope's procedures first: most scopes have none, and then the request is not parsed
        live = self.store.live_claims(scope, [MemoryType.PROCEDURE.value], limit=_POOL)
        kind = task_kind(request) if live else None
        if kind is None:
            return []
        found = []
        for r in live:
            stored = TaskKind.from_key(r.subject or "")
            if stored is not None and stored.same_task(kind):
                found.append((r, stored))
        if not kind.obj and len({k.key for _, k in found}) > 1:
            return []  # "deploy it": of several things deployed, which one is not said
        return found[: self.limit]

    def apply(
        self, scope: Scope, request: str, ranked: Sequence[ScoredMemory]
    ) -> list[ScoredMemory]:
        """ranked with the request's procedures in front and every other procedure dropped."""
        out = [
            dataclasses.replace(s, kept=False, reason="procedures are recalled by kind of task")
            if s.kept and s.record.type is MemoryType.PROCEDURE
            else s
            for s in ranked
        ]
        added = [
            ScoredMemory(
                record=r,
                score=1.0,
                components={"task_kind": 1.0},
                channels=("procedure",),
                reason=f"the request asks for this kind of task ({kind.key})",
            )
            for r, kind in self.matching(scope, request)
        ]
        return [*added, *out]


__all__ = ["MAX_PROCEDURES", "ProcedureRecall"]
