"""What a request asks about and what a memory states, as keys that do not depend on wording or
language (recall/analyse.py), English and Chinese side by side."""

from __future__ import annotations

import pytest

from openclaw_memory.recall.analyse import ahead
from openclaw_memory.recall.analyse import asked
from openclaw_memory.recall.analyse import states
from openclaw_memory.recall.analyse import subject_key
from openclaw_memory.types import MemoryRecord, MemoryType, Scope

ALICE = Scope("alice")


@pytest.mark.parametrize(
    "text,keys",
    [
        # an attribute of the user's own, keyed as the write side keys "my X is ..."
        ("Who is my boss?", {"manager"}),
        ("我的领导是谁？", {"manager"}),
        ("What is my car?", {"car"}),
        ("我的车是什么？", {"car"}),
        # ... and by the profile subject whose vocabulary holds the word
        ("What is my occupation?", {"occupation", "job", "employer", "work_location"}),
        ("我的职业是什么？", {"职业", "job", "employer", "work_location"}),
        # no attribute named: the subjects whose vocabulary the request uses
        ("Where do I work?", {"job", "employer", "work_location"}),
        ("我叫什么名字？", {"name"}),
        # an attribute named: its name is asked, not the user's
        ("What is my pet's name?", {"pet"}),
        ("我的宠物叫什么名字？", {"宠物"}),
        # nothing of either
        ("Translate 'good luck' into Spanish.", set()),
        ("把“好运”翻译成西班牙语。", set()),
    ],
)
def test_the_keys_a_request_asks_about(text, keys):
    assert asked(text) == keys


@pytest.mark.parametrize(
    "subject,text,key,passes",
    [
        ("car", "car: The user drives a Tesla now", "car", True),
        ("car", "car: 用户开的是特斯拉", "car", True),
        ("fact/name", "fact/name: The user's name is Mira", "name", True),
        ("", "My name is 王磊.", "name", True),
        ("", "我的名字是陈静。", "name", True),
        ("", "My daughter Lina is 7.", "name", False),
        ("", "我女儿叫Lina。", "name", False),
        ("diet", "diet: The user is vegetarian", "car", False),
    ],
)
def test_a_memory_states_its_subject_and_the_attributes_of_its_speaker(subject, text, key, passes):
    r = MemoryRecord(
        "m",
        ALICE,
        MemoryType.FACT if subject else MemoryType.EPISODE,
        text,
        subject=subject or None,
    )
    assert states(r, frozenset({key})) is passes


def test_a_subject_key_is_its_root_without_the_fact_prefix():
    assert [subject_key(s) for s in ("Job", "fact/车", "daughter/lina/age")] == [
        "job",
        "车",
        "daughter",
    ]


@pytest.mark.parametrize(
    "text,times",
    [
        ("I'm flying to Madrid next week for work.", {"next_week"}),
        ("我下周去成都出差。", {"next_week"}),
        ("我下个星期去成都出差。", {"next_week"}),
        ("See you tomorrow!", {"tomorrow"}),
        ("明天见！", {"tomorrow"}),
        ("We move next month.", {"next_month"}),
        ("我们下个月搬家。", {"next_month"}),
        # behind, not ahead; a weekend is not the week
        ("I flew to Madrid last week.", set()),
        ("我上周去了成都。", set()),
        ("我下周末去爬山。", {"next_weekend"}),
    ],
)
def test_a_time_ahead_is_one_key_in_either_language(text, times):
    assert ahead(text) == times
