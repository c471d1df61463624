"""The subject of a Chinese attribute word (the phrasings of change are the `change_clause`
table of `lang/zh/`, read by `change_rules`)."""

from __future__ import annotations

from ..slot import zh_head
from .shared import role_keys, role_subject


def subject_of_role(key: str) -> str:
    """The subject a statement of the speaker's `key` is filed under (a role that passes to a new
    holder, "my landlord", keeps one subject whoever holds it); recall reads requests by it."""
    return role_subject(key, role_keys("zh"), zh_head)
