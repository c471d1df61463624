"""`python -m openclaw_memory.cli`, as `openclaw-memory`."""

from . import main

raise SystemExit(main())
