"""Background jobs of users, and purges that must not race them.

Purges bump an epoch per user (every agent) or per (user, agent); a job submitted under an older
epoch is dropped instead of writing the purged data back. While a user is being purged, that
user's jobs wait, and the purge waits for the one running (per user: other users' jobs go on).
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from typing import Any, Callable

from ..types import Scope
from .worker import Job, Worker

log = logging.getLogger(__name__)


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
