"""Change classifiers: a value the user says has changed, and attribute facts ("my X is Y").

Tried before the profile and preference classifiers. A change is a slot tagged `switch` (the
user corrects their own earlier words: explicit channel) whose `replaces` names the old value
when the sentence does ("I left Acme and joined Globex", 我已经从阿里跳槽到腾讯了), so that
consolidation can retire the memory that still states it.

One grammar per language (`en.py`, `zh.py`), each a tuple of classifiers in the order they are
tried; `shared.py` holds what both build on (the change slot, role keys, favourites).
"""

from __future__ import annotations

from collections.abc import Callable

from ..slot import Slot
from . import en, zh


def classifiers(cjk: bool) -> tuple[Callable[[str], Slot | None], ...]:
    """The change classifiers of a clause's language, in the order they are tried."""
    return zh.CLASSIFIERS if cjk else en.CLASSIFIERS
