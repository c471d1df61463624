"""Names a text gives or shows as the speaker's (lang/entities.py), Chinese and English side by
side: each rule with the texts it reads as a name and those it must not."""

from __future__ import annotations

import pytest

from openclaw_memory.lang.entities import NAME, extract, normalise
from openclaw_memory.lang.entities import business_names
from openclaw_memory.lang.entities import cared_names
from openclaw_memory.lang.entities import given_names
from openclaw_memory.lang.entities import world_names
from openclaw_memory.types import Candidate, Channel, MemoryType, Scope
from store_helpers import writer_of


@pytest.mark.parametrize(
    "text,names",
    [
        ("张悦: 不是，一只垂耳兔，叫汤圆，白色的", {"汤圆"}),
        ("我家猫叫芝麻。", {"芝麻"}),
        ("那家店叫老街面馆，味道不错", {"老街面馆"}),
        ("我给它取名叫豆豆", {"豆豆"}),
        ("我们叫它芝麻", {"芝麻"}),
        ("We adopted a rabbit named Biscuit.", {"Biscuit"}),
        ("Our shop is called Noodle Corner now.", {"Noodle Corner"}),
        ("我们叫外卖吧", set()),  # an errand
        ("今晚叫外卖。", set()),
        ("叫醒我", set()),  # 叫醒: wake up
        ("他叫我小王", set()),  # how to address the speaker
        ("He called back later.", set()),
    ],
)
def test_a_name_given_with_the_languages_naming_words_is_a_name(text, names):
    assert set(given_names(text)) == names


@pytest.mark.parametrize(
    "text,names",
    [
        ("好了不说了，我要去喂芝麻了", ["芝麻"]),  # 芝麻 is sesame in the dictionary
        ("你去喂一下芝麻", ["芝麻"]),
        ("晚上给豆豆洗澡", ["豆豆"]),
        ("遛豆豆去了", ["豆豆"]),
        ("I have to go feed Sesame.", ["Sesame"]),
        ("She walked Biscuit after dinner.", ["Biscuit"]),
        # a kind of being, a relative, a pronoun: no name
        ("我去喂鸽子了", []),
        ("喂流浪猫", []),
        ("我给孩子洗澡", []),
        ("喂宝宝吃饭", []),
        ("喂它吃芝麻", []),  # 芝麻 is what it eats
        ("喂养芝麻", []),  # 喂养: one word, and no object that names a being
        ("喂奶", []),
        ("团子就拜托你帮我喂了哈，你有我家钥匙", []),  # 了哈: a particle, no name
        ("Feed the cat before you go.", []),  # lower case: a kind, not a name
        ("Sesame seeds are easy to toast.", []),
    ],
)
def test_a_being_looked_after_by_name_is_a_name(text, names):
    assert cared_names(text) == names


@pytest.mark.parametrize(
    "text,names",
    [
        ("我想在长沙开个米粉店", ["米粉店", "粉店"]),  # the kind a request shortens it to
        ("他开了一家火锅店", ["火锅店"]),
        ("他在杭州经营一家面馆", ["面馆"]),
        ("离开店里的时候下雨了", []),  # 离开: leave
        ("公开店铺信息", []),
        ("打开店门", []),
        ("他开了三年的店", []),  # a clause, not a name
        ("这家店开了三年", []),
    ],
)
def test_a_business_the_speakers_people_run_is_named_by_its_kind(text, names):
    assert business_names(text) == names


def test_world_names_are_filed_as_entities():
    assert world_names("一只垂耳兔，叫汤圆；我要去喂芝麻了") == ["汤圆", "芝麻"]
    found = {(e.name, e.kind) for e in extract("好了不说了，我要去喂芝麻了")}
    assert ("芝麻", NAME) in found
    assert ("Sesame", NAME) in {(e.name, e.kind) for e in extract("I have to go feed Sesame.")}
    # a food is no entity: 芝麻 in a recipe names nothing
    assert "芝麻" not in {e.name for e in extract("芝麻糊怎么做才香？")}


@pytest.mark.parametrize(
    "text,name",
    [("好了不说了，我要去喂芝麻了", "芝麻"), ("Gotta run, I have to feed Sesame.", "Sesame")],
)
def test_the_write_path_files_the_names_on_the_record_and_in_the_entity_store(engine, text, name):
    scope = Scope("alice")
    candidate = Candidate(MemoryType.EPISODE, text, tags=("user",), channel=Channel.IMPLICIT)
    (result,) = writer_of(engine).write(scope, [candidate])
    assert result.record is not None and name in result.record.entities
    named = engine.store.entities_named(scope, [normalise(name)])
    assert list(named.values()) == [name]
    assert engine.store.entities_named(Scope("bob"), [normalise(name)]) == {}
