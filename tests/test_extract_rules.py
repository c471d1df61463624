"""The offline rule chain, Chinese and English side by side."""

from __future__ import annotations

import pytest

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.extract.base import Extractor
from openclaw_memory.extract.base import importance_for
from openclaw_memory.extract.rules import RuleExtractor
from openclaw_memory.types import Candidate, Channel, MemoryType, Scope, Turn

RULES = RuleExtractor(FakeClock())
P, PR, F = MemoryType.PREFERENCE, MemoryType.PROFILE, MemoryType.FACT


def extract(text: str, assistant: str = "", turn_id: str | None = "t1") -> list[Candidate]:
    return RULES.extract(Turn(Scope("u1"), "s1", text, assistant=assistant, turn_id=turn_id))


def one(text: str) -> Candidate:
    found = extract(text)
    assert len(found) == 1, f"{text!r} -> {found}"
    return found[0]


def test_rule_extractor_is_an_extractor() -> None:
    assert isinstance(RULES, Extractor)


# (zh, en, type, zh subject, en subject, channel)
CASES = [
    ("记住我喜欢喝咖啡", "Remember that I like coffee", P, "drink", "drink", Channel.EXPLICIT),
    (
        "请记住我对花生过敏",
        "Please remember I'm allergic to peanuts",
        PR,
        "allergy/花生",
        "allergy/peanut",
        Channel.EXPLICIT,
    ),
    (
        "以后用中文回复",
        "From now on, answer in Chinese",
        P,
        "reply_language",
        "reply_language",
        Channel.EXPLICIT,
    ),
    (
        "今后回答都用表格",
        "from now on reply in a table",
        P,
        "reply_format",
        "reply_format",
        Channel.EXPLICIT,
    ),
    ("我喜欢喝茶", "I like tea", P, "drink", "drink", Channel.IMPLICIT),
    ("我更喜欢吃辣", "I prefer spicy food", P, "food", "food", Channel.IMPLICIT),
    ("我讨厌香菜", "I hate cilantro", P, "food", "food", Channel.IMPLICIT),
    (
        "我不喜欢看科幻电影",
        "I don't like sci-fi movies",
        P,
        "pref/科幻电影",
        "pref/sci-fi movie",
        Channel.IMPLICIT,
    ),
    ("我叫张伟", "My name is Alice", PR, "name", "name", Channel.IMPLICIT),
    ("我住在杭州", "I live in Berlin", PR, "location", "location", Channel.IMPLICIT),
    ("我在腾讯工作", "I work at Google", PR, "employer", "employer", Channel.IMPLICIT),
    ("我是一名软件工程师", "I'm a software engineer", PR, "job", "job", Channel.IMPLICIT),
    (
        "我对芒果过敏",
        "I'm allergic to mangoes",
        PR,
        "allergy/芒果",
        "allergy/mango",
        Channel.IMPLICIT,
    ),
    (
        "请用英文回答",
        "Please answer in English",
        P,
        "reply_language",
        "reply_language",
        Channel.IMPLICIT,
    ),
    (
        "回复请用列表",
        "Answer in bullet points",
        P,
        "reply_format",
        "reply_format",
        Channel.IMPLICIT,
    ),
    (
        "回答简洁一点",
        "Keep your answers short",
        P,
        "reply_length",
        "reply_length",
        Channel.IMPLICIT,
    ),
    ("叫我小王就行", "Call me Bobby", PR, "nickname", "nickname", Channel.IMPLICIT),
    ("我来自成都", "I'm from Shanghai", PR, "hometown", "hometown", Channel.IMPLICIT),
    # a stated switch names the new value and corrects the user's own earlier words
    (
        "我最近不喝咖啡了，改喝绿茶",
        "I switched from coffee to green tea",
        P,
        "drink",
        "drink",
        Channel.EXPLICIT,
    ),
]


@pytest.mark.parametrize(
    "text", ["我换了个工作", "我改主意了", "我们改天再聊", "I switched off the lights"]
)
def test_switch_needs_a_named_new_value(text: str) -> None:
    assert all("switch" not in c.tags for c in extract(text))


@pytest.mark.parametrize(
    ("text", "forget", "summary_has"),
    [
        ("下周三我要去杭州出差，记一下", False, "杭州出差"),
        ("My parking spot is B-12, remember that", False, "B-12"),
        ("杭州出差取消了，忘掉那件事吧", True, "杭州出差"),
        ("The Oslo trip is cancelled, so forget about it", True, "Oslo trip"),
    ],
)
def test_commands_at_the_end_of_a_sentence(text: str, forget: bool, summary_has: str) -> None:
    c = one(text)
    assert c.forget is forget and c.channel is Channel.EXPLICIT
    assert summary_has in c.summary


@pytest.mark.parametrize(("zh", "en", "kind", "zh_subject", "en_subject", "channel"), CASES)
def test_rules_zh_and_en(
    zh: str, en: str, kind: MemoryType, zh_subject: str, en_subject: str, channel: Channel
) -> None:
    for text, subject in ((zh, zh_subject), (en, en_subject)):
        c = one(text)
        assert (c.type, c.subject, c.channel) == (kind, subject, channel), text
        assert c.turn_ids == ("t1",)
        assert not c.forget


@pytest.mark.parametrize(
    ("clause", "third"),
    [
        ("I'll keep that in mind", "The user will keep that in mind"),
        ("I'd like a quieter desk", "The user would like a quieter desk"),
        ("I'd been there before", "The user had been there before"),
        ("I'll keep the account to myself", "The user will keep the account to themselves"),
        ("我会记住的", "用户会记住的"),
    ],
)
def test_contractions_read_in_the_third_person(clause: str, third: str) -> None:
    from openclaw_memory.extract.slot import third_person
    from openclaw_memory.lang import all_on

    assert third_person(clause, all_on().of(clause)) == third


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("I love painting with my kids.", "The user likes painting with the user's kids"),
        ("我喜欢和我的家人一起露营", "用户喜欢和用户的家人一起露营"),
        (
            "My favorite song is one my mom sang to me.",
            "The user's favorite song is one the user's mom sang to the user",
        ),
    ],
)
def test_what_the_user_likes_reads_from_outside(text: str, summary: str) -> None:
    """The liked thing is rewritten too: "with my kids" in the user's profile would read as the
    assistant's kids."""
    assert one(text).summary == summary


@pytest.mark.parametrize(
    ("zh", "en", "zh_summary_has", "en_summary_has"),
    [
        ("我住在杭州", "I live in Berlin", "用户住在杭州", "The user lives in Berlin"),
        ("我叫张伟", "My name is Alice", "用户名叫张伟", "The user's name is Alice"),
        (
            "我不喜欢喝咖啡",
            "I don't like coffee",
            "用户不喜欢喝咖啡",
            "The user does not like coffee",
        ),
        ("以后用中文回复", "From now on, answer in English", "中文", "English"),
    ],
)
def test_summaries_are_third_person_in_the_users_language(
    zh: str, en: str, zh_summary_has: str, en_summary_has: str
) -> None:
    assert zh_summary_has in one(zh).summary
    assert en_summary_has in one(en).summary


@pytest.mark.parametrize(
    ("zh", "en"),
    [
        ("不要在周末给我发消息", "Never send me messages on weekends"),
        ("别给我推荐股票类资讯", "Don't recommend stock news to me"),
        ("永远不要在早上八点前打电话", "Please never call before 8am"),
        ("以后不要用表情符号", "From now on, don't use emoji"),
    ],
)
def test_prohibitions_are_preferences_tagged_prohibition(zh: str, en: str) -> None:
    for text in (zh, en):
        c = one(text)
        assert c.type is P and "prohibition" in c.tags, text
        assert c.subject and c.subject.startswith("prohibition/")
        assert c.importance >= importance_for(P, Channel.IMPLICIT) + 0.1


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("别给我推荐股票类资讯", "prohibition/资讯"),
        ("Don't recommend stock news to me", "prohibition/stock news"),
        ("不要在周末给我发消息", "prohibition/发消息"),
        ("Never send me messages on weekends", "prohibition/message"),
        ("Please never call before 8am", "prohibition/call"),
    ],
)
def test_prohibition_subject_names_what_is_forbidden(text: str, subject: str) -> None:
    assert one(text).subject == subject


@pytest.mark.parametrize(
    ("zh", "en", "subject"),
    [
        ("忘掉我喜欢喝咖啡", "Forget that I like coffee", "drink"),
        ("忘记我住在杭州", "forget that I live in Berlin", "location"),
        ("请删除关于我名字的记忆", "Forget about my name", "name"),
        ("把我的地址忘掉吧", "please forget my address", "location"),
    ],
)
def test_forget_commands(zh: str, en: str, subject: str) -> None:
    for text in (zh, en):
        c = one(text)
        assert c.forget and c.channel is Channel.EXPLICIT, text
        assert c.subject == subject, text
        assert "记忆" not in c.summary and "memory" not in c.summary.lower()


def test_forget_without_a_known_slot_keeps_the_text_to_match() -> None:
    c = one("忘掉周五开会的事")
    assert c.forget and c.subject is None and "周五开会" in c.summary


@pytest.mark.parametrize(
    ("first", "second", "subject"),
    [
        ("我喜欢喝咖啡", "我不喜欢喝咖啡", "drink"),
        ("I prefer tea", "I prefer coffee", "drink"),
        ("我喜欢看科幻电影", "我不喜欢看科幻电影", "pref/科幻电影"),
        ("I like sci-fi movies", "I really hate sci-fi movies", "pref/sci-fi movie"),
        ("我住在上海", "我搬到了北京", "location"),
        ("I live in Paris", "I moved to Berlin", "location"),
        ("以后用中文回复", "以后用英文回复", "reply_language"),
        ("Answer in English", "Reply in Chinese from now on", "reply_language"),
        ("我最喜欢的颜色是蓝色", "我最喜欢的颜色是绿色", "pref/颜色"),
        ("My favorite color is blue", "My favourite color is green", "pref/color"),
    ],
)
def test_same_slot_gets_the_same_subject(first: str, second: str, subject: str) -> None:
    a, b = one(first), one(second)
    assert a.subject == b.subject == subject
    assert a.summary != b.summary


def test_like_and_dislike_carry_opposite_tags() -> None:
    assert one("我喜欢爵士乐").tags == ("like",)
    assert one("我不喜欢爵士乐").tags == ("dislike",)
    assert one("I love jazz").tags == ("like",)
    assert one("I can't stand jazz").tags == ("dislike",)


@pytest.mark.parametrize(
    ("text", "confidence", "subject"),
    [
        ("记住我喜欢喝咖啡", 0.95, "drink"),
        ("Remember that I prefer tea", 0.95, "drink"),
        ("我更喜欢喝茶", 0.85, "drink"),
        ("I prefer tea", 0.85, "drink"),
        ("我可能喜欢爵士乐", 0.4, "pref/爵士乐"),
        ("Maybe I like jazz", 0.4, "pref/jazz"),
        ("我好像对猫过敏", 0.4, "allergy/猫"),
        ("I'm probably allergic to cats", 0.4, "allergy/cat"),
    ],
)
def test_confidence_levels(text: str, confidence: float, subject: str) -> None:
    c = one(text)
    assert c.confidence == pytest.approx(confidence)
    assert c.subject == subject


def test_importance_orders_explicit_and_profile_above_implicit_preference() -> None:
    explicit = one("记住我喜欢喝茶").importance
    implicit = one("我喜欢喝茶").importance
    profile = one("我住在杭州").importance
    allergy = one("我对花生过敏").importance
    assert explicit > implicit
    assert profile > implicit
    assert allergy > profile
    assert all(0.0 <= x <= 1.0 for x in (explicit, implicit, profile, allergy))


def test_explicit_free_fact_is_kept_as_a_fact() -> None:
    zh = one("记住，周五下午三点和李总开会")
    en = one("Remember that the demo is on Friday at 3pm")
    for c in (zh, en):
        assert c.type is F and c.channel is Channel.EXPLICIT
    assert "周五下午三点" in zh.summary and "demo" in en.summary


@pytest.mark.parametrize(
    ("text", "subjects", "fact_has"),
    [
        ("记住我叫张三，周五下午要去体检", {"name", None}, "周五下午要去体检"),
        (
            "Remember that my name is Bob, and the demo moved to Friday",
            {"name", None},
            "demo moved",
        ),
        ("记住我更喜欢茶，而不是咖啡", {"drink"}, None),
        ("Remember I prefer tea, not coffee", {"drink"}, None),
    ],
)
def test_explicit_command_keeps_slots_and_the_rest(
    text: str, subjects: set, fact_has: str | None
) -> None:
    found = extract(text)
    assert {c.subject for c in found} == subjects
    assert all(c.channel is Channel.EXPLICIT for c in found)
    facts = [c for c in found if c.subject is None]
    assert [fact_has in c.summary for c in facts] == ([True] if fact_has else [])


def test_explicit_my_x_is_y_gets_a_fact_key() -> None:
    assert one("记住我的车位是B2-17").subject == "fact/车位"
    assert one("Remember my locker number is 42").subject == "fact/locker number"


def test_several_slots_in_one_turn() -> None:
    found = extract("我叫张三，在腾讯工作，我喜欢喝茶")
    assert {c.subject for c in found} == {"name", "employer", "drink"}
    found = extract("My name is Alice and I live in Berlin. I prefer tea.")
    assert {c.subject for c in found} == {"name", "location", "drink"}


@pytest.mark.parametrize(
    "text",
    [
        "好的，谢谢",
        "ok thanks",
        "嗯嗯",
        "👍",
        "我的密码是abc12345",
        "my password is hunter22",
        "记住我的密码是abc12345",
        "remember my password: Tr0ub4dor&3",
        "<private>我喜欢喝咖啡</private>",
        "记住我的密码是[REDACTED:password]",
        "Remember my card [REDACTED:card_number]",
    ],
)
def test_contentless_and_secret_only_turns_yield_nothing(text: str) -> None:
    assert extract(text) == []


@pytest.mark.parametrize(
    ("text", "subject", "secret"),
    [
        ("我叫李四，密码是hunter22", "name", "hunter22"),
        ("I live in Paris, my card is 4111 1111 1111 1111", "location", "4111"),
        ("记住我喜欢喝茶<private>我的身份证110101199003071233</private>", "drink", "110101"),
    ],
)
def test_secrets_never_reach_candidates(text: str, subject: str, secret: str) -> None:
    found = extract(text)
    assert [c.subject for c in found] == [subject]
    for c in found:
        assert secret not in f"{c.summary} {c.detail} {c.entities}"


@pytest.mark.parametrize(
    "text",
    [
        "以后再说吧",
        "用英文怎么说？",
        "帮我用英文写一封邮件",
        "Translate this into English",
        "我在家工作",
        "Call me later",
        "Don't worry about it",
        "别客气",
        "你喜欢什么？",
        "Do you like coffee?",
        "我叫什么名字？",
        "用表格对比一下这三个方案",
        "别忘了",
        "forget it",
        "我在想要不要换工作",
        "我们团队喜欢用 Go 语言",
        "I prefer the second option",
        "我喜欢第二个方案",
        "我喜欢你的回答",
        "I like your answer",
        "I'm a bit tired today",
    ],
)
def test_lookalikes_yield_nothing(text: str) -> None:
    assert extract(text) == []


@pytest.mark.parametrize(
    "text",
    [
        # the object was said before and is left unsaid: no preference for "eating"
        "对，还有沙茶面，我特别爱吃",
        "Yes, and the shacha noodles, I really love them",
        # only the time is left after "quit": no habit named "four months"
        "嗯，医生也夸我了，戒了四个多月了",
        "I quit four months ago.",
        "戒了一年多了",
        "I stopped last year.",
    ],
)
def test_an_object_left_unsaid_is_no_preference(text: str) -> None:
    assert [c.subject for c in extract(text) if c.type.value == "preference"] == []


@pytest.mark.parametrize(
    "text,subject",
    [("我戒烟两个月了", "pref/烟"), ("I quit smoking two months ago.", "pref/smoking")],
)
def test_a_stop_keys_the_habit_not_the_time(text: str, subject: str) -> None:
    assert [c.subject for c in extract(text)] == [subject]


def test_only_the_user_side_is_read() -> None:
    assert extract("帮我查一下天气", assistant="我喜欢喝咖啡，我住在上海") == []
    assert extract("what's the weather", assistant="I live in Berlin and I prefer tea") == []


def test_dont_forget_is_a_remember_command() -> None:
    c = one("别忘了明天交报告")
    assert c.channel is Channel.EXPLICIT and not c.forget and "明天交报告" in c.summary
    c = one("Don't forget that the report is due Monday")
    assert c.channel is Channel.EXPLICIT and not c.forget


def test_planned_move_is_a_low_confidence_location() -> None:
    for text in ("我下个月搬到北京", "I'm moving to Paris next month"):
        c = one(text)
        assert c.subject == "location" and "planned" in c.tags and c.confidence < 0.85


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("以后代码里不要加注释", "prohibition/加注释"),
        ("From now on, in reviews, never merge on Fridays", "prohibition/merge"),
    ],
)
def test_standing_rule_with_a_prohibition_inside(text: str, subject: str) -> None:
    c = one(text)
    assert (c.subject, c.channel, c.tags) == (subject, Channel.EXPLICIT, ("prohibition",))


@pytest.mark.parametrize(
    ("text", "subject", "tags"),
    [
        ("以后每次回答前先总结要点", "reply_format", ()),
        ("以后每次提交前先跑一遍测试", "rule/测试", ("standing_rule",)),
        ("From now on, always include sources", "rule/source", ("standing_rule",)),
        ("我不太喜欢太长的回答", "reply_length", ("prohibition",)),
        ("I don't like long answers", "reply_length", ("prohibition",)),
    ],
)
def test_other_standing_rules(text: str, subject: str, tags: tuple[str, ...]) -> None:
    c = one(text)
    assert (c.subject, c.tags) == (subject, tags)


def test_turn_without_id_has_no_turn_ids() -> None:
    (c,) = extract("我喜欢喝茶", turn_id=None)
    assert c.turn_ids == ()


@pytest.mark.parametrize(
    "text",
    [
        "Finding self-acceptance was a long process",
        "Sharing your story might make a difference for a long time",
        "[shares a photo: a photo of a couple of wooden dolls sitting on top of a table]",
        "I like to",
        "那次会议开得太长了，大家都很累",
    ],
)
def test_narrative_mentions_of_length_format_or_liking_are_not_preferences(text: str) -> None:
    assert not [c for c in extract(text) if c.type is P], extract(text)


@pytest.mark.parametrize(
    "text,subject",
    [
        ("Please keep answers short", "reply_length"),
        ("Bullet points please", "reply_format"),
        ("以后回答简洁点", "reply_length"),
        ("用表格", "reply_format"),
    ],
)
def test_format_and_length_wishes_addressed_to_the_assistant_still_count(
    text: str, subject: str
) -> None:
    assert subject in {c.subject for c in extract(text)}, extract(text)


def test_named_speakers_get_their_own_memories() -> None:
    from openclaw_memory.extract.base import attribute

    en, zh = one("I like hiking in the mountains"), one("我喜欢喝咖啡")
    melanie = attribute([en], "Melanie")[0]
    assert melanie.summary.startswith("Melanie likes hiking")
    assert melanie.subject == f"Melanie/{en.subject}" and "Melanie" in melanie.entities
    xiaoming = attribute([zh], "小明")[0]
    assert xiaoming.summary.startswith("小明") and "用户" not in xiaoming.summary
    assert attribute([en], "user") == [en] and attribute([en], None) == [en]


@pytest.mark.parametrize(
    "text",
    [
        # greetings and remarks that hold a length or format word
        "Long time no see",
        "Hey Jon, long time no chat",
        "Long time no talk!",
        "We can do it as long as we keep practicing",
        "Life's too short",
        "Been running longer since our last chat - a great way to destress",
        # encouragement to the person spoken to, and past tenses after never / don't
        "Don't let it get you down",
        "Don't let anything stop you",
        "Never give up",
        "Don't be afraid to take risks",
        "Don't be scared to reach out to people in your field",
        "Don't miss a beat",
        "Never had a chance to visit it",
        "I never thought about it that way",
        "别放弃",
        "不要害怕失败",
        # the speaker remembering, not an order to remember
        "Wow, I remember that",
        "这个我记住了",
    ],
)
def test_remarks_that_look_like_rules_are_not_stored(text: str) -> None:
    assert extract(text) == [], extract(text)


@pytest.mark.parametrize(
    "text,subject",
    [
        ("Shorter please", "reply_length"),
        ("Way too long", "reply_length"),
        ("Please make your answers more concise", "reply_length"),
        ("Don't send me long replies", "reply_length"),
        ("Never use emoji", "prohibition/emoji"),
        ("Don't call me before 8am", "prohibition/call"),
        ("The door code is 4711, remember that", None),
        ("下周三我要去杭州出差，帮我记一下", None),
    ],
)
def test_rules_for_the_assistant_still_count_beside_those_lookalikes(
    text: str, subject: str | None
) -> None:
    found = extract(text)
    assert found, text
    if subject:
        assert subject in {c.subject for c in found}, found
    else:
        assert found[0].channel is Channel.EXPLICIT


@pytest.mark.parametrize(
    "text",
    [
        "I drive a Honda Civic.",
        "My car is a Honda Civic.",
        "My new car is a Tesla Model 3.",
        "我开的是本田思域。",
        "我的车是本田思域。",
        "我的新车是特斯拉。",
    ],
)
def test_the_car_one_drives_has_one_key_in_both_languages(text) -> None:
    """ "I drive a Civic" and "my new car is a Tesla" speak of one attribute: one key, so the
    change supersedes the old value by key, not by meaning."""
    assert one(text).subject == "car"


@pytest.mark.parametrize(
    "text,subject,summary",
    [
        ("I use Firefox as my browser.", "pref/firefox", "The user uses Firefox"),
        ("I use VS Code for work.", "pref/vs code", "The user uses VS Code"),
        ("I code in Rust.", "pref/rust", "The user uses Rust"),
    ],
)
def test_a_tool_the_user_uses_is_keyed_by_its_name(text, subject, summary) -> None:
    """The rule reads "I" as the user writes it, a capital; the name is capitalised words."""
    c = one(text)
    assert (c.subject, c.summary) == (subject, summary)


@pytest.mark.parametrize(
    ("text", "subject", "summary"),
    [
        ("I'm 32 and I love hiking.", "age", "The user is 32 years old"),
        ("I just turned 40 last week.", "age", "The user is 40 years old"),
        (
            "As a 32-year-old Digital Marketing Specialist, I want to grow.",
            "age",
            "The user is 32 years old",
        ),
        ("我今年32岁", "age", "用户今年32岁"),
        ("我32岁了，还没结婚", "age", "用户今年32岁"),
        (
            "I have a Bachelor's degree in Business Administration with a minor in art.",
            "degree/bachelor",
            "The user has a Bachelor's degree in Business Administration",
        ),
        ("I got my MBA from Wharton.", "degree/master", "The user has an MBA"),
        ("我有硕士学位", "degree/master", "用户有硕士学位"),
        ("I majored in economics at Yale.", "major", "The user majored in economics"),
        ("我本科学的是计算机", "major", "用户的专业是计算机"),
        (
            "I graduated from Stanford in 2015.",
            "school/stanford",
            "The user graduated from Stanford",
        ),
        ("我2015年毕业于浙江大学", "school/浙江大学", "用户毕业于浙江大学"),
    ],
)
def test_age_and_education_are_profile_facts(text: str, subject: str, summary: str) -> None:
    c = next(c for c in extract(text) if c.type is PR)
    assert (c.subject, c.summary) == (subject, summary)


@pytest.mark.parametrize(
    "text,summary",
    [
        (
            "As a Senior Marketing Specialist in the company, I've been feeling a bit stuck.",
            "The user is a Senior Marketing Specialist",
        ),
        ("As a nurse, I work night shifts.", "The user is a nurse"),
        ("作为一名护士，我经常上夜班。", "用户是护士"),
        ("作为产品经理，我每天开很多会", "用户是产品经理"),
    ],
)
def test_a_role_the_speaker_speaks_as_is_their_job(text: str, summary: str) -> None:
    """ "As a nurse, I ..." says "I am a nurse" (the clause after it is read as well)."""
    jobs = [c for c in extract(text) if c.type is PR]
    assert [(c.subject, c.summary) for c in jobs] == [("job", summary)]


@pytest.mark.parametrize(
    "text",
    [
        "As a teacher, how would you explain fractions?",  # a role asked of the assistant
        "As a result, I stayed home.",
        "As a kid, I loved trains.",
        "作为老师，你会怎么解释这个？",
        "作为一个孩子，我喜欢火车",
    ],
)
def test_no_job_from_a_role_that_is_not_the_speakers(text: str) -> None:
    assert not [c for c in extract(text) if c.type is PR]


@pytest.mark.parametrize(
    "text",
    [
        "I'm 5 minutes away.",
        "I'm 100% sure about it.",
        "I recently learned that I'm 12.5% Irish.",
        "When I was 20 I lived in Paris.",
        "As a 10-year-old I loved trains.",
        "I have a master plan.",
        "I graduated from high school last year.",
        "我女儿今年5岁",
        "我20岁的时候去过北京",
        "我三十岁生日那天下雨了",
    ],
)
def test_no_age_or_education_where_none_is_stated(text: str) -> None:
    assert not [c for c in extract(text) if c.type is PR]
