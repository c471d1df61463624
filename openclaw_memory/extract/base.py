"""The extraction interface: a turn in, candidate memories out."""

from __future__ import annotations

import dataclasses
import re
from typing import Protocol, Sequence, runtime_checkable

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


_THE_USER = re.compile(r"\b[Tt]he user(?:'s)?\b")
ANONYMOUS_SPEAKERS = frozenset({"user", "assistant", ""})


def attribute(candidates: Sequence[Candidate], speaker: str | None) -> list[Candidate]:
    """Candidates of a turn by a named speaker (a group chat, a replayed dialogue) speak of that
    person, not of "the user": "Melanie likes pottery", keyed "Melanie/pref/pottery", so two
    people's likes never replace each other."""
    name = (speaker or "").strip()
    if name.lower() in ANONYMOUS_SPEAKERS:
        return list(candidates)

    def named(text: str | None) -> str | None:
        if not text:
            return text
        text = _THE_USER.sub(lambda m: name + ("'s" if m.group().endswith("'s") else ""), text)
        return text.replace("用户", name)

    return [
        dataclasses.replace(
            c,
            summary=named(c.summary) or c.summary,
            detail=named(c.detail),
            subject=f"{name}/{c.subject}" if c.subject else c.subject,
            entities=tuple(dict.fromkeys((*c.entities, name))),
        )
        for c in candidates
    ]
