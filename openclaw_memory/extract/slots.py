"""Slot classification for the rule chain: one clause in, at most one typed slot out.

A statement about another person of the user's world runs first (`people_rules`: filed under
that person, never the user's profile). Change classifiers come next (`change_rules`: a value the user says has changed, attribute
facts), then the profile ones (`profile_rules`), then the preference ones (`preference_rules`):
reply language and format, prohibitions, likes and dislikes. Each returns a `Slot` with a
stable subject key and a third-person summary ("用户住在杭州", "The user lives in Berlin"). They
read only what is stated; nothing is inferred.
"""

from __future__ import annotations

from ..lang import Languages
from ..lang.text import has_cjk
from . import change_rules, preference_rules, profile_rules
from .people_rules import person_fact
from .slot import Slot, third_person

__all__ = ["Slot", "classify", "third_person"]


def classify(clause: str, *, standing: bool = False, langs: Languages | None = None) -> Slot | None:
    """The slot one clause states, or None. `standing` marks a "from now on" instruction;
    `langs` are the language packs read (every rule on by default)."""
    clause = clause.strip()
    if not clause or clause.endswith(("?", "？")):
        return None
    cjk = has_cjk(clause)
    # a statement about another person is theirs, whatever it says (an age, an allergy, a job)
    slot = person_fact(clause, cjk, langs)
    if slot:
        return slot
    for change in change_rules.classifiers(cjk):
        slot = change(clause)
        if slot:
            return slot
    for profile in profile_rules.CLASSIFIERS:
        slot = profile(clause, cjk, langs)
        if slot:
            return slot
    for preference in preference_rules.CLASSIFIERS:
        slot = preference(clause, cjk, standing, langs)
        if slot:
            return slot
    return None
