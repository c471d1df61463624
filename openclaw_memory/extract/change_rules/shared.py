"""What the English and the Chinese change grammars share: the slot a change makes, the key of
an attribute word, the favourite that changed, and the words that are no stopped habit."""

from __future__ import annotations

import dataclasses
import re

# moved below both sides (recall reads them too); kept here for the write side
from ...lang.heads import role_keys as role_keys, role_subject as role_subject
from ..preference_rules import favorite_slot
from ..slot import PROFILE, I, Slot

#: "not sure", "no longer able", 不知道, 不想: the rest of a "no longer / 不再" clause that is a
#: state or a modal, not a habit the user stopped; "not doing anything (then)": nothing named,
#: no habit
NOT_STOPPED = re.compile(
    r"^(?:(?:doing\s+)?(?:anything|nothing|much)\b|"
    r"sure|sorry|feeling|tired|hungry|going|able|allowed|ready|interested|worried|afraid|happy|sad|a |an |the |that |"
    r"so |too |very |really |exactly|quite|yet|知道|确定|清楚|记得|太|很|想|会|能|要|用|是|好|错|行|对|一样|喜欢)",
    I,
)


def switch(subject: str, summary: str, value: str, replaces: str = "", kind=PROFILE) -> Slot:
    """The user corrects their own earlier words: a `switch` slot, naming the old value if said."""
    return Slot(kind, subject, summary, ("switch",), (value,), 0.9, replaces)


def favourite_changed(cat: str, value: str | None, cjk: bool) -> Slot | None:
    """A new favourite of a category, keyed by the category and tagged as a change."""
    slot = favorite_slot(cat.strip(), value, cjk) if value else None
    return dataclasses.replace(slot, tags=(*slot.tags, "switch")) if slot else None
