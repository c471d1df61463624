"""A one-line progress bar on stderr, with no dependency: pass an instance as `progress=`."""

from __future__ import annotations

import sys
from typing import TextIO


class ProgressBar:
    """Callable as progress(done, total); redraws one line in place, ends it when done == total."""

    def __init__(self, label: str = "", *, width: int = 30, stream: TextIO | None = None) -> None:
        self._label = f"{label} " if label else ""
        self._width = max(1, int(width))
        self._stream = stream if stream is not None else sys.stderr
        self._last = -1

    def render(self, done: int, total: int) -> str:
        """The bar's text for done of total (without the carriage return)."""
        share = min(1.0, done / total) if total > 0 else 1.0
        filled = round(share * self._width)
        bar = "#" * filled + "." * (self._width - filled)
        return f"{self._label}[{bar}] {done}/{total} {share * 100:5.1f}%"

    def __call__(self, done: int, total: int) -> None:
        # At most ~200 redraws per run, so a fast loop stays cheap and a log stays short.
        step = done * 200 // total if total > 0 else 200
        if step == self._last and done < total:
            return
        self._last = step
        self._stream.write("\r" + self.render(done, total))
        if done >= total:
            self._stream.write("\n")
        self._stream.flush()
