"""A question about a profile subject in the subject's own vocabulary finds the profile fact
filed under it ("how old am I?" -> age; 我在哪儿上班 -> employer), English and Chinese."""

from __future__ import annotations

import pytest

from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.recall.reference import asks_about, vocabulary_names
from openclaw_memory.lang.text import has_cjk, search_tokens
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of

ALICE = Scope("alice")


@pytest.mark.parametrize(
    "subject,text,asked",
    [
        ("age", "How old am I now?", True),
        ("age", "How many years older am I than when I graduated from college?", True),
        ("age", "我今年多大了？", True),
        ("age", "我今年几岁", True),
        ("age", "What did my older sister say about the trip?", False),
        ("age", "我姐姐住在哪里", False),
        ("degree/bachelor", "When did I graduate from college?", True),
        ("degree/master", "What did I study?", True),
        ("degree/bachelor", "我是哪年大学毕业的", True),
        ("school/state university", "Where did I go to university?", True),
        ("major", "我的专业是什么", True),
        ("degree/bachelor", "What should I cook tonight?", False),
        ("employer", "Where do I work these days?", True),
        ("job", "How long have I been working in my current role?", True),
        ("employer", "我在哪家公司上班", True),
        ("employer", "周末去哪里爬山", False),
        ("employer", "我现在在哪家公司？", True),
        ("employer", "我的车险是哪家保险公司的？", False),  # an insurer, not the user's company
        ("job", "我的工作室在哪？", False),  # a studio
        ("job", "我现在做什么工作？", True),
        ("location", "Which city do I live in?", True),
        ("hometown", "我老家是哪里的", True),
        ("birthday", "When is my birthday?", True),
        ("birthday", "我哪天出生的", True),
        ("reply_language", "How old am I?", False),  # no vocabulary: the subject's own word
    ],
)
def test_a_question_asks_about_a_subject_in_its_vocabulary(subject, text, asked):
    assert asks_about(subject, vocabulary_names(text)) is asked


FACTS = [  # one user a language: a subject holds one value
    ("age", "The user is 32 years old"),
    ("degree/bachelor", "The user has a Bachelor's degree in Business Administration"),
    ("location", "The user lives in Denver"),
    ("employer", "The user works at Acme"),
]
FACTS_ZH = [
    ("age", "用户今年32岁"),
    ("degree/bachelor", "用户有学士学位"),
    ("employer", "用户在华为工作"),
    ("location", "用户住在杭州"),
]


@pytest.mark.parametrize(
    "question,asked_for",
    [
        (
            "How many years older am I than when I graduated from college?",
            {
                "The user is 32 years old",
                "The user has a Bachelor's degree in Business Administration",
            },
        ),
        ("我今年多大了？", {"用户今年32岁"}),
        ("我在哪儿上班？", {"用户在华为工作"}),
    ],
)
def test_the_fact_a_question_asks_about_gets_the_structure_signal(engine, question, asked_for):
    for subject, text in FACTS_ZH if has_cjk(question) else FACTS:
        writer_of(engine).write(ALICE, [Candidate(MemoryType.PROFILE, text, subject=subject)])
    res = Recaller(read_ports(engine), engine.config.recall).recall(ALICE, question)
    structured = {s.record.summary for s in res.ranked if s.components["structure"] >= 1.0}
    assert structured == asked_for


# ---- the values of an asked subject: members of a kind the request names ----------------------

ROLE = "How long have I been working in my current role?"
ROLE_ZH = "我在现在的公司工作多久了？"
JOB = ("job", "The user is a Senior Marketing Specialist", ("Senior Marketing Specialist",))
JOB_ZH = ("employer", "用户在华为工作", ("华为",))


def _profile(engine, subject, text, entities):
    writer_of(engine).write(
        ALICE, [Candidate(MemoryType.PROFILE, text, subject=subject, entities=entities)]
    )


@pytest.mark.parametrize(
    "question,fact,name,words",
    [
        (ROLE, JOB, "my job", {"work", "current", "role"}),
        (ROLE_ZH, JOB_ZH, "my employer", {"公司", "工作"}),
    ],
)
def test_a_subject_asked_about_makes_its_values_members_of_a_kind(
    engine, question, fact, name, words
):
    _profile(engine, *fact)
    kinds = {
        k.name: k
        for k in Recaller(read_ports(engine), engine.config.recall)
        .recall(ALICE, question)
        .query.kinds
    }
    assert set(kinds) == {name}
    assert kinds[name].terms == words
    value = fact[2][0]
    if has_cjk(value):
        assert kinds[name].members == {value} and not kinds[name].phrases
    else:  # all of its words name it: "senior" alone does not
        assert kinds[name].phrases == (frozenset({"senior", "market", "specialist"}),)
        assert kinds[name].named_in(frozenset({"senior", "market", "specialist", "i"}), "")
        assert not kinds[name].named_in(frozenset({"senior", "citizen"}), "")


@pytest.mark.parametrize(
    "question,fact",
    [
        ("What should I cook tonight?", JOB),  # asks about no subject
        ("晚饭吃什么？", JOB_ZH),
        ("How old am I?", JOB),  # another subject, with no value stored
        ("我今年多大了？", JOB_ZH),
        ("我的车险是哪家保险公司的？", JOB_ZH),  # an insurer: 公司 inside 保险公司
    ],
)
def test_no_kind_for_a_request_that_asks_about_no_stored_subject(engine, question, fact):
    _profile(engine, *fact)
    kinds = Recaller(read_ports(engine), engine.config.recall).recall(ALICE, question).query.kinds
    assert not [k for k in kinds if k.name.startswith("my ")]


NAMING = {
    "en": (ROLE, JOB, "As a Senior Marketing Specialist I present our roadmap to the sales team"),
    "zh": (ROLE_ZH, JOB_ZH, "华为的年会下周在深圳开，我要上台讲产品路线"),
}
UNRELATED = {"en": "The plumber fixed the kitchen sink today", "zh": "楼下的面包店周末打八折"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_memory_naming_the_users_value_holds_the_subjects_words(engine, lang):
    """ "As a Senior Marketing Specialist I ..." speaks of the user's current role: it holds the
    request's words of the subject (keyword, by member) and half the structure signal, and ranks
    above a memory that shares nothing with the request (written after it: newer wins a tie)."""
    question, fact, naming = NAMING[lang]
    _profile(engine, *fact)
    writer_of(engine).write(ALICE, [Candidate(MemoryType.EPISODE, naming)])
    writer_of(engine).write(ALICE, [Candidate(MemoryType.EPISODE, UNRELATED[lang])])
    res = Recaller(read_ports(engine), engine.config.recall).recall(ALICE, question)
    by_text = {s.record.summary: s for s in res.ranked}
    hit = by_text[naming]
    assert hit.components["structure"] == 0.5
    assert hit.components["keyword"] > 0 and hit.components["keyword_words"] == 0
    assert 0 < hit.rank < by_text[UNRELATED[lang]].rank


@pytest.mark.parametrize(
    "question,old,new",
    [
        (ROLE, ("job", "The user is a student", ("student",)), JOB),
        (ROLE_ZH, ("employer", "用户在腾讯工作", ("腾讯",)), JOB_ZH),
    ],
)
def test_a_superseded_value_is_no_member(engine, question, old, new):
    """The job changed: only the current one is what "my current role" is."""
    _profile(engine, *old)
    _profile(engine, *new)
    statuses = {
        r.summary: r.status.value for r in engine.store.profile(ALICE, ["profile"], [], limit=20)
    }
    assert old[1] not in statuses  # retired: the profile lists live facts only
    (kind,) = [
        k
        for k in Recaller(read_ports(engine), engine.config.recall)
        .recall(ALICE, question)
        .query.kinds
        if k.name.startswith("my ")
    ]
    named = kind.members | {w for p in kind.phrases for w in p}
    assert old[2][0] not in named and "student" not in named
    assert kind.named_in(frozenset(search_tokens(new[1])), new[1].lower())


@pytest.mark.parametrize("question,fact", [(ROLE, JOB), (ROLE_ZH, JOB_ZH)])
def test_an_archived_value_is_no_member_under_deep_recall(engine, question, fact):
    """Deep recall pools the archive too; a value moved there is no longer what the user is."""
    from openclaw_memory.maintain.runner import archive

    _profile(engine, *fact)
    (r,) = engine.store.profile(ALICE, ["profile"], [], limit=20)
    archive(engine.store, r, engine.clock.now(), "test")
    res = Recaller(read_ports(engine), engine.config.recall).recall(ALICE, question, deep=True)
    assert r.id in {s.record.id for s in res.ranked}  # pooled: the status is what keeps it out
    assert not [k for k in res.query.kinds if k.name.startswith("my ")]
