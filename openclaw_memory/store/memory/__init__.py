"""The in-memory record store: `ports.RecordStore` in plain Python (dicts and lists), beside
the SQLite one, for tests and examples that need no file. The contract tests
(`tests/test_store_contract.py`) hold it to the same behaviour.

Keyword search is BM25 over the same jieba and Snowball tokens the SQLite store indexes
(`text.search_tokens`), with statistics of each (user, agent) partition alone. Every method holds
one re-entrant lock; a failed transaction restores the state it began with. Nothing persists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import functools
from typing import Any, Callable

from .housekeeping import PortabilityMixin
from .housekeeping import AuditMixin
from .housekeeping import LogsMixin

__all__ = ["MemoryStore"]

_UNLOCKED = {"transaction", "in_transaction"}


def _locked(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(self: "MemoryStore", *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return fn(self, *args, **kwargs)

    return call


class MemoryStore(PortabilityMixin, AuditMixin, LogsMixin):
    """A record store held in memory (one process, nothing persists)."""

    path = ":memory:"


for _name in dir(MemoryStore):
    _fn = getattr(MemoryStore, _name)
    if not _name.startswith("_") and callable(_fn) and _name not in _UNLOCKED:
        setattr(MemoryStore, _name, _locked(_fn))


if TYPE_CHECKING:  # the type checker holds the class to the port
    from ..ports import RecordStore

    _conforms: type[RecordStore] = MemoryStore
