"""What the English and the Chinese change grammars share: the slot a change makes, the key of
an attribute word, the favourite that changed, and the words that are no stopped habit."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping

from ...lang import pack
from ..change_grammar import TABLE
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


def role_keys(code: str) -> Mapping[str, str]:
    """The slot key of each attribute word that has one (`role_keys` of the language's change
    table: "boss" and 老板 are the manager)."""
    entry = pack(code).table(TABLE).entry("role_keys")
    return entry.setting("keys", {}) if entry.on else {}


def role_subject(key: str, roles: Mapping[str, str], head: Callable[[str], str]) -> str:
    """The slot key of an attribute word: a role ("boss" is the manager), else `fact/<head>`."""
    key = key.strip().lower()
    return roles.get(key) or f"fact/{head(key)}"


def favourite_changed(cat: str, value: str | None, cjk: bool) -> Slot | None:
    """A new favourite of a category, keyed by the category and tagged as a change."""
    slot = favorite_slot(cat.strip(), value, cjk) if value else None
    return dataclasses.replace(slot, tags=(*slot.tags, "switch")) if slot else None
