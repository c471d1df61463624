"""Connection limits uvicorn does not have: a header timeout and a cap on open connections.

uvicorn closes a keep-alive connection idle between requests (`timeout_keep_alive`) and answers
503 past `limit_concurrency`, but only once a request head has arrived: a connection that never
sends one (or sends half of one) stays open for ever, so 20,000 half-open connections exhausted
the process's file descriptors and legitimate requests failed. `guarded_http_protocol` returns
uvicorn's h11 protocol with two additions:

- a connection waiting for a request head (a new one, or a keep-alive one between requests) is
  closed when no complete head arrived within `header_timeout_s`;
- a connection opened while `max_connections` are open is closed at once.
"""

from __future__ import annotations

import asyncio
from uvicorn.protocols.http.h11_impl import H11Protocol


def guarded_http_protocol(header_timeout_s: float, max_connections: int = 256) -> type:
    """An H11Protocol subclass with a header timeout and a connection cap (see module doc)."""

    class GuardedH11Protocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            self._head_timer: asyncio.TimerHandle | None = None
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                self.logger.warning("refused a connection: %d already open", max_connections)
                transport.close()
                return
            self._arm()

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
                self._disarm()  # a head arrived: the request's own time is the app's business

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next head must come in time too

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return GuardedH11Protocol
