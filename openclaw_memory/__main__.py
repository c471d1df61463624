"""`python -m openclaw_memory ...`: the same commands as the `openclaw-memory` console script."""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
