"""A new value of an attribute, whatever the verb: the live memory a statement replaces because
both give one attribute of one subject a value, and the values differ
(docs/design.md invariant 10).

The wording of a change (`extract.change_grammar.states_change`) misses a value restated with
a word of time ("These days my favourite band is Radiohead"), a correction ("I got that wrong,
my dentist is Dr. Lopez", 我的车不是本田是马自达), a role that passed to a new holder (新房东是
刘阿姨) or a habit changed with 改 (我改成每天骑车上班了). Here the statement's frame (its
subject and attribute, the value masked) is compared with the frames of the live memories:

- by structure: a frame of the change table (`frames`: "my / our (new) X is Y", 我的X是Y,
  "Y is my X", 新X是Y) keyed like a live memory's, with another value, retires it when a
  marker says the value replaced one (`marker`): a correction, a verb of replacing or
  "instead" (or the value a correction left, "not X but Y") for any attribute; a time word of
  the present or a new holder ("my new doctor", 新房东) only for the speaker's attribute of one
  value at a time (`single`, `roles`). A frame restated with another value and no marker
  retires nothing here: "my colleague's birthday is ..." said twice may be two colleagues
  (the same subject key still supersedes in `decide.py`);
- by its words, for a statement no frame reads ("I've switched to cycling to work every day"
  after "I take the bus to work every day"): with a correction, a verb of replacing or
  "instead", an earlier statement of the speaker that keeps at least two of its words and
  differs in a few (the values) is the same frame; where an embedder is given, the two must
  also be closer in meaning than an unrelated everyday statement (`Meaning`), so words shared
  by chance retire nothing.

An addition (another, also, 又, 也: `adds`) retires nothing; nor does a statement about someone
else ("my brother moved to Denver", 我朋友的新房东是老李) retire a value of the user's: a frame
is keyed by its owner (my daughter's school is another attribute than my school, and replaces
only a school of my daughter's), and the words path reads only statements about the speaker.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...extract.change_grammar import PRESENT, REPLACED, Frame, adds, frame_words, frames, marker
from ...extract.statement import about_self, judges_only, owner, said, single_statement
from ...extract.statement import someone_else
from ...lang import Languages
from ...types import MemoryRecord
from .neighbour import AboveBackground
from .targets import ChangeTargets, earlier_claims, speaker_names

#: how many words a statement and an earlier one must share to be one frame on words alone
_SHARED = 2


class FrameMatcher:
    """Finds the live memory a statement gives a new value of the same attribute (see the module
    doc)."""

    def __init__(
        self,
        targets: ChangeTargets,
        langs: Languages | None = None,
        meaning: AboveBackground | None = None,
    ) -> None:
        self.targets = targets
        self.langs = langs
        self.meaning = meaning

    def find(self, db, new: MemoryRecord, vec: np.ndarray, skip: set[str]) -> MemoryRecord | None:
        """The memory `new` (a turn's episode) replaces by frame, or None."""
        text = said(new.summary)
        if not text or adds(text, self.langs) or judges_only(text):
            return None
        said_frames = frames(text, self.langs)
        signal = marker(text, self.langs)
        by_words = (
            signal == REPLACED
            and single_statement(text)
            and about_self(text)
            and not someone_else(owner(text))
        )
        if not said_frames and not by_words:
            return None  # read before any memory is: most turns give no attribute a value
        claims = earlier_claims(db, new, skip)
        episodes = self.targets.statements(db, new, owner(text), speaker_names(new))
        pool = _nearest(db, [*claims, *episodes], vec)
        found = _by_frame(pool, said_frames, signal, self.langs) if said_frames else None
        if found is None and by_words:
            found = self._by_words(text, [e for e in pool if e in episodes])
        return found

    def _by_words(self, text: str, pool: Sequence[MemoryRecord]) -> MemoryRecord | None:
        """The earlier statement that keeps the words of this one's frame and differs in its
        value (the module doc), nearest first."""
        words = frame_words(text, self.langs)
        for old in pool:
            theirs = frame_words(old.summary, self.langs)
            shared, mine, their_own = words & theirs, words - theirs, theirs - words
            if not (
                len(shared) >= _SHARED
                and 1 <= len(mine) <= len(shared)
                and 1 <= len(their_own) <= len(shared) + 1
            ):
                continue
            if self.meaning is None or self.meaning.above(said(old.summary), text):
                return old
        return None


def _nearest(db, pool: list[MemoryRecord], vec: np.ndarray) -> list[MemoryRecord]:
    """The pool nearest first (claims and statements without a vector last)."""
    vecs = db.vectors([r.id for r in pool])
    return sorted(
        pool, key=lambda r: -float(np.dot(vecs[r.id], vec)) if r.id in vecs else float("inf")
    )


def _by_frame(
    pool: Sequence[MemoryRecord],
    said_frames: Sequence[Frame],
    signal: int,
    langs: Languages | None,
) -> MemoryRecord | None:
    """The nearest memory whose frame is keyed like one of the statement's, with another value,
    when a marker says the value replaced one (`_replaces`)."""
    for old in pool:
        for theirs in frames(old.summary, langs):
            for mine in said_frames:
                if _replaces(mine, signal) and mine.differs(theirs):
                    return old
    return None


def _replaces(frame: Frame, signal: int) -> bool:
    """Whether a frame's new value replaces the live one rather than sitting beside it. A
    correction, a verb of replacing or "instead" (REPLACED), or the value a correction left
    ("not X but Y"), says so of any attribute. A time word of the present or a new holder ("my
    new doctor") says so of the speaker's attribute of one value at a time (`single`, `roles`:
    favourites, a pet, a landlord), not of one of many (a hobby) nor of an attribute the table
    does not name, and not of another person's: "my colleague's birthday is ..." said twice may
    be two colleagues."""
    if signal == REPLACED or frame.left:
        return True
    weak = signal == PRESENT or frame.new
    return weak and frame.single and not frame.multi and not frame.owner
