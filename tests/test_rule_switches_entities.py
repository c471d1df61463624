"""The entity extractor reads the switches, in Chinese and English side by side: a naming rule
switched off in config (`<code>.naming.given`: "a puppy named Happy", 我家的猫叫芝麻) no longer
finds the name it gave, through the real write path (the record's entities and the entities the
store files for it), nor when maintenance links an older record; with every rule on it does."""

from __future__ import annotations

import pytest
from middleware_helpers import switched_middleware, tell
from store_helpers import find

from openclaw_memory.core import switches_from
from openclaw_memory.lang import Languages
from openclaw_memory.lang.entities import mentions_of, named_in, normalise
from openclaw_memory.types import Scope

ALICE = Scope("alice", "main")

#: a text that gives a name only its naming word says is one (a common word, an ordinary noun),
#: the name, and the rule that reads the naming word
GIVEN = {
    "zh": ("我家的猫叫芝麻。", "芝麻", "zh.naming.given"),
    "en": ("We adopted a puppy named Happy.", "Happy", "en.naming.given"),
}


def _named(tmp_path, off, text, name) -> tuple[bool, bool, bool]:
    """`text` told with the rules `off` switched off in config: whether its episode carries
    `name` among its entities, whether the store linked the episode to an entity of the name's
    key (a fact a rule distils from the turn may name it by a rule of its own), and whether
    maintenance reads the name in the episode again."""
    mw = switched_middleware(tmp_path, off, embedder="hash")
    try:
        tell(mw, ALICE, [text], mw.clock)
        (episode,) = find(mw.engine, ALICE, type="episode")
        key = normalise(name)
        carried = name in episode.entities
        store = mw.engine.store
        named = set(store.entities_named(ALICE, [key]))
        filed = bool(named & store.entities_of(ALICE, [episode.id]).get(episode.id, set()))
        read = mentions_of(episode, mw.maintenance.langs)
        relinked = key in {e.key for e in read.entities}
        return carried, filed, relinked
    finally:
        mw.close()


@pytest.mark.parametrize(
    ("lang", "off", "found"),
    [
        ("zh", (), True),
        ("zh", ("zh.naming.given",), False),
        ("zh", ("zh.naming",), False),
        ("en", (), True),
        ("en", ("en.naming.given",), False),
        ("en", ("en.naming",), False),
    ],
)
def test_a_naming_rule_switched_off_files_no_name_by_it(tmp_path, lang, off, found):
    text, name, _ = GIVEN[lang]
    assert _named(tmp_path, off, text, name) == (found, found, found)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_other_language_s_rule_switched_off_leaves_the_name(tmp_path, lang):
    """Switching one language's rule off leaves the other's names alone."""
    text, name, _ = GIVEN[lang]
    other = GIVEN["en" if lang == "zh" else "zh"][2]
    assert _named(tmp_path, (other,), text, name) == (True, True, True)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_stages_read_with_the_packs_of_the_config(tmp_path, lang):
    """The write stage, maintenance and the storage doors share the config's switches: each
    reads the name with packs that have the rule off."""
    text, name, rule = GIVEN[lang]
    mw = switched_middleware(tmp_path, [rule], embedder="hash")
    try:
        stages = {
            "capture": mw.langs,
            "writer": mw.writer.consolidator.langs,
            "maintenance": mw.maintenance.langs,
            "storage": mw.engine.langs,
        }
        for where, langs in stages.items():
            assert isinstance(langs, Languages), where
            assert not langs.switches.on(rule), where
    finally:
        mw.close()
    off = Languages(switches_from([rule]))
    assert [e.name for e in named_in(text, (), off).entities if e.name == name] == []
    assert [e.name for e in named_in(text).entities if e.name == name] == [name]
