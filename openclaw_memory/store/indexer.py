"""Drains the outbox into the vector index, in the background and on demand.

The vector for a record is computed in the write transaction and kept in SQLite, so draining is a
copy: no embedding happens here. It speaks only to the ports (any record store, any vector
index). `drain(scope)` before a search gives read-your-writes (invariant
3) even when the background thread is behind. Every operation is idempotent, so two processes
draining the same entries, or a crash between the index write and the outbox delete, are harmless.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from ..types import Scope, Status
from .ports import RecordStore, VectorIndex

log = logging.getLogger(__name__)


class Indexer:
    def __init__(
        self,
        store: RecordStore,
        index: VectorIndex,
        *,
        background: bool = True,
        interval: float = 0.2,
        batch: int = 256,
    ) -> None:
        self.store = store
        self.index = index
        self.batch = batch
        self._interval = interval
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if background:
            self._thread = threading.Thread(target=self._run, name="ocm-indexer", daemon=True)
            self._thread.start()

    def notify(self) -> None:
        self._wake.set()

    def pending(self, scope: Scope | None = None) -> int:
        return self.store.pending(scope)

    def drain(self, scope: Scope | None = None) -> int:
        """Apply pending outbox entries (of one scope, or all); return how many were applied."""
        done = 0
        with self._lock:
            while True:
                rows = self._next(scope)
                if not rows:
                    return done
                self._apply(rows)
                done += len(rows)

    def _next(self, scope: Scope | None) -> list:
        return self.store.next_entries(scope, self.batch)

    def _apply(self, rows: list) -> None:
        by_scope: dict[tuple[str, str], list] = {}
        for row in rows:
            by_scope.setdefault((row["user_id"], row["agent_id"]), []).append(row)
        for (user, agent), group in by_scope.items():
            self._apply_scope(Scope(user, agent), group)
        self.store.done([row["seq"] for row in rows])

    def _apply_scope(self, scope: Scope, rows: list) -> None:
        ids = list(dict.fromkeys(row["record_id"] for row in rows))
        current = self.store.get_many(scope, ids)
        vecs, parts = self.store.vectors_with_parts(ids)
        hot: list[tuple[str, Any, dict[str, str]]] = []
        cold: list[tuple[str, Any, dict[str, str]]] = []
        gone: list[str] = []
        for rid in ids:
            r = current.get(rid)
            if r is None or r.status is Status.INACTIVE or rid not in vecs:
                gone.append(rid)
                continue
            meta = {"type": r.type.value, "workspace": r.scope.workspace or ""}
            (hot if r.status is Status.ACTIVE else cold).append((rid, vecs[rid], meta))
        self.index.delete(scope, gone)
        self.index.delete(scope, [i for i, _, _ in hot], tiers=("cold",))
        self.index.delete(scope, [i for i, _, _ in cold], tiers=("hot",))
        self.index.upsert(scope, "hot", hot, parts)
        self.index.upsert(scope, "cold", cold, parts)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._interval)
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                self.drain()
            except Exception as exc:  # keep the thread alive; entries stay queued for the next try
                log.warning("vector indexing failed, will retry: %s", exc)
                self._stop.wait(1.0)

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        try:
            self.drain()
        except Exception as exc:
            log.warning("final index drain failed (entries stay queued): %s", exc)
