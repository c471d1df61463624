"""Connection limits uvicorn does not have: header deadlines and a connection budget that a
local process without the token cannot exhaust.

uvicorn closes a keep-alive connection idle between requests (`timeout_keep_alive`), but a
connection that never sends a request head (or sends half of one) stays open for ever, and its
`limit_concurrency` counts open connections: 70 half-open connections from any local process,
no token needed, made every request answer 503. So the service gives uvicorn no concurrency
limit (the guard caps running authenticated requests instead: guard.py) and uses
`guarded_http_protocol`, uvicorn's h11 protocol with:

- a header deadline: a connection waiting for a request head (a new one, or a keep-alive one
  between requests) is closed when no complete head arrived within `header_timeout_s`;
- a connection budget: when a new connection would pass `max_connections`, an idle one (waiting
  for a head, no request running) is closed to make room: one that never sent the token first,
  the oldest first, then idle keep-alive connections that did; only when every connection is
  busy with a request is the new one closed. A head that carries the right token (the
  `authorized` check) marks its connection as trusted.

The body deadline is the guard's (a body must arrive within `body_timeout_s` of its head).
"""

from __future__ import annotations

import asyncio
from typing import Callable, Iterable

from uvicorn.protocols.http.h11_impl import H11Protocol

Headers = Iterable[tuple[bytes, bytes]]


def guarded_http_protocol(
    header_timeout_s: float,
    max_connections: int = 256,
    authorized: Callable[[Headers], bool] | None = None,
) -> type:
    """An H11Protocol subclass with a header deadline and a connection budget (module doc)."""

    class GuardedH11Protocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            self._head_timer: asyncio.TimerHandle | None = None
            self._trusted = False
            self._opened = self.loop.time()
            super().connection_made(transport)
            if self._open_count() > max_connections and not self._make_room():
                self.logger.warning("refused a connection: %d open, all busy", max_connections)
                transport.close()
                return
            self._arm()

        def _open_count(self) -> int:
            return sum(1 for c in self.connections if not c.transport.is_closing())

        def _make_room(self) -> bool:
            """Close one idle connection (untrusted first, oldest first); False if none is idle."""
            idle = [
                c
                for c in self.connections
                if c is not self
                and isinstance(c, GuardedH11Protocol)
                and c._waiting_for_head()
                and not c.transport.is_closing()
            ]
            if not idle:
                return False
            victim = min(idle, key=lambda c: (c._trusted, c._opened))
            victim._disarm()
            victim.transport.close()
            return True

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(header_timeout_s, self._head_timeout)

        def _disarm(self) -> None:
            timer = getattr(self, "_head_timer", None)
            if timer is not None:
                timer.cancel()
                self._head_timer = None

        def _waiting_for_head(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _head_timeout(self) -> None:
            self._head_timer = None
            if self._waiting_for_head() and not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            before = self.cycle
            super().data_received(data)
            if self.cycle is not before and not self._waiting_for_head():
                self._disarm()  # a head arrived: the request's own time is the guard's business
                if authorized is not None and not self._trusted:
                    self._trusted = authorized(self.headers or ())

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next head must come in time too

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return GuardedH11Protocol
