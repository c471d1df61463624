"""Does a statement say that something changed, and what is it about? (issue 16, write path)

The slot classifiers (`change_rules/`) cut a new value out of the phrasings they know. Many
changes name an attribute no classifier keys ("I moved my gym day to Thursdays", 钢琴课换到周日了),
so consolidation also reads the plain grammar of a change, in both languages. The grammar is
data: one table per language, `lang/<code>/change.yaml`, read through the language pack (each
entry a rule `<code>.change.<entry>` that `rules.disabled` switches off); the mechanisms here are
written once:

- strong markers (`strong`) say a value changed by themselves: change verbs (switched, changed,
  moved, transferred, renamed, quit, stopped, gave up, left, replaced, sold; 改成 / 换成 / 换到 /
  搬到 / 跳槽 / 转学 / 辞职 / 戒), negated continuation ("no longer", "anymore", 不再,
  已经不…了, 不…了) and corrections ("instead", "after all", "turns out", 不算);
- weak markers (`weak`) say so only in a statement about the speaker (`speaker`: I / my / we,
  我 / 我们): time words of the present ("now", "these days", "lately", 现在, 最近, 如今) and
  beginnings ("started", "became", "joined", 开始). "Work has been busy lately" describes the
  week, not the user.
- an additive word (`additive`: also, too, as well, another, 也, 还) makes a weak-marked
  statement an addition, not a change: "I also like tea" leaves "I like coffee" alone.

A change need not be worded as one: `frames` reads what a statement gives a value to (an
attribute of a subject, "my new landlord is Mrs. Gomez", 我的车不是本田是马自达), `signalled` whether
a marker says the value replaced one (a verb of replacing, a correction, "instead", a time word
of the present), `adds` whether it is an addition (another, 又, 也), and `frame_words` what is
left of it without those markers; consolidation compares them with the live memories
(`write/consolidate/changes.py`).

Who and what a statement is about (its content words, its owner, one statement or several, a
judgement or a request) is `statement.py`.
"""

from __future__ import annotations


import functools
import re
from dataclasses import dataclass

from ..lang import Languages, Table
from ..lang import all_on
from ..lang.text import search_tokens, tokenize
from .slot import relation_words
from .statement import QUESTION, judges_only, said

#: the language pack table this grammar is read from (`lang/<code>/change.yaml`)
TABLE = "change"


def grammar(text: str, langs: Languages | None = None) -> Table:
    """The change table of the language `text` is written in (empty for a language without one:
    its rules then never act)."""
    return (langs or all_on()).of(text).table(TABLE)


def _done(text: str, g: Table, comma: str) -> str:
    """The statement without its clauses of plans (`future`; kept when the statement is a
    standing decision, `standing`) and of predictions about another thing (`prediction`)."""
    future, standing = g.entry("future").pattern, g.entry("standing").pattern
    predicts, speaker = g.entry("prediction").pattern, g.entry("speaker_subject").pattern
    if not (future.search(text) or predicts.search(text)):
        return text
    decided = bool(standing.search(text))

    def plan(clause: str) -> bool:
        if predicts.search(clause) and not speaker.match(clause):
            return True
        return not decided and bool(future.search(clause))

    clauses = g.entry("clause").pattern.split(text)
    if not any(plan(c) for c in clauses):
        return text
    return comma.join(c for c in clauses if c.strip() and not plan(c))


def states_change(text: str, langs: Languages | None = None) -> bool:
    """Whether the statement says a value changed (see the module docstring). A question
    ("怎么换了？", "did you switch?") states nothing, nor does a plan ("I'll start with ...")."""
    text = said(text or "")
    if not text or QUESTION.search(text):
        return False
    pack = (langs or all_on()).of(text)
    g = pack.table(TABLE)
    text = _done(text, g, pack.comma)
    if not text:
        return False
    text = g.entry("not_a_change").pattern.sub(" ", text)
    if g.entry("strong").pattern.search(text):
        return True
    # a weak marker speaks of the speaker only in a clause whose subject is not another thing:
    # "... and it's become a highlight of my week" is news of the week, not of a value
    weak, other = g.entry("weak").pattern, g.entry("other_subject").pattern
    return bool(
        any(
            weak.search(c) and not other.match(c.strip())
            for c in g.entry("clause").pattern.split(text)
        )
        and g.entry("speaker").pattern.search(text)
        and not g.entry("additive").pattern.search(text)
        and not g.entry("feeling").pattern.search(text)
    )


def _weak_only(text: str, langs: Languages | None = None) -> str | None:
    """The words of a statement that reads as a change only by a weak marker (a time word of the
    present, a beginning: now, currently, started, 最近), else None."""
    text = said(text or "").replace("’", "'")
    strong = grammar(text, langs).entry("strong").pattern
    return text if states_change(text, langs) and not strong.search(text) else None


def in_progress(text: str, langs: Languages | None = None) -> bool:
    """The statement reads as a change only by a weak marker (`_weak_only`) and says what the
    speaker is doing ("I'm currently reading a fantasy novel", 我最近在读科幻小说): news of an
    activity, not of a value it replaced, so only what contradicts it by attribute is evidence
    of a change ("I like fantasy stories" stays). An activity that is a state one holds until
    it is replaced ("I'm now living in Seattle") or a change told in the progressive ("I'm
    moving to Berlin") is not one (`in_progress` of the change table)."""
    words = _weak_only(text, langs)
    return words is not None and bool(
        grammar(words, langs).entry("in_progress").pattern.search(words)
    )


def only_lasting(text: str, langs: Languages | None = None) -> bool:
    """The statement reads as a change only by a weak marker (a time word of the present, a
    beginning) and says how long its state has lasted ("I've been playing for about four
    months now", "I started playing guitar about five years ago", 我学钢琴三年了): a state that
    has held that long is news of what holds, not of a value it just replaced, so only what
    contradicts it by attribute (`extract.attributes`) is evidence of a value it ended."""
    words = _weak_only(text, langs)
    return words is not None and bool(grammar(words, langs).entry("lasting").pattern.search(words))


def replaced(text: str, langs: Languages | None = None) -> str | None:
    """The value a statement says it left for another, when it names it ("Linux instead of
    Windows", "switched from Chrome to Firefox", 用Linux而不是Windows, 从美式换成了拿铁); else
    None."""
    body = said(text)
    m = grammar(body, langs).entry("replaced").pattern.search(body)
    if not m:
        return None
    value = (m.group("v") or m.group("f") or "").strip()
    return value or None


def switches(text: str, langs: Languages | None = None) -> bool:
    """The statement says one value took another's place (改喝拿铁, "switched to oat milk", a
    preference "these days" / 更喜欢), not only that something holds now: then two values of an
    attribute that add up (drinks, pets) contradict each other too
    (`extract.attributes.contradicts`)."""
    text = said(text or "")
    return bool(grammar(text, langs).entry("switch").pattern.search(text))


def now_also(text: str, langs: Languages | None = None) -> bool:
    """ "Now also" (我现在也吃牛肉了, "I eat beef now too"): a value added now. Not a change of the
    values before it, but the end of a "not" said before (不吃牛肉), which consolidation retires
    when the two are one predicate (`extract.attributes.flips`)."""
    text = said(text or "")
    if not text or QUESTION.search(text) or states_change(text, langs):
        return False
    g = grammar(text, langs)
    return bool(
        g.entry("weak").pattern.search(text)
        and g.entry("speaker").pattern.search(text)
        and additive(text, langs)
    )


def additive(text: str, langs: Languages | None = None) -> bool:
    """The statement adds a value beside the ones before ("I also like tea", 我也喜欢茶)."""
    g = grammar(text, langs)
    return bool(g.entry("additive").pattern.search(text)) and not g.entry("strong").pattern.search(
        text
    )


# ---- frames: what a statement gives a value to, whatever its verb ---------------------------


@dataclass(frozen=True)
class Frame:
    """An attribute of a subject and the value a clause gives it ("my new landlord is Mrs.
    Gomez": owner "" (the speaker), attribute "landlord", value "Mrs. Gomez"). Two frames of one
    `key` with different values are two values of one attribute."""

    owner: str  # "" for the speaker (my, our, the user's, 我, 用户), else the relation (wife, 朋友)
    attribute: str
    value: str
    left: str = ""  # the value a correction says was wrong ("not a Honda but a Mazda", 不是本田)
    new: bool = False  # a new holder of the attribute (my new doctor, 新房东)
    single: bool = False  # one value at a time (the change table's `single` and `roles`)
    multi: bool = False  # many values at once (`multi`): a new value adds to them

    @property
    def key(self) -> tuple[str, str]:
        return (self.owner, self.attribute)

    def differs(self, other: "Frame") -> bool:
        """Another value of the same attribute of the same subject."""
        a, b = _plain(self.value), _plain(other.value)
        return self.key == other.key and bool(a and b) and a not in b and b not in a


_FRAMES = ("frame", "frame_value_first", "frame_role")


def frames(text: str, langs: Languages | None = None) -> list[Frame]:
    """The frames of a statement's clauses (`frame`, `frame_value_first`, `frame_role` of its
    language's change table), the leading connectives, corrections and time words of each
    clause (`lead`) left out. An attribute that is a person ("my daughter is 8": people rules
    key it) gives no frame, nor a clause that only judges its thing ("my car is great")."""
    body = said(text or "").replace("’", "'").strip()
    if not body or QUESTION.search(body):
        return []
    pack = (langs or all_on()).of(body)
    g = pack.table(TABLE)
    relations = relation_words(pack)
    fill = {
        "relations": _alternation(tuple(relations)),
        "roles": _alternation(tuple(g.entry("roles").wordset)),
    }
    out = []
    # the whole statement first ("my car is not a Honda, but a Mazda"), then each clause
    for clause in [body, *g.entry("frame_clause").pattern.split(body)]:
        clause = g.entry("lead").pattern.sub("", clause.strip(" .!。！")).strip()
        if judges_only(clause):
            continue  # "my car is great": how it is, no value of the attribute
        for name in _FRAMES:
            m = g.entry(name).regex(**fill).match(clause) if clause else None
            frame = _frame(m, g, relations) if m else None
            if frame is not None:
                out.append(frame)
                break
        if out:  # the whole statement is one frame, or a clause of it was
            if len(out) == 1 and clause != body:
                continue
            break
    return list(dict.fromkeys(out))


def _frame(m: re.Match[str], g: Table, relations: dict[str, str]) -> Frame | None:
    groups = m.groupdict()
    attr = " ".join((groups.get("attr") or "").lower().split())
    spelling = g.entry("frame").setting("spelling", {}) or {}
    attr = " ".join(spelling.get(w, w) for w in attr.split(" "))
    value = (groups.get("value") or "").strip(" .!。！")
    if not attr or not value or attr in relations:
        return None
    rel = groups.get("rel") or ""
    owner = relations.get(rel.lower(), rel) if rel else ""
    return Frame(
        owner=owner,
        attribute=attr,
        value=value,
        left=(groups.get("old") or "").strip(),
        new=bool(groups.get("new")),
        single=_names_one_of(attr, g.entry("single").wordset | g.entry("roles").wordset),
        multi=_names_one_of(attr, g.entry("multi").wordset),
    )


#: how strongly a statement's markers say a value was replaced (`marker`)
NONE, PRESENT, REPLACED = 0, 1, 2


def marker(text: str, langs: Languages | None = None) -> int:
    """How strongly a marker of the statement says a value was replaced, not only that one
    holds: REPLACED for a verb of change (`strong`, `replacing`, `switch`), a correction
    (`correction`) or a swap (`instead`); PRESENT for a time word of the present said of the
    speaker (`present`: "these days my favourite band is ..."); else NONE."""
    body = said(text or "")
    g = grammar(body, langs)
    if any(
        g.entry(n).pattern.search(body)
        for n in ("strong", "replacing", "switch", "correction", "instead")
    ):
        return REPLACED
    present = g.entry("present").pattern.search(body) and g.entry("speaker").pattern.search(body)
    return PRESENT if present else NONE


def signalled(text: str, langs: Languages | None = None) -> bool:
    """A marker of the statement says a value was replaced or is the present one (`marker`)."""
    return marker(text, langs) > NONE


def adds(text: str, langs: Languages | None = None) -> bool:
    """The statement adds a value beside one of its kind (another, also, 又, 也): it replaces
    nothing, whatever else it says."""
    body = said(text or "")
    return bool(grammar(body, langs).entry("another").pattern.search(body))


def frame_words(text: str, langs: Languages | None = None) -> frozenset[str]:
    """The content words of a statement with its markers of change left out (the correction, the
    verb of replacing, "instead", the time word of the present): what stays of a frame, its value
    included ("I've switched to cycling to work": cycling, work)."""
    body = said(text or "")
    g = grammar(body, langs)
    body = g.entry("lead").pattern.sub(" ", body)
    for name in ("correction", "replacing", "instead", "present"):
        body = g.entry(name).pattern.sub(" ", body)
    return frozenset(search_tokens(body, drop_stopwords=True))


def _names_one_of(attr: str, words: frozenset[str]) -> bool:
    """The attribute is, or ends in, or contains as a word one of `words` ("favorite band":
    favorite; 最喜欢的乐队: 最喜欢的)."""
    return any(re.search(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z0-9])", attr) for w in words)


@functools.lru_cache(maxsize=64)
def _alternation(words: tuple[str, ...]) -> str:
    """Words as one alternation, longest first (never empty: an empty one would match anything)."""
    found = sorted((re.escape(w) for w in words if w), key=len, reverse=True)
    return "|".join(found) or "(?!)"


def _plain(value: str) -> str:
    """A value as two statements of it compare: its words without stopwords ("a Mazda": mazda)."""
    return " ".join(tokenize(value, drop_stopwords=True))
