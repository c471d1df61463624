"""PostgreSQL as the source of truth (`storage.backend: postgres`), through psycopg 3.

psycopg is an optional dependency, imported here and nowhere else (`psycopg_module`), so the
package imports without it and a missing install is one clear error with its install hint.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from ...errors import ConfigError

#: the environment variable a DSN may come from (the config's storage.postgres.dsn wins)
DSN_ENV = "OPENCLAW_MEMORY_PG_DSN"

INSTALL_HINT = "pip install 'openclaw-memory[postgres]' (psycopg 3 with its libpq)"


@functools.lru_cache(maxsize=1)
def psycopg_module() -> Any:
    """The psycopg module, or a ConfigError naming the setting and how to install it."""
    try:
        import psycopg
        import psycopg.conninfo  # noqa: F401  (redaction parses DSNs with it)
    except ImportError as exc:
        raise ConfigError(
            f"storage.backend: postgres needs psycopg 3, which is not installed ({exc}); "
            f"install it with: {INSTALL_HINT}"
        ) from exc
    return psycopg


def resolve_dsn(configured: str) -> str:
    """The DSN to connect with: the config's storage.postgres.dsn, else $OPENCLAW_MEMORY_PG_DSN."""
    dsn = configured.strip() or os.environ.get(DSN_ENV, "").strip()
    if not dsn:
        raise ConfigError(
            "storage.backend is 'postgres' but no DSN is set: set storage.postgres.dsn "
            f"(e.g. postgresql://user@host:5432/memory) or the environment variable {DSN_ENV}"
        )
    return dsn
