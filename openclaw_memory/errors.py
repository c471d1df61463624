"""The error tree. Every message says what was expected, what was found and where.

OpenClawMemoryError
├── ConfigError          a YAML file, key or value is wrong (names file, key, expected form)
├── ValidationError      bad input to the API (names the field and the expected form)
├── NotFoundError        a record id that does not exist in the given scope
├── IndexMismatchError   the vector index was built by another embedder: run `reindex`
├── StoreError           the SQLite store or the vector index failed
└── ExtractionError      an LLM chain returned something unusable (callers fall back to rules)
"""

from __future__ import annotations


class OpenClawMemoryError(Exception):
    """Base of every error this package raises on purpose."""


class ConfigError(OpenClawMemoryError):
    """A YAML file, key or value is wrong (the message names file, key and expected form)."""


class ValidationError(OpenClawMemoryError, ValueError):
    """Bad input to the API (the message names the field and the expected form)."""


class NotFoundError(OpenClawMemoryError, KeyError):
    """A record id that does not exist in the given scope."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else "not found"


class IndexMismatchError(OpenClawMemoryError):
    """The vector index was built by another embedder: run `openclaw-memory reindex`."""


class StoreError(OpenClawMemoryError):
    """The SQLite store or the vector index failed."""


class ExtractionError(OpenClawMemoryError):
    """An LLM chain returned something unusable (callers fall back to the rules)."""
