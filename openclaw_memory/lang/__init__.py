"""Language packs: the only place in the package that knows a language.

Each language is a folder here, `lang/<code>/`, of YAML data: `pack.yaml` says what the pack is
(its code and name, the characters that mark its script and the order scripts are tried in, its
tokenizer, its stopwords, the comma that joins its clauses) and every other file is one table
(`request`, `people`, `kind`, `preference`, `instruction`, `profile`, `naming`, `lexicon`,
`negation`, `command`, `clause`, `target`, `statement`, `slot`, `entities`, `attribute`,
`summary`, `render`, `change`, `focus`, `describe`, ...). A table entry is named, carries a
one-line meaning and a regular expression (`pattern`, `flags`) or a word list (`words`), with its
confidence where its rule has one, and settings of its own (a summary's `template`, a map of
names). The mechanisms that read a table
(`extract/request_grammar.py`, `extract/people_rules.py`, `procedure/kind.py`, ...) are written
once; they ask the pack of the text's language for an entry by name.

- `detect(text)` names the language by script: the packs that declare a script are tried in
  priority order (kana marks Japanese before Han marks Chinese); a text with none is in the pack
  that declares no script (English).
- `pack(code)` is a pack with every rule on; `Languages(switches)` holds every pack under the
  switches of config's `rules.disabled`, built once where a stage is built (`factory.py`), and
  `Languages.of(text)` is the pack of a text.
- Every entry has a rule name `<code>.<table>.<entry>` (`zh.request.command_head`);
  `known_rules()` lists them, so `rules.disabled` is checked against them when the middleware is
  built. A switched-off entry keeps its place and stops acting: its pattern never matches and its
  word list is empty. A table a language lacks reads as empty, so its rules never act there.
- A rule that reads words of any language in one clause ("以后用English回复") asks
  `Languages.any_of(table, entry)`: one pattern over every pack's entry, in script order;
  `Languages.entries(table)` lists every pack's entries for rules tried one after another.
  `Languages.of_han(flag)` is the pack a caller still passing a has-Han flag means.
- A pack's tokenizer is named in `pack.yaml` (`tokenizers.py`: whole words, jieba's search mode,
  character bigrams). Adding a language is adding a folder: the Japanese pack has only a
  tokenizer and stopwords, and no code outside this folder names it.
"""

from __future__ import annotations

from .pack import Entry, LanguagePack, Table
from .registry import Languages, all_on, codes, detect, known_rules, languages, pack

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
