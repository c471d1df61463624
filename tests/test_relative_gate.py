"""Relative relevance gating of requests about the user's world (recall/gate.py `Signals`),
English and Chinese side by side.

A small store scores most of its memories within a few hundredths of the absolute bar for any
request, so a memory with no evidence of its own must stand out of what an unrelated memory of
its script scores (the background bank, the store's crowd) or of the store's other candidates;
a memory with evidence (a content word, an attribute, a named person) passes at the absolute
bar. The pools are built by hand: the cosines are the numbers under test, not an embedder's.
"""

from __future__ import annotations


import pytest

from openclaw_memory.config.schema import RecallConfig
from openclaw_memory.core import switches_from
from openclaw_memory.lang import Languages
from openclaw_memory.lang.text import unspaced
from openclaw_memory.recall.gate import relevant, signals
from openclaw_memory.recall.pool import Pool
from openclaw_memory.recall.query import build_query
from openclaw_memory.types import MemoryRecord, MemoryType, ScoredMemory, Scope, Source

ALICE = Scope("alice")
#: memories that say nothing of any request below: the crowd of each script
FILLERS = {
    "en": ["Compute 12 plus 30.", "Tell me a joke about owls.", "Recommend a movie for tonight."],
    "zh": ["帮我算一下12加30。", "讲个关于猫头鹰的笑话。", "推荐一部今晚看的电影。"],
}
MIN_SEMANTIC = 0.80


def _gate(
    request: str,
    memory: str,
    cos: float,
    *,
    crowd: dict[str, float],
    background: float,
    across: float,
    tags: tuple[str, ...] = (),
    detail: str | None = None,
    entities: tuple[str, ...] = (),
    personal: bool = True,
    keyword: float = 0.0,
    cfg: RecallConfig | None = None,
    type_: MemoryType = MemoryType.FACT,
    off: tuple[str, ...] = (),
) -> bool:
    """Whether `memory` (cosine `cos` with the request) passes, in a pool of fillers whose
    cosines are the crowd of each script."""
    pool = Pool(
        background=background,
        background_across=across,
        store_level=min(crowd.values()),
        personal=personal,
        request_unspaced=unspaced(request),
    )
    for lang, texts in FILLERS.items():
        for i, text in enumerate(texts):
            rid = f"{lang}{i}"
            pool.records[rid] = MemoryRecord(rid, ALICE, MemoryType.EPISODE, text)
            pool.cosine[rid] = crowd[lang]
            pool.channels[rid] = ["vector"]
    record = MemoryRecord("m", ALICE, type_, memory, tags=tags, detail=detail, entities=entities)
    pool.records["m"], pool.cosine["m"], pool.channels["m"] = record, cos, ["vector"]
    s = ScoredMemory(record, 0.5, {"structure": 0.0, "keyword": keyword}, ("vector",))
    query = build_query(request, langs=Languages(switches_from(off)))
    return relevant(s, pool, MIN_SEMANTIC, cfg or RecallConfig(), signals(pool, query))


# English requests: the English bank and crowd near 0.78-0.80; Chinese requests: near 0.85
EN = {"crowd": {"en": 0.80, "zh": 0.83}, "background": 0.78, "across": 0.76}
ZH = {"crowd": {"en": 0.77, "zh": 0.85}, "background": 0.85, "across": 0.80}


@pytest.mark.parametrize(
    "request_text,memory,cos,levels,passes",
    [
        # over the absolute bar, but no higher than its script's level: an unrelated request
        # for help of the same session
        (
            "Where do I live?",
            "I just adopted a kitten, which food is best for it?",
            0.81,
            EN,
            False,
        ),
        ("我住在哪里？", "我刚领养了一只小猫，它吃什么粮最好？", 0.86, ZH, False),
        # the same memory standing out of its level
        ("Where do I live?", "I just adopted a kitten, which food is best for it?", 0.85, EN, True),
        ("我住在哪里？", "我刚领养了一只小猫，它吃什么粮最好？", 0.90, ZH, True),
        # a content word of the request is evidence: the absolute bar
        ("What did I plant on the balcony?", "Tomatoes are growing on my balcony.", 0.81, EN, True),
        ("我在阳台上种了什么？", "我家阳台上的西红柿熟了。", 0.81, ZH, True),
        # a word that frames the question ("next", 下次) is no evidence
        ("When is my next haircut?", "See you next week then.", 0.81, EN, False),
        ("我下次什么时候理发？", "那我们下次再聊。", 0.86, ZH, False),
    ],
)
def test_a_memory_without_evidence_must_stand_out_of_its_level(
    request_text, memory, cos, levels, passes
):
    assert _gate(request_text, memory, cos, **levels) is passes


@pytest.mark.parametrize(
    "request_text,memory,cos,levels,passes",
    [
        # a memory in the other language is read against its own script's crowd, not against
        # the request's bank: a Chinese question finds an English fact, and the other way round
        ("我下周去哪里出差？", "I'm flying to Madrid next week for work.", 0.83, ZH, True),
        ("Where am I flying next week?", "我下周去马德里出差。", 0.88, EN, True),
        # and no lower than that crowd's level
        ("我下周去哪里出差？", "Tell me a joke about penguins.", 0.79, ZH, False),
        ("Where am I flying next week?", "讲个关于企鹅的笑话。", 0.84, EN, False),
    ],
)
def test_a_memory_in_the_other_language_is_read_against_its_own_script(
    request_text, memory, cos, levels, passes
):
    assert _gate(request_text, memory, cos, **levels) is passes


DAUGHTER_EN = {
    "tags": ("person", "daughter"),
    "detail": "daughter 女儿 闺女 Lina",
    "entities": ("Lina",),
}
DAUGHTER_ZH = {
    "tags": ("person", "daughter"),
    "detail": "daughter 女儿 闺女 Lina",
    "entities": ("Lina",),
}


@pytest.mark.parametrize(
    "request_text,memory,person,levels,passes",
    [
        # a fact about the user's daughter shares "allergic" with a question about the user:
        # no evidence, and it does not stand out
        (
            "What am I allergic to?",
            "The user's daughter Lina is allergic to mango",
            DAUGHTER_EN,
            EN,
            False,
        ),
        ("我对什么过敏？", "用户的女儿Lina对芒果过敏", DAUGHTER_ZH, ZH, False),
        # a question that names her, by relation or by name, in either language
        (
            "Is my daughter allergic to anything?",
            "The user's daughter Lina is allergic to mango",
            DAUGHTER_EN,
            EN,
            True,
        ),
        ("我女儿对什么过敏？", "用户的女儿Lina对芒果过敏", DAUGHTER_ZH, ZH, True),
        ("What is Lina allergic to?", "用户的女儿Lina对芒果过敏", DAUGHTER_ZH, EN, True),
        (
            "Lina对什么过敏？",
            "The user's daughter Lina is allergic to mango",
            DAUGHTER_EN,
            ZH,
            True,
        ),
    ],
)
def test_a_fact_about_another_person_answers_a_request_that_names_them(
    request_text, memory, person, levels, passes
):
    cos = 0.815 if levels is EN else 0.855
    text = memory + "\n" + person["detail"]
    assert _gate(request_text, text, cos, **levels, **person) is passes


@pytest.mark.parametrize(
    "request_text,memory,cos,levels",
    [
        (
            "What is my name?",
            "I just adopted a kitten.",
            0.826,
            {"crowd": {"en": 0.80, "zh": 0.80}, "background": 0.78, "across": 0.76},
        ),
        (
            "我叫什么名字？",
            "我刚领养了一只小猫。",
            0.872,
            {"crowd": {"en": 0.77, "zh": 0.85}, "background": 0.85, "across": 0.80},
        ),
    ],
)
def test_the_best_candidate_by_a_clear_gap_stands_out_of_the_store(
    request_text, memory, cos, levels
):
    cfg = RecallConfig()
    second = max(levels["crowd"].values())
    assert cos - second >= cfg.personal_gap
    assert cos < max(levels["background"], second) + (cfg.personal_margin or 0.0)
    assert _gate(request_text, memory, cos, **levels) is True
    # the same cosine without the gap: a filler as high as it
    crowd = dict(levels["crowd"], en=cos - 0.005, zh=cos - 0.005)
    assert _gate(request_text, memory, cos, **dict(levels, crowd=crowd)) is False


def test_relative_gating_is_switched_off_by_its_margin():
    off = RecallConfig(personal_margin=None)
    args = ("Where do I live?", "I just adopted a kitten, which food is best for it?", 0.81)
    assert _gate(*args, **EN, cfg=off) is True  # the absolute bar alone
    assert _gate(*args, **EN) is False


@pytest.mark.parametrize(
    "request_text,memory",
    [
        ("How do I write a unit test for a parser?", "Unit tests for the parser are in tests/."),
        ("怎么给解析器写单元测试？", "解析器的单元测试放在tests目录。"),
    ],
)
@pytest.mark.parametrize("keyword,passes", [(0.75, True), (0.3, False)])
def test_a_strong_keyword_score_is_evidence_for_a_request_about_nothing_of_the_users(
    request_text, memory, keyword, passes
):
    # between the keyword bar (level + 0.02) and the bar on meaning alone (level + 0.06)
    levels = EN if request_text.isascii() else ZH
    lv = max(levels["background"], min(levels["crowd"].values()))
    got = _gate(request_text, memory, lv + 0.04, **levels, personal=False, keyword=keyword)
    assert got is passes


def _pool_gate(
    request: str,
    memories: list[tuple[MemoryRecord, float]],
    target: str,
    levels: dict,
    *,
    retired: dict[str, str] | None = None,
) -> bool:
    """Whether memory `target` passes in a pool of `memories` (record, cosine) and the fillers,
    with the signals `keep` reads (the sessions and replaced memories of those with evidence)."""
    from openclaw_memory.recall.gate import anchored

    pool = Pool(
        background=levels["background"],
        background_across=levels["across"],
        store_level=min(levels["crowd"].values()),
        personal=True,
        request_unspaced=unspaced(request),
        retired=dict(retired or {}),
    )
    for lang, texts in FILLERS.items():
        for i, text in enumerate(texts):
            rid = f"{lang}{i}"
            pool.records[rid] = MemoryRecord(rid, ALICE, MemoryType.EPISODE, text)
            pool.cosine[rid] = levels["crowd"][lang]
            pool.channels[rid] = ["vector"]
    scored = []
    for record, cos in memories:
        pool.records[record.id], pool.cosine[record.id] = record, cos
        pool.channels[record.id] = ["vector"]
        scored.append(ScoredMemory(record, 0.5, {"structure": 0.0, "keyword": 0.0}, ("vector",)))
    query = build_query(request)
    sig = signals(pool, query)
    sig = anchored(sig, scored, pool)
    s = next(x for x in scored if x.record.id == target)
    return relevant(s, pool, MIN_SEMANTIC, RecallConfig(), sig)


def _turn(rid: str, speaker: str, text: str, session: str = "s1") -> MemoryRecord:
    return MemoryRecord(rid, ALICE, MemoryType.EPISODE, text, tags=(speaker,), session_id=session)


@pytest.mark.parametrize(
    "request_text,named,anchor,answer,levels",
    [
        (
            "When did the noodle shop open?",
            "Gang",
            "We named the noodle shop Gangzi Noodles.",
            "September 8th, a Sunday.",
            EN,
        ),
        ("粉铺是哪天开张的？", "赵刚", "店名定了，叫刚子粉铺。", "九月八号，周日。", ZH),
    ],
)
@pytest.mark.parametrize("speaker,passes", [("person", True), ("user", False)])
def test_a_dialogue_turn_around_a_memory_with_evidence_is_gated_as_before(
    request_text, named, anchor, answer, levels, speaker, passes
):
    # the answer of a conversation between people shares no word with the question; in an
    # agent's own session (the user's turns) a turn near another is no answer to it
    who = named if speaker == "person" else "user"
    memories = [(_turn("a", who, anchor), 0.86), (_turn("b", who, answer), 0.805)]
    if levels is ZH:
        memories = [(_turn("a", who, anchor), 0.88), (_turn("b", who, answer), 0.855)]
    assert _pool_gate(request_text, memories, "b", levels) is passes


@pytest.mark.parametrize(
    "request_text,old_turn,new_summary,levels,cos",
    [
        (
            "What car do I drive?",
            "I drive a Passat.",
            "The user sold the Passat and bought a BYD",
            EN,
            0.81,
        ),
        ("我开什么车？", "我开的是大众朗逸。", "用户把朗逸卖了，买了一辆比亚迪", ZH, 0.86),
    ],
)
@pytest.mark.parametrize("chained,passes", [(True, True), (False, False)])
def test_the_newer_version_of_a_matching_memory_answers_what_it_asks_now(
    request_text, old_turn, new_summary, levels, cos, chained, passes
):
    old = MemoryRecord(
        "t", ALICE, MemoryType.EPISODE, old_turn, tags=("user",), source=Source(turn_ids=("t1",))
    )
    new = MemoryRecord(
        "new",
        ALICE,
        MemoryType.FACT,
        new_summary,
        subject="vehicle",
        prev_id="old" if chained else None,
    )
    memories = [(old, cos + 0.04), (new, cos)]
    assert _pool_gate(request_text, memories, "new", levels, retired={"t1": "old"}) is passes


def _fact(rid: str, kind: MemoryType, subject: str, text: str, turn: str = "") -> MemoryRecord:
    source = Source(turn_ids=(turn,)) if turn else Source()
    return MemoryRecord(rid, ALICE, kind, text, subject=subject, source=source)


@pytest.mark.parametrize(
    "request_text,kind,subject,summary,levels,cos",
    [
        # the attribute it names, keyed as the write side keys "my boss is ...", 我的车是… (a
        # memory's text holds its key: "manager", "car", never the word the question uses)
        ("Who is my boss?", MemoryType.FACT, "manager", "The user reports to Dana now", EN, 0.81),
        ("我的领导是谁？", MemoryType.FACT, "manager", "用户现在向李总汇报", ZH, 0.855),
        ("我的车是什么？", MemoryType.FACT, "car", "用户开的是特斯拉", ZH, 0.855),
        # the attribute it names, keyed by the profile subject whose vocabulary holds it
        (
            "What is my occupation?",
            MemoryType.PREFERENCE,
            "job",
            "The user quit teaching",
            EN,
            0.81,
        ),
        ("我的职业是什么？", MemoryType.PREFERENCE, "job", "用户不当老师了", ZH, 0.855),
    ],
)
@pytest.mark.parametrize("filed_under,passes", [(True, True), (False, False)])
def test_a_memory_filed_under_what_the_request_asks_about_has_evidence(
    request_text, kind, subject, summary, levels, cos, filed_under, passes
):
    # the value shares no word with the question, and the question names no attribute of the
    # attribute table: the key it is filed under is the evidence
    memory = _fact("m", kind, subject if filed_under else "diet", summary)
    assert _pool_gate(request_text, [(memory, cos)], "m", levels) is passes


@pytest.mark.parametrize(
    "request_text,said,summary,levels,cos",
    [
        (
            "What is my occupation?",
            "I quit teaching, I'm a product manager now.",
            "The user quit teaching",
            EN,
            0.81,
        ),
        ("我的职业是什么？", "我不当老师了，改做产品经理了。", "用户不当老师了", ZH, 0.855),
    ],
)
@pytest.mark.parametrize("subject,passes", [("job", True), ("diet", False)])
def test_the_turn_a_memory_filed_under_the_asked_key_came_from_has_evidence(
    request_text, said, summary, levels, cos, subject, passes
):
    # the distilled memory keeps the change, the user's own words keep the new value
    turn = MemoryRecord(
        "t", ALICE, MemoryType.EPISODE, said, tags=("user",), source=Source(turn_ids=("t2",))
    )
    memory = _fact("m", MemoryType.PREFERENCE, subject, summary, "t2")
    memories = [(turn, cos), (memory, cos - 0.02)]
    assert _pool_gate(request_text, memories, "t", levels) is passes


@pytest.mark.parametrize(
    "request_text,memory,levels,cos,passes",
    [
        # the user's name asked in one language, stated in the other
        ("我叫什么名字？", "My name is 王磊.", ZH, 0.84, True),
        ("What is my name?", "我的名字是陈静。", EN, 0.81, True),
        # a question about the pet's name does not ask the user's
        ("我的宠物叫什么名字？", "My name is 王磊.", ZH, 0.84, False),
        ("What is my pet's name?", "我的名字是陈静。", EN, 0.81, False),
    ],
)
def test_an_attribute_of_the_users_own_is_the_same_key_in_either_language(
    request_text, memory, levels, cos, passes
):
    turn = MemoryRecord("t", ALICE, MemoryType.EPISODE, memory, tags=("user",))
    assert _pool_gate(request_text, [(turn, cos)], "t", levels) is passes


@pytest.mark.parametrize(
    "request_text,ahead,behind,levels,cos",
    [
        (
            "我下周去哪里出差？",
            "I'm flying to Madrid next week for work.",
            "I flew to Madrid last week for work.",
            ZH,
            0.79,
        ),
        ("Where am I flying to next week?", "我下周去成都出差。", "我上周去成都出差了。", EN, 0.80),
    ],
)
@pytest.mark.parametrize("names_it,passes", [(True, True), (False, False)])
def test_a_memory_of_the_time_ahead_the_request_names_has_evidence_across_languages(
    request_text, ahead, behind, levels, cos, names_it, passes
):
    turn = MemoryRecord("t", ALICE, MemoryType.EPISODE, ahead if names_it else behind)
    assert _pool_gate(request_text, [(turn, cos)], "t", levels) is passes


TOPICAL = {
    "en": (
        "Which conferences on medical imaging should I attend?",
        [
            "I'm presenting at a medical imaging conference in May.",
            "I want to read more papers on medical imaging.",
        ],
        "Give me an overview of recent advances in deep learning for radiology.",
        "I had pasta for lunch.",
        EN,
        0.82,
    ),
    "zh": (
        "我应该去参加哪些医学影像的会议？",
        ["我五月要在一个医学影像会议上做报告。", "我想多读一些医学影像方面的论文。"],
        "给我概述一下深度学习在放射科的最新进展。",
        "我中午吃了意大利面。",
        ZH,
        0.855,
    ),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("with_evidence,passes", [(2, True), (1, False)])
def test_a_turn_of_a_conversation_about_the_request_is_gated_by_the_absolute_bar(
    lang, with_evidence, passes
):
    # most of the session's pooled turns have evidence: it is a conversation about what the
    # request asks, and a turn of it with no word of the request is about it too; with one
    # such turn among others the session is about other things
    request_text, matching, target, unrelated, levels, cos = TOPICAL[lang]
    texts = [*matching[:with_evidence], *[unrelated] * (2 - with_evidence), target]
    memories = [
        (_turn(f"m{i}", "user", text), cos + (0.01 if text != target else 0.0))
        for i, text in enumerate(texts)
    ]
    assert _pool_gate(request_text, memories, f"m{len(texts) - 1}", levels) is passes


#: a session's summary that says nothing of the request, and one that holds its word
DIGESTS = {
    "en": (
        "Where do I live?",
        "Key decisions:\n- I just adopted a puppy named Coco",
        "Where do I work?",
        "Key decisions:\n- I started to work at Globex",
    ),
    "zh": (
        "我住在哪里？",
        "关键决定：\n- 我刚领养了一只小狗，叫Coco",
        "我在哪里工作？",
        "关键决定：\n- 我开始在华为工作了",
    ),
}
#: a request about nothing of the user's, in each language
OFF_TOPIC = {"en": "Give me three fun facts about owls.", "zh": "讲三个关于猫头鹰的冷知识。"}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("personal", [True, False])
def test_a_summary_passes_on_its_evidence_not_on_meaning_alone(lang, personal):
    unrelated, digest, related, holding = DIGESTS[lang]
    request = unrelated if personal else OFF_TOPIC[lang]
    levels = {"personal": personal, **(EN if lang == "en" else ZH)}
    # well over every bar on meaning alone: a fact of this cosine passes
    cos = max(levels["background"], *levels["crowd"].values()) + 0.1
    assert _gate(request, digest, cos, **levels) is True
    assert _gate(request, digest, cos, **levels, type_=MemoryType.SUMMARY) is False
    off = ("channel.digest",)
    assert _gate(request, digest, cos, **levels, type_=MemoryType.SUMMARY, off=off) is True
    if personal:  # a summary that holds what the request asks about still passes
        assert _gate(related, holding, cos, **levels, type_=MemoryType.SUMMARY) is True
