"""How a subject names whose value a memory holds.

A fact about a person of the user's world is filed under `<relation>/<name>/<attribute>`
(`daughter/lina/allergy/mango`), or `<relation>/<attribute>` when the user named no one
(`wife/job`: "my wife is now a teacher"); it is tagged `("person", <relation>)` and carries the
name among its entities (`extract/profile_rules.py`). Relations are canonical keys, the same in
every language (each language's `lexicon` table maps its words to them).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..types import MemoryRecord

#: the tag a fact about a person of the user's world carries first, its relation second
PERSON_TAG = "person"

#: relations a user has one of at a time: a fact said of "my wife" is said of the one wife the
#: user has named (a daughter, a friend or a colleague may be any of several)
ONE_HOLDER = frozenset(
    {"wife", "husband", "partner", "girlfriend", "boyfriend", "mother", "father"}
)


@dataclass(frozen=True)
class PersonPath:
    """A person's fact's subject read as its parts (lower-cased)."""

    relation: str
    #: the name the user gave the person, "" when named by relation alone
    name: str
    #: the attribute and any value after it ("allergy/mango", "job")
    attribute: str

    def subject(self, name: str | None = None) -> str:
        """The subject under `name` (this path's own by default; "" files it by relation)."""
        who = self.name if name is None else name
        return "/".join(p for p in (self.relation, who, self.attribute) if p)


def person_path(r: MemoryRecord) -> PersonPath | None:
    """The parts of a fact filed under a person of the user's world; None for any other memory."""
    if len(r.tags) < 2 or r.tags[0] != PERSON_TAG or not r.subject:
        return None
    parts = [p.strip().lower() for p in r.subject.split("/")]
    relation = r.tags[1].strip().lower()
    if parts[0] != relation or len(parts) < 2:
        return None
    names = {e.strip().lower() for e in r.entities}
    if len(parts) > 2 and parts[1] in names:
        return PersonPath(relation, parts[1], "/".join(parts[2:]))
    return PersonPath(relation, "", "/".join(parts[1:]))
