"""The background worker behind after_response, and the jobs of users it runs.

A bounded queue, batching, flush and close; purges that must not race a user's jobs.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import Counter, deque
from dataclasses import dataclass
from typing import Any, Callable
from ..types import Scope

# The background worker behind after_response: a bounded queue, batching, flush and close.
#
# Jobs carry the scope they write to, so the read path can wait for exactly the writes it must see
# (read-your-writes) without waiting for other users' work.

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


# Background jobs of users, and purges that must not race them.
#
# Purges bump an epoch per user (every agent) or per (user, agent); a job submitted under an older
# epoch is dropped instead of writing the purged data back. While a user is being purged, that
# user's jobs wait, and the purge waits for the one running (per user: other users' jobs go on).


class UserJobs:
    """The worker's jobs, per user: purges drop a user's queued jobs, and a read waits for its own
    scope's writes."""

    #: how long a read waits for its own scope's queued captures before going on without them
    READ_WAIT_SECONDS = 30.0

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self._epochs: Counter[Any] = Counter()
        self._gate = threading.Condition()
        self._running: Counter[str] = Counter()  # jobs running, per user id
        self._purging: Counter[str] = Counter()  # purges in progress, per user id

    def submit(
        self,
        scope: Scope,
        fn: Callable[[], object],
        name: str,
        *,
        prepare=None,
        payload=None,
        barrier: bool = True,
    ) -> None:
        """Queue fn for the worker (see `Job` for prepare, payload and barrier)."""
        epoch, user = self._epoch(scope), scope.user_id

        def run() -> None:
            with self._gate:
                self._gate.wait_for(lambda: not self._purging[user])
                if self._epoch(scope) != epoch:  # the user was purged after this was queued
                    log.info("dropped a queued %s job of a purged user", name)
                    return
                self._running[user] += 1
            try:
                fn()
            finally:
                with self._gate:
                    self._running -= Counter({user: 1})  # drops the key at zero
                    self._gate.notify_all()

        self.worker.submit(Job(scope, run, name, prepare=prepare, payload=payload, barrier=barrier))

    def read_your_writes(self, scope: Scope) -> None:
        """Wait for this scope's queued captures (what turn N said is recalled at turn N+1)."""
        if not self.worker.wait(scope, timeout=self.READ_WAIT_SECONDS):
            log.warning(
                "captures for user %s still queued after %.0f s; reading without them",
                scope.user_id,
                self.READ_WAIT_SECONDS,
            )

    def _epoch(self, scope: Scope) -> tuple[int, int]:
        return self._epochs[scope.user_id], self._epochs[(scope.user_id, scope.agent_id)]

    def purge(
        self, user_id: str, agent_id: str | None, delete: Callable[[], dict[str, int]]
    ) -> dict[str, int]:
        """Drop the user's queued jobs, wait for the one running, then run `delete`; its counts
        come back with `queued_jobs_dropped`."""

        def of_user(job: Job) -> bool:
            return job.scope.user_id == user_id and (
                agent_id is None or job.scope.agent_id == agent_id
            )

        with self._gate:
            self._purging[user_id] += 1
            self._epochs[user_id if agent_id is None else (user_id, agent_id)] += 1
            self._gate.wait_for(
                lambda: not self._running[user_id]
            )  # the running one finishes first
        try:
            dropped = self.worker.discard(of_user)
            counts = delete()
        finally:
            with self._gate:
                self._purging -= Counter({user_id: 1})
                self._gate.notify_all()
        counts["queued_jobs_dropped"] = dropped
        return counts
