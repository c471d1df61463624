"""The capture journal's file: a write the service answers 202 ("queued") is on disk before the answer.

Captures, tool events, session ends and compactions are queued for the background worker and
answered at once; the queue lives in memory, so without this a SIGKILL lost what it held. Each
such request is first written here, fsync'd, under its capture id (the plugin's, or one made
here); the worker marks it done once the jobs it queued have run, and the next start replays
what was journaled and not done, in order. A capture id seen before is not queued again, so a
write the plugin resends (its answer was lost in a timeout) is taken once.

The file is a small SQLite database of its own beside the store (`captures.journal`, 0600):
`synchronous=FULL` in rollback-journal mode fsyncs every commit, and `secure_delete` zeroes a
body the moment it is done with. What is journaled is the request with its secrets already
redacted (`SecretFilter.redact_value` over every field but the ids), so the journal never holds
a secret, and the redacted request is what the worker then processes. With `encryption.enabled`
the journal is encrypted with the store's key, like the store (`store/keys.py`). A purge needs
nothing more: the purged user's queued jobs are dropped, the journal's done-mark (queued on a
scope of its own, which no purge drops) still runs and clears the body, and a replay after a
restart is refused as spooled before the purge.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .sqlite import check_encryption
from .sqlite import is_plaintext
from .sqlite import unlock
from .keys import StoreKey, sqlcipher

log = logging.getLogger(__name__)

#: how long a done capture id is remembered, so that a resend of it is recognised (seconds)
KEEP_DONE_SECONDS = 7 * 24 * 3600
FILE_NAME = "captures.journal"
#: done-marks between two prunes of old done ids
PRUNE_EVERY = 1000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS captures (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    route TEXT NOT NULL,
    user_id TEXT,
    agent_id TEXT,
    body TEXT,
    at REAL NOT NULL,
    done_at REAL
);
CREATE INDEX IF NOT EXISTS captures_pending ON captures(done_at, user_id, agent_id);
"""


@dataclass(frozen=True)
class Entry:
    """One journaled write: its capture id, route, request body (JSON object) and when it came."""

    id: str
    route: str
    body: dict[str, Any]
    at: float


def _connect(path: Path, key: StoreKey | None) -> sqlite3.Connection:
    """The journal's connection; with the store's key an encrypted one (a journal left in
    plaintext from before encryption was on is encrypted in place first, pending bodies kept)."""
    if key is None:
        check_encryption(path, None)  # an encrypted journal without the key: said, not opened
        return sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    if is_plaintext(path):
        from .encrypt import encrypt_file  # encrypt.py names this module's file for --rekey

        encrypt_file(path, key)
    conn: sqlite3.Connection = sqlcipher().connect(
        str(path), check_same_thread=False, isolation_level=None
    )
    unlock(conn, key, path, busy_timeout_ms=10000)
    return conn


def new_capture_id() -> str:
    return uuid.uuid4().hex


class CaptureJournal:
    """An fsync'd journal of queued writes (see module doc). Thread-safe; one per process."""

    def __init__(
        self,
        path: Path | str,
        *,
        clock: Any = time.time,
        shared: "SharedPending | None" = None,
        key: StoreKey | None = None,
    ) -> None:
        self.path = Path(path)
        #: the pending marks every process of a shared store sees (PostgreSQL), or None
        self.shared = shared
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        os.close(fd)
        os.chmod(self.path, 0o600)
        self._clock = clock
        self._lock = threading.Lock()
        self._marks = 0
        self._db = _connect(self.path, key)
        for pragma in ("journal_mode=DELETE", "synchronous=FULL", "secure_delete=ON"):
            self._db.execute(f"PRAGMA {pragma}")
        self._db.executescript(_SCHEMA)

    def add(self, capture_id: str, route: str, scope: Any, body: dict[str, Any]) -> bool:
        """Journal a write (committed and fsync'd on return); False when the id is known already
        (a resend: it is not queued again)."""
        user = getattr(scope, "user_id", None)
        agent = getattr(scope, "agent_id", None)
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            cur = self._db.execute(
                "INSERT OR IGNORE INTO captures(id, route, user_id, agent_id, body, at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (capture_id, route, user, agent, text, float(self._clock())),
            )
        if cur.rowcount == 1 and self.shared is not None and user is not None:
            self._mark(self.shared.add, capture_id, user, agent or "default")
        return cur.rowcount == 1

    def done(self, capture_id: str) -> None:
        """The write's jobs have run: its body is erased, its id kept a while for resends (done
        ids older than that are pruned every `PRUNE_EVERY` marks)."""
        with self._lock:
            self._db.execute(
                "UPDATE captures SET body = NULL, done_at = ? WHERE id = ?",
                (float(self._clock()), capture_id),
            )
            self._marks += 1
        if self._marks % PRUNE_EVERY == 0:
            self.prune()
        if self.shared is not None:
            self._mark(self.shared.done, capture_id)

    @staticmethod
    def _mark(action: Callable[..., None], *args: str) -> None:
        """A shared mark is a courtesy to the other processes' reads: the write stands without
        it (journaled here), so a database that cannot be reached is logged, not raised."""
        try:
            action(*args)
        except Exception as exc:  # noqa: BLE001
            log.warning("journal: the shared pending mark was not written: %s", exc)

    def wait_for_scope(self, scope: Any) -> bool:
        """Wait (bounded) until no process of a shared store has a capture of scope queued;
        True at once without a shared store (this process's own queue is the middleware's
        read-your-writes). False when the bound passed first."""
        if self.shared is None:
            return True
        return self.shared.wait(scope.user_id, scope.agent_id)

    def pending(self) -> list[Entry]:
        """Journaled writes not done yet, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, route, body, at FROM captures WHERE done_at IS NULL ORDER BY seq"
            ).fetchall()
        return [Entry(i, r, json.loads(b or "{}"), a) for i, r, b, a in rows]

    def pending_count(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT count(*) FROM captures WHERE done_at IS NULL").fetchone()
        return int(row[0])

    def prune(self, keep_seconds: float = KEEP_DONE_SECONDS) -> int:
        """Forget done ids older than keep_seconds; returns how many."""
        with self._lock:
            cur = self._db.execute(
                "DELETE FROM captures WHERE done_at IS NOT NULL AND done_at < ?",
                (float(self._clock()) - keep_seconds,),
            )
            return cur.rowcount

    def close(self) -> None:
        with self._lock:
            self._db.close()
        if self.shared is not None:
            self.shared.close()


class SharedPending:
    """Marks, in a shared PostgreSQL store, of the captures queued on any service process.

    Each process queues captures in memory (and journals them in its own file); another process
    on the same database cannot see that queue, so a recall there could miss a capture made a
    moment ago through its neighbour. A mark is written (with the database's clock) when a
    capture is journaled and deleted when it is done; a recall waits, at most `WAIT_SECONDS`,
    until its scope has no mark younger than `MAX_AGE_SECONDS` (a mark left by a process that
    died is replayed by that process's journal when it starts again, and meanwhile ages out
    rather than holding every recall of its scope).
    """

    TABLE = "ocm_pending_captures"
    WAIT_SECONDS = 5.0
    MAX_AGE_SECONDS = 60.0
    POLL_SECONDS = 0.05

    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self._lock = threading.Lock()
        self._conn: Any = None
        self._execute(
            f"CREATE TABLE IF NOT EXISTS {self.TABLE} (id TEXT PRIMARY KEY, "
            "user_id TEXT NOT NULL, agent_id TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        self._execute(
            f"CREATE INDEX IF NOT EXISTS {self.TABLE}_scope ON {self.TABLE}(user_id, agent_id)"
        )

    def _execute(self, sql: str, params: tuple = ()) -> Any:
        """Run one statement; a dropped connection is opened again once."""
        import psycopg

        with self._lock:
            for attempt in (1, 2):
                try:
                    if self._conn is None or self._conn.closed:
                        self._conn = psycopg.connect(self._dsn, autocommit=True, connect_timeout=10)
                    cur = self._conn.execute(sql, params)
                    return cur.fetchone() if cur.description else None
                except (psycopg.OperationalError, psycopg.InterfaceError):
                    self._conn = None
                    if attempt == 2:
                        raise
        return None

    def add(self, capture_id: str, user_id: str, agent_id: str) -> None:
        self._execute(
            f"INSERT INTO {self.TABLE}(id, user_id, agent_id) VALUES (%s, %s, %s) "
            "ON CONFLICT (id) DO NOTHING",
            (capture_id, user_id, agent_id),
        )

    def done(self, capture_id: str) -> None:
        self._execute(f"DELETE FROM {self.TABLE} WHERE id = %s", (capture_id,))

    def queued(self, user_id: str, agent_id: str) -> int:
        row = self._execute(
            f"SELECT count(*) FROM {self.TABLE} WHERE user_id = %s AND agent_id = %s "
            "AND at > now() - make_interval(secs => %s)",
            (user_id, agent_id, self.MAX_AGE_SECONDS),
        )
        return int(row[0]) if row else 0

    def wait(self, user_id: str, agent_id: str) -> bool:
        """True once the scope has no recent mark; False when the bound passed first or the
        database could not be asked (the recall then goes on: a read is never refused for this)."""
        try:
            return self._wait(user_id, agent_id)
        except Exception as exc:  # noqa: BLE001 - waiting is a courtesy, not a precondition
            log.warning("cannot read the pending captures of user %s: %s", user_id, exc)
            return False

    def _wait(self, user_id: str, agent_id: str) -> bool:
        deadline = time.monotonic() + self.WAIT_SECONDS
        while self.queued(user_id, agent_id):
            if time.monotonic() >= deadline:
                log.warning(
                    "captures of user %s still queued on another process after %.0f s; "
                    "recalling without them",
                    user_id,
                    self.WAIT_SECONDS,
                )
                return False
            time.sleep(self.POLL_SECONDS)
        return True

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
