"""Rules of the language packs switched off by name in config (`rules.disabled`)."""

import pytest

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.config import config_from_dict
from openclaw_memory.errors import ConfigError
from openclaw_memory.lang.utterance import request_only
from openclaw_memory.lang.utterance import statement_part
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.lang import Languages
from openclaw_memory.core import switches_from
from openclaw_memory.types import Scope, Turn

ZH = "我女儿Lina对芒果过敏"
EN = "My daughter Lina is allergic to mango"


def _mw(tmp_path, off):
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
    return build_middleware(cfg, clock=FakeClock(1_700_000_000.0), background=False)


def _subjects(mw, text):
    turn = Turn(Scope("alice", "main"), "s1", text, turn_id="t1")
    return [c.subject for c in mw.capture.extractor.extract(turn)]


@pytest.mark.parametrize(
    ("off", "zh_person", "en_person"),
    [
        ((), True, True),
        (("zh.people.person",), False, True),
        (("en.people.person",), True, False),
        (("zh.people", "en"), False, False),
    ],
)
def test_switching_a_rule_off_in_config_changes_what_is_extracted(
    tmp_path, off, zh_person, en_person
):
    mw = _mw(tmp_path, off)
    try:
        zh, en = _subjects(mw, ZH), _subjects(mw, EN)
    finally:
        mw.close()
    assert (zh == ["daughter/lina/allergy/芒果"]) is zh_person, zh
    assert (en == ["daughter/lina/allergy/mango"]) is en_person, en


@pytest.mark.parametrize(
    ("off", "name"),
    [(("zh.people.persn",), "zh.people.persn"), (("channel.entitty", "en"), "channel.entitty")],
)
def test_an_unknown_rule_name_is_refused_when_the_middleware_is_built(tmp_path, off, name):
    with pytest.raises(ConfigError, match=rf"rules\.disabled: {name} names no rule or channel"):
        _mw(tmp_path, off)


def test_known_rules_and_channels_are_accepted(tmp_path):
    _mw(tmp_path, ("zh.request.command_head", "channel.entity", "zh")).close()


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("帮我算一下 12 加 30", "zh.request.command_head"),
        ("Translate 'good luck' into French", "en.request.command_head"),
        ("火星离太阳很远吗？", "zh.request.ask_end"),
        ("You are coming tomorrow?", "en.request.ask_end"),
    ],
)
def test_a_request_rule_switched_off_stops_acting(text, rule):
    assert request_only(text)
    off = Languages(switches_from([rule]))
    assert not request_only(text, off)
    assert statement_part(text, off) == text


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("好的谢谢", "zh.contentless.phrases"),
        ("哈哈哈", "zh.contentless.laugh"),
        ("thank you so much", "en.contentless.multiword"),
        ("thanks!", "en.contentless.phrases"),
    ],
)
def test_a_contentless_rule_switched_off_stops_acting(text, rule):
    from openclaw_memory.lang.utterance import is_contentless

    off = Languages(switches_from([rule]))
    assert is_contentless(text) and not is_contentless(text, off)
    assert is_contentless("😀", off)  # nothing to read, whatever the tables


def test_the_other_languages_rules_stay_on():
    off = Languages(switches_from(["zh.request"]))
    assert request_only("Translate 'good luck' into French", off)
    assert not request_only("帮我算一下 12 加 30", off)


@pytest.mark.parametrize(
    ("text", "rule", "on", "off"),
    [
        ("帮我把网站部署到服务器上", "zh.kind.front", "部署 网站", "把 部署"),
        ("please deploy the site to production", "en.kind.frame", "deploy site", "please site"),
    ],
)
def test_a_kind_word_list_switched_off_is_empty(text, rule, on, off):
    from openclaw_memory.procedure import task_kind

    assert task_kind(text).key == on
    assert task_kind(text, Languages(switches_from([rule]))).key == off


@pytest.mark.parametrize(
    ("off", "zh_like", "en_like"),
    [
        ((), True, True),
        (("zh.preference.like",), False, True),
        (("en.preference.like",), True, False),
    ],
)
def test_a_preference_frame_switched_off_stops_acting(off, zh_like, en_like):
    from openclaw_memory.extract.rules import classify

    langs = Languages(switches_from(off))
    zh, en = classify("我特别喜欢爬山", langs=langs), classify("I really love hiking", langs=langs)
    assert (zh is not None and zh.summary == "用户喜欢爬山") is zh_like
    assert (en is not None and en.summary == "The user likes hiking") is en_like


@pytest.mark.parametrize(
    ("clause", "rule", "subject"),
    [
        ("以后请用英文回复我", "zh.instruction.language_verb", "reply_language"),
        ("From now on, please reply in Chinese", "en.instruction.language_verb", "reply_language"),
        ("以后不要用表情符号", "zh.instruction.prohibit", "prohibition/表情符号"),
        ("Never use emojis in replies", "en.instruction.prohibit", "prohibition/emojis"),
    ],
)
def test_an_instruction_rule_switched_off_stops_acting(clause, rule, subject):
    from openclaw_memory.extract.rules import classify

    assert classify(clause, standing=True).subject == subject
    off = classify(clause, standing=True, langs=Languages(switches_from([rule])))
    assert off is None or off.subject != subject


@pytest.mark.parametrize(
    ("clause", "rule", "subject"),
    [
        ("我对花生过敏", "zh.profile.allergy", "allergy/花生"),
        ("I'm allergic to peanuts", "en.profile.allergy", "allergy/peanut"),
        ("我住在杭州", "zh.profile.location", "location"),
        ("I live in Berlin", "en.profile.location", "location"),
    ],
)
def test_a_profile_frame_switched_off_stops_acting(clause, rule, subject):
    from openclaw_memory.extract.rules import classify

    assert classify(clause).subject == subject
    off = classify(clause, langs=Languages(switches_from([rule])))
    assert off is None or off.subject != subject


@pytest.mark.parametrize(
    ("text", "rule", "name"),
    [
        ("我家猫叫芝麻", "zh.naming.given", "芝麻"),
        ("We have a rabbit named Biscuit", "en.naming.given", "Biscuit"),
        ("我每天喂芝麻", "zh.naming.care", "芝麻"),
        ("I feed Sesame every morning", "en.naming.care", "Sesame"),
    ],
)
def test_a_naming_rule_switched_off_finds_no_name(text, rule, name):
    from openclaw_memory.lang.entities import world_names

    assert world_names(text) == [name]
    assert world_names(text, Languages(switches_from([rule]))) == []


@pytest.mark.parametrize(
    ("clause", "rule", "on", "off"),
    [
        (
            "我女儿Lina对芒果过敏",
            "zh.lexicon.relations",
            "daughter/lina/allergy/芒果",
            "allergy/女儿Lina对芒果",
        ),
        (
            "My daughter Lina is allergic to mango",
            "en.lexicon.relations",
            "daughter/lina/allergy/mango",
            "fact/daughter lina",
        ),
    ],
)
def test_a_word_list_switched_off_changes_the_key(clause, rule, on, off):
    from openclaw_memory.extract.rules import classify

    assert classify(clause).subject == on
    slot = classify(clause, langs=Languages(switches_from([rule])))
    assert (slot.subject if slot else None) == off


@pytest.mark.parametrize(
    ("text", "rule"),
    [("我不喜欢咖啡", "zh.negation.cue"), ("I don't like coffee", "en.negation.cue")],
)
def test_a_negation_cue_switched_off_reads_no_polarity(text, rule):
    from openclaw_memory.lang.text import negated

    assert negated(text) and not negated(text.replace("不", "").replace("don't", "do"))
    assert not negated(text, Languages(switches_from([rule])))


def test_a_thanks_before_a_request_is_a_clause_of_its_own_with_the_fillers_off():
    # "谢谢" is nothing while the fillers are on, so the turn only asks; off, it is a clause
    # that asks nothing, and the turn states something
    text = "谢谢，帮我算一下 12 加 30"
    assert request_only(text)
    assert not request_only(text, Languages(switches_from(["zh.contentless"])))


@pytest.mark.parametrize(("text", "rule"), [("好的谢谢", "zh.contentless"), ("ok thanks", "en")])
def test_the_write_path_logs_a_filler_turn_only_with_the_fillers_switched_off(tmp_path, text, rule):
    logged = []
    for name, off in (("on", ()), ("off", (rule,))):
        mw = _mw(tmp_path / name, off)
        try:
            turn = Turn(Scope("alice", "main"), "s1", text, turn_id="t1")
            results = mw.capture.write_turns([turn])
            logged.append(sum(r.action == "insert" for r in results))
        finally:
            mw.close()
    assert logged[0] == 0 and logged[1] > 0, logged


@pytest.mark.parametrize(
    ("text", "rule", "stated"),
    [
        ("我下周去成都出差。帮我查下天气", "zh.request.clause_end", "我下周去成都出差"),
        (
            "I fly to Chengdu next week. Check the weather there",
            "en.request.clause_end",
            "I fly to Chengdu next week",
        ),
    ],
)
def test_a_sentence_end_switched_off_reads_the_turn_as_one_clause(text, rule, stated):
    # on, the request after the sentence's end is left out of what the turn states; off, the
    # turn is one clause that states something, kept whole
    assert statement_part(text) == stated
    assert statement_part(text, Languages(switches_from([rule]))) == text
