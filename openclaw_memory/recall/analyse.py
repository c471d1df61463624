"""The request analysed once, and what it asks as keys.

A request is read as two texts: the whole one recall searches (the current input and the recent
user turns it carries: `RecallQuery.text`) and the request itself (the current input as recall
reads it, or the whole text when it has none: `Analysis.request`). Every channel, the ranker,
relevance gating, the head and the injection plan read what they need of either from one frozen
`Analysis`, built with the query (recall/query.py): none reads the request's text again. What
depends on more than the request (the pooled memories, the store's entities) is read where it is
read, from these fields.

What a request asks about and what a memory states are also read as keys that do not depend on
wording or language: a question and the memory that answers it may share no word ("我的车是什么？"
and "现在我开的是特斯拉"; "我叫什么名字？" and "My name is 王磊."), but they share what the write
side files the answer under: an attribute of the speaker's own that a clause names (`possessed`
of the `recall` table), keyed as the write side keys the slot of "my X is Y" and by the profile
subject whose vocabulary names it; a time ahead ("next week", 下周) is a key of its own.
"""

from __future__ import annotations

import functools
import re
from ..lang import Languages, all_on, detect
from ..lang.attributes import subject_of_role, mentions
from ..types import MemoryRecord
from .reference import (
    roots_used,
    TABLE as REFERENCE,
    about_user,
    unquoted,
    vocabularies,
    vocabulary_names,
    vocabulary_words,
)
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from ..lang.utterance import is_contentless
from ..lang.entities import extract, normalise
from ..lang.text import STOPWORDS, search_tokens, unspaced

# What a request asks about and what a memory states, as keys that do not depend on wording or
# language.
#
# A question and the memory that answers it may share no word ("我的车是什么？" and "现在我开的是特斯拉";
# "我叫什么名字？" and "My name is 王磊."), but they share what the write side files the answer under:
# an attribute of the speaker's own that a clause names (`possessed` of the `recall` table), keyed
# as the write side keys the slot of "my X is Y" and by the profile subject whose vocabulary names
# it; a time ahead ("next week", 下周) is a key of its own.

# What a request asks about and what a memory states, as keys that do not depend on wording or
# language.
#
# A question and the memory that answers it may share no word: "我的车是什么？" and "现在我开的是
# 特斯拉" (the car), 我的职业是什么 and 我不当老师了，改做产品经理了 (the job), "我叫什么名字？" and
# "My name is 王磊." (the name, across languages). They share what the write side files the
# answer under. So both are read as keys:
#
# - an attribute of the speaker's own that a clause names (`possessed` of the language pack's
#   `recall` table: "my car", 我的车, "what is my name?"), keyed as the write side keys the slot
#   of "my X is Y" (its change grammar's role table: 车 and "car" are the car) and by the profile
#   subject whose vocabulary names it (each language's `vocabulary` table: 职业 is the job, "name" the name);
# - a request that names no such attribute asks about the subjects whose vocabulary it uses
#   (我叫什么名字 asks the name); one that names one asks about that attribute ("我的宠物叫什么
#   名字" asks the pet's name, not the user's);
# - a memory states its own subject (`job`, `car`, `fact/name`: the part before any "/", "fact/"
#   aside) and any attribute of the speaker's own it names.
#
# A time ahead (`reads: ahead` entries of the same table: "next week", 下周, 明天) is a key of its
# own: a question about a plan ("我下周去哪里出差？") and the memory of it ("I'm flying to Madrid
# next week for work") name the same time in whatever language each is written in.

#: the language pack table both keys are read from
RECALL_TABLE = "recall"
#: a subject filed under no attribute of its own ("fact/<head>"): the head is the key
_FACT = "fact/"


def possessed(text: str, langs: Languages | None = None) -> list[str]:
    """The attributes of the speaker's own the text names (group k of each pack's `possessed`),
    lower-cased, in order (`langs`: the packs read, every rule on by default)."""
    out: list[str] = []
    for pack in (langs or all_on()).all():
        pattern = pack.table(RECALL_TABLE).entry("possessed").pattern
        out.extend(m.group("k").lower() for m in pattern.finditer(text))
    return out


def attribute_keys(word: str, langs: Languages | None = None) -> frozenset[str]:
    """The keys of an attribute word: the slot key the write side gives "my <word> is ..."
    (its language's role table, else the word's head: `lang/attributes.py`) and the profile
    subjects whose vocabulary holds it."""
    return _attribute_keys(word, langs or all_on())


@functools.lru_cache(maxsize=4096)
def _attribute_keys(word: str, langs: Languages) -> frozenset[str]:
    return frozenset({subject_key(subject_of_role(word, langs)), *roots_used(word, langs)})


def subject_key(subject: str) -> str:
    """A memory subject as a key: lower-cased, "fact/" aside, the part before any "/"."""
    s = subject.strip().lower()
    return s.removeprefix(_FACT).split("/", 1)[0].strip()


def asked(text: str, langs: Languages | None = None) -> frozenset[str]:
    """The keys a request asks about (module docstring)."""
    words = possessed(text, langs)
    if words:
        return frozenset(k for w in words for k in attribute_keys(w, langs))
    return roots_used(text, langs)


def states(r: MemoryRecord, keys: frozenset[str], langs: Languages | None = None) -> bool:
    """Whether the memory states one of these keys: its subject, or an attribute of the
    speaker's own that its text names."""
    if not keys:
        return False
    if r.subject and subject_key(r.subject) in keys:
        return True
    return any(attribute_keys(w, langs) & keys for w in possessed(r.text, langs))


def ahead(text: str, langs: Languages | None = None) -> frozenset[str]:
    """The times ahead the text names ("next week", 下周: next_week), by entry name."""
    found = set()
    for pack in (langs or all_on()).all():
        for name, entry in pack.table(RECALL_TABLE).items():
            if entry.setting("reads") == "ahead" and entry.pattern.search(text):
                found.add(name)
    return frozenset(found)


def recap(text: str, langs: Languages | None = None) -> bool:
    """Whether the text asks about the conversations themselves ("what did we decide last
    time?", 我们上次聊了什么？: the `reads: recap` entries of each pack's `recall` table)."""
    for pack in (langs or all_on()).all():
        for entry in pack.table(RECALL_TABLE).values():
            if entry.setting("reads") == "recap" and entry.pattern.search(text):
                return True
    return False


# The request analysed once: what recall and relevance gating read of its text.
#
# A request is read as two texts: the whole one recall searches (the current input and the recent
# user turns it carries: `RecallQuery.text`) and the request itself (the current input as recall
# reads it, or the whole text when it has none: `Analysis.request`). Every channel, the ranker,
# relevance gating, the head and the injection plan read what they need of either from one frozen
# `Analysis`, built with the query (recall/query.py): none reads the request's text again. What
# depends on more than the request (the pooled memories, the store's entities) is read where it is
# read, from these fields.

#: the language pack table of the words relevance gating reads as no evidence (`gate.yaml`)
GATE = "gate"


def gate_words(entry: str, langs: Languages | None = None) -> frozenset[str]:
    """The words of `entry` of every language's gate table (a request may mix languages), the
    packs switched off left out (`langs`: every rule on by default); read once per packs."""
    return _gate_words(entry, langs or all_on())


@functools.lru_cache(maxsize=32)
def _gate_words(entry: str, langs: Languages) -> frozenset[str]:
    return frozenset(w for p in langs.all() for w in p.table(GATE).entry(entry).wordset)


def function_words(langs: Languages | None = None) -> frozenset[str]:
    """Prepositions and conjunctions the stop words leave in: they frame a request ("the
    difference between X and Y", X和Y之间的区别), they are no evidence of what it is about."""
    return gate_words("function_words", langs)


def framing_words(langs: Languages | None = None) -> frozenset[str]:
    """The words that frame a question ("what", 什么: `question_frames`) and the nouns that say
    which property of a thing is asked ("type" of "blood type": `attribute_nouns`): a request's
    terms among them are no evidence of what it asks about (recall/gate.py)."""
    return _framing(langs or all_on())


@functools.lru_cache(maxsize=8)
def _framing(langs: Languages) -> frozenset[str]:
    return gate_words("question_frames", langs) | gate_words("attribute_nouns", langs)


@dataclass(frozen=True)
class Hyphenated:
    """A hyphenated word of the request ("check-up", "Wi-Fi"): a pattern that finds it whole in
    a memory (with a hyphen, a space or neither between its parts) and its search tokens."""

    whole: re.Pattern[str]
    tokens: frozenset[str]


@dataclass(frozen=True)
class Analysis:
    """What recall reads of a request's text (module docstring), read once."""

    # the whole text (`RecallQuery.text`)
    #: lower-cased (subjects it names: `channels.subject_matches`)
    lower: str = ""
    #: the code of the language it is written in (`lang.detect`: the fitted fusion's weights)
    code: str = ""
    #: written without spaces between words (`lang.text.unspaced`: the weights, the margins)
    unspaced: bool = False
    #: the keys it may name an entity of the store by (`request_keys`)
    entity_keys: frozenset[str] = frozenset()
    #: the subject vocabularies its lower-cased text uses (`reference.asks_about`)
    lower_vocabularies: frozenset[str] = frozenset()

    # the request itself
    #: the current input, or the whole text when it has none
    request: str = ""
    lower_request: str = ""
    #: the request written without spaces between words (the memories across languages)
    request_unspaced: bool = False
    #: its search tokens
    tokens: frozenset[str] = frozenset()
    #: without its quoted text (material to work on, not what it is about)
    unquoted: str = ""
    #: its search tokens outside quoted text, function words aside: its terms among these are
    #: its topic (`gate.topic_terms`)
    topic_tokens: frozenset[str] = frozenset()
    #: it asks nothing (a thanks, a greeting) and the recent turns it carries say nothing either
    asks_nothing: bool = False
    #: it refers to the user's world by its own words: the user speaks of themselves, names
    #: their people by relation or points at something both sides know (`reference`)
    personal: bool = False
    #: the attributes it names (`lang.attributes`: "Do I exercise?")
    attributes: tuple[str, ...] = ()
    #: the patterns of the subject vocabularies it uses ("where do I work?": work's)
    vocabularies: tuple[re.Pattern[str], ...] = ()
    #: vocabulary name -> the words of it the request uses (`reference.profile_kinds`)
    vocabulary_words: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: its hyphenated words, quoted text aside
    hyphenated: tuple[Hyphenated, ...] = ()
    #: what it asks about as the write side keys it, quoted text aside (recall/analyse.py)
    asked: frozenset[str] = frozenset()
    #: the times ahead it names, quoted text aside (recall/analyse.py)
    ahead: frozenset[str] = frozenset()
    #: it asks about the conversations themselves, quoted text aside: the recent summaries
    #: answer it (`recap`)
    recap: bool = False
    #: the content terms of each of its questions, when it asks two or more
    #: (`RecallQuery.questions`: recall/head.py deals the head among them)
    question_terms: tuple[tuple[str, ...], ...] = ()
    #: the language packs it was read with (`rules.disabled`): what reads it later (the gate's
    #: frame words, a memory's times ahead) reads them too
    langs: Languages = field(default_factory=all_on, compare=False, repr=False)

    @property
    def words_used(self) -> Mapping[str, tuple[str, ...]]:
        """`vocabulary_words` as a mapping."""
        return dict(self.vocabulary_words)


def analyse(
    text: str,
    current: str = "",
    questions: Sequence[str] = (),
    langs: Languages | None = None,
) -> Analysis:
    """The analysis of a request whose whole text is `text`, whose current input, as recall
    reads it, is `current` and whose questions, when it asks two or more, are `questions`
    (`langs`: the language packs under the config's switches, every rule on by default)."""
    langs = langs or all_on()
    request = current or text
    bare = unquoted(request, langs)
    lower = text.lower()
    return Analysis(
        lower=lower,
        code=detect(text),
        unspaced=unspaced(text, langs),
        entity_keys=request_keys(text, langs),
        lower_vocabularies=vocabulary_names(lower, langs),
        request=request,
        lower_request=request.lower(),
        request_unspaced=unspaced(request, langs),
        tokens=frozenset(search_tokens(request)),
        unquoted=bare,
        topic_tokens=frozenset(search_tokens(bare)) - function_words(langs),
        asks_nothing=is_contentless(bare, langs) and is_contentless(text, langs),
        personal=about_user(request, langs),
        attributes=tuple(mentions(request, langs)),
        vocabularies=vocabularies(request, langs),
        vocabulary_words=tuple(vocabulary_words(request, langs).items()),
        hyphenated=hyphenated_words(bare, langs),
        asked=asked(bare, langs),
        ahead=ahead(bare, langs),
        recap=recap(bare, langs),
        question_terms=tuple(content_terms(q) for q in questions),
        langs=langs,
    )


def content_terms(text: str) -> tuple[str, ...]:
    """The content terms of text: its search tokens without stopwords, single Latin letters and
    single characters of a language written without spaces."""
    return tuple(
        dict.fromkeys(
            t
            for t in search_tokens(text, drop_stopwords=True)  # before stemming: does -> doe
            if t not in STOPWORDS and len(t) > 1 or _unspaced_word(t)
        )
    )


def _unspaced_word(tok: str) -> bool:
    """A word of two characters or more outside ASCII (a Chinese word, a Japanese one)."""
    return len(tok) >= 2 and not tok.isascii() and tok not in STOPWORDS


def hyphenated_words(text: str, langs: Languages | None = None) -> tuple[Hyphenated, ...]:
    """The hyphenated words of text, in order (each language's `hyphenated` words, found whole
    by `hyphenated_in`)."""
    found = []
    for pack in (langs or all_on()).all():
        table = pack.table(GATE)
        for m in table.entry("hyphenated").pattern.finditer(text):
            words = m.group(0).split("-")
            joined = r"[\s-]?".join(re.escape(w) for w in words)
            whole = table.entry("hyphenated_in").fresh(joined=joined)
            found.append(Hyphenated(whole, frozenset(search_tokens(m.group(0)))))
    return tuple(found)


def request_keys(text: str, langs: Languages | None = None) -> frozenset[str]:
    """Keys a request may name an entity by: its extracted entities, and every run of one to
    three words (lower case or not: "what did caroline do") and its Chinese words."""
    # Chinese: jieba's words below hold the names; tagging them too would double the cost
    langs = langs or all_on()
    keys = {e.key for e in extract(text, langs=langs)} if text.isascii() else set()
    runs = langs.any_of(REFERENCE, "written_word").findall(text)
    words = [w for w in runs if w.isascii()]
    for n in (1, 2, 3):
        keys.update(normalise(" ".join(words[i : i + n])) for i in range(len(words) - n + 1))
    # words of a language jieba segments (Chinese; a Japanese quotation in it aside)
    if any(not w.isascii() and langs.of(w).tokenizer_name == "jieba" for w in runs):
        from ..lang.text import _jieba

        jieba = _jieba()
        for w in jieba.lcut_for_search(text):
            if len(w) >= 2:
                keys.add(normalise(w))
            if len(w) >= 3 and not jieba.dt.FREQ.get(w):
                # a word jieba only guessed may be a name it does not know, glued to the
                # character next to it: 王伟来 of 王伟来的时候, 刘婷学 of 刘婷学车
                keys.update((normalise(w[:-1]), normalise(w[1:])))
    return frozenset(k for k in keys if k)
