"""Does a request refer to the user's own world? (the first half of relevance gating)

And what it says when it asks about a profile subject without naming it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence, Set as AbstractSet
from ..lang import Languages, all_on
from ..lang.text import (  # the package's one jieba loader (dictionary loaded once, no network)
    _jieba,
    search_tokens,
    unspaced,
)
from ..lang.pack import Table
from ..types import MemoryRecord, MemoryType, Status
from .kinds import Kind

# Does a request refer to the user's own world? (the first half of relevance gating)
#
# A request about the user or the people and things of their memory ("where do I live?", "what did
# Caroline paint?", 我上次说的那家店叫什么？) may be answered by a memory that only loosely
# resembles it, so it is gated as before (`recall.min_semantic`). A request that refers to nothing
# of theirs (chit-chat with the assistant, general knowledge, coding, translation) gets a memory
# only when the memory clearly stands out from the request's own background
# (`background.py`): otherwise the block stays empty.
#
# Reference, per language:
# - the user speaking of themselves (I / my / we / our; 我 as subject or possessor, 我的, 我们, 咱们).
#   Not: 我 as the object of a request (给我讲, 帮我写), the generic "I" of a how-to question on an
#   object named with an article ("how do I sort a list?" asks for a method; "how do I get to
#   work?" is about the user), the generic person of what an asked-for thing is for ("a fun fact
#   I can share at lunch", 告诉我一个冷知识，我午饭时分享; "conferences I might find interesting"
#   asks about the user's taste and stays theirs), or quoted text (translate "I am learning to
#   swim");
# - the user's people named by their relation, without a possessor: in Chinese a bare kinship or
#   relation term is the speaker's own (外婆的寿宴 = my grandmother's birthday), as are "mom",
#   "grandma", "my boss" in English;
# - something both sides know, in Chinese: 那个 / 那次 / 上次 ... (重复扣款那个bug);
# - a name the user's memories hold, written in the request: a speaker, an entity (among them a
#   name given with the language's naming words, 一只垂耳兔，叫汤圆; 我家猫叫芝麻; "a rabbit named
#   Biscuit", which the write path files as the memory's entity: lang/entities.py), an
#   identifier (ERP-2041, FW-517, 灵鹰3) or a quoted name (“毛孩子”) written in a memory, or a
#   Chinese word the language's dictionary does not know that a memory holds (a child's, a pet's
#   or a shop's name: 小宇, 阿福, 刚子粉铺). A given name is often an ordinary word (芝麻 sesame,
#   汤圆 a dumpling): the naming word, not the dictionary, says it is a name.

#: the language pack table of reference (each language's `reference.yaml`)
TABLE = "reference"
#: the language pack table of the words a question about a profile subject uses
VOCABULARY = "vocabulary"


def _quoted(langs: Languages | None = None) -> re.Pattern[str]:
    """Quoted text, in any language's quotation marks (`quoted`), one pass."""
    return (langs or all_on()).any_of(TABLE, "quoted")


def unquoted(text: str, langs: Languages | None = None) -> str:
    """The request without its quoted text."""
    return _quoted(langs).sub(" ", text)


def speaks_of_self(text: str, langs: Languages | None = None) -> bool:
    """The user speaks of themselves, in any language (each pack's `reference` table: `self`,
    once quoted text, the generic person of a how-to or of what an asked-for thing is for, and
    the object of a request, 给我/帮我, are aside)."""
    langs = langs or all_on()
    bare = _quoted(langs).sub(" ", text)
    for pack in langs.all():
        table = pack.table(TABLE)
        if not table.entry("self").on:
            continue
        own = bare
        apostrophe = table.settings.get("apostrophe")
        if apostrophe:
            own = own.replace(apostrophe, "'")
        for entry in table.values():
            if entry.setting("reads") == "generic":
                own = entry.pattern.sub(entry.setting("by", " "), own)
        own = table.entry("object").pattern.sub("", _without_generic_use(own, table))
        if table.entry("self").pattern.search(own):
            return True
    return False


def _without_generic_use(text: str, table: Table) -> str:
    """The text without the generic person of what its first clause asks for (`asks_for_a_thing`
    then, after the comma, `for_its_use`: 告诉我一个冷知识，我午饭时分享)."""
    first, sep, rest = _split(text, table.entry("comma").pattern)
    asked = table.entry("asks_for_a_thing").pattern.match(first)
    use = table.entry("for_its_use").pattern.match(rest) if sep else None
    if asked and use:
        return first[asked.end() :] + sep + rest[use.end() :]
    return text


def _split(text: str, comma: re.Pattern[str]) -> tuple[str, str, str]:
    """The first clause, its comma and the rest ("", "" when there is no comma)."""
    m = comma.search(text)
    return (text[: m.start()], m.group(), text[m.end() :]) if m else (text, "", "")


def names_relations(text: str, langs: Languages | None = None) -> bool:
    """The request names the user's people by their relation (外婆, 女儿, mom), quoted text aside."""
    langs = langs or all_on()
    bare = unquoted(text, langs)
    return any(p.table(TABLE).entry("relations").pattern.search(bare) for p in langs.all())


def identifiers(text: str, langs: Languages | None = None) -> set[str]:
    """Identifier-like names written in a memory (ERP-2041, FW-517, 灵鹰3)."""
    return {m.group(0) for m in (langs or all_on()).any_of(TABLE, "identifier").finditer(text)}


def memory_names(text: str, langs: Languages | None = None) -> set[str]:
    """Names a memory writes out: identifiers and quoted names written as names are in their
    language (Chinese, or a capitalised Latin word: "Charlotte's Web"; a quoted English word in
    lower case, "short", is a word, not a name). Names given with naming words are the memory's
    entities, filed at write time (lang/entities.py)."""
    langs = langs or all_on()
    quoted = {
        next(g for g in m.groups() if g) for m in langs.any_of(TABLE, "quoted_name").finditer(text)
    }
    word = langs.any_of(TABLE, "name_word")
    named = {q for q in quoted if word.search(q) or q[:1].isupper()}
    return identifiers(text, langs) | named


def dictionary_word(word: str) -> bool:
    """The bundled jieba dictionary knows `word` (a frequency above 0: it also lists every prefix
    of a word, at 0). Names people coin are not in it."""
    return bool(_jieba().dt.FREQ.get(word))


def coined_words(request: str, memories: Sequence[str], langs: Languages | None = None) -> set[str]:
    """Chinese words of the request that the dictionary does not know and a memory holds: the
    user's own names for their people, pets and places (小宇, 阿福, 刚子粉铺)."""
    langs = langs or all_on()
    word = langs.any_of(TABLE, "name_word")
    if not word.search(request):
        return set()
    particle_end = langs.any_of("naming", "particle_end")
    words = {
        w
        for w in _jieba().lcut(unquoted(request, langs))
        if word.fullmatch(w) and not particle_end.search(w) and not dictionary_word(w)
    }
    return {w for w in words if any(w in m for m in memories)}


def shared_reference(text: str, langs: Languages | None = None) -> bool:
    """The request points at something both sides know (重复扣款那个bug, 上次那家店)."""
    langs = langs or all_on()
    bare = unquoted(text, langs)
    return any(p.table(TABLE).entry("shared").pattern.search(bare) for p in langs.all())


def names_known(text: str, names: Iterable[str]) -> bool:
    """A name from the user's memories (two characters or more) is written in the request, as
    a name: a name that is also an ordinary word (芝麻 sesame, "Sesame") is no name inside a
    longer dictionary word (黑芝麻, 芝麻糊), nor in lower case in a request that writes capitals
    ("Is sesame oil good?"; a request in lower case throughout may write names so)."""
    low = text.lower()
    for raw in names:
        name = raw.strip()
        key = name.lower()
        # `key in low` first: a pattern compiled for every name of a store outgrows re's cache
        if len(key) < 2 or key not in low:
            continue
        if key.isascii():
            # an ASCII name stands alone among ASCII letters and digits (a Han character beside
            # it is a boundary: ERP-2041的切换), not inside a longer word
            if _whole_word(key, low) and (not _proper(name) or text == low or name in text):
                return True
        elif not dictionary_word(key) or _stands_as_word(key, low):
            return True
    return False


def _stands_as_word(word: str, text: str) -> bool:
    """`word` occurs in `text` once at least outside a longer dictionary word (芝麻 in
    芝麻最后葬在哪里, not in 黑芝麻 or 芝麻糊): dictionary look-ups, no segmentation."""
    at = text.find(word)
    while at >= 0:
        if not inside_longer_word(text, at, at + len(word)):
            return True
        at = text.find(word, at + 1)
    return False


def inside_longer_word(
    text: str, start: int, end: int, ours: AbstractSet[int] = frozenset()
) -> bool:
    """text[start:end] lies inside a longer dictionary word, one or two characters more on either
    side (黑芝麻 around 芝麻, 保险公司 around 公司); not one whose every character is at a position
    of `ours` (大学毕业 around 大学, when 毕业 is a word of the same vocabulary)."""
    around = [(start - k, end) for k in (1, 2) if start >= k]
    around += [(start, end + k) for k in (1, 2) if end + k <= len(text)]
    return any(dictionary_word(text[a:b]) and not set(range(a, b)) <= ours for a, b in around)


def _proper(name: str) -> bool:
    """A capitalised word written as a name is (Sesame, Caroline; not ERP-2041, not "short")."""
    return name[:1].isupper() and any(c.islower() for c in name)


def _whole_word(word: str, text: str) -> bool:
    """`word` stands in `text` with no ASCII letter or digit beside it."""
    return re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", text) is not None


def refers_to_user(
    text: str,
    names: Iterable[str] = (),
    memories: Sequence[str] = (),
    langs: Languages | None = None,
) -> bool:
    """Does the request refer to the user's world? `names`: names their memories hold;
    `memories`: the texts of the memories pooled for it (for the words only they use)."""
    return about_user(text, langs) or known_to_user(text, names, memories, langs)


def about_user(text: str, langs: Languages | None = None) -> bool:
    """The request refers to the user's world by its own words: the user speaks of themselves,
    names their people by relation, or points at something both sides know."""
    return (
        speaks_of_self(text, langs) or names_relations(text, langs) or shared_reference(text, langs)
    )


def known_to_user(
    text: str,
    names: Iterable[str] = (),
    memories: Sequence[str] = (),
    langs: Languages | None = None,
) -> bool:
    """The request writes a name the user's memories hold (`names`) or a word only the texts of
    the memories pooled for it use (`memories`)."""
    return names_known(text, names) or bool(coined_words(text, memories, langs))


# What a request says when it asks about a profile subject without naming it.
#
# A profile fact is filed under its subject ("age", "degree/bachelor", "employer"), and the
# structure signal matches a request that names the subject ("what is my age?",
# `channels.subject_matches`). People rarely ask that way: "how old am I?", "when did I
# graduate?", "where do I work?", 我今年多大了, 我在哪儿上班. This table holds, per subject root (the
# part before "/"), the words such a question uses, English and Chinese side by side: the
# attribute's own vocabulary, not any one question's wording. English words at word boundaries;
# a Chinese one not inside a longer dictionary word that says something else (哪家保险公司 asks for
# an insurer, not the user's company; 工作室 is a studio).
#
# A request that asks about a subject asks about its value too: "how long have I been in my current
# role?" is about being a Senior Marketing Specialist when the profile says the user is one, and a
# memory that names the value ("as a Senior Marketing Specialist, I ...") speaks of it, as a memory
# that names taekwondo speaks of martial arts (recall/kinds.py). `profile_kinds` makes each asked
# subject's current values (its active profile memories') the members of a kind the request names by
# its vocabulary words.


@functools.lru_cache(maxsize=8)
def _vocabularies(langs: Languages) -> dict[str, tuple[re.Pattern[str], ...]]:
    """Each vocabulary (by entry name) as its patterns in every language that has it on."""
    out: dict[str, tuple[re.Pattern[str], ...]] = {}
    for name in langs.names(VOCABULARY):
        entries = [p.table(VOCABULARY).entry(name) for p in langs.all()]
        out[name] = tuple(e.pattern for e in entries if e.on and e.source is not None)
    return out


@functools.lru_cache(maxsize=8)
def _roots(langs: Languages) -> dict[str, str]:
    """Subject root -> the name of the vocabulary a question about it uses."""
    return {
        root: name
        for name in langs.names(VOCABULARY)
        for p in langs.all()
        for root in p.table(VOCABULARY).entry(name).setting("roots", ())
    }


def vocabularies(text: str, langs: Languages | None = None) -> tuple[re.Pattern[str], ...]:
    """The patterns of the subject vocabularies the text uses ("where do I work now?": work's,
    in every language)."""
    found = _vocabularies(langs or all_on()).values()
    return tuple(p for patterns in found if _uses(patterns, text) for p in patterns)


def roots_used(text: str, langs: Languages | None = None) -> frozenset[str]:
    """The subject roots whose vocabulary the text uses ("where do I work?": job, employer,
    work_location; 职业: the same)."""
    langs = langs or all_on()
    used = vocabulary_names(text, langs)
    return frozenset(root for root, name in _roots(langs).items() if name in used)


def vocabulary_names(text: str, langs: Languages | None = None) -> frozenset[str]:
    """The names of the subject vocabularies the text uses."""
    found = _vocabularies(langs or all_on()).items()
    return frozenset(n for n, patterns in found if _uses(patterns, text))


def vocabulary_words(text: str, langs: Languages | None = None) -> dict[str, tuple[str, ...]]:
    """The words of each subject vocabulary the text uses (`_used`), by vocabulary name: only
    the vocabularies it uses."""
    vocabularies = _vocabularies(langs or all_on()).items()
    found = ((n, tuple(_used(patterns, text))) for n, patterns in vocabularies)
    return {n: words for n, words in found if words}


def asks_about(subject: str, used: AbstractSet[str], langs: Languages | None = None) -> bool:
    """Whether a request that uses these subject vocabularies (`vocabulary_names`) asks about
    this profile subject in the subject's vocabulary (the subject's root: "degree/master" ->
    "degree")."""
    name = _roots(langs or all_on()).get(subject.lower().split("/", 1)[0].strip())
    return name is not None and name in used


def _uses(patterns: Sequence[re.Pattern[str]], text: str) -> bool:
    """The text uses a word of the vocabulary (`_used`)."""
    return bool(_used(patterns, text))


def _used(patterns: Sequence[re.Pattern[str]], text: str) -> list[str]:
    """The words of the vocabulary the text uses: an English one as matched; a Chinese one unless
    a longer dictionary word around it says something else (保险公司 around 公司; not 大学毕业
    around 大学, whose rest is the vocabulary's too)."""
    spans = sorted(m.span() for p in patterns for m in p.finditer(text))
    ours = {i for a, b in spans for i in range(a, b)}
    return [
        text[a:b]
        for a, b in spans
        if text[a:b].isascii() or not inside_longer_word(text, a, b, ours)
    ]


def profile_kinds(
    used: Mapping[str, Sequence[str]],
    terms: Iterable[str],
    records: Iterable[MemoryRecord],
    langs: Languages | None = None,
) -> tuple[Kind, ...]:
    """A kind per profile subject the request asks about in the subject's vocabulary (`used`:
    the words of each vocabulary it uses, `vocabulary_words`), whose members are the values of
    the active profile memories of that subject (their entities: a Chinese value as written, an
    English one as all of its words) and whose terms are the request's terms that the
    vocabulary's words in it make ("working", "current role": work, current, role). None for a
    subject with no such memory among records (the pool's: the profile channel's,
    recall/channels.py)."""
    asked = set(terms)
    roots = _roots(langs or all_on())
    values: dict[str, list[str]] = {}
    for r in records:
        if r.type is not MemoryType.PROFILE or r.status is not Status.ACTIVE or not r.subject:
            continue
        root = r.subject.lower().split("/", 1)[0].strip()
        if root in roots and r.entities:
            values.setdefault(root, []).extend(r.entities)
    kinds = []
    for root, named in sorted(values.items()):
        words = {t for w in used.get(roots[root], ()) for t in search_tokens(w)} & asked
        members = frozenset(v for v in named if unspaced(v) and len(v) >= 2)
        words_of = (frozenset(search_tokens(v, drop_stopwords=True)) for v in named)
        phrases = tuple(dict.fromkeys(p for v, p in zip(named, words_of) if p and not unspaced(v)))
        if words and (members or phrases):
            kinds.append(Kind(f"my {root}", frozenset(words), members, (), phrases))
    return tuple(kinds)
