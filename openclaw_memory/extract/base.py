"""The extraction interface: a turn in, candidate memories out."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..types import Candidate, Turn


@runtime_checkable
class Extractor(Protocol):
    """Turns one captured turn into candidate memories (consolidation decides what to store).

    Implementations read only the user side for curated memories, never return secrets, and
    return [] for contentless turns. Candidate confidence and importance are in [0, 1].
    """

    def extract(self, turn: Turn) -> list[Candidate]:
        """Candidate memories proposed by this turn, possibly none."""
        ...
