"""When meaning alone links a change to a memory (`Neighbour`): the test every place that
retires by meaning asks (`consolidate_decide.Decisions._about`, `consolidate_targets.ChangeTargets`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ...extract.statement import judges_only, said
from ...extract.slot import third_person
from ...lang.text import has_cjk
from ...types import MemoryRecord


class AboveBackground(Protocol):
    """Whether two statements sit closer than an unrelated everyday statement sits to the second
    (`background.Meaning`)."""

    def above(self, old: str, new: str) -> bool: ...


@dataclass(frozen=True)
class Neighbour:
    """When meaning alone links a change to a memory, the nearest memory must be its clear
    semantic neighbour:

    - similar enough (`change_similarity`) and ahead of the next memory by `change_margin`;
    - closer to the change, both in their own words and in the third person, than an unrelated
      everyday statement is (`background`). The next memory alone is no reference: a scope of one
      memory has none. And stored claims are embedded with their subject key ("allergy/peanut:
      The user is ..."), which brings any two claims of one user within a few hundredths (0.90
      for "allergic to peanuts" / "switched to a Pixel 8"). Their summaries alone score 0.82,
      under the background bank's everyday statements, while a phone the user replaced scores
      above them;
    - of the attribute the change is keyed by, when it is keyed ("my new laptop is ..." is no
      news of the user's job: `attribute_key`);
    - and the change names a value: one that only judges its thing ("my new job is really good
      now": `judges_only`) replaced nothing."""

    similarity: float
    margin: float
    background: AboveBackground | None = None

    def clear(
        self,
        scored: list[tuple[float, MemoryRecord]],
        new: MemoryRecord,
        key: str | None = None,
        nearest_keys: Sequence[str | None] = (),
    ) -> bool:
        """Whether scored[0] (scored: (cosine, memory), nearest first) is the clear neighbour of
        the change `new`. `key`: the subject key of the change (default: its own subject);
        `nearest_keys`: those of the nearest memory (default: its own subject; for an episode,
        the keys of the claims distilled from its turn)."""
        if not scored or judges_only(new.summary):
            return False  # "my new job is really good": no value that replaced anything
        named = attribute_key(key or new.subject)
        nearest = {attribute_key(k) for k in (nearest_keys or (scored[0][1].subject,))} - {None}
        if named and (named not in nearest if nearest else named not in scored[0][1].text.lower()):
            # "my new laptop is ..." is no news of the user's job, nor of a statement that names
            # no laptop and was keyed by nothing ("I have two cats")
            return False
        best = scored[0][0]
        runner_up = scored[1][0] if len(scored) > 1 else 0.0
        if best < self.similarity or best - runner_up < self.margin:
            return False
        if self.background is None:
            return True
        # both in the third person, as claims are stored: "I now drive a Corolla" and "The user's
        # car is a Ford Focus" differ in person more than in meaning
        return self.background.above(_outside(scored[0][1].summary), _outside(new.summary))


def attribute_key(subject: str | None) -> str | None:
    """The attribute a subject key names: "fact/laptop" -> laptop, "allergy/peanut" -> allergy,
    "job" -> job. None for no key, or a key made of a value ("pref/pixel 8": what the user likes
    or switched to says nothing of which attribute it is)."""
    if not subject or subject.startswith("pref/"):
        return None
    if subject.startswith("fact/"):
        return subject[5:] or None
    return subject.split("/", 1)[0]


def _outside(text: str) -> str:
    """A statement as a claim reads it: the speaker's label dropped, first person made third."""
    return third_person(said(text), has_cjk(text))
