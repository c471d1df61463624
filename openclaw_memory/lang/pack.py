"""A language pack: its code, script, tokenizer, stopwords and named tables, read from data.

The tokenizers a pack names (`tokenizer:` in its `pack.yaml`) are here too.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import yaml
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from ..errors import ConfigError
from ..core import Switches

# The tokenizers a language pack names (`tokenizer:` in its `pack.yaml`).
#
# Each takes one run of word characters (already lower-cased) and returns its tokens. `words`
# keeps the run as one word (English), `jieba` segments it with jieba's search mode, which yields
# overlapping words (Chinese), and `bigrams` splits it into overlapping character pairs, each Latin
# or digit run kept whole (Japanese, which jieba's Chinese dictionary does not know).

Tokenizer = Callable[[str], list[str]]

_lock = threading.Lock()
_LATIN_OR_DIGITS = re.compile(r"[0-9a-z_\u00c0-\u024f]+|[^0-9a-z_\u00c0-\u024f]+")


@functools.lru_cache(maxsize=1)
def jieba_module():
    """jieba with its bundled dictionary loaded once (no network)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    with _lock:
        jieba.initialize()
    return jieba


def words(run: str) -> list[str]:
    """The run as one token."""
    return [run]


def jieba_search(run: str) -> list[str]:
    """jieba's search-mode words of the run (overlapping: 中华人民共和国 -> 中华, 华人, ...)."""
    return [t for t in jieba_module().lcut_for_search(run) if t.strip()]


def bigrams(run: str) -> list[str]:
    """Overlapping character pairs of each non-Latin stretch (a lone character stays one token);
    Latin and digit stretches whole."""
    tokens: list[str] = []
    for part in _LATIN_OR_DIGITS.findall(run):
        if part.isascii() or len(part) == 1:
            tokens.append(part)
        else:
            tokens.extend(part[i : i + 2] for i in range(len(part) - 1))
    return tokens


TOKENIZERS: dict[str, Tokenizer] = {"words": words, "jieba": jieba_search, "bigrams": bigrams}


# A language pack: its code, script, tokenizer, stopwords and named tables, read from data.
#
# A pack is a folder `lang/<code>/`: `pack.yaml` holds what the pack is (its code, the characters
# that mark its script and the order in which scripts are tried, its tokenizer and stopwords, the
# punctuation joining its clauses, whether its words are separated by spaces, and further fields a
# mechanism reads by name, `clear_neighbour` say) and every other `<table>.yaml` holds one
# table. A table is a meaning, named entries and settings of its own (which parser reads it, say);
# an entry carries a one-line meaning and a regular expression (`pattern`, with `flags`) or a word
# list (`words`), and where its rule has one a `confidence`; other fields are the entry's own
# settings. Its rule name is `<code>.<table>.<entry>`.
#
# A switched-off entry (`rules.disabled`) keeps its place but stops acting: its pattern never matches
# and its word list is empty, so the mechanism that reads it needs no branch for the switch.

#: a pattern that matches nothing: what a switched-off pattern becomes
NEVER = re.compile(r"(?!)")
_FLAGS = {"IGNORECASE": re.IGNORECASE, "MULTILINE": re.MULTILINE, "DOTALL": re.DOTALL}
_ENTRY_KEYS = {"meaning", "pattern", "flags", "words", "confidence"}


@dataclass(frozen=True)
class Entry:
    """One rule of a table: a pattern or a word list, its meaning and its settings."""

    name: str
    meaning: str
    source: str | None = None
    flags: int = 0
    words: tuple[str, ...] = ()
    confidence: float | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    on: bool = True

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        """The compiled pattern (one that never matches when the rule is off)."""
        return self.regex()

    def regex(self, **fill: str) -> re.Pattern[str]:
        """The pattern with each `${name}` replaced by fill[name] (an alternation of words the
        mechanism builds from another table), compiled; one that never matches when off."""
        if not self.on or self.source is None:
            return NEVER
        text = self.source
        for key, value in fill.items():
            text = text.replace("${" + key + "}", value)
        return _compile(text, self.flags)

    def fresh(self, **fill: str) -> re.Pattern[str]:
        """As `regex`, for a fill that changes with the text read (a name, a word of a request):
        compiled through re's own bounded cache, not kept with the table's patterns."""
        if not self.on or self.source is None:
            return NEVER
        text = self.source
        for key, value in fill.items():
            text = text.replace("${" + key + "}", value)
        return re.compile(text, self.flags)

    @functools.cached_property
    def wordset(self) -> frozenset[str]:
        """The word list as a set (empty when the rule is off)."""
        return frozenset(self.words) if self.on else frozenset()

    def setting(self, key: str, default: Any = None) -> Any:
        return self.settings.get(key, default)


_compiled: dict[tuple[str, int], re.Pattern[str]] = {}


def _compile(text: str, flags: int) -> re.Pattern[str]:
    key = (text, flags)
    if key not in _compiled:
        _compiled[key] = re.compile(text, flags)
    return _compiled[key]


def one_of(patterns: tuple[re.Pattern[str], ...], flags: int = 0) -> re.Pattern[str]:
    """The patterns as one alternation (each in a group of its own), compiled once: for a
    mechanism that reads several entries' patterns in one search."""
    return _compile("|".join(f"(?:{p.pattern})" for p in patterns), flags)


@dataclass(frozen=True)
class Table(Mapping[str, Entry]):
    """A named table of entries, in file order; a missing entry reads as one that is off."""

    name: str
    meaning: str
    entries: Mapping[str, Entry]
    settings: Mapping[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Entry:
        return self.entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def entry(self, key: str) -> Entry:
        """The entry `key`, or an empty one that is off when the table has none."""
        return self.entries.get(key) or Entry(key, "", on=False)


EMPTY = Table("", "", {})


@dataclass(frozen=True)
class LanguagePack:
    """Everything one language contributes: detection, tokens, stopwords and tables."""

    code: str
    name: str
    script: re.Pattern[str] | None
    priority: int
    tokenizer_name: str
    stopwords: frozenset[str]
    comma: str
    tables: Mapping[str, Table]
    #: whether the language separates its words by spaces (a word of it is found inside a text
    #: only when it is not: 烟 in 我戒烟了)
    spaced: bool = True
    #: what else `pack.yaml` says of the language (`setting`)
    settings: Mapping[str, Any] = field(default_factory=dict)

    def setting(self, key: str, default: Any = None) -> Any:
        """A further field of `pack.yaml` (`clear_neighbour`, ...), or default."""
        return self.settings.get(key, default)

    def tokenize(self, run: str) -> list[str]:
        """The tokens of one run of word characters, by the pack's tokenizer."""
        tokenizer: Tokenizer = TOKENIZERS[self.tokenizer_name]
        return tokenizer(run)

    def table(self, name: str) -> Table:
        """The table `name` ({} when the language has none: its rules then never act)."""
        return self.tables.get(name, EMPTY)

    def rule_names(self) -> list[str]:
        return [f"{self.code}.{t}.{e}" for t, table in self.tables.items() for e in table]

    def switched(self, switches: Switches) -> "LanguagePack":
        """This pack with every entry that `switches` turns off made inert."""
        tables = {
            tname: replace(
                table,
                entries={
                    ename: replace(e, on=switches.on(f"{self.code}.{tname}.{ename}"))
                    for ename, e in table.entries.items()
                },
            )
            for tname, table in self.tables.items()
        }
        return replace(self, tables=tables)


_PACK_KEYS = {"code", "name", "script", "priority", "tokenizer", "stopwords", "comma", "spaced"}


def load_pack(folder: Path) -> LanguagePack:
    """The pack of a folder: `pack.yaml` and one table per other `*.yaml` file."""
    meta_path = folder / "pack.yaml"
    meta = _read(meta_path)
    code = _field(meta, "code", str, meta_path)
    if code != folder.name:
        raise ConfigError(f"{meta_path}: code: expected {folder.name!r} (the folder), got {code!r}")
    tokenizer = _field(meta, "tokenizer", str, meta_path)
    if tokenizer not in TOKENIZERS:
        raise ConfigError(f"{meta_path}: tokenizer: expected one of {sorted(TOKENIZERS)}")
    script = meta.get("script")
    tables = {p.stem: _table(p) for p in sorted(folder.glob("*.yaml")) if p.name != "pack.yaml"}
    return LanguagePack(
        code=code,
        name=_field(meta, "name", str, meta_path),
        script=re.compile(script) if script else None,
        priority=int(meta.get("priority", 100)),
        tokenizer_name=tokenizer,
        stopwords=frozenset(_words(meta.get("stopwords", ""), meta_path, "stopwords")),
        comma=str(meta.get("comma", ", ")),
        tables=tables,
        spaced=_field(meta, "spaced", bool, meta_path) if "spaced" in meta else True,
        settings={k: v for k, v in meta.items() if k not in _PACK_KEYS},
    )


def _read(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top")
    return data


def _field(data: Mapping[str, Any], key: str, kind: type, where: Path) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise ConfigError(f"{where}: {key}: expected a {kind.__name__}, got {value!r}")
    return value


def _words(value: Any, where: Path, key: str) -> tuple[str, ...]:
    """A word list written as a list or as one whitespace-separated string."""
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list) and all(isinstance(w, str) for w in value):
        return tuple(value)
    raise ConfigError(f"{where}: {key}: expected a list of words or one string of them")


def _table(path: Path) -> Table:
    data = _read(path)
    entries = data.get("entries")
    if not isinstance(entries, dict) or not entries:
        raise ConfigError(f"{path}: entries: expected a mapping of named entries")
    return Table(
        path.stem,
        _field(data, "meaning", str, path),
        {name: _entry(name, raw, path) for name, raw in entries.items()},
        {k: v for k, v in data.items() if k not in ("meaning", "entries")},
    )


def _entry(name: str, raw: Any, path: Path) -> Entry:
    where = f"entries.{name}"
    if not isinstance(raw, dict) or not isinstance(raw.get("meaning"), str):
        raise ConfigError(f"{path}: {where}.meaning: expected a one-line meaning")
    pattern = raw.get("pattern")
    if isinstance(pattern, list):
        pattern = "".join(pattern)
    if pattern is not None and not isinstance(pattern, str):
        raise ConfigError(f"{path}: {where}.pattern: expected a regular expression")
    flags = 0
    for flag in raw.get("flags", []):
        if flag not in _FLAGS:
            raise ConfigError(f"{path}: {where}.flags: expected some of {sorted(_FLAGS)}")
        flags |= _FLAGS[flag]
    if pattern is not None and "${" not in pattern:
        try:
            re.compile(pattern, flags)
        except re.error as exc:
            raise ConfigError(
                f"{path}: {where}.pattern: not a regular expression ({exc})"
            ) from None
    words = _words(raw["words"], path, f"{where}.words") if "words" in raw else ()
    confidence = raw.get("confidence")
    if confidence is not None and not (isinstance(confidence, float) and 0 <= confidence <= 1):
        raise ConfigError(f"{path}: {where}.confidence: expected a number in [0, 1]")
    settings = {k: v for k, v in raw.items() if k not in _ENTRY_KEYS}
    return Entry(name, raw["meaning"], pattern, flags, words, confidence, settings)


# Tables of no language: the named shapes of the text formats the doors read and write (the
# reference block's markers and the chat-template tokens it removes, OpenClaw's memory files), in
# `lang/format/<name>.yaml`. They are read like a pack's tables (a meaning, named entries, each a
# pattern with its flags) but belong to no pack, so `rules.disabled` does not reach them: a format
# does not change with the language of the text inside it.

_FORMATS = Path(__file__).resolve().parent / "format"


@functools.lru_cache(maxsize=None)
def format_table(name: str) -> Table:
    """The format table `name` (`lang/format/<name>.yaml`), read once."""
    path = _FORMATS / f"{name}.yaml"
    if not path.is_file():
        known = sorted(p.stem for p in _FORMATS.glob("*.yaml"))
        raise ConfigError(f"format table {name!r}: expected one of {known}")
    return _table(path)
