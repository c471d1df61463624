"""The caps of an import, in one table (the per-field caps are `remember`'s: types.py).

Safe defaults: far above a real user's memory, far below what keeps the service busy for
minutes (one 60,000-record request once took 199 s of its CPU; a 60 MB MEMORY.md ran past
300 s at 1.99 GB). The CLI's `import --max-bytes / --max-records` raise the JSON Lines ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: a JSON Lines import: its size in bytes and its lines
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_RECORDS = 50_000
#: a workspace import: one memory file, and all of them together
WORKSPACE_FILE_BYTES = 4 * 1024 * 1024
WORKSPACE_TOTAL_BYTES = 32 * 1024 * 1024
#: how often (in lines read, then records written) `progress` is called
PROGRESS_EVERY = 1000

#: progress(phase, done): phase "read" (lines checked) or "written" (records stored)
Progress = Callable[[str, int], None]


def log_progress(logger: Any, where: str) -> Progress:
    """A `Progress` that logs (the service's and the console's imports)."""

    def report(phase: str, done: int) -> None:
        logger.info(
            "import %s: %d %s", where, done, "lines read" if phase == "read" else "records written"
        )

    return report
