"""The injected clock (docs/design.md invariant 7): every time rule reads one of these, never the wall directly."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone
from typing import Protocol

DAY = 86400.0


class Clock(Protocol):
    """Where every timestamp comes from (injected, so tests and replays control time)."""

    def now(self) -> float:
        """UTC epoch seconds."""
        ...


class SystemClock:
    """Wall-clock time."""

    def now(self) -> float:
        """UTC epoch seconds, from the system clock."""
        return time.time()


class FakeClock:
    """A clock that only moves when told: for tests, replays and benchmarks."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._t = float(start)
        self._lock = threading.Lock()

    def now(self) -> float:
        """The time last set, in UTC epoch seconds."""
        with self._lock:
            return self._t

    def set(self, t: float) -> None:
        """Jump to t (epoch seconds)."""
        with self._lock:
            self._t = float(t)

    def advance(self, seconds: float = 0.0, *, days: float = 0.0) -> float:
        """Move forward by seconds plus days; returns the new time."""
        with self._lock:
            self._t += seconds + days * DAY
            return self._t


def iso_date(t: float) -> str:
    """YYYY-MM-DD in UTC, for renderings such as "changed on 2025-03-04"."""
    return datetime.fromtimestamp(t, tz=timezone.utc).strftime("%Y-%m-%d")


def iso_time(t: float) -> str:
    return datetime.fromtimestamp(t, tz=timezone.utc).strftime("%Y-%m-%d %H:%M")
