"""The tokenizers a language pack names (`tokenizer:` in its `pack.yaml`).

Each takes one run of word characters (already lower-cased) and returns its tokens. `words`
keeps the run as one word (English), `jieba` segments it with jieba's search mode, which yields
overlapping words (Chinese), and `bigrams` splits it into overlapping character pairs, each Latin
or digit run kept whole (Japanese, which jieba's Chinese dictionary does not know).
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Callable

Tokenizer = Callable[[str], list[str]]

_lock = threading.Lock()
_LATIN_OR_DIGITS = re.compile(r"[0-9a-z_\u00c0-\u024f]+|[^0-9a-z_\u00c0-\u024f]+")


@functools.lru_cache(maxsize=1)
def jieba_module():
    """jieba with its bundled dictionary loaded once (no network)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    with _lock:
        jieba.initialize()
    return jieba


def words(run: str) -> list[str]:
    """The run as one token."""
    return [run]


def jieba_search(run: str) -> list[str]:
    """jieba's search-mode words of the run (overlapping: 中华人民共和国 -> 中华, 华人, ...)."""
    return [t for t in jieba_module().lcut_for_search(run) if t.strip()]


def bigrams(run: str) -> list[str]:
    """Overlapping character pairs of each non-Latin stretch (a lone character stays one token);
    Latin and digit stretches whole."""
    tokens: list[str] = []
    for part in _LATIN_OR_DIGITS.findall(run):
        if part.isascii() or len(part) == 1:
            tokens.append(part)
        else:
            tokens.extend(part[i : i + 2] for i in range(len(part) - 1))
    return tokens


TOKENIZERS: dict[str, Tokenizer] = {"words": words, "jieba": jieba_search, "bigrams": bigrams}
