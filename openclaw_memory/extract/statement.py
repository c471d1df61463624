"""Who and what a statement is about (the write path's view of a change).

The words a change and an old memory share, and when the two values share no word, the attribute
a claim is about.
"""

from __future__ import annotations

import functools
import re
from ..lang import Languages, LanguagePack, all_on
from ..lang.pack import Entry
from ..lang.text import STOPWORDS, search_tokens, negated
from ..lang.attributes import TABLE as ATTRIBUTE_TABLE, mentions

# Who and what a statement is about (issue 16, write path): the words a change and an old memory
# must share, whose thing a statement speaks of, whether it is one statement or several, and
# whether it only judges its thing or asks something of the assistant.
#
# `about(text)` gives the words a statement is about (its content words without the change words),
# `owner(text)` the noun after "my" / 我的 (my *son*'s school, 我*儿子*): two statements of
# different owners are about different attributes even when they share a word ("name").
# Whether a statement says that something changed is `change_grammar.py`.

_TABLE = "statement"

# Every function reads the statement table through `langs`, the language packs under the config's
# switches (`rules.disabled`), every rule on when not given.


def question(langs: Languages | None = None) -> re.Pattern[str]:
    """A statement that asks, in any language."""
    return (langs or all_on()).any_of(_TABLE, "question")


def _entry(text: str, name: str, langs: Languages | None = None) -> Entry:
    """The entry `name` of the statement table of text's language."""
    return (langs or all_on()).of(text).table(_TABLE).entry(name)


def said(text: str, langs: Languages | None = None) -> str:
    """The words of a logged turn without its "speaker:" prefix ("林晓: ...": each language's
    colon, `speaker_label`)."""
    return (langs or all_on()).any_of(_TABLE, "speaker_label").sub("", text.strip(), count=1)


def _words(name: str, langs: Languages | None = None) -> frozenset[str]:
    """A word list of every pack's statement table: as search tokens where the entry says
    `as_tokens` (English words are stemmed like the text they are matched against)."""
    return _word_list(name, langs or all_on())


@functools.lru_cache(maxsize=32)
def _word_list(name: str, langs: Languages) -> frozenset[str]:
    out: set[str] = set()
    for p in langs.all():
        entry = p.table(_TABLE).entry(name)
        out |= set(
            search_tokens(" ".join(entry.words)) if entry.setting("as_tokens") else entry.words
        )
    return frozenset(out)


def judges_only(text: str, langs: Languages | None = None) -> bool:
    """Whether every clause of the statement only judges its thing ("My new job is really good
    now, the team is great.", 新公寓现在挺不错的): it names no value that could replace an old
    one, so meaning alone links it to nothing it would retire."""
    body = said(text, langs)
    clauses = [c.strip() for c in re.split(r"[,.;!，。；！]+", body) if c.strip()]
    if not clauses:
        return False
    pattern = _entry(body, "judgement", langs).pattern
    return all(pattern.match(c) for c in clauses)


def about(text: str, names: tuple[str, ...] = (), langs: Languages | None = None) -> frozenset[str]:
    """The content words a statement is about: search tokens without stopwords, change words and
    the speakers' names (a Chinese verb keeps its object: 改喝 -> 喝, 不运动 -> 运动)."""
    langs = langs or all_on()
    out = set()
    text = said(text, langs)
    for name in names:
        text = text.replace(name, " ")
    left_out = _words("change_words", langs) | _words("stance_words", langs) | STOPWORDS
    measure = langs.any_of(_TABLE, "measure")
    for t in search_tokens(text, drop_stopwords=True):
        t = _entry(t, "verb_prefix", langs).pattern.sub("", t, count=1)
        if (
            t not in left_out
            and not measure.match(t)
            and len(t) >= _entry(t, "word_length", langs).setting("min_chars", 2)
            and not t.isdigit()
        ):
            out.add(t)
    return frozenset(out)


def share(a: frozenset[str], b: frozenset[str], langs: Languages | None = None) -> bool:
    """Two statements share a content word of two or more characters, also when one holds the
    other (周会 in 开周会: the segmenter cuts the same word differently in context)."""
    if any(
        len(t) > 1 for t in a & b
    ):  # one Chinese character (好, 了) is too common to name a thing
        return True
    long_a, long_b = _nested(a, langs), _nested(b, langs)
    return any(x in y or y in x for x in long_a for y in long_b)


def _nested(words: frozenset[str], langs: Languages | None = None) -> list[str]:
    """The words whose language's segmenter cuts one word differently in context, long enough
    to be found inside another (the statement table's `nested_words`)."""
    out = []
    for t in words:
        entry = _entry(t, "nested_words", langs)
        if entry.on and len(t) >= entry.setting("min_chars", 1):
            out.append(t)
    return out


#: a claim in the third person names the owner the same way ("The user's sister", 用户的姐姐)


def _owner(p: LanguagePack) -> re.Pattern[str]:
    table = p.table(_TABLE)
    return table.entry("owner").regex(others=table.entry("others").source or "(?!)")


def someone_else(who: str, langs: Languages | None = None) -> bool:
    """An owner that is a person or a pet (my sister, 我女儿), not a thing (my car, 我的手机)."""
    others = (p.table(_TABLE).entry("others").pattern for p in (langs or all_on()).all())
    return bool(who) and any(o.fullmatch(who) for o in others)


def owner(text: str, langs: Languages | None = None) -> str:
    """The noun after "my" (my son's school: "son"; 我儿子: 儿子), "" when none."""
    text = said(text, langs)
    m = _owner((langs or all_on()).of(text)).search(text)
    return next((g.lower() for g in m.groups() if g), "") if m else ""


def about_self(text: str, langs: Languages | None = None) -> bool:
    """A statement whose subject is the speaker ("I moved ...", "My car is ...", 我周六上钢琴课),
    not a question: what a change can retire, and what can state a new value of an attribute.
    Chat lines that only mention the speaker ("姐，我打算买车了", "哈哈，记得给我...") are not."""
    text = said(text, langs)
    if not text or question(langs).search(text):
        return False
    return bool(_entry(text, "self_start", langs).pattern.match(text))


def about_a_thing(text: str, langs: Languages | None = None) -> bool:
    """A statement about the speaker, or about a thing of theirs that names no person at all
    (钢琴课换到周日了, "The weekly meeting got moved to Wednesday"): a change may be said either way."""
    langs = langs or all_on()
    text = said(text, langs)
    if about_self(text, langs):
        return True
    if (
        not text
        or question(langs).search(text)
        or langs.any_of(_TABLE, "second_person").search(text)
        or langs.any_of(_TABLE, "request").match(text)
    ):
        return False
    if langs.any_of(_TABLE, "ended_then_self").match(text):
        return True  # 闪电去世了，我们又养了一只兔子: a thing of theirs ended, then the speaker
    return not _entry(text, "self", langs).pattern.search(text)


def _sentences(text: str, langs: Languages | None = None) -> list[str]:
    return [s for s in (langs or all_on()).any_of(_TABLE, "sentence_end").split(text) if s.strip()]


def single_statement(text: str, langs: Languages | None = None) -> bool:
    """A short utterance that states one thing: a change can retire it as a whole. A long turn
    that says several things stays (retiring it would take the other things with it)."""
    text = said(text, langs)
    most = _entry(text, "one_statement", langs)
    if most.setting("max_chars") is not None:
        short = len("".join(text.split())) <= most.setting("max_chars")
    else:
        short = len(text.split()) <= most.setting("max_words", 24)
    return len(_sentences(text, langs)) <= 2 and short


def one_sentence(text: str, langs: Languages | None = None) -> bool:
    """A single statement of one sentence: the only kind whose meaning alone (its clear semantic
    neighbour, no shared word, no attribute) may say which memory it changed ("I'm now living
    in Seattle"); a second sentence says something more ("Lately I've been stumped. Don't feel
    like I'm making an impact"), and the neighbour of the whole is no evidence of either."""
    return single_statement(text, langs) and len(_sentences(said(text, langs), langs)) == 1


# What a claim is about when the two values of a change share no word (issue 16, write path).
#
# "I don't exercise at all" and "I started going to the gym" share no word, nor do 没有养宠物 and
# 领养了一只猫, "I'm single" and "I got married", 坐班 and 居家办公. Each pair names one attribute
# (exercise, pets, marital status, work arrangement; "Where do I take classes?" and "I enrolled at
# State University" name schooling): each language's `attribute` table (`lang/<code>/`, read by
# `lang/attributes.py`) holds the words of such attributes, and this module says when two statements about one of them
# contradict each other:
#
# - an *exclusive* attribute (marital status, work arrangement, diet) holds one value at a time: a
#   change that names another value contradicts the old one (single -> married, 坐班 -> 居家办公);
# - an attribute whose values add up (pets, exercise, drinks, jobs, commuting) changes only when the
#   old statement negates the whole attribute by its general word and the new one states a value
#   ("no pets" -> "adopted a cat", 不运动 -> 去健身房), or when the new one says it *switched*,
#   to another value (改喝拿铁 after 平时喝美式) or of the general word (换工作了 after 在华为做测试);
#   "I have a dog" then "we adopted a cat" adds a pet;
# - without any lexicon, one predicate negated in one statement and stated in the other contradicts
#   (不吃辣 -> 现在能吃辣了, "I don't eat beef" -> "I eat beef now").
#
# `contradicts(old, new, switch=...)` is what consolidation asks; it never decides alone: the caller
# has already seen that `new` states a change of the same speaker and owner.


def contradicts(
    old: str,
    new: str,
    *,
    switch: bool = False,
    nots_only: bool = False,
    langs: Languages | None = None,
) -> bool:
    """Whether `new`, a change, states another value of an attribute `old` states (see the module
    docstring). `switch`: `new` says it switched (改喝, "switched to"), not only "now";
    `nots_only`: `new` is no change, only the end of a "not" counts (a predicate or a whole
    attribute negated in `old`)."""
    if flips(old, new, langs):
        return True
    was, now = mentions(old, langs), mentions(new, langs)
    for name in was.keys() & now.keys():
        a, m_old, m_new = was[name].attribute, was[name], now[name]
        if (
            negated(old, langs)
            and not negated(new, langs)
            and m_old.general
            and (m_new.values or m_new.general)
        ):
            return True  # "no pets" -> "adopted a cat", 不运动 -> 健身房
        if nots_only:
            continue
        differ = bool(m_old.values and m_new.values and m_new.values - m_old.values)
        if differ and not negated(new, langs) and (a.exclusive or switch):
            return True  # single -> married; 美式 -> 改喝拿铁
        if switch and m_new.general and m_old.values and not negated(old, langs):
            return True  # "I changed jobs" / 换工作了 after "I work at Acme" / 在华为做测试
    return False


def flips(old: str, new: str, langs: Languages | None = None) -> bool:
    """One predicate negated in one statement and stated without negation in the other
    (我不吃辣 / 我现在能吃辣了, "I don't eat beef" / "I eat beef now")."""
    if negated(old, langs) == negated(new, langs):
        return False
    neg, pos = (old, new) if negated(old, langs) else (new, old)
    table = (langs or all_on()).of(neg).table(ATTRIBUTE_TABLE)
    predicate = table.entry("negated_predicate")
    m = predicate.pattern.search(neg)
    if not m or table.entry("not_word").pattern.search(m.group(1)):
        return False  # a "not" negated ("I don't see why not") says yes: no predicate is denied
    if predicate.setting("held") == "as_written":
        return m.group(1) in pos
    words = set(search_tokens(m.group(1), drop_stopwords=True))
    return bool(words) and words <= set(search_tokens(pos, drop_stopwords=True))
