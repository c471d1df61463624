"""Language packs (`openclaw_memory.lang`): detection, tokenizers, tables as data, switches."""

import re

import pytest

from openclaw_memory import lang
from openclaw_memory.errors import ConfigError
from openclaw_memory.lang.pack import load_pack
from openclaw_memory.core import switches_from
from openclaw_memory.lang.text import STOPWORDS, tokenize


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("I moved to Berlin", "en"),
        ("我搬到了柏林", "zh"),
        ("ベルリンに引っ越しました", "ja"),
        ("東京に行きました", "ja"),  # kana beside Han: Japanese, not Chinese
        ("東京", "zh"),  # Han alone cannot tell; Chinese is tried after kana
        ("", "en"),
    ],
)
def test_detect_reads_the_script(text, code):
    assert lang.detect(text) == code


def test_every_shipped_pack_loads_with_its_tables():
    assert set(lang.codes()) >= {"en", "zh", "ja"}
    assert lang.pack("zh").table("request").entry("command_head").pattern.match("帮我算一下")
    assert lang.pack("en").table("request").entry("command_head").pattern.match("Translate it")
    assert lang.pack("ja").tables == {}
    with pytest.raises(KeyError, match="expected one of"):
        lang.pack("xx")


def test_every_entry_has_a_meaning_and_a_pattern_words_or_settings():
    names = lang.known_rules()
    assert "zh.request.command_head" in names and "en.request.command_head" in names
    for code in lang.codes():
        for table in lang.pack(code).tables.values():
            assert table.meaning
            for entry in table.values():
                assert entry.meaning and "\n" not in entry.meaning
                name = f"{code}.{table.name}.{entry.name}"
                assert entry.source is not None or entry.words or entry.settings, name
                assert entry.confidence is None or 0 <= entry.confidence <= 1


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("I like green tea", ["like", "green", "tea"]),
        ("我喜欢喝乌龙茶", ["喜欢", "喝", "乌龙", "乌龙茶"]),
        ("東京に行きました", ["東京", "京に", "に行", "行き", "きま"]),
        ("iPhoneを買った", ["iphone", "を買", "買っ", "った"]),
    ],
)
def test_each_language_is_tokenized_by_its_pack(text, tokens):
    assert tokenize(text, drop_stopwords=True) == tokens


def test_japanese_never_reaches_jieba(monkeypatch):
    from openclaw_memory.lang.pack import TOKENIZERS

    def refuse(run):
        raise AssertionError(f"jieba asked for {run!r}")

    monkeypatch.setitem(TOKENIZERS, "jieba", refuse)
    assert tokenize("ラーメンが好きです") == [
        "ラー",
        "ーメ",
        "メン",
        "ンが",
        "が好",
        "好き",
        "きで",
        "です",
    ]
    with pytest.raises(AssertionError, match="jieba"):
        tokenize("我喜欢拉面")


def test_stopwords_are_every_packs_together():
    assert {"the", "的", "です"} <= STOPWORDS
    assert STOPWORDS == lang.all_on().stopwords()


def test_a_switched_off_entry_never_matches_and_has_no_words():
    langs = lang.Languages(switches_from(["zh.request.command_head"]))
    assert not langs.pack("zh").table("request").entry("command_head").pattern.match("帮我算一下")
    assert langs.pack("en").table("request").entry("command_head").pattern.match("Translate it")
    langs = lang.Languages(switches_from(["zh.kind"]))
    assert langs.pack("zh").table("kind").entry("frame").wordset == frozenset()
    assert lang.pack("zh").table("kind").entry("frame").wordset


def test_a_table_a_language_lacks_reads_as_rules_that_never_act():
    from openclaw_memory.procedure import task_kind

    entry = lang.pack("ja").table("request").entry("command_head")
    assert not entry.on and entry.pattern.search("anything") is None
    assert task_kind("サイトをデプロイして") is None  # no kind table: no kind, no jieba
    assert task_kind("帮我部署一下网站").key == "部署 网站"


def _write_pack(folder, table):
    folder.mkdir()
    (folder / "pack.yaml").write_text(
        f"code: {folder.name}\nname: Test\ntokenizer: words\nstopwords: a b\n", encoding="utf-8"
    )
    (folder / "t.yaml").write_text(table, encoding="utf-8")


@pytest.mark.parametrize(
    ("table", "error"),
    [
        ("meaning: m\nentries:\n  e:\n    pattern: '['\n", r"entries\.e\.meaning"),
        ("meaning: m\nentries:\n  e:\n    meaning: x\n    pattern: '['\n", r"entries\.e\.pattern"),
        ("meaning: m\nentries:\n  e:\n    meaning: x\n    words: 3\n", r"entries\.e\.words"),
        (
            "meaning: m\nentries:\n  e:\n    meaning: x\n    words: a\n    confidence: 2.0\n",
            r"entries\.e\.confidence: expected a number in \[0, 1\]",
        ),
        ("meaning: m\nentries: {}\n", "entries: expected a mapping"),
    ],
)
def test_a_malformed_table_names_its_file_and_field(tmp_path, table, error):
    _write_pack(tmp_path / "xx", table)
    with pytest.raises(ConfigError, match=error):
        load_pack(tmp_path / "xx")


def test_a_pack_folder_is_a_language(tmp_path):
    _write_pack(tmp_path / "xx", "meaning: m\nentries:\n  e:\n    meaning: x\n    pattern: 'a+'\n")
    pack = load_pack(tmp_path / "xx")
    assert pack.rule_names() == ["xx.t.e"]
    assert pack.table("t").entry("e").pattern == re.compile("a+")
    assert pack.tokenize("word") == ["word"] and pack.stopwords == {"a", "b"}
