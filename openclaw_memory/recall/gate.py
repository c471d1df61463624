"""Relevance gating: may this pooled memory be injected for this request?

Absolute cosine says little about relatedness: multilingual-e5 scores unrelated Chinese pairs
0.82-0.85 and unrelated English statements 0.75-0.80, and chatty dialogue turns ("Thanks, Caroline!
This is a great time.", 哈哈，就是写代码调参数) score higher against any request than short
statements do. So a memory's cosine is read against the *level* an unrelated memory reaches for
this request, with this embedder, in this language and in this store's style, and it must stand
out from it:

- bank level (`background.py`): the request against a fixed bank of everyday statements in its
  own language (unrelated to any request by construction);
- store level: the request against the user's own store. Most of a user's memories have nothing
  to do with any one request, so the crowd of its vector candidates (those ranked in the last
  third of the channel's `candidates_per_channel`) is what an unrelated memory *of this user*
  scores. Known only when the store is large enough to fill the channel;
- the level is the higher of the two.

Then, for a request that refers to nothing of the user's (`reference.py`: chit-chat, general
knowledge, coding, translation):

- on meaning alone a memory passes when its cosine is at least `level + background_margin`;
- with keyword evidence, at `level + background_keyword_margin`: the memory holds at least half of
  the request's terms and at least two of them (one shared word, "blue", 谢谢, is a coincidence,
  not evidence).

For a request about the user's world, a memory written in the other language than the request
is read with its cosine raised by `recall.cross_language_offset`, and `unheld` reads it against
the level of its own language's bank: the embedder scores a translation below a paraphrase, so one bar
for every pair of languages would keep a Chinese question from an English fact it asks about
(我女儿多大了？ / "My daughter Lina is 7"). A fact about a person carries the relation in both
languages (`extract.people_rules`), which holds it as a keyword does within one language.

Keyword evidence is read as each language writes words: a Chinese term counts inside a memory's
text (Chinese has no spaces), a Latin one as a word of it or, for a stem of four letters or more,
as the start of one of its family (supervises / supervisor); "hi" is not in "think", "bee" not
in "been". A request that asks nothing (a thanks, a greeting, "Thanks, that was
helpful!", 谢谢，这个很有帮助！: `lang.utterance`), with no recent turn of the user
that says something, gets no retrieved memory at all:
nothing of the user's answers it, and a memory that opens with the same thanks to the assistant
("That's really helpful, thanks! I think I'll ...") resembles it in meaning *and* words.

A request that refers to the user's world ("where do I live?", "what did Caroline paint?",
外婆的寿宴) may be answered by a memory that only loosely resembles it: it is gated by the
embedder's absolute calibration (`recall.min_semantic`, 0.05 lower with keyword evidence), recall
first. A memory that names the attribute the request asks about counts as keyword evidence
(`lang.attributes`: "Do I have pets?" / "We adopted a cat", 我运动吗？/ 我开始去健身房了): the
two share no word, and the answer to such a question is a value, not its general word. The
profile whitelist's standing facts and instructions (`standing`: profile facts, what the user
asked to remember, reply language and format, prohibitions) and memories whose subject or date
the request names always pass; recent summaries pass when the request asks nothing (a session's
start) and when it asks about the conversations themselves ("what did we decide last time?",
我们上次聊了什么？: `analyse.recap`), and are gated like any memory otherwise (a summary on every
request is noise; it passes on evidence of its own, never on meaning alone: `digest`); a like
read from conversation ("I love hiking") is gated like any memory.

With the levels known, that absolute bar is only the floor (`Signals`): a memory with no
evidence of its own (no content word of the request, attribute, kind, entity, subject, date, or
newer version of a memory that has them; no key of what the request asks about or time ahead it
names, `recall/query.py`) must stand out of what an unrelated memory of its script scores for
this request, or be the store's best candidate by a clear gap. In a small store of an agent's
session (mostly requests for help) nearly every memory clears the absolute bar for any request.
A turn of a conversation between people around a memory with evidence, a turn of a conversation
most of whose pooled turns have evidence, and any memory for a request that names one of the
speakers, stay gated by the absolute bar: such conversations answer in the words of a dialogue
("九月八号，周日"), sharing none with the question.

That absolute bar lets through what a large store always holds near it: "What is Caroline's
blood type?", 我的护照号码是多少？ asked of a store that never spoke of them got five to seven
unrelated dialogue turns (`eval ... absent`). So a request about the user's world that nothing
pooled speaks of is *unheld* and gets no retrieved memory: no pooled memory holds a word of its
topic (its terms besides the speakers' names it writes, which say whose, not what, the words a
question frames it with, `question_frames`, and the nouns that say which property of the thing is
asked, `attribute_nouns`: "type" of "blood type"; a hyphenated word, "check-up", held whole; a
Chinese word that ends a longer one of the request, 公司 of 保险公司, its head, holds nothing alone),
names an attribute it names, a member of a kind it names or the vocabulary of a subject it asks
about ("where do I work?" / "I changed jobs": recall/reference.py), and none beats the level in
meaning by `recall.unheld_margin`.

Over 600 lines: one decision, whether a memory is relevant enough to inject, with its bars and
its evidence together.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..config import RecallConfig
from ..lang import Languages, all_on
from ..lang.attributes import names_any
from ..lang.entities import PERSON
from ..lang.utterance import is_contentless
from ..lang.utterance import is_instruction
from ..lang.text import search_tokens, unspaced
from ..config.tuning import tuned
from ..core.subjects import person_path
from ..types import Channel, MemoryRecord, MemoryType, ScoredMemory
from .analyse import Hyphenated, framing_words
from .analyse import ahead
from .analyse import states, subject_key
from .channels import ENTITY, channel_switch
from .pool import Pool
from .query import RecallQuery
from .reference import names_known
from .channels import speakers

#: the share of the vector channel's candidates, from the top, that is *not* the crowd
CROWD_FROM = 2 / 3
#: keyword evidence needs at least this many of the request's terms (or all, when it has fewer)
AGREEING_TERMS = 2
#: a Latin term this long is a stem that may begin a longer word of the same family; a shorter
#: one is a word of its own ("hi", "bee", "art")
STEM_LETTERS = 4
# What frames a request rather than says what it is about (`analyse.framing_words`, read under
# the request's switches): the words a question frames what it asks with (`question_frames`):
# when (next, last, now; 时候, 下次, 现在), how much or which one (多少, 哪家, 哪里); held by many
# memories, they say nothing of a request's topic (`unheld`: "when is my next dentist
# appointment?" is not held by "see you next week"); and the nouns that name which property of a
# thing is asked, not what it is about (`attribute_nouns`): blood *type*, shoe *size*, passport
# *number*, the *name* of the café, 护照*号码*, 鞋的*尺码*. Most memories that hold one speak of
# another thing's ("organized my coupons by type", 电话号码): read like the question frames, the
# thing is the topic. English ones as the request's terms are, stemmed (currently -> current).


@dataclass(frozen=True)
class Bars:
    """The cosine a memory needs: on meaning alone, and with keyword evidence."""

    alone: float
    with_keyword: float


def store_level(vector_cosines: list[float], channel_limit: int) -> float | None:
    """The crowd's mean cosine: the vector candidates past the first two thirds of the channel's
    limit; None when the store did not fill the channel (too few memories to have a crowd)."""
    if channel_limit < 3 or len(vector_cosines) < channel_limit:
        return None
    ranked = sorted(vector_cosines, reverse=True)[:channel_limit]
    return float(np.mean(ranked[int(channel_limit * CROWD_FROM) :]))


def level(pool: Pool) -> float | None:
    """What an unrelated memory scores for this request: the higher of the known levels."""
    known = [v for v in (pool.background, pool.store_level) if v is not None]
    return max(known) if known else None


def _across(r: MemoryRecord, pool: Pool) -> bool:
    """r is written in the other language than a request about the user's world (a request
    about nothing of theirs needs no memory across languages: it is gated as it is written)."""
    return (
        pool.personal
        and pool.request_unspaced is not None
        and unspaced(r.summary) != pool.request_unspaced
    )


#: how far under the absolute bar a memory with keyword evidence may score
_KEYWORD_BAR_DROP = tuned("gate.keyword_bar_drop")


def bars(pool: Pool, min_semantic: float, cfg: RecallConfig) -> Bars:
    """The bars for this request (see the module docstring)."""
    alone, with_keyword = min_semantic, min_semantic - _KEYWORD_BAR_DROP
    lv = level(pool)
    if lv is not None and cfg.background_margin is not None and not pool.personal:
        alone = max(alone, lv + cfg.background_margin)
        with_keyword = max(with_keyword, lv + cfg.background_keyword_margin)
    return Bars(alone, with_keyword)


def entity_names(pool: Pool, query: RecallQuery) -> set[str]:
    """Entities of the user's store that the request names outside its quoted text: the entity
    channel proposed their memories under "entity:NAME" (a pet's or a shop's name jieba tags as a
    name, 汤圆; one the write path filed, 喂芝麻, 开个米粉店: lang/entities.py; a place; an alias
    resolved). Names of the hop ("hop:NAME") are the candidates', not
    the request's; quoted text is material to work on (把“猫在沙发上睡觉”翻译成西班牙语); a word
    that alone says nothing (谢谢, which jieba tags as a name) is no name. Chinese names only:
    Chinese has no capitals, so a name that is an ordinary word (汤圆) needs the store to know it,
    while an English entity may be a capitalised word of a title ("Who wrote Pride and
    Prejudice?" for a user who went to a Pride parade); English names come from the memories'
    speakers, their `entities` (names given with naming words among them) and written-out names
    (`memory_names`)."""
    prefix = ENTITY + ":"
    named = {
        c[len(prefix) :]
        for chans in pool.channels.values()
        for c in chans
        if c.startswith(prefix) and len(c) > len(prefix) + 1
    }
    return {
        n
        for n in named
        if unspaced(n, query.analysis.langs)
        and not is_contentless(n, query.analysis.langs)
        and names_known(query.analysis.unquoted, [n])
    }


def term_hits(terms: Sequence[str], tokens: frozenset[str], text: str) -> int:
    """How many of the request's terms a memory holds, as its language writes words: a Chinese
    term inside the text; a Latin one as a word of it (`tokens`: the memory's stemmed search
    tokens), or, when it is a stem of `STEM_LETTERS` letters or more, as the start of one
    ("supervis" of "supervises" begins "supervisor"; "factori" of "factorial" does not begin
    "factor"). A shorter one is a word in its own right: "hi" is not in "his", "bee" not in
    "been"."""
    low = text.lower()
    return sum(1 for t in terms if t in tokens or _stem_hit(t, tokens, low))


def _stem_hit(term: str, tokens: frozenset[str], low: str) -> bool:
    if unspaced(term):
        return term in low
    if len(term) < STEM_LETTERS:
        return False
    return any(tok.startswith(term) for tok in tokens)


def agreeing(coverage: float, hits: int, terms: int) -> bool:
    """Keyword evidence for a request about nothing of the user's: at least half of its terms,
    and at least two of them when it has two or more."""
    return coverage >= 0.5 and hits >= min(AGREEING_TERMS, terms)


def attribute_agreeing(query: RecallQuery, pool: Pool) -> set[str]:
    """The pooled memories that name an attribute the request names (a value or its general
    word: "Do I exercise?" and "I go to the gym"), for a request about the user's world."""
    asked = query.analysis.attributes
    if not asked:
        return set()
    langs = query.analysis.langs
    return {rid for rid, r in pool.records.items() if names_any(r.text, asked, langs)}


#: the keyword component without the members of a kind the request names (recall/kinds.py),
#: present when it names one: no weight in the fused score, the keyword evidence read here
WORDS = "keyword_words"


def across_languages(r: MemoryRecord, pool: Pool, cfg: RecallConfig) -> float:
    """What a memory's cosine is raised by when it is written in the other language than the
    request (`recall.cross_language_offset`): a translation scores lower than a paraphrase."""
    return cfg.cross_language_offset if _across(r, pool) else 0.0


def relevant(
    s: ScoredMemory,
    pool: Pool,
    min_semantic: float,
    cfg: RecallConfig,
    sig: Signals | None = None,
) -> bool:
    """May this memory be injected for this request (kept or dropped as below relevance)?
    `sig`: the request's signals for relative gating (`signals`); None: a request about the
    user's world is gated by the absolute bars alone."""
    if "profile" in s.channels and standing(s.record, pool.langs):
        return True
    if pool.asks_nothing:
        # a session's start (or a thanks) gets the recent summaries; a request gets a summary
        # only when it is about what the summary holds, like any memory
        return s.record.id in pool.recent_summaries
    if pool.recap and s.record.id in pool.recent_summaries:
        return True  # "what did we decide last time?": the recent summaries answer it
    c = s.components
    if c["structure"] >= 1.0:
        return True
    if pool.unheld:
        return False
    cos = pool.cosine.get(s.record.id, 0.0) + across_languages(s.record, pool, cfg)
    b = bars(pool, min_semantic, cfg)
    if relative(pool, cfg, sig):
        assert sig is not None
        return _relative(s, pool, cos, b, cfg, sig)
    if cos >= b.alone and not (sig is not None and sig.digests and digest(s.record)):
        return True
    if not pool.personal and level(pool) is not None:
        # a request about nothing of the user's: keyword evidence must be real terms, half of
        # them or a strong keyword score of its own words
        return (
            s.record.id in pool.agreeing or _strong(s, pool, cfg, sig)
        ) and cos >= b.with_keyword
    # a member of a kind the request names is no word of it (recall/kinds.py): it ranks, it does
    # not count as keyword evidence here
    words = c.get(WORDS, c["keyword"])
    return (words >= 0.5 or s.record.id in pool.agreeing) and cos >= b.with_keyword


#: the channel prefix of a memory proposed for naming a member of a kind the request names
KIND = "kind:"


@dataclass(frozen=True)
class Signals:
    """What relative gating reads of a request about the user's world, once per request.

    With a small store, the absolute bar (`recall.min_semantic`) admits nearly every memory:
    the embedder scores a request against most of a user's memories within a few hundredths of
    it. So a memory is read against what else the store holds and against unrelated text:

    - with evidence of its own, the absolute bar with keyword evidence: it holds a content word
      of the request (`terms`: its topic terms, the words that frame a question aside), names an
      attribute it names (`pool.agreeing`), a member of a kind it names, an entity it names, its
      subject, type or date (the structure signal); or it states what the request asks about as
      the write side keys it (`asked`: 我的车是什么？ and a fact filed under the car; "My name
      is 王磊." for 我叫什么名字？), is the turn such a memory was distilled from, or names a time
      ahead the request names (next week, 下周);
    - on meaning alone, it beats the level of its own script by `recall.personal_margin`
      (`personal_margin_across` for a memory in the other language than the request): the higher
      of the request's background bank in that language and the crowd of the user's vector
      candidates in that script (`crowds`; a memory written in both scripts, a fact with its
      relation in both languages, is read with those that hold Chinese, in either language);
    - or it is the best vector candidate by `recall.personal_gap` over the second (`best`,
      `second`): it stands out of the store even where the levels are high.

    A fact filed under another person of the user's world (a daughter's allergy) answers a
    request that names that person (by relation in either language, or by name); for a request
    about the user ("what am I allergic to?") a word or attribute it shares is no evidence, and
    it passes on meaning alone or not at all; not even that when a memory of the user's own with
    evidence of its own holds the same attribute (`own`: the user's allergy answers the request,
    the daughter's does not; a request for help that no fact of the user's answers, "what should
    I cook tonight?", still gets her allergy on meaning). The turn her fact was distilled from
    ("My daughter Lina is allergic to mango.") gives way with it (`yielded`). The other way
    round, a request that names her ("what is my daughter allergic to?") and pools her allergy
    with evidence asks hers, and the user's own allergy, said in a turn, gives way (`theirs`);
    her facts answer it, so a memory about no person passes on evidence of its own, not on
    meaning alone ("I just adopted a kitten named Mochi, which food is best for it?").

    A question of frames alone ("what is my name?", "what is my pet's name?" aside: its pet is a
    term) is read by its frames until a pooled curated memory states what it asks as the write
    side keys it (`asked`: the profile's name); from then on the answer is held by its key, and a
    frame word in another memory ("a kitten named Mochi") is no evidence (`framed`)."""

    terms: tuple[str, ...]
    #: the request's search tokens, lower-cased text (whom it names)
    tokens: frozenset[str]
    text: str
    #: script (True: the text holds Chinese) -> the crowd's cosine among the vector candidates
    crowds: dict[bool, float]
    best: float
    second: float
    #: the request names a speaker of the pooled memories (`names_world`)
    named: bool = False
    #: the sessions of the pooled memories with evidence of their own (`anchors`)
    anchors: frozenset[str] = frozenset()
    #: the curated memories that those memories' turns were distilled into, since replaced: their
    #: newer versions say what the request asks about now (`anchors`)
    replaced: frozenset[str] = frozenset()
    #: what the request asks about as the write side keys it (recall/query.py): a memory that
    #: states one of these keys, or a turn a memory that states one was distilled from
    #: (`stated_turns`), has evidence of its own
    asked: frozenset[str] = frozenset()
    stated: frozenset[str] = frozenset()
    #: the sessions most of whose pooled turns have evidence of their own (`anchors`): their
    #: other turns are gated by the absolute bar
    topical: frozenset[str] = frozenset()
    #: the times ahead the request names ("next week", 下周): a memory that names one has
    #: evidence, in whichever language it is written
    ahead: frozenset[str] = frozenset()
    #: the attributes that pooled memories of the user's own with evidence of their own hold
    #: (their subjects as keys, `analyse.subject_key`): another person's value of one gives way
    own: frozenset[str] = frozenset()
    #: the attributes that pooled facts of a person the request names, with evidence of their
    #: own, hold: the user's own value of one gives way (`holders`)
    theirs: frozenset[str] = frozenset()
    #: the turns only the values that give way were distilled from: an episode of them says the
    #: same thing (`holders`)
    yielded: frozenset[str] = frozenset()
    #: the terms are the request's question frames alone (no other term was left)
    framed: bool = False
    #: a session's summary passes on evidence of its own only (`digest`; `channel.digest`)
    digests: bool = False
    #: the language packs the request was read with (`Analysis.langs`): a memory is read by them
    langs: Languages = field(default_factory=all_on, compare=False, repr=False)


#: a conversation is about the request when more than half of its pooled turns, and at least
#: this many, have evidence of their own (`anchors`)
TOPICAL_TURNS = 2
#: a script's crowd needs at least this many vector candidates of it (fewer: the bank's level)
CROWD_MIN = 3
#: the speakers of an agent's own session (capture: a turn's speaker when none is named)
AGENT_SPEAKERS = frozenset({"user", "assistant"})


def signals(pool: Pool, query: RecallQuery) -> Signals:
    """The request's signals for relative gating (see `Signals`)."""
    read = query.analysis
    named = topic_terms(query)
    # a request of frames alone ("what is my name?") is read by them, as `unheld` reads it
    framing = framing_words(read.langs)
    topical = tuple(t for t in named if t not in framing)
    terms = topical or tuple(named)
    by_script: dict[bool, list[float]] = {True: [], False: []}
    cosines = []
    for rid, chans in pool.channels.items():
        if "vector" in chans and rid in pool.cosine and rid in pool.records:
            cosines.append(pool.cosine[rid])
            by_script[unspaced(pool.records[rid].text, read.langs)].append(pool.cosine[rid])
    crowds = {k: _crowd(v) for k, v in by_script.items() if len(v) >= CROWD_MIN}
    ranked = sorted(cosines, reverse=True) + [0.0, 0.0]
    return Signals(
        terms,
        read.tokens,
        read.lower_request,
        crowds,
        ranked[0],
        ranked[1],
        names_world(pool, query),
        asked=read.asked,
        ahead=read.ahead,
        framed=bool(named) and not topical,
        digests=read.langs.switches.on(channel_switch("digest")),
        langs=read.langs,
    )


def names_world(pool: Pool, query: RecallQuery) -> bool:
    """The request names a speaker of the pooled memories ("what did Caroline paint?",
    林晓想给妈妈送什么？): a conversation between people, whose turns answer a question about one
    of them in the words of a dialogue, sharing none with it ("六十整，所以想送个像样点的")."""
    return bool(_names_used(pool, query))


def _crowd(cosines: list[float]) -> float:
    """The mean of the cosines past the first two thirds (as `store_level` reads the channel)."""
    ranked = sorted(cosines, reverse=True)
    return float(np.mean(ranked[int(len(ranked) * CROWD_FROM) :]))


def relative(pool: Pool, cfg: RecallConfig, sig: Signals | None) -> bool:
    """Whether this request is gated relatively: about the user's world, with its levels known
    and `recall.personal_margin` on."""
    return (
        sig is not None
        and not sig.named
        and pool.personal
        and cfg.personal_margin is not None
        and level(pool) is not None
    )


def _relative(
    s: ScoredMemory, pool: Pool, cos: float, b: Bars, cfg: RecallConfig, sig: Signals
) -> bool:
    r = s.record
    another = not names_person(r, sig)
    if gives_way(r, sig, another):
        return False
    if not another and evidence(s, pool, sig):
        return cos >= b.with_keyword
    if sig.digests and digest(r):
        return False  # a digest passes on its evidence, never on meaning alone
    if sig.theirs and PERSON not in r.tags:
        return False  # the person it names answers: on meaning alone, only their facts
    raw = pool.cosine.get(r.id, 0.0)
    if raw >= relative_bar(r, pool, b, cfg, sig):
        return True
    if not another and dialogue_turn(r) and session_of(r) in sig.anchors:
        # a turn of a conversation between people, around a memory with evidence: the answer in
        # the words of a dialogue ("九月八号，周日" after the shop's name), gated as before
        return cos >= b.alone
    if not another and r.type is MemoryType.EPISODE and session_of(r) in sig.topical:
        # a turn of a conversation most of whose pooled turns have evidence: the conversation is
        # about what the request asks, and this turn of it too ("Can you give me an overview of
        # the recent advancements ..." among turns asking for papers and conferences)
        return cos >= b.alone
    return (
        not another
        and raw >= sig.best
        and sig.best - sig.second >= cfg.personal_gap
        and cos >= b.alone
    )


def _strong(s: ScoredMemory, pool: Pool, cfg: RecallConfig, sig: Signals | None) -> bool:
    """A strong keyword match of content words: a keyword score of its own words of at least
    `recall.keyword_evidence`, on two of the request's content words at least (one shared word,
    芝麻 of 芝麻糊 and of a pet fed by that name, is a coincidence)."""
    c = s.components
    if cfg.keyword_evidence is None or sig is None:
        return False
    if c.get(WORDS, c["keyword"]) < cfg.keyword_evidence:
        return False
    r = s.record
    tokens = pool.tokens.get(r.id)
    if tokens is None:
        tokens = frozenset(search_tokens(r.text))
    return term_hits(sig.terms, tokens, r.text) >= AGREEING_TERMS


def names_person(r: MemoryRecord, sig: Signals) -> bool:
    """False for a fact filed under another person of the user's world that the request does
    not name (by a relation word of its detail, in either language, or by name); True for any
    other memory."""
    if PERSON not in r.tags:
        return True
    words = " ".join([r.detail or "", *r.entities])
    return any((t in sig.text) if unspaced(t) else (t in sig.tokens) for t in search_tokens(words))


def digest(r: MemoryRecord) -> bool:
    """A session's summary: several statements of a session in one text. Its meaning is a blend
    that resembles many requests ("Key decisions: adopted a puppy named Coco; Next steps: flying
    to Osaka next week" against "what is my name?", "three fun facts about owls"), and what it
    says is held by the turns it digests, each gated on its own: it passes on evidence of its own
    (a word, an attribute, a key the request asks about), never on meaning alone."""
    return r.type is MemoryType.SUMMARY


def held_attribute(r: MemoryRecord) -> str:
    """The key of the attribute a fact filed under a person of the user's world holds: its
    subject past the relation and the name ("daughter/lina/allergy/mango": allergy; "wife/job":
    job), "" for any other memory."""
    path = person_path(r)
    return path.attribute.split("/", 1)[0] if path else ""


def gives_way(r: MemoryRecord, sig: Signals, another: bool) -> bool:
    """Whether a memory holds the value of another holder than the one the request asks about:
    another person's value of an attribute the user's own memories answer (`Signals.own`;
    `another`: filed under a person the request does not name), the user's own value of an
    attribute the person the request names answers (`Signals.theirs`), or a turn only such
    values were distilled from (`Signals.yielded`)."""
    if another:
        return bool(sig.own) and held_attribute(r) in sig.own
    if PERSON not in r.tags and r.type in CURATED and r.subject:
        return subject_key(r.subject) in sig.theirs
    turns = r.source.turn_ids
    return r.type is MemoryType.EPISODE and bool(turns) and sig.yielded.issuperset(turns)


def holder_note(r: MemoryRecord, another: bool) -> str:
    """Why a memory that gives way was not injected (`search --explain`): a relevance decision,
    so it reads as one ("below relevance threshold", which evaluation ranks like any other)."""
    if another:
        why = f"another person's {held_attribute(r)}: the user's own answers the request"
    elif r.type is MemoryType.EPISODE:
        why = "said of another holder than the one the request asks about"
    else:
        why = "the user's own value: the request asks about the person it names"
    return f"below relevance threshold ({why})"


#: the memories that hold a value under a subject (a profile field, a fact of a person)
CURATED = (MemoryType.PROFILE, MemoryType.FACT)


def holders(
    scored: Sequence[ScoredMemory], pool: Pool, sig: Signals
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Whose values the request asks about (`Signals.own`, `theirs`, `yielded`). A request that
    names a person of the user's world, one of whose pooled facts has evidence of its own, asks
    that person's attributes (`theirs`); any other asks the user's own: the attributes of the
    user's pooled memories with evidence of their own (`own`). The other holder's values of
    those attributes give way, and so do the turns only they were distilled from."""
    mine: list[tuple[MemoryRecord, bool]] = []
    named: list[tuple[MemoryRecord, bool]] = []
    unnamed: list[MemoryRecord] = []
    for s in scored:
        r = s.record
        if r.type not in CURATED or not r.subject:
            continue
        if PERSON not in r.tags:
            mine.append((r, evidence(s, pool, sig)))
        elif names_person(r, sig):
            named.append((r, evidence(s, pool, sig)))
        else:
            unnamed.append(r)
    theirs = {a for r, has in named if has and (a := held_attribute(r))}
    if theirs:
        keep = {t for r, has in named if has for t in r.source.turn_ids}
        gone = {
            t for r, _ in mine if subject_key(r.subject or "") in theirs for t in r.source.turn_ids
        }
        return frozenset(), frozenset(theirs), frozenset(gone - keep)
    own = {subject_key(r.subject or "") for r, has in mine if has}
    keep = {t for r, has in mine if has for t in r.source.turn_ids}
    gone = {t for r in unnamed if held_attribute(r) in own for t in r.source.turn_ids}
    return frozenset(own), frozenset(), frozenset(gone - keep)


def evidence(s: ScoredMemory, pool: Pool, sig: Signals) -> bool:
    """The memory has evidence of its own for this request (see `Signals`)."""
    r = s.record
    if r.id in pool.agreeing or s.components["structure"] > 0:
        return True
    if r.prev_id is not None and r.prev_id in sig.replaced:
        return True  # the newer version of what a memory with evidence was distilled into
    if any(c.startswith((KIND, ENTITY + ":")) for c in s.channels):
        return True
    if states(r, sig.asked, sig.langs):
        return True
    if r.type is MemoryType.EPISODE and sig.stated.intersection(r.source.turn_ids):
        return True  # the turn itself, not a summary of the session it was said in
    if sig.ahead and sig.ahead & ahead(r.text, sig.langs):
        return True
    tokens = pool.tokens.get(r.id)
    if tokens is None:
        tokens = frozenset(search_tokens(r.text))
    return term_hits(sig.terms, tokens, r.text) > 0


def anchored(sig: Signals, scored: Sequence[ScoredMemory], pool: Pool) -> Signals:
    """`sig` with what the pooled memories say of the request filled in: the turns memories
    that state what it asks about were distilled from (`stated_turns`), then the sessions,
    replaced memories and conversations on its topic (`anchors`)."""
    sig = dataclasses.replace(sig, stated=stated_turns(scored, sig))
    switches = sig.langs.switches
    if sig.framed and switches.on(channel_switch("frames")) and held(scored, sig):
        sig = dataclasses.replace(sig, terms=())
    if switches.on(channel_switch("holder")):
        own, theirs, yielded = holders(scored, pool, sig)
        sig = dataclasses.replace(sig, own=own, theirs=theirs, yielded=yielded)
    sessions, replaced, topical = anchors(scored, pool, sig)
    return dataclasses.replace(sig, anchors=sessions, replaced=replaced, topical=topical)


def anchors(
    scored: Sequence[ScoredMemory], pool: Pool, sig: Signals
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The sessions of the pooled memories other than the standing profile that have evidence of
    their own for the request (see `Signals`), the replaced curated memories their turns
    were distilled into ("I drive a Passat" matches "what car do I drive?"; the fact it became
    was replaced by "sold the Passat, bought a BYD", which shares no word with the question),
    and the sessions most of whose pooled turns have evidence (`TOPICAL_TURNS` at least): a
    conversation about what the request asks."""
    sessions: set[str] = set()
    replaced: set[str] = set()
    turns: dict[str, list[bool]] = {}
    for s in scored:
        r = s.record
        if ("profile" in s.channels and standing(r, pool.langs)) or not names_person(r, sig):
            continue
        has = evidence(s, pool, sig)
        key = session_of(r)
        if r.type is MemoryType.EPISODE and key is not None:
            turns.setdefault(key, []).append(has)
        if not has:
            continue
        if key is not None:
            sessions.add(key)
        replaced.update(pool.retired[t] for t in r.source.turn_ids if t in pool.retired)
    topical = frozenset(
        k
        for k, marks in turns.items()
        if sum(marks) >= TOPICAL_TURNS and 2 * sum(marks) > len(marks)
    )
    return frozenset(sessions), frozenset(replaced), topical


def held(scored: Sequence[ScoredMemory], sig: Signals) -> bool:
    """A pooled curated memory states what the request asks as the write side keys it."""
    return bool(sig.asked) and any(
        s.record.type is not MemoryType.EPISODE and states(s.record, sig.asked, sig.langs)
        for s in scored
    )


def stated_turns(scored: Sequence[ScoredMemory], sig: Signals) -> frozenset[str]:
    """The turns that pooled curated memories stating what the request asks about (`asked`)
    were distilled from: such a turn says it in the user's own words ("我不当老师了，改做产品经理
    了" under the job a question about 职业 asks), often the words that hold the answer."""
    if not sig.asked:
        return frozenset()
    return frozenset(
        t
        for s in scored
        if s.record.type is not MemoryType.EPISODE and states(s.record, sig.asked, sig.langs)
        for t in s.record.source.turn_ids
    )


def session_of(r: MemoryRecord) -> str | None:
    return r.session_id or r.source.session_id


def dialogue_turn(r: MemoryRecord) -> bool:
    """A turn of a conversation between people: an episode whose speaker (its first tag) is a
    person's name, not the user or the assistant of an agent's session."""
    return r.type is MemoryType.EPISODE and bool(r.tags) and r.tags[0] not in AGENT_SPEAKERS


def relative_bar(r: MemoryRecord, pool: Pool, b: Bars, cfg: RecallConfig, sig: Signals) -> float:
    """The cosine a memory needs on meaning alone for a request about the user's world."""
    script = unspaced(r.text)
    crowd = sig.crowds.get(script)
    if script == pool.request_unspaced:
        levels: tuple[float | None, ...] = (pool.background, crowd)
        margin = cfg.personal_margin or 0.0
        if script and cfg.personal_margin_unspaced is not None:
            margin = cfg.personal_margin_unspaced
    else:
        levels = (crowd if crowd is not None else pool.background_across,)
        margin = cfg.personal_margin_across
    known = [v for v in levels if v is not None]
    if not known:
        return b.alone
    return max(b.alone, max(known) + margin)


def topic_terms(query: RecallQuery) -> list[str]:
    """The request's terms outside quoted text, function words aside (`analyse.function_words`)."""
    outside = query.analysis.topic_tokens
    return [t for t in query.terms if t in outside]


def unheld_margin(cfg: RecallConfig, query: RecallQuery) -> float | None:
    """The margin `unheld` reads for this request: `recall.unheld_margin`, or for a request
    written without spaces `recall.unheld_margin_unspaced` (when set); None (off) when
    `unheld_margin` is."""
    if cfg.unheld_margin is None:
        return None
    if cfg.unheld_margin_unspaced is not None and query.analysis.unspaced:
        return cfg.unheld_margin_unspaced
    return cfg.unheld_margin


def unheld(pool: Pool, query: RecallQuery, margin: float | None) -> bool:
    """Nothing pooled speaks of what this request about the user's world asks (module
    docstring). False when the level is unknown, the margin off, or no topic term is left. The
    cheap tests first: most requests are held by an attribute or by a memory's meaning."""
    lv = level(pool)
    if margin is None or lv is None or pool.agreeing:
        return False
    if max(pool.cosine.values(), default=0.0) >= lv + margin:
        return False
    if pool.background_across is not None and any(
        _across(r, pool) and pool.cosine.get(rid, 0.0) >= pool.background_across + margin
        for rid, r in pool.records.items()
    ):
        return False  # a memory in the other language stands out of that language's level
    names = _names_used(pool, query)
    # a Chinese name's words are the name's (李明轩 cut as 李明 轩)
    named = [
        t
        for t in topic_terms(query)
        if t not in names
        and not any(n in t or t in n for n in names if unspaced(n, query.analysis.langs))
    ]
    # a request of frames alone (我今年退了多少税？ keeps only 多少: 税 is one character, "what is
    # my name?") is read by them
    framing = framing_words(query.analysis.langs)
    topic = [t for t in named if t not in framing] or named
    if not topic:
        return False
    # a Chinese word that ends a longer one of the request is its head, the longer one a kind of
    # it: 公司 of 保险公司 (an insurer), held by any company
    topic = [t for t in topic if not _ends_longer(t, topic)] or topic
    whole, topic = hyphenated(query.analysis.hyphenated, topic)
    asked = query.analysis.vocabularies
    for rid, r in pool.records.items():
        if any(c.startswith(KIND) for c in pool.channels.get(rid, ())):
            return False
        tokens = pool.tokens.get(rid)
        if tokens is None:
            tokens = frozenset(search_tokens(r.text))
        if (
            term_hits(topic, tokens, r.text)
            or any(p.search(r.text) for p in whole)
            or any(p.search(r.text) for p in asked)
        ):
            return False
    return True


def _ends_longer(term: str, terms: Sequence[str]) -> bool:
    return unspaced(term) and any(t != term and t.endswith(term) for t in terms)


def hyphenated(
    found: Sequence[Hyphenated], topic: list[str]
) -> tuple[list[re.Pattern[str]], list[str]]:
    """The request's hyphenated words (`found`: `analyse.hyphenated_words`) among its topic
    ("check-up", "Wi-Fi") as patterns that find each whole in a memory, with a hyphen, a space
    or neither between its parts ("checkup", "wifi"), and the topic's other terms. A memory that
    holds one part holds another word: "check" of "check the oven" says nothing of a check-up,
    "fi" of "sci-fi" nothing of the Wi-Fi."""
    whole: list[re.Pattern[str]] = []
    parts: set[str] = set()
    for word in found:
        if not word.tokens & set(topic):
            continue
        parts |= word.tokens
        whole.append(word.whole)
    return whole, [t for t in topic if t not in parts]


def _names_used(pool: Pool, query: RecallQuery) -> set[str]:
    """The names of the pooled memories' speakers that the request writes, and their search
    tokens: "Caroline's blood type" is about Caroline, 林晓的血型 about 林晓; what it asks is the
    rest. (A place or a thing a memory names stays a word of the topic: "what did I buy in
    Sweden?" is held by a memory about Sweden.)"""
    text, low = query.analysis.request, query.analysis.lower_request
    candidates = {
        n
        for r in pool.records.values()
        for n in speakers(r)
        if 2 <= len(n) <= 40 and n.lower() in low
    }
    out: set[str] = set()
    for name in candidates:
        if names_known(text, [name]):
            out.add(name.lower())
            out.update(search_tokens(name))
    return out


def unheld_note(pool: Pool, margin: float | None) -> str:
    """The drop reason of an unheld request's memories (`search --explain`)."""
    lv = level(pool) or 0.0
    best = max(pool.cosine.values(), default=0.0)
    return (
        f"below relevance threshold (nothing stored speaks of the request: no word of its topic "
        f"held, best cosine {best:.2f} < {lv + (margin or 0.0):.2f}{level_note(pool)})"
    )


def standing(r: MemoryRecord, langs: Languages | None = None) -> bool:
    """The profile whitelist every request gets (docs/design.md seed 001 §5.1): profile facts
    (name, home, job, allergies, age), what the user asked to be remembered, and standing
    instructions (reply language and format, prohibitions; read by the packs `langs`). A
    preference read from conversation ("likes hiking", 喜欢爬山) is the user's too, but it is
    injected where it is relevant."""
    return (
        r.type is MemoryType.PROFILE
        or r.source.channel is Channel.EXPLICIT
        or is_instruction(r.subject, r.summary, langs)
    )


def level_note(pool: Pool) -> str:
    """The levels behind a bar, for the drop reason (`search --explain`)."""
    parts = []
    if pool.background is not None:
        parts.append(f"background {pool.background:.2f}")
    if pool.store_level is not None:
        parts.append(f"store {pool.store_level:.2f}")
    return f" ({', '.join(parts)})" if parts else ""
