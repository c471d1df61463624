"""What a request asks about and what a memory states, as keys that do not depend on wording or
language.

A question and the memory that answers it may share no word ("我的车是什么？" and "现在我开的是特斯拉";
"我叫什么名字？" and "My name is 王磊."), but they share what the write side files the answer under:
an attribute of the speaker's own that a clause names (`possessed` of the `recall` table), keyed
as the write side keys the slot of "my X is Y" and by the profile subject whose vocabulary names
it; a time ahead ("next week", 下周) is a key of its own.
"""

from __future__ import annotations

import functools

from ..lang import all_on
from ..lang.heads import subject_of_role
from ..types import MemoryRecord
from .reference import roots_used

# What a request asks about and what a memory states, as keys that do not depend on wording or
# language.
#
# A question and the memory that answers it may share no word: "我的车是什么？" and "现在我开的是
# 特斯拉" (the car), 我的职业是什么 and 我不当老师了，改做产品经理了 (the job), "我叫什么名字？" and
# "My name is 王磊." (the name, across languages). They share what the write side files the
# answer under. So both are read as keys:
#
# - an attribute of the speaker's own that a clause names (`possessed` of the language pack's
#   `recall` table: "my car", 我的车, "what is my name?"), keyed as the write side keys the slot
#   of "my X is Y" (its change grammar's role table: 车 and "car" are the car) and by the profile
#   subject whose vocabulary names it (each language's `vocabulary` table: 职业 is the job, "name" the name);
# - a request that names no such attribute asks about the subjects whose vocabulary it uses
#   (我叫什么名字 asks the name); one that names one asks about that attribute ("我的宠物叫什么
#   名字" asks the pet's name, not the user's);
# - a memory states its own subject (`job`, `car`, `fact/name`: the part before any "/", "fact/"
#   aside) and any attribute of the speaker's own it names.
#
# A time ahead (`reads: ahead` entries of the same table: "next week", 下周, 明天) is a key of its
# own: a question about a plan ("我下周去哪里出差？") and the memory of it ("I'm flying to Madrid
# next week for work") name the same time in whatever language each is written in.

#: the language pack table both keys are read from
RECALL_TABLE = "recall"
#: a subject filed under no attribute of its own ("fact/<head>"): the head is the key
_FACT = "fact/"


def possessed(text: str) -> list[str]:
    """The attributes of the speaker's own the text names (group k of each pack's `possessed`),
    lower-cased, in order."""
    out: list[str] = []
    for pack in all_on().all():
        pattern = pack.table(RECALL_TABLE).entry("possessed").pattern
        out.extend(m.group("k").lower() for m in pattern.finditer(text))
    return out


@functools.lru_cache(maxsize=4096)
def attribute_keys(word: str) -> frozenset[str]:
    """The keys of an attribute word: the slot key the write side gives "my <word> is ..."
    (its language's role table, else the word's head: `lang/heads.py`) and the profile
    subjects whose vocabulary holds it."""
    return frozenset({subject_key(subject_of_role(word)), *roots_used(word)})


def subject_key(subject: str) -> str:
    """A memory subject as a key: lower-cased, "fact/" aside, the part before any "/"."""
    s = subject.strip().lower()
    return s.removeprefix(_FACT).split("/", 1)[0].strip()


def asked(text: str) -> frozenset[str]:
    """The keys a request asks about (module docstring)."""
    words = possessed(text)
    if words:
        return frozenset(k for w in words for k in attribute_keys(w))
    return roots_used(text)


def states(r: MemoryRecord, keys: frozenset[str]) -> bool:
    """Whether the memory states one of these keys: its subject, or an attribute of the
    speaker's own that its text names."""
    if not keys:
        return False
    if r.subject and subject_key(r.subject) in keys:
        return True
    return any(attribute_keys(w) & keys for w in possessed(r.text))


def ahead(text: str) -> frozenset[str]:
    """The times ahead the text names ("next week", 下周: next_week), by entry name."""
    found = set()
    for pack in all_on().all():
        for name, entry in pack.table(RECALL_TABLE).items():
            if entry.setting("reads") == "ahead" and entry.pattern.search(text):
                found.add(name)
    return frozenset(found)
