"""The in-memory record store's state and transactions (see `store/memory/__init__.py`)."""

from __future__ import annotations

import contextlib
import copy
import threading
from dataclasses import dataclass, field
from typing import Any, Iterator

from ...types import MemoryRecord, Scope


@dataclass
class EntityState:
    """Entity memory (memory/entities.py). entities: id -> row; aliases: (user, agent, alias)
    -> (entity id, record rid); links: (entity id, record rid) -> (user, agent, seen at)."""

    entities: dict[int, dict[str, Any]] = field(default_factory=dict)
    aliases: dict[tuple[str, str, str], tuple[int, int]] = field(default_factory=dict)
    links: dict[tuple[int, int], tuple[str, str, float]] = field(default_factory=dict)
    seq: int = 0


@dataclass
class State:
    """Everything the store holds; copied whole at the start of a transaction (a fake: small)."""

    records: dict[str, MemoryRecord] = field(default_factory=dict)  # in written order
    rids: dict[str, int] = field(default_factory=dict)
    tokens: dict[str, list[str]] = field(default_factory=dict)
    vectors: dict[str, dict[str, Any]] = field(default_factory=dict)
    versions: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    audit: list[dict[str, Any]] = field(default_factory=list)
    outbox: list[dict[str, Any]] = field(default_factory=list)
    sessions: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    leases: dict[str, dict[str, Any]] = field(default_factory=dict)
    runs: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    seq: int = 0
    entities: EntityState = field(default_factory=lambda: EntityState())

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq


def in_scope(r: MemoryRecord, scope: Scope) -> bool:
    """A record of the scope's user and agent; a workspace scope also sees the shared ones."""
    if r.scope.user_id != scope.user_id or r.scope.agent_id != scope.agent_id:
        return False
    return scope.workspace is None or r.scope.workspace in (scope.workspace, None)


class MemoryBase:
    """State behind one re-entrant lock; a transaction restores the state it began with when
    it fails, so a failed batch leaves nothing half-written (as SQLite's rollback does)."""

    def __init__(self) -> None:
        self.s = State()
        self._lock = threading.RLock()
        self._depth = 0

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            saved = copy.deepcopy(self.s)
            self._depth = 1
            try:
                yield
            except BaseException:
                self.s = saved
                raise
            finally:
                self._depth = 0

    def in_transaction(self) -> bool:
        with self._lock:
            return self._depth > 0

    def _scoped(self, scope: Scope) -> list[MemoryRecord]:
        """The scope's records in written order."""
        return [r for r in self.s.records.values() if in_scope(r, scope)]

    def vacuum(self) -> None:
        """Nothing to give back: deleted rows are gone with their objects."""

    def close(self) -> None:
        """Nothing to release."""
