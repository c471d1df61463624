"""Names a text gives or shows as the speaker's, read at write time.

A given name is often an ordinary word (芝麻 sesame, 汤圆 a dumpling, Biscuit): the naming word,
not the dictionary, says it is a name. 一只垂耳兔，叫汤圆 -> 汤圆; 我家猫叫芝麻 -> 芝麻; 那家店名叫
老街面馆 -> 老街面馆; 我们叫它芝麻 -> 芝麻; "a rabbit named Biscuit" -> Biscuit; "our shop is called
Noodle Corner" -> Noodle Corner. Not an errand (叫外卖吧), a verb that begins with the naming
character (叫醒 wake up, 叫好 cheer), how to address the speaker (叫我小王: the alias rules of
extract/entities.py read that), or a description ("called back").

Two more ways a text shows that a word names something of the speaker's world, read the same
way (`world_names`):

- a being looked after by name: the object of a verb whose object is a living being, 喂芝麻 (feed
  Sesame), 遛豆豆, 给汤圆洗澡; "feed Sesame", "walk Biscuit" (capitalised). A kind of being is
  no name (喂鸽子, 喂流浪猫, 给孩子洗澡: the head of a Chinese compound names its kind, and 子,
  猫, 孩 ... name kinds of beings); an English word in lower case is no name ("feed the cat");
- a place of business the speaker's people open or run: 开个米粉店, 开了一家火锅店, 经营一家面馆.
  Chinese names a business by its kind (店 / 馆 / 铺 after what it sells), and a later request
  shortens it to the kind alone (粉店 for 米粉店): the dictionary's words inside the name that end
  in the same head are filed with it.

The write path files these names as the memory's entities (extract/entities.py `extract`, and
the record's `entities`), so recall finds them by name and relevance gating knows a request that
writes one speaks of the user's world, without parsing memories on the request path. The naming
words, the verbs of care and of business and the words no name holds are each language's
`naming` table (`lang/<code>/naming.yaml`); every language's table is read on every text.
"""

from __future__ import annotations

from ..lang import Languages, all_on
from ..lang.pack import Table
from ..lang.text import (
    _jieba,
)  # the package's one jieba loader (dictionary loaded once, no network)

_TABLE = "naming"
#: a name does not end in a particle, in any language (`particle_end`; read by recall too)
PARTICLE_END = all_on().any_of(_TABLE, "particle_end")


def _tables(langs: Languages | None) -> list[Table]:
    return [p.table(_TABLE) for p in (langs or all_on()).all()]


def given_names(text: str, langs: Languages | None = None) -> list[str]:
    """Names the text gives with its language's naming words, first given first, each once."""
    names: list[str] = []
    for table in _tables(langs):
        particle_end = table.entry("particle_end").pattern
        for m in table.entry("given").pattern.finditer(text):
            found = m.groupdict()
            if particle_end.search(m["name"]):
                continue
            if "word" in found and not (
                found.get("it") or _naming_word(text, m.start("word"), m["word"], table)
            ):
                continue
            names.append(m["name"])
    return list(dict.fromkeys(names))


def _naming_word(text: str, at: int, word: str, table: Table) -> bool:
    """The naming word stands as a word of its own (not 叫醒 wake up, 叫好 cheer): the
    dictionary's segmentation starts with it."""
    head = _jieba().lcut(text[at : at + len(word) + 4])
    starts = table.entry("naming_start").wordset
    return bool(head) and word.startswith(head[0]) and head[0][:1] in starts


def world_names(text: str, langs: Languages | None = None) -> list[str]:
    """Every name the text gives or shows as the speaker's (see the module docstring)."""
    return list(
        dict.fromkeys(
            [*given_names(text, langs), *cared_names(text, langs), *business_names(text, langs)]
        )
    )


def cared_names(text: str, langs: Languages | None = None) -> list[str]:
    """Beings looked after by name: 喂芝麻 -> 芝麻, "feed Sesame" -> Sesame (not 喂鸽子)."""
    out = []
    for table in _tables(langs):
        kinds, starts = table.entry("being_head").wordset, table.entry("no_name_start").wordset
        particle_end = table.entry("particle_end").pattern
        for m in table.entry("care").pattern.finditer(text):
            found = m.groupdict()
            name = found.get("name") or found.get("name2") or ""
            if name[-1] in kinds or name[0] in starts or particle_end.search(name):
                continue
            verb = found.get("verb")
            if verb and _inside_word(text, m.start("verb"), m.end("verb"), after=True):
                continue  # 喂养, 喂奶: one word with what follows
            out.append(name)
    return out


def business_names(text: str, langs: Languages | None = None) -> list[str]:
    """Places of business opened or run, with the kinds a request shortens them to:
    开个米粉店 -> 米粉店, 粉店."""
    out = []
    for table in _tables(langs):
        not_in_name = table.entry("not_in_name").pattern
        for m in table.entry("business").pattern.finditer(text):
            name, verb = m["name"], m.span("verb")
            if len(name) < 2 or not_in_name.search(name):
                continue  # 开了三年的店: a clause, not a name
            if _inside_word(text, *verb, after=m.start("name") == verb[1]):
                continue  # 离开店里, 公开: 开 ends another word
            out.append(name)
            out += [
                w
                for w in _jieba().lcut_for_search(name)
                if w != name and len(w) >= 2 and w.endswith(name[-1])
            ]
    return out


def _inside_word(text: str, start: int, end: int, *, after: bool) -> bool:
    """The verb at text[start:end] is part of a dictionary word with the character before it
    (离开, 公开) or, when `after`, the one after it (喂养, 喂奶)."""
    freq = _jieba().dt.FREQ
    if start > 0 and freq.get(text[start - 1 : end]):
        return True
    return after and bool(freq.get(text[start : end + 1]))
