"""What export and import reach of the open storage (`Storage`).

The record store, the clock, the embedder and the name its vectors carry, the config, and the
indexer's notice of new writes: an export reads the store (and says when and by which embedder
it was made), an import embeds, writes through check-before-write and tells the indexer. A
`runtime.engine.MemoryEngine` is such a storage; the commands open one (`portability.__init__`),
the console and the service pass theirs.
"""

from __future__ import annotations

from typing import Protocol

from llama_index.core.base.embeddings.base import BaseEmbedding

from ..config import MemoryConfig
from ..core.clock import Clock
from ..store.ports import RecordStore


class Storage(Protocol):
    """The parts of the open storage that export and import use."""

    @property
    def store(self) -> RecordStore: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def embedder(self) -> BaseEmbedding: ...

    @property
    def model_name(self) -> str:
        """The embedder's name: what the stored vectors carry and an export names."""
        ...

    @property
    def config(self) -> MemoryConfig: ...

    def written(self) -> None:
        """Tell the indexer that writes queued outbox entries (it applies them soon)."""
        ...
