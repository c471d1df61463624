"""The write path after capture and extraction: the writer, consolidation, forgetting and edits
(the policy table they read is core/policy.py), and what a write outside a conversation's turns
(an import, an edit) is handed of the open storage (`Storage`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from llama_index.core.base.embeddings.base import BaseEmbedding

    from ..config import MemoryConfig
    from ..core.clock import Clock
    from ..lang import Languages
    from ..store.ports import RecordStore

# The open storage, for what writes outside a conversation's turns: the record store, the clock,
# the embedder and the name its vectors carry, the config and its language packs, and the
# indexer's notice of new writes.
# An export reads the store (and says when and by which embedder it was made); an import and an
# edit embed, write and tell the indexer. A `runtime.engine.MemoryEngine` is such a storage; a
# command opens one, the console and the service pass theirs.


class Storage(Protocol):
    """The parts of the open storage that export, import and edit use."""

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

    @property
    def langs(self) -> Languages:
        """The language packs under the config's `rules.disabled`: what an edit or an import
        reads a text with (what it names, whether it says anything)."""
        ...

    def written(self) -> None:
        """Tell the indexer that writes queued outbox entries (it applies them soon)."""
        ...
