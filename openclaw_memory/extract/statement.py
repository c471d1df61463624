"""Who and what a statement is about (issue 16, write path): the words a change and an old memory
must share, whose thing a statement speaks of, whether it is one statement or several, and
whether it only judges its thing or asks something of the assistant.

`about(text)` gives the words a statement is about (its content words without the change words),
`owner(text)` the noun after "my" / 我的 (my *son*'s school, 我*儿子*): two statements of
different owners are about different attributes even when they share a word ("name").
Whether a statement says that something changed is `change_grammar.py`.
"""

from __future__ import annotations

import functools
import re

from ..lang import LanguagePack, all_on, pack
from ..lang.pack import Entry
from ..lang.text import STOPWORDS, search_tokens

_TABLE = "statement"

#: the speaker in the first person, in English and in Chinese (the change grammar reads each)
EN_SELF = pack("en").table(_TABLE).entry("self").pattern
ZH_SELF = pack("zh").table(_TABLE).entry("self").pattern
#: a statement that asks, in any language
QUESTION = all_on().any_of(_TABLE, "question")
#: "林晓: ..." - the speaker of a logged turn, not part of what was said
_SPEAKER = re.compile(r"^[^:：\s]{1,24}[:：]\s*")


def _entry(text: str, name: str) -> Entry:
    """The entry `name` of the statement table of text's language."""
    return all_on().of(text).table(_TABLE).entry(name)


def said(text: str) -> str:
    """The words of a logged turn without its "speaker:" prefix."""
    return _SPEAKER.sub("", text.strip(), count=1)


@functools.lru_cache(maxsize=None)
def _words(name: str) -> frozenset[str]:
    """A word list of every pack's statement table: as search tokens where the entry says
    `as_tokens` (English words are stemmed like the text they are matched against)."""
    out: set[str] = set()
    for p in all_on().all():
        entry = p.table(_TABLE).entry(name)
        out |= set(
            search_tokens(" ".join(entry.words)) if entry.setting("as_tokens") else entry.words
        )
    return frozenset(out)


def judges_only(text: str) -> bool:
    """Whether every clause of the statement only judges its thing ("My new job is really good
    now, the team is great.", 新公寓现在挺不错的): it names no value that could replace an old
    one, so meaning alone links it to nothing it would retire."""
    body = said(text)
    clauses = [c.strip() for c in re.split(r"[,.;!，。；！]+", body) if c.strip()]
    if not clauses:
        return False
    pattern = _entry(body, "judgement").pattern
    return all(pattern.match(c) for c in clauses)


def about(text: str, names: tuple[str, ...] = ()) -> frozenset[str]:
    """The content words a statement is about: search tokens without stopwords, change words and
    the speakers' names (a Chinese verb keeps its object: 改喝 -> 喝, 不运动 -> 运动)."""
    out = set()
    text = said(text)
    for name in names:
        text = text.replace(name, " ")
    left_out = _words("change_words") | _words("stance_words") | STOPWORDS
    measure = all_on().any_of(_TABLE, "measure")
    for t in search_tokens(text, drop_stopwords=True):
        t = _entry(t, "verb_prefix").pattern.sub("", t, count=1)
        if (
            t not in left_out
            and not measure.match(t)
            and len(t) >= _entry(t, "word_length").setting("min_chars", 2)
            and not t.isdigit()
        ):
            out.add(t)
    return frozenset(out)


def share(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two statements share a content word of two or more characters, also when one holds the
    other (周会 in 开周会: the segmenter cuts the same word differently in context)."""
    if any(
        len(t) > 1 for t in a & b
    ):  # one Chinese character (好, 了) is too common to name a thing
        return True
    long_a, long_b = _nested(a), _nested(b)
    return any(x in y or y in x for x in long_a for y in long_b)


def _nested(words: frozenset[str]) -> list[str]:
    """The words whose language's segmenter cuts one word differently in context, long enough
    to be found inside another (the statement table's `nested_words`)."""
    out = []
    for t in words:
        entry = _entry(t, "nested_words")
        if entry.on and len(t) >= entry.setting("min_chars", 1):
            out.append(t)
    return out


#: a claim in the third person names the owner the same way ("The user's sister", 用户的姐姐)


def _owner(p: LanguagePack) -> re.Pattern[str]:
    table = p.table(_TABLE)
    return table.entry("owner").regex(others=table.entry("others").source or "(?!)")


def someone_else(who: str) -> bool:
    """An owner that is a person or a pet (my sister, 我女儿), not a thing (my car, 我的手机)."""
    others = (p.table(_TABLE).entry("others").pattern for p in all_on().all())
    return bool(who) and any(o.fullmatch(who) for o in others)


def owner(text: str) -> str:
    """The noun after "my" (my son's school: "son"; 我儿子: 儿子), "" when none."""
    text = said(text)
    m = _owner(all_on().of(text)).search(text)
    return next((g.lower() for g in m.groups() if g), "") if m else ""


def about_self(text: str) -> bool:
    """A statement whose subject is the speaker ("I moved ...", "My car is ...", 我周六上钢琴课),
    not a question: what a change can retire, and what can state a new value of an attribute.
    Chat lines that only mention the speaker ("姐，我打算买车了", "哈哈，记得给我...") are not."""
    text = said(text)
    if not text or QUESTION.search(text):
        return False
    return bool(_entry(text, "self_start").pattern.match(text))


def about_a_thing(text: str) -> bool:
    """A statement about the speaker, or about a thing of theirs that names no person at all
    (钢琴课换到周日了, "The weekly meeting got moved to Wednesday"): a change may be said either way."""
    text = said(text)
    if about_self(text):
        return True
    langs = all_on()
    if (
        not text
        or QUESTION.search(text)
        or langs.any_of(_TABLE, "second_person").search(text)
        or langs.any_of(_TABLE, "request").match(text)
    ):
        return False
    if langs.any_of(_TABLE, "ended_then_self").match(text):
        return True  # 闪电去世了，我们又养了一只兔子: a thing of theirs ended, then the speaker
    return not _entry(text, "self").pattern.search(text)


def _sentences(text: str) -> list[str]:
    return [s for s in all_on().any_of(_TABLE, "sentence_end").split(text) if s.strip()]


def single_statement(text: str) -> bool:
    """A short utterance that states one thing: a change can retire it as a whole. A long turn
    that says several things stays (retiring it would take the other things with it)."""
    text = said(text)
    most = _entry(text, "one_statement")
    if most.setting("max_chars") is not None:
        short = len("".join(text.split())) <= most.setting("max_chars")
    else:
        short = len(text.split()) <= most.setting("max_words", 24)
    return len(_sentences(text)) <= 2 and short


def one_sentence(text: str) -> bool:
    """A single statement of one sentence: the only kind whose meaning alone (its clear semantic
    neighbour, no shared word, no attribute) may say which memory it changed ("I'm now living
    in Seattle"); a second sentence says something more ("Lately I've been stumped. Don't feel
    like I'm making an impact"), and the neighbour of the whole is no evidence of either."""
    return single_statement(text) and len(_sentences(said(text))) == 1
