"""Whether a stored claim is a standing instruction to the assistant, not a fact of the user's life.

The write path files an instruction (reply language, format, a prohibition, "The user asked:
...") under a subject key of its own and phrases it by each language's `slot` table
(`extract.slot.instruction_summary`); consolidation never links a life event to one, and recall
injects one on every request.
"""

from __future__ import annotations

import functools

from . import all_on

#: the language pack table whose `instruction` entry phrases a remembered instruction
TABLE = "slot"
#: the subject keys of instructions to the assistant (`extract.preference_rules`)
_INSTRUCTION_KEYS = ("reply_", "prohibition/")


@functools.lru_cache(maxsize=1)
def _instruction_heads() -> tuple[str, ...]:
    """How a remembered instruction starts, in every language ("The user asked: ")."""
    templates = (p.table(TABLE).entry("instruction").setting("template") for p in all_on().all())
    return tuple(t.split("{c}")[0] for t in templates if t)


def is_instruction(subject: str | None, summary: str) -> bool:
    """Whether a stored claim is a standing instruction to the assistant (reply language, format,
    a prohibition, "The user asked: ..."), not a fact of the user's life."""
    return (subject or "").startswith(_INSTRUCTION_KEYS) or summary.startswith(_instruction_heads())
