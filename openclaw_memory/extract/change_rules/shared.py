"""What every change grammar shares: the slot a change makes, the key of an attribute word and
the favourite that changed."""

from __future__ import annotations

import dataclasses

from ...lang import LanguagePack
from ...lang.heads import role_keys, role_subject
from ..preference_rules import favorite_slot
from ..slot import PROFILE, Slot, en_head, heads, zh_head


def switch(subject: str, summary: str, value: str, replaces: str = "", kind=PROFILE) -> Slot:
    """The user corrects their own earlier words: a `switch` slot, naming the old value if said."""
    return Slot(kind, subject, summary, ("switch",), (value,), 0.9, replaces)


#: how a language finds the head of an attribute word (`heads:` of its lexicon table)
_HEAD_OF = {"posseg": zh_head, "words": en_head}


def subject_of(key: str, lang: LanguagePack) -> str:
    """The subject a statement of the speaker's `key` is filed under in `lang` (a role that passes
    to a new holder, "my landlord", keeps one subject whoever holds it)."""
    return role_subject(key, role_keys(lang.code), _HEAD_OF.get(heads(lang), str.strip))


def favourite_changed(cat: str, value: str | None, lang: LanguagePack) -> Slot | None:
    """A new favourite of a category, keyed by the category and tagged as a change."""
    slot = favorite_slot(cat.strip(), value, lang) if value else None
    return dataclasses.replace(slot, tags=(*slot.tags, "switch")) if slot else None
