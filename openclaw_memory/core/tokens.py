"""Token counting with tiktoken, offline.

tiktoken downloads its vocabularies on first use, which fails on a machine without internet;
llama-index-core ships cl100k_base and o200k_base, so we point TIKTOKEN_CACHE_DIR there before
the first encoding is loaded.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

DEFAULT_ENCODING = "cl100k_base"


def _bundled_cache_dir() -> str | None:
    try:
        import llama_index.core as core
    except ImportError:  # pragma: no cover - llama-index-core is a hard dependency
        return None
    path = Path(core.__file__).parent / "_static" / "tiktoken_cache"
    return str(path) if path.is_dir() else None


@functools.lru_cache(maxsize=4)
def get_encoding(name: str = DEFAULT_ENCODING):
    """Return a tiktoken encoding, loaded from the vocabularies bundled with llama-index-core."""
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        bundled = _bundled_cache_dir()
        if bundled:
            os.environ["TIKTOKEN_CACHE_DIR"] = bundled
    import tiktoken

    return tiktoken.get_encoding(name)


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Number of tokens in text (special tokens are counted as plain text)."""
    if not text:
        return 0
    return _count(text, encoding)


@functools.lru_cache(maxsize=2048)
def _count(text: str, encoding: str) -> int:
    """Memoised: packing counts each memory line twice per request (fit, then use), and a
    user's next requests render mostly the same lines."""
    return len(get_encoding(encoding).encode(text, disallowed_special=()))


def truncate_tokens(text: str, max_tokens: int, encoding: str = DEFAULT_ENCODING) -> str:
    """Cut text to at most max_tokens tokens, adding an ellipsis when it was cut."""
    enc = get_encoding(encoding)
    ids = enc.encode(text, disallowed_special=())
    if len(ids) <= max_tokens:
        return text
    if max_tokens <= 1:
        return ""
    return enc.decode(ids[: max_tokens - 1]).rstrip() + "…"


#: characters per token a long text is cut to before its tokens are counted: more than any
#: language needs (English about 4, Chinese 1-2), so the token cut decides what is kept
_CHARS_PER_TOKEN = 8
#: tokens `ends` keeps free for the ellipsis it joins the two ends with (re-encoded, a seam may
#: take a token more than it did inside the text)
_JOIN_TOKENS = 6


def ends(text: str, max_tokens: int, encoding: str = DEFAULT_ENCODING) -> str:
    """A text of more than max_tokens tokens as its head and its tail (half each, joined by an
    ellipsis); a shorter one as it is. A long request asks at its start ("Summarise this: ...")
    or at its end ("... why does this fail?"), and reading it costs what its ends cost, however
    long it is (a pasted log of 1 MB)."""
    if max_tokens <= _JOIN_TOKENS + 1:
        return truncate_tokens(text, max_tokens, encoding)
    half = max_tokens * _CHARS_PER_TOKEN // 2
    if len(text) > 2 * half:
        text = f"{text[:half]}\n{text[-half:]}"
    enc = get_encoding(encoding)
    ids = enc.encode(text, disallowed_special=())
    if len(ids) <= max_tokens:
        return text
    kept = max_tokens - _JOIN_TOKENS  # the ellipsis, and a token a seam may re-encode into two
    head = kept // 2
    return f"{enc.decode(ids[:head]).rstrip()} … {enc.decode(ids[head - kept :]).lstrip()}"
