"""Kinds of things a request asks about, the words that name their members, and list questions."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from ..lang import Languages, all_on
from ..lang.pack import LanguagePack, Table
from ..lang.text import FTS_TERMS, search_tokens
from ..config.tuning import tuned_int

# Kinds of things a request asks about, and the words that name their members.
#
# "What martial arts has John done?" is answered by "I'm off to do some taekwondo!", which shares
# no word with the question and sits far from it in the embedding (a kind and one of its members
# are not paraphrases). A request that names a kind (martial arts, musical instruments, pets,
# sports, European countries; 乐器, 宠物, 运动) also looks for the words of its members: the
# kind channel searches them by keyword (`channels.KindChannel`), and a memory that names a
# member holds the kind's terms for the keyword component (`rank.keyword_hits`). The table is
# general knowledge, one row per kind, English and Chinese side by side; a member is a word or a
# fixed phrase as the language writes it.
#
# A memory that names a member also counts as asked for by structure (half, like a memory of the
# type a request asks for: `rank.components`). Relevance gating does not count a member as a word
# of the request (`gate.WORDS`, `gate.relevant`): a memory found by its kind ranks, and is injected
# only when its meaning and its own words clear the bar, so a question about sport in general gets
# none of the user's games of tennis.

#: the language pack table of kinds and their members (each language's `category.yaml`)
TABLE = "category"


@dataclass(frozen=True)
class KindRow:
    name: str
    #: how a request names the kind, in one language
    pattern: re.Pattern[str]
    #: its members in that language, in order (a phrase written with "-" between its words)
    members: tuple[str, ...]
    #: the code of the pack it is written in (its `before` entry reads the word before a kind word)
    code: str


def _words(table: Table, name: str) -> tuple[str, ...]:
    """The members of a kind: the word lists its `members` names, in order, else its own."""
    entry = table.entry(name)
    named = entry.setting("members") or [name]
    return tuple(w for n in named for w in table.entry(n).words if table.entry(n).on)


@functools.lru_cache(maxsize=8)
def rows(langs: Languages) -> tuple[tuple[KindRow, ...], ...]:
    """One tuple per kind (in the order first met), its rows in every language that has it."""
    out = []
    for name in langs.names(TABLE):
        row = []
        for pack in langs.all():
            entry = pack.table(TABLE).entry(name)
            if entry.on and entry.source is not None and not entry.setting("reads"):
                row.append(KindRow(name, entry.pattern, _words(pack.table(TABLE), name), pack.code))
        if row:
            out.append(tuple(row))
    return tuple(out)


@dataclass(frozen=True)
class Kind:
    """A kind a request names: its own terms in the request (search tokens) and its members'."""

    name: str
    terms: frozenset[str]
    members: frozenset[str]
    #: the keyword queries that search its members: those of the request's language, the first
    #: SEARCHED of the row (each searched word costs the keyword index about 0.05 ms), at most
    #: `text.FTS_TERMS` search tokens a query (a Chinese member may be two: 跆拳道 -> 跆拳, 跆拳道)
    searches: tuple[str, ...]
    #: members of several words, each named only by all of its words ("Senior Marketing
    #: Specialist": the user's own job, `subjects.profile_kinds`)
    phrases: tuple[frozenset[str], ...] = ()

    def named_in(self, tokens: frozenset[str], text: str) -> bool:
        """A memory (its search tokens, its lower-cased text) names a member: as one of its
        words, or a Chinese member of two characters or more inside its text (one character is
        too often part of another word: 鼓 of 鼓励, 狗 of 热狗), or all the words of a phrase."""
        return (
            not self.members.isdisjoint(tokens)
            or any(m in text for m in self.members if len(m) >= 2 and not m.isascii())
            or any(p <= tokens for p in self.phrases)
        )


def kinds_named(text: str, langs: Languages | None = None) -> tuple[Kind, ...]:
    """The kinds the request names. A kind named inside another's words ("art" in "martial arts")
    is not named; of two kinds where one's members are all the other's ("European countries":
    Europe within countries), the narrower one is meant."""
    langs = langs or all_on()
    found: list[tuple[Kind, tuple[int, int]]] = []
    for kind in rows(langs):
        named = [(m, row) for row in kind for m in [row.pattern.search(text)] if m is not None]
        if not named:
            continue
        m, row = min(named, key=lambda f: f[0].start())
        if any(a < m.end() and m.start() < b for _, (a, b) in found):
            continue
        if _another_kind(text[: m.start()], langs.pack(row.code)):
            continue
        members, searches = _members(kind, row, langs)
        found.append(
            (Kind(row.name, frozenset(search_tokens(m.group(0))), members, searches), m.span())
        )
    kinds = [k for k, _ in found]
    return tuple(k for k in kinds if not any(o is not k and o.members < k.members for o in kinds))


def _another_kind(before: str, pack: LanguagePack) -> bool:
    """The word before a kind word is a noun of its own: the words name another kind ("coding
    exercises" are no workout); read by the `before` entry of the kind word's language."""
    entry = pack.table(TABLE).entry("before")
    m = entry.pattern.search(before)
    if m is None:
        return False
    word = m.group(1)
    if word[0].isupper() and before[: m.start()].strip():
        return False  # a name ("John's sports", "Melanie activities")
    possessive = entry.setting("possessive")
    if possessive and word.endswith(possessive):
        return False  # a possessive is no kind
    return word.lower() not in entry.wordset


#: how many members of a kind the keyword channel searches (the row's first, most common ones)
SEARCHED = tuned_int("kinds.searched")


@functools.lru_cache(maxsize=None)
def _members(
    kind: tuple[KindRow, ...], row: KindRow, langs: Languages
) -> tuple[frozenset[str], tuple[str, ...]]:
    """The kind's members as search tokens (every language: a memory may name either), and the
    keyword queries over the words of the language it is named in, at most SEARCHED of them."""
    words = list(dict.fromkeys(w.replace("-", " ") for r in kind for w in r.members))
    searched = list(dict.fromkeys(w.replace("-", " ") for w in row.members))[:SEARCHED]
    members = frozenset(search_tokens(" ".join(words), drop_stopwords=True))
    return members, _queries(searched)


def _queries(words: list[str]) -> tuple[str, ...]:
    """words in order, grouped into texts of at most FTS_TERMS distinct search tokens each (a
    longer query would be cut: `text.fts_query`)."""
    out: list[str] = []
    group: list[str] = []
    terms: set[str] = set()
    for w in words:
        own = set(search_tokens(w, drop_stopwords=True))
        if group and len(terms | own) > FTS_TERMS:
            out.append(" ".join(group))
            group, terms = [], set()
        group.append(w)
        terms |= own
    return (*out, " ".join(group)) if group else tuple(out)


# List questions: a request that asks for several things ("what books has she read?", 哪些).
#
# Such a request is answered by memories spread over sessions, not by one memory and the turns
# around it: its ranking's head is ordered to cover several sessions (recall/head.py), the turns
# around its best one get half the session evidence (`rank.LIST_SESSION_SHARE`), each recalled
# turn comes with one more turn after it (`LIST_CONTEXT_AFTER`: in a dialogue the turn after a
# mention is where it is told about, "which one?" answered), and its block may hold more related
# memories (`long_term.list_top_k`, working_memory.py). "How many" of a unit of measure ("how many
# years older am I") asks an amount, not several things.

#: the language pack table of list questions (each language's `several.yaml`)
SEVERAL = "several"
#: turns after a recalled turn a list question's unit shows besides `recall.episode_context_after`
LIST_CONTEXT_AFTER = tuned_int("listing.context_after")


def names_several(text: str, langs: Languages | None = None) -> bool:
    """The request asks for several things: a list question ("what books", 哪些, how many), by
    each language's `several` table. Naming two entities is not enough: most questions name a
    person and a place."""
    for pack in (langs or all_on()).all():
        table = pack.table(SEVERAL)
        unit, not_plural = table.entry("unit_after"), table.entry("not_plural").wordset
        lead = (unit.setting("after") or "") if unit.on else ""
        for entry in table.values():
            if entry.setting("reads") != "list":
                continue
            for m in entry.pattern.finditer(text):
                if (
                    lead
                    and m.group(0).lower().startswith(lead)
                    and unit.pattern.match(text, m.end())
                ):
                    continue
                noun = next((g for g in m.groupdict().values() if g), None)
                if noun is None or noun.lower() not in not_plural:
                    return True
    return False
