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
    pass


class ValidationError(OpenClawMemoryError, ValueError):
    pass


class NotFoundError(OpenClawMemoryError, KeyError):
    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else "not found"


class IndexMismatchError(OpenClawMemoryError):
    pass


class StoreError(OpenClawMemoryError):
    pass


class ExtractionError(OpenClawMemoryError):
    pass
