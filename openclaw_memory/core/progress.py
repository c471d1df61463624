"""The long commands on a terminal: their progress (import, migrate, reindex, doctor), on tqdm,
and the type of their whole-number arguments (`whole_number`).

A `TerminalProgress` draws only when its stream (stderr by default) is a terminal; otherwise
every call is a no-op, so piped and JSON outputs stay exactly as they were. It takes both shapes
of callback the package's long loops report through:

- `progress(done, total)`: one bar with a known end (reindex, doctor);
- `progress.count(phase, n)`: a running count per phase with no known end (an import's lines
  read and records written, a migration's rows copied per table).

Phases come one after another: a new one ends the previous bar. Use it as a context manager, or
call `close()`, so the last bar ends its line.
"""

from __future__ import annotations

import argparse
import sys
from types import TracebackType
from typing import Any, Callable, TextIO


def is_terminal(stream: Any) -> bool:
    """Whether `stream` is attached to a terminal (a closed or odd stream is not)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


class TerminalProgress:
    """tqdm bars on `stream` (default: sys.stderr when created), drawn only on a terminal.

    label: what the bars are for ("import", "reindex"); units: a phase's unit in `count`
    ({"read": "lines"}); a phase not named counts "rows"."""

    def __init__(
        self,
        label: str,
        *,
        stream: TextIO | None = None,
        units: dict[str, str] | None = None,
    ) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = is_terminal(self.stream)
        self.units = dict(units or {})
        self._bars: dict[str, Any] = {}

    def __call__(self, done: int, total: int) -> None:
        """One bar up to `total`."""
        if not self.enabled:
            return
        bar = self._bar("", total=max(0, int(total)), unit="it")
        if bar.total != total:
            bar.total = max(0, int(total))
        bar.update(max(0, int(done) - bar.n))

    def count(self, phase: str, n: int) -> None:
        """A running count for `phase` (n is the count so far, not a step)."""
        if not self.enabled:
            return
        bar = self._bar(phase, total=None, unit=self.units.get(phase, "rows"))
        bar.update(max(0, int(n) - bar.n))

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()
        self._bars.clear()

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _bar(self, phase: str, *, total: int | None, unit: str) -> Any:
        bar = self._bars.get(phase)
        if bar is None:
            self.close()  # phases come one after another: the last one's line is finished
            from tqdm import tqdm  # only when drawing: no import cost for piped runs

            desc = f"{self.label} {phase}".strip()
            bar = tqdm(
                total=total,
                desc=desc,
                unit=f" {unit}" if total is None else unit,
                file=self.stream,
                leave=True,
                mininterval=0.2,
            )
            self._bars[phase] = bar
        return bar


def whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least `minimum`, else a usage error naming it."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"expected a whole number >= {minimum}, found {text!r}"
            )
        return value

    return parse
