"""Language packs: the only place in the package that knows a language.

The registry of packs: which packs exist, which one a text is in.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from ..core import ALL_ON, Switches
from .pack import NEVER, Entry, LanguagePack, load_pack, Table

# The registry of language packs: which packs exist, which one a text is in, and the packs
# under a set of switches.

_HERE = Path(__file__).resolve().parent
_A_HAN_CHARACTER = "\u4e00"


@functools.lru_cache(maxsize=1)
def _loaded() -> dict[str, LanguagePack]:
    """Every pack shipped in this folder (a sub-folder with a `pack.yaml`), loaded once."""
    folders = sorted(p.parent for p in _HERE.glob("*/pack.yaml"))
    return {pack.code: pack for pack in map(load_pack, folders)}


@functools.lru_cache(maxsize=1)
def _fallback() -> str:
    """The pack a text with no marked script is in: the one pack that declares no script."""
    (code,) = [c for c, p in _loaded().items() if p.script is None]
    return code


@functools.lru_cache(maxsize=1)
def _scripts() -> tuple[LanguagePack, ...]:
    """The packs that declare a script, in the order they are tried."""
    return tuple(sorted((p for p in _loaded().values() if p.script), key=lambda p: p.priority))


def codes() -> tuple[str, ...]:
    """The codes of the shipped packs."""
    return tuple(_loaded())


def detect(text: str) -> str:
    """The code of the language text is written in, by script: the first pack (in priority
    order) whose script characters occur in it (kana before Han), else the pack without one."""
    for pack in _scripts():
        assert pack.script is not None
        if pack.script.search(text):
            return pack.code
    return _fallback()


def known_rules() -> frozenset[str]:
    """Every rule name of every pack (`<code>.<table>.<entry>`)."""
    return frozenset(n for p in _loaded().values() for n in p.rule_names())


class Languages:
    """The shipped packs with some rules switched off (`rules.disabled`); built once per stage."""

    def __init__(self, switches: Switches = ALL_ON) -> None:
        self.switches = switches
        self._packs = {c: p.switched(switches) for c, p in _loaded().items()}
        self._any: dict[tuple[str, str, str], re.Pattern[str]] = {}

    def pack(self, code: str) -> LanguagePack:
        """The pack `code`; a KeyError naming the known codes otherwise."""
        if code not in self._packs:
            raise KeyError(f"language {code!r}: expected one of {sorted(self._packs)}")
        return self._packs[code]

    def of(self, text: str) -> LanguagePack:
        """The pack of the language text is written in (`detect`)."""
        return self._packs[detect(text)]

    def of_han(self, han: bool) -> LanguagePack:
        """The pack a caller that still passes a has-Han flag (`text.has_cjk`) means: the pack
        of Han text when true, else the pack of text with no marked script."""
        return self._packs[detect(_A_HAN_CHARACTER if han else "")]

    def alternation(self, table: str, entry: str) -> str:
        """The patterns of `entry` in every pack's `table` that is on, as one alternation."""
        entries = [p.table(table).entry(entry) for p in self.all()]
        return "|".join(f"(?:{e.source})" for e in entries if e.on and e.source is not None)

    def any_of(self, table: str, entry: str, frame: str = "{}") -> re.Pattern[str]:
        """One pattern that matches where `entry` of any pack's `table` matches: for a rule that
        reads words of any language in one clause ("以后用English回复"). `frame` places the
        alternation in a pattern of its own (`^(?:{})+`: a run of leads). Never matches when no
        pack has the entry on."""
        key = (table, entry, frame)
        if key not in self._any:
            found = [p.table(table).entry(entry) for p in self.all()]
            flags = functools.reduce(lambda a, e: a | e.flags, found, 0)
            alternation = self.alternation(table, entry)
            framed = frame.replace("{}", alternation)
            self._any[key] = re.compile(framed, flags) if alternation else NEVER
        return self._any[key]

    def entries(self, table: str) -> tuple[Entry, ...]:
        """The entries of `table` in every pack that are on: each pack's in file order, the
        packs in the order scripts are tried (for rules tried one after another)."""
        return tuple(e for p in self.all() for e in p.table(table).values() if e.on)

    def names(self, table: str) -> tuple[str, ...]:
        """The entry names of `table` across every pack, each once, in the order first met."""
        return tuple(dict.fromkeys(n for p in self.all() for n in p.table(table)))

    def all(self) -> tuple[LanguagePack, ...]:
        """Every pack, in the order scripts are tried (`priority`), the pack without one last."""
        return tuple(sorted(self._packs.values(), key=lambda p: (p.script is None, p.priority)))

    def stopwords(self) -> frozenset[str]:
        """The stopwords of every pack together."""
        return frozenset(w for p in self._packs.values() for w in p.stopwords)


@functools.lru_cache(maxsize=1)
def all_on() -> Languages:
    """The packs with every rule on: the default of module-level functions."""
    return Languages()


def pack(code: str) -> LanguagePack:
    """The pack `code` with every rule on."""
    return all_on().pack(code)


def languages(switches: Switches = ALL_ON) -> Languages:
    """The packs under switches (the shared all-on packs when nothing is off)."""
    if not switches.off:
        return all_on()
    return Languages(switches)


# Language packs: the only place in the package that knows a language.
#
# Each language is a folder here, `lang/<code>/`, of YAML data: `pack.yaml` says what the pack is
# (its code and name, the characters that mark its script and the order scripts are tried in, its
# tokenizer, its stopwords, the comma that joins its clauses) and every other file is one table
# (`request`, `people`, `kind`, `preference`, `instruction`, `profile`, `naming`, `lexicon`,
# `negation`, `command`, `clause`, `target`, `statement`, `slot`, `entities`, `attribute`,
# `summary`, `render`, `change`, `focus`, `describe`, ...). A table entry is named, carries a
# one-line meaning and a regular expression (`pattern`, `flags`) or a word list (`words`), with its
# confidence where its rule has one, and settings of its own (a summary's `template`, a map of
# names). The mechanisms that read a table
# (`lang/utterance.py`, `extract/profile_rules.py`, `procedure/__init__.py`, ...) are written
# once; they ask the pack of the text's language for an entry by name.
#
# - `detect(text)` names the language by script: the packs that declare a script are tried in
#   priority order (kana marks Japanese before Han marks Chinese); a text with none is in the pack
#   that declares no script (English).
# - `pack(code)` is a pack with every rule on; `Languages(switches)` holds every pack under the
#   switches of config's `rules.disabled`, built once where a stage is built (`factory.py`), and
#   `Languages.of(text)` is the pack of a text.
# - Every entry has a rule name `<code>.<table>.<entry>` (`zh.request.command_head`);
#   `known_rules()` lists them, so `rules.disabled` is checked against them when the middleware is
#   built. A switched-off entry keeps its place and stops acting: its pattern never matches and its
#   word list is empty. A table a language lacks reads as empty, so its rules never act there.
# - A rule that reads words of any language in one clause ("以后用English回复") asks
#   `Languages.any_of(table, entry)`: one pattern over every pack's entry, in script order;
#   `Languages.entries(table)` lists every pack's entries for rules tried one after another.
#   `Languages.of_han(flag)` is the pack a caller still passing a has-Han flag means.
# - A pack's tokenizer is named in `pack.yaml` (`tokenizers.py`: whole words, jieba's search mode,
#   character bigrams). Adding a language is adding a folder: the Japanese pack has only a
#   tokenizer and stopwords, and no code outside this folder names it.

__all__ = [
    "Entry",
    "LanguagePack",
    "Languages",
    "Table",
    "all_on",
    "codes",
    "detect",
    "known_rules",
    "languages",
    "pack",
]
