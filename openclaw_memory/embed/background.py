"""The background a cosine is read against: how high an unrelated statement scores, per language.

Absolute cosine says little: multilingual-e5 scores unrelated Chinese pairs 0.82-0.85 and unrelated
English pairs 0.75-0.80, so one `min_semantic` lets every Chinese memory through or no English one.
Instead, each request is scored against a fixed bank of everyday statements in its own language
(`data/background.json`, passages a user might have said, unrelated to any request by
construction): the mean of its few nearest ones is how high an *unrelated* memory scores for this
request, with this embedder, in this language. A memory passes on meaning alone only when it
beats that level by a margin (`recall.background_margin`). Consolidation reads the same level for
a change (`consolidate_neighbour.Neighbour`): a memory the change matches by meaning alone must score
above what an unrelated everyday statement would.

The bank is embedded once per embedder and process (about a hundred short passages).
"""

from __future__ import annotations

import json
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from .embedding import embed_passages, embedder_name
from ..lang import all_on, codes
from ..lang.text import has_cjk

BANK = Path(__file__).resolve().parent.parent / "data" / "background.json"
#: how many of the nearest background passages make the level (one accidental neighbour does not)
NEAREST = 3

_lock = threading.Lock()
_vectors: dict[tuple[str, str], np.ndarray] = {}


@lru_cache(maxsize=1)
def _bank() -> dict[str, list[str]]:
    data = json.loads(BANK.read_text(encoding="utf-8"))
    return {lang: list(data[lang]) for lang in codes() if lang in data}


class Background:
    """`level(qvec, cjk)`: the cosine an unrelated memory reaches for this request."""

    def __init__(self, embedder: BaseEmbedding, nearest: int = NEAREST) -> None:
        self.embedder = embedder
        self.nearest = max(1, nearest)

    def _matrix(self, lang: str) -> np.ndarray:
        key = (embedder_name(self.embedder), lang)
        with _lock:
            if key not in _vectors:
                _vectors[key] = embed_passages(self.embedder, _bank()[lang])
            return _vectors[key]

    def level(self, qvec: np.ndarray, cjk: bool) -> float:
        sims = self._matrix(all_on().of_han(cjk).code) @ qvec
        top = np.sort(sims)[::-1][: self.nearest]
        return float(top.mean())


class Meaning:
    """`above(old, new)`: whether two statements sit closer in meaning than an unrelated everyday
    statement sits to `new`, in `new`'s language (consolidation's test before meaning alone
    retires a memory: `consolidate_neighbour.Neighbour`). Embeds the two statements, so it is asked
    only of the one memory a change would retire."""

    def __init__(self, embedder: BaseEmbedding) -> None:
        self.embedder = embedder
        self.background = Background(embedder)

    def above(self, old: str, new: str) -> bool:
        v_old, v_new = embed_passages(self.embedder, [old, new])
        return float(v_old @ v_new) > self.background.level(v_new, has_cjk(new))
