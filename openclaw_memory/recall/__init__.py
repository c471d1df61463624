"""The read stage, and what it reads through: the record store, the vector index's searches, the
embedder and the clock.

The factory hands recall these ports of the storage it opened (`runtime.factory.read_ports`):
recall opens nothing and writes no memory; of the vector index it holds only a function that
opens a search, never the indexer or the index's management.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from llama_index.core.base.embeddings.base import BaseEmbedding

from ..core.clock import Clock
from ..store.ports import StageStore, VectorSearch
from ..types import Scope

#: a tier's vector search for a scope, opened with that scope's pending writes indexed first
#: (read-your-writes: `store.indexer.Indexer.searcher`), called as `search(vector, k)`
OpenSearch = Callable[[Scope, str], VectorSearch]


@dataclass(frozen=True)
class ReadPorts:
    """The ports recall reads: each channel and step is handed the ones it uses."""

    #: the records, their vectors, keyword and entity indexes (`store.ports.StageStore`)
    store: StageStore
    #: opens a tier's vector search (`OpenSearch`)
    search: OpenSearch
    #: embeds the request (`embed.embedding.embed_query`); its name keys the query vectors
    embedder: BaseEmbedding
    #: now, for time windows, recency and live neighbours
    clock: Clock
