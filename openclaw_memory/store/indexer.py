"""Keeping the vector index current: the outbox drained into it, and a missing or stale index noticed."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, TYPE_CHECKING
from ..types import Scope, Status
from .ports import IndexFeed, IndexSearch, VectorIndex, VectorSearch
from collections.abc import Callable

if TYPE_CHECKING:
    from .tiered_index import TieredIndex

# Drains the outbox into the vector index, in the background and on demand.
#
# The vector for a record is computed in the write transaction and kept in SQLite, so draining is a
# copy: no embedding happens here. It speaks only to the ports (any record store, any vector
# index). `drain(scope)` before a search gives read-your-writes (invariant
# 3) even when the background thread is behind. Every operation is idempotent, so two processes
# draining the same entries, or a crash between the index write and the outbox delete, are harmless.

log = logging.getLogger(__name__)


class Indexer:
    def __init__(
        self,
        store: IndexFeed,
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

    def searcher(self, scope: Scope, tier: str = "hot") -> VectorSearch:
        """The tier's vector search for scope, with scope's pending writes indexed first
        (read-your-writes), prepared before its query vector is known (what an index that
        offers `searcher` reads first: a small tier's vectors, tiered_index.py); called as
        `search(vector, k)`."""
        self.drain(scope)
        searcher = getattr(self.index, "searcher", None)
        if searcher is not None:
            return searcher(scope, tier)
        return IndexSearch(self.index, scope, tier)

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


# Noticing a missing or stale vector index without waiting for `doctor`.
#
# The record store keeps every vector, so search never stops when Chroma lost its files: a tier
# without its collection is searched exactly from the store (tiered_index.py), only slower. That
# fallback used to be silent. Now a tier over the bound whose collection is missing, or holds far
# fewer vectors than the store holds live records (under `STALE_RATIO` of them), is named in a
# warning and rebuilt from the store's vectors in a background thread (`TieredIndex._build`, what
# reindex does for a scope, without re-embedding); search keeps answering meanwhile.
#
# When: at start (the embedded index's folder missing while the store holds live records: every
# scope is swept in the background) and on search (a missing collection at once; a count
# comparison at most once every `RECHECK_SECONDS` per tier, as counting costs a Chroma call).

#: a collection holding fewer vectors than this share of its tier's live records is stale (a
#: complete one holds at least one a record: sentence parts only add)
STALE_RATIO = 0.5
#: how often one tier's vector count is compared with the store on search
RECHECK_SECONDS = 300.0
_TIER_OF = {"active": "hot", "archived": "cold"}


class IndexWatch:
    """Per tier: is its collection there and about whole? If not, warn and rebuild it."""

    def __init__(
        self,
        index: TieredIndex,
        *,
        recheck: float = RECHECK_SECONDS,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.index = index
        self.recheck = recheck
        self.now = now
        self._checked: dict[tuple[str, str], float] = {}
        self._rebuilding: set[tuple[str, str]] = set()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self.closed = False
        #: warnings given, newest last (doctor-like callers and tests read them)
        self.noticed: list[str] = []

    def at_start(self) -> None:
        """The embedded index's folder was missing at open while the store holds live records:
        warn, and rebuild every scope's collections in the background."""
        chroma = self.index.chroma
        if not getattr(chroma, "folder_was_missing", False) or chroma.unusable:
            return
        live = self.index.store.live_count()  # type: ignore[attr-defined]
        if not live:
            return
        self._warn(
            f"vector index: the folder {chroma.path} was missing at start while the store "
            f"holds {live} live records; rebuilding it from the store in the background "
            "(search answers from the store meanwhile)"
        )
        self._start(self._sweep, ("*", "*"))

    def on_search(self, scope: Scope, tier: str, held: bool) -> None:
        """A search of a tier over the bound: check its collection (cheaply), act if needed."""
        key = (scope.key, tier)
        if self.closed or key in self._rebuilding or self.index.chroma.unusable:
            return
        last = self._checked.get(key)
        if last is not None and self.now() - last < self.recheck:
            return
        self._checked[key] = self.now()
        try:
            problem = self.problem(scope, tier, held)
        except Exception as exc:  # the check never costs a search its answer
            log.debug("vector index: check of %s's %s tier failed (%s)", scope.key, tier, exc)
            return
        if problem:
            self._warn(
                f"vector index: {scope.key}'s {tier} tier {problem}; rebuilding it from the "
                "store in the background (search answers from the store meanwhile)"
            )
            self._start(lambda: self._rebuild(scope, tier), key)

    def problem(self, scope: Scope, tier: str, held: bool) -> str:
        """Why the tier's collection needs rebuilding ("" when it does not, or when the outbox
        still holds writes of the scope: the indexer brings it in line)."""
        store = self.index.store
        if not held:
            if store.tier_vectors(scope, tier, at_most=0) is not None:
                return ""  # the tier holds no live record: nothing to miss
            problem = "has no collection"
        else:
            problem = self._count_gap(scope, tier)
        if problem and (scope.user_id, scope.agent_id) in store.pending_by_scope():  # type: ignore[attr-defined]
            return ""
        return problem

    def _count_gap(self, scope: Scope, tier: str) -> str:
        statuses = self.index.store.live_statuses(scope)  # type: ignore[attr-defined]
        records = sum(1 for s in statuses.values() if _TIER_OF.get(s) == tier)
        vectors = self.index.chroma.count(scope, tier)
        if records and vectors < STALE_RATIO * records:
            return f"holds {vectors} vectors for {records} live records"
        return ""

    def _sweep(self) -> None:
        for scope in self.index.store.scopes():  # type: ignore[attr-defined]
            for tier in ("hot", "cold"):
                if self.closed:
                    return
                if self.index._small(scope, tier) is None:  # over the bound: has a collection
                    held = self.index._held(scope, tier)
                    if self.problem(scope, tier, held):
                        self.index._build(scope, tier)

    def _rebuild(self, scope: Scope, tier: str) -> None:
        n = self.index._build(scope, tier)
        log.info("vector index: %s's %s tier rebuilt (%d records)", scope.key, tier, n)

    def _start(self, work: Callable[[], None], key: tuple[str, str]) -> None:
        with self._lock:
            if key in self._rebuilding:
                return
            self._rebuilding.add(key)

        def run() -> None:
            try:
                work()
            except Exception as exc:  # closed under it, or Chroma refused: doctor still can
                if not self.closed:
                    log.warning("vector index: background rebuild failed (%s)", exc)
            finally:
                with self._lock:
                    self._rebuilding.discard(key)
                    self._checked.pop(key, None)

        thread = threading.Thread(target=run, name="ocm-index-rebuild", daemon=True)
        self._threads.append(thread)
        thread.start()

    def _warn(self, message: str) -> None:
        self.noticed.append(message)
        log.warning("%s", message)

    def wait(self, timeout: float = 60.0) -> None:
        """Wait for the background rebuilds started so far (tests, and close)."""
        for thread in list(self._threads):
            thread.join(timeout)

    def close(self) -> None:
        self.closed = True
        self.wait(10.0)
