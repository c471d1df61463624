"""The background worker behind after_response: a bounded queue, batching, flush and close.

Jobs carry the scope they write to, so the read path can wait for exactly the writes it must see
(read-your-writes) without waiting for other users' work.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import Counter, deque
from dataclasses import dataclass
from typing import Any, Callable

from ..types import Scope

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    scope: Scope
    run: Callable[[], object]
    name: str = "job"
    #: work that is cheaper for many jobs at once (one embedding call for a batch of captures):
    #: the worker calls it once with the payloads of the jobs of a batch that share it, before
    #: running them. It must not write anything: a job can still be dropped (a purge) after it.
    prepare: Callable[[list[Any]], None] | None = None
    payload: Any = None
    #: False: `wait(scope)` does not wait for it (work nobody reads back at once, such as access
    #: counts); `wait()` for all jobs still does.
    barrier: bool = True

    @property
    def key(self) -> str:
        return self.scope.key if self.barrier else _UNTRACKED


_UNTRACKED = "\0untracked"


class Worker:
    def __init__(self, *, queue_size: int = 1000, batch_size: int = 16, threads: int = 1) -> None:
        self._q: queue.Queue[Job | None] = queue.Queue(maxsize=queue_size)
        self._batch = batch_size
        self._pending: Counter[str] = Counter()
        self._cond = threading.Condition()
        self._closed = False
        self.failures = 0
        self._threads = [
            threading.Thread(target=self._loop, name=f"ocm-worker-{i}", daemon=True)
            for i in range(threads)
        ]
        for t in self._threads:
            t.start()

    def submit(self, job: Job) -> None:
        """Queue a job; when the queue is full the caller waits (back-pressure, nothing is dropped)."""
        if self._closed:
            raise RuntimeError("worker is closed")
        with self._cond:
            self._pending[job.key] += 1
        self._q.put(job)

    def discard(self, matches: Callable[[Job], bool]) -> int:
        """Drop the queued (not yet started) jobs that match; return how many were dropped."""
        with self._q.mutex:
            kept: deque[Job] = deque()
            dropped: list[Job] = []
            for job in self._q.queue:
                (dropped if job is not None and matches(job) else kept).append(job)
            self._q.queue = kept
            self._q.unfinished_tasks -= len(dropped)
            self._q.not_full.notify_all()
        with self._cond:
            for job in dropped:
                self._pending[job.key] -= 1
                if self._pending[job.key] <= 0:
                    del self._pending[job.key]
            self._cond.notify_all()
        return len(dropped)

    def depth(self) -> int:
        return self._q.qsize()

    def pending(self, scope: Scope | None = None) -> int:
        with self._cond:
            return sum(self._pending.values()) if scope is None else self._pending[scope.key]

    def wait(self, scope: Scope | None = None, timeout: float | None = None) -> bool:
        """Block until the scope's (or all) queued jobs are done; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self.pending(scope) == 0, timeout=timeout)

    def _loop(self) -> None:
        while True:
            job = self._q.get()
            if job is None:
                return
            batch = [job]
            while len(batch) < self._batch:
                try:
                    nxt = self._q.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    self._q.put(None)
                    break
                batch.append(nxt)
            self._prepare(batch)
            for j in batch:
                self._run(j)

    @staticmethod
    def _prepare(batch: list[Job]) -> None:
        groups: dict[Callable[[list[Any]], None], list[Any]] = {}
        for job in batch:
            if job.prepare is not None:
                groups.setdefault(job.prepare, []).append(job.payload)
        for prepare, payloads in groups.items():
            try:
                prepare(payloads)
            except Exception:  # the jobs then do this work themselves, one by one
                log.exception(
                    "preparing a batch of %d memory jobs failed; they run unprepared", len(payloads)
                )

    def _run(self, job: Job) -> None:
        try:
            job.run()
        except Exception:  # a failing job must not kill the worker; it is logged with its scope
            self.failures += 1
            log.exception("memory job %s for user %s failed", job.name, job.scope.user_id)
        finally:
            with self._cond:
                self._pending[job.key] -= 1
                if self._pending[job.key] <= 0:
                    del self._pending[job.key]
                self._cond.notify_all()

    def close(self, timeout: float | None = 30.0) -> None:
        if self._closed:
            return
        self.wait(timeout=timeout)
        self._closed = True
        for _ in self._threads:
            self._q.put(None)
        for t in self._threads:
            t.join(timeout=timeout)
