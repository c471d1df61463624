"""Statements of change: does a statement say that something changed, what about, and which value.

Two readers, both over data (each language's tables, every entry a rule `rules.disabled` can
switch off), the mechanisms written once:

- the grammar of change (`lang/<code>/change.yaml`) says whether a statement changes a value and
  what it is about, whatever its wording: strong markers (verbs of replacing, negated
  continuation, corrections) say so by themselves; weak ones (time words of the present,
  beginnings) only in a statement about the speaker; an additive word (also, another, 也, 又) makes
  it an addition. `frames` reads what a statement gives a value to (an attribute of a subject:
  "my new landlord is Mrs. Gomez", 我的车不是本田是马自达), `signalled` whether a marker says the
  value replaced one, `adds` whether it is an addition, `frame_words` what is left without the
  markers; consolidation compares them with the live memories (`write/consolidate/changes.py`);
- the change classifiers (`lang/<code>/change_clause.yaml`) cut a new value out of the phrasings
  they know and make a slot tagged `switch` whose `replaces` names the old value when the
  sentence does ("I left Acme and joined Globex", 我已经从阿里跳槽到腾讯了); they are tried before
  the profile and preference classifiers. A frame is a named pattern with the rule that reads its
  match (a switch, a favourite, an attribute's new value, a diet, a thing replaced, a habit
  stopped, an attribute fact) and that rule's settings; frames are tried in groups, in file
  order, the first match of a group deciding. Time words are never a value.

Who and what a statement is about (its content words, its owner, one statement or several, a
judgement or a request) is `statement.py`. Over 600 lines: one concept, the two readers of it
sharing their slot helpers.
"""

from __future__ import annotations

import functools
import re
import dataclasses
from dataclasses import dataclass
from ..lang import Languages, Table, all_on, LanguagePack, Entry
from ..lang.text import search_tokens, tokenize
from .slot import (
    relation_words,
    PROFILE,
    Slot,
    en_head,
    heads,
    zh_head,
    question_words,
    object_subject,
    third_person,
)
from .statement import judges_only, question, said
from ..lang.attributes import role_keys
from ..lang.attributes import role_subject
from .preference_rules import favorite_slot
from collections.abc import Callable
from typing import Any
from ..types import MemoryType
from ..config.tuning import tuned

#: confidence of a correction of the user's own earlier words
_SWITCH_CONFIDENCE = tuned("extract.switch_confidence")

# Does a statement say that something changed, and what is it about? (issue 16, write path)
#
# The slot classifiers (`change_rules/`) cut a new value out of the phrasings they know. Many
# changes name an attribute no classifier keys ("I moved my gym day to Thursdays", 钢琴课换到周日了),
# so consolidation also reads the plain grammar of a change, in both languages. The grammar is
# data: one table per language, `lang/<code>/change.yaml`, read through the language pack (each
# entry a rule `<code>.change.<entry>` that `rules.disabled` switches off); the mechanisms here are
# written once:
#
# - strong markers (`strong`) say a value changed by themselves: change verbs (switched, changed,
#   moved, transferred, renamed, quit, stopped, gave up, left, replaced, sold; 改成 / 换成 / 换到 /
#   搬到 / 跳槽 / 转学 / 辞职 / 戒), negated continuation ("no longer", "anymore", 不再,
#   已经不…了, 不…了) and corrections ("instead", "after all", "turns out", 不算);
# - weak markers (`weak`) say so only in a statement about the speaker (`speaker`: I / my / we,
#   我 / 我们): time words of the present ("now", "these days", "lately", 现在, 最近, 如今) and
#   beginnings ("started", "became", "joined", 开始). "Work has been busy lately" describes the
#   week, not the user.
# - an additive word (`additive`: also, too, as well, another, 也, 还) makes a weak-marked
#   statement an addition, not a change: "I also like tea" leaves "I like coffee" alone.
#
# A change need not be worded as one: `frames` reads what a statement gives a value to (an
# attribute of a subject, "my new landlord is Mrs. Gomez", 我的车不是本田是马自达), `signalled` whether
# a marker says the value replaced one (a verb of replacing, a correction, "instead", a time word
# of the present), `adds` whether it is an addition (another, 又, 也), and `frame_words` what is
# left of it without those markers; consolidation compares them with the live memories
# (`write/consolidate/changes.py`).
#
# Who and what a statement is about (its content words, its owner, one statement or several, a
# judgement or a request) is `statement.py`.

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
    text = said(text or "", langs)
    if not text or question(langs).search(text):
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
    text = said(text or "", langs).replace("’", "'")
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
    body = said(text, langs)
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
    text = said(text or "", langs)
    return bool(grammar(text, langs).entry("switch").pattern.search(text))


def now_also(text: str, langs: Languages | None = None) -> bool:
    """ "Now also" (我现在也吃牛肉了, "I eat beef now too"): a value added now. Not a change of the
    values before it, but the end of a "not" said before (不吃牛肉), which consolidation retires
    when the two are one predicate (`extract.attributes.flips`)."""
    text = said(text or "", langs)
    if not text or question(langs).search(text) or states_change(text, langs):
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
    body = said(text or "", langs).replace("’", "'").strip()
    if not body or question(langs).search(body):
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
        if judges_only(clause, langs):
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
    body = said(text or "", langs)
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
    body = said(text or "", langs)
    return bool(grammar(body, langs).entry("another").pattern.search(body))


def frame_words(text: str, langs: Languages | None = None) -> frozenset[str]:
    """The content words of a statement with its markers of change left out (the correction, the
    verb of replacing, "instead", the time word of the present): what stays of a frame, its value
    included ("I've switched to cycling to work": cycling, work)."""
    body = said(text or "", langs)
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


# What every change grammar shares: the slot a change makes, the key of an attribute word and
# the favourite that changed.


def switch(subject: str, summary: str, value: str, replaces: str = "", kind=PROFILE) -> Slot:
    """The user corrects their own earlier words: a `switch` slot, naming the old value if said."""
    return Slot(kind, subject, summary, ("switch",), (value,), _SWITCH_CONFIDENCE, replaces)


#: how a language finds the head of an attribute word (`heads:` of its lexicon table)
_HEAD_OF = {"posseg": zh_head, "words": en_head}


def subject_of(key: str, lang: LanguagePack) -> str:
    """The subject a statement of the speaker's `key` is filed under in `lang` (a role that passes
    to a new holder, "my landlord", keeps one subject whoever holds it)."""
    return role_subject(key, role_keys(lang), _HEAD_OF.get(heads(lang), str.strip))


def favourite_changed(
    cat: str, value: str | None, lang: LanguagePack, langs: Languages | None = None
) -> Slot | None:
    """A new favourite of a category, keyed by the category and tagged as a change."""
    slot = favorite_slot(cat.strip(), value, lang, langs=langs) if value else None
    return dataclasses.replace(slot, tags=(*slot.tags, "switch")) if slot else None


# Change classifiers: a value the user says has changed, and attribute facts ("my X is Y").
#
# Tried before the profile and preference classifiers. A change is a slot tagged `switch` (the
# user corrects their own earlier words: explicit channel) whose `replaces` names the old value
# when the sentence does ("I left Acme and joined Globex", 我已经从阿里跳槽到腾讯了), so that
# consolidation can retire the memory that still states it.
#
# The phrasings are each language's `change_clause` table (`lang/<code>/change_clause.yaml`): a
# frame is a named pattern with the rule that reads its match (`rule`: a switch to a new value, a
# favourite, an attribute's new value, a diet, a thing replaced, a habit stopped, an attribute fact)
# and the settings of that rule (the slot's subject, kind, summary template and confidence). Frames
# are tried in groups, in file order; within a group the first frame that matches decides, so a
# match whose value is no value ends the group. Time words are never a value ("switched to a Pixel
# 8 yesterday" names the Pixel 8; 腾讯了 names 腾讯).

CLAUSE_TABLE = "change_clause"

Classifier = Callable[[str], Slot | None]
Rule = Callable[[Any, str, Entry, "_Grammar", LanguagePack], Slot | None]


def _fills(table: Table) -> dict[str, str]:
    """The patterns frames name (`${time}`), a later one first: an earlier one may be named in it
    (the Chinese `lead` names `time`). A switched-off one matches nothing."""
    return {
        e.name: (e.source or "(?!)") if e.on else "(?!)"
        for e in reversed(tuple(table.values()))
        if e.setting("fill")
    }


class _Grammar:
    """A language's change table with its frames' named patterns filled (`${time}`) once."""

    def __init__(self, table: Table, langs: Languages | None = None) -> None:
        self.table = table
        #: the packs of every language, for words read in any of them (a question word)
        self.langs = langs or all_on()
        self._fills = _fills(table)
        self._patterns: dict[str, Any] = {}

    def entry(self, name: str) -> Entry:
        return self.table.entry(name)

    def pattern(self, name: str) -> Any:
        """The pattern of entry `name`, its named patterns filled (never matches when off)."""
        if name not in self._patterns:
            self._patterns[name] = self.table.entry(name).regex(**self._fills)
        return self._patterns[name]


def value(raw: str, g: _Grammar) -> str | None:
    """A value cut out of a frame's match (the `value` entry: the marks stripped, time words and
    particles after it and an article or measure word before it dropped); None when empty, a
    question word, or longer than the language's limit (in words or in characters)."""
    how = g.entry("value")
    tail, lead = g.pattern("value_tail"), g.pattern("value_lead")
    cut = tail.sub("", raw.strip(how.setting("strip", ""))).strip(how.setting("strip_after", ""))
    cut = lead.sub("", cut)
    if how.setting("tail_again"):
        cut = tail.sub("", cut)
    words, chars = how.setting("max_words"), how.setting("max_chars")
    too_long = (words is not None and len(cut.split()) > words) or (
        chars is not None and len(cut) > chars
    )
    if not cut or too_long or question_words(g.langs).search(cut):
        return None
    return cut


def _said(m: Any, entry: Entry, g: _Grammar) -> str | None:
    """The value a frame matched (group `v`, else `new`): cut (`clean: value`, the default),
    stripped (`strip`) or as matched (`raw`)."""
    raw = m.group("v" if "v" in m.re.groupindex else "new")
    how = entry.setting("clean", "value")
    return raw if how == "raw" else raw.strip() if how == "strip" else value(raw, g)


def _kind(entry: Entry, default: str) -> MemoryType:
    return MemoryType(entry.setting("kind", default))


def _switch(m: Any, clause: str, entry: Entry, g: _Grammar, lang: LanguagePack) -> Slot | None:
    """A new value of one subject (employer, job, school, team, manager, home): the old value
    too when the clause names it."""
    new = _said(m, entry, g)
    if new is None or (entry.setting("clean", "value") == "value" and not new):
        return None
    if new and entry.setting("capitalised") and not new[:1].isupper():
        return None  # "joined a gym" is no employer
    needs = entry.setting("needs")
    if needs and not (
        m.groupdict().get(entry.setting("or_group", "")) or g.pattern(needs).search(m.group("v"))
    ):
        return None
    groups = m.groupdict()
    old = next((groups[g] for g in entry.setting("old", ()) if groups.get(g)), "").strip()
    summary = str(entry.setting("template")).format(v=new)
    tags = tuple(entry.setting("tags", ()))
    return Slot(
        _kind(entry, "profile"), entry.setting("subject"), summary, tags, (new,), _conf(entry), old
    )


def _conf(entry: Entry) -> float:
    return entry.confidence or 0.0


def _favourite(m: Any, clause: str, entry: Entry, g: _Grammar, lang: LanguagePack) -> Slot | None:
    """A new favourite of a category (keyed by the category), when the frame's `needs_any`
    groups (a time word, a verb of change) say it is new."""
    needs = entry.setting("needs_any", ())
    if needs and not any(m.group(g) for g in needs):
        return None
    return favourite_changed(m.group("k"), value(m.group("v"), g), lang, g.langs)


def _attribute_new(
    m: Any, clause: str, entry: Entry, g: _Grammar, lang: LanguagePack
) -> Slot | None:
    """My new manager is Sara, now my boss is Daniel: an attribute's new value. A frame with a
    `new` group that did not match needs the `needs_new` words in the clause."""
    groups = m.groupdict()
    needs_new = g.pattern(entry.setting("needs_new", ""))
    if "new" in groups and not groups["new"] and not needs_new.search(clause):
        return None
    key, said = m.group("k"), value(m.group("v"), g)
    if not said or g.pattern(entry.setting("bad_key", "")).search(key):
        return None
    if g.pattern(entry.setting("bad_value", "")).match(said):
        return None  # 是挺难过的 / 是很忙: how something feels or goes, not a value
    summary = str(entry.setting("template")).format(k=key.strip(), v=said)
    tags = tuple(entry.setting("tags", ()))
    return Slot(_kind(entry, "fact"), subject_of(key, lang), summary, tags, (said,), _conf(entry))


def _diet(m: Any, clause: str, entry: Entry, g: _Grammar, lang: LanguagePack) -> Slot | None:
    """A diet; a change when the clause says it began (`changed` words)."""
    said = m.group("v").lower()
    changed = bool(g.pattern(entry.setting("changed", "")).search(clause))
    tags = ("switch", "diet") if changed else ("diet",)
    confidence = _conf(entry) if changed else float(entry.setting("plain_confidence", 0.0))
    summary = str(entry.setting("template")).format(v=said)
    return Slot(MemoryType.PROFILE, entry.setting("subject"), summary, tags, (said,), confidence)


def _replaced(m: Any, clause: str, entry: Entry, g: _Grammar, lang: LanguagePack) -> Slot | None:
    """A thing replaced by another, keyed by the new thing's head; the old one when named."""
    new = value(m.group("new"), g)
    if not new:
        return None
    old = (m.groupdict().get("old") or "").strip(" ，,")
    old = (value(old, g) or "") if old else ""
    subject, head = object_subject(new, lang)
    template = entry.setting("template_old" if old else "template")
    summary = str(template).format(old=old, v=new)
    return Slot(
        MemoryType.PREFERENCE, subject, summary, ("switch",), (new, head), _conf(entry), old
    )


def _stopped(m: Any, clause: str, entry: Entry, g: _Grammar, lang: LanguagePack) -> Slot | None:
    """A habit the user stopped, keyed by its head: no state or modal (`not_stopped`), no bare
    time (`only_time`), no time after it (`trailing_time`); a verb of quitting said in the clause
    (`mark`) heads the habit and is cut from its key (`cut`)."""
    what = m.group("what").strip(" ，,。.")
    most = entry.setting("max_words")
    not_stopped = g.langs.any_of(CLAUSE_TABLE, "not_stopped")
    if (
        not_stopped.match(what)
        or (most is not None and len(what.split()) > most)
        or g.pattern("only_time").match(what)
    ):
        return None
    what = g.pattern("trailing_time").sub("", what)
    mark = g.entry(entry.setting("mark", ""))
    if g.pattern(mark.name).search(clause) and not what.startswith(mark.setting("prefix", "")):
        what = mark.setting("prefix", "") + what
    thing = g.pattern(entry.setting("cut", "")).sub("", what)
    subject, head = object_subject(thing, lang)
    summary = third_person(clause, lang)
    tags = ("switch", "stopped")
    return Slot(MemoryType.PREFERENCE, subject, summary, tags, (head,), _conf(entry), head)


def _attribute_is(
    m: Any, clause: str, entry: Entry, g: _Grammar, lang: LanguagePack
) -> Slot | None:
    """My X is Y: a plain attribute fact, keyed by the attribute word (`bad_key` words aside)."""
    key, said = m.group("k"), value(m.group("v"), g)
    if not said or g.pattern(entry.setting("bad_key", "")).search(key):
        return None
    summary = third_person(clause, lang)
    return Slot(MemoryType.FACT, subject_of(key, lang), summary, (), (said,), _conf(entry))


def _attribute_verb(
    m: Any, clause: str, entry: Entry, g: _Grammar, lang: LanguagePack
) -> Slot | None:
    """I drive a Tesla, I commute by train: an attribute fact, keyed by the frame's `subject`
    (else by the value's own key)."""
    said = _said(m, entry, g)
    if not said:
        return None
    key = entry.setting("subject") or object_subject(said, lang)[0]
    summary = str(entry.setting("template")).format(v=said)
    return Slot(MemoryType.FACT, key, summary, (), (said,), _conf(entry))


#: the rules a frame names (`rule:`)
RULES: dict[str, Rule] = {
    "switch": _switch,
    "favourite": _favourite,
    "attribute_new": _attribute_new,
    "diet": _diet,
    "replaced": _replaced,
    "stopped": _stopped,
    "attribute_is": _attribute_is,
    "attribute_verb": _attribute_verb,
}
#: rules whose frames read the clause with typographic apostrophes made straight (I’ve -> I've)
_STRAIGHT_QUOTES = frozenset({"replaced", "stopped"})


def _group(name: str, frames: tuple[Entry, ...], g: _Grammar, lang: LanguagePack) -> Classifier:
    """The classifier of one group: its first frame that matches decides."""
    patterns = tuple(g.pattern(entry.name) for entry in frames)

    def classify(clause: str) -> Slot | None:
        for entry, pattern in zip(frames, patterns):
            start = entry.setting("start")
            if start and not g.pattern(start).match(clause):
                continue
            rule = str(entry.setting("rule"))
            text = clause.replace("’", "'") if rule in _STRAIGHT_QUOTES else clause
            m = pattern.match(text)
            if m:
                return RULES[rule](m, clause, entry, g, lang)
        return None

    classify.__name__ = f"_{name}"
    return classify


_built: dict[tuple[int, int], tuple[LanguagePack, Languages, tuple[Classifier, ...]]] = {}


def classifiers(lang: LanguagePack, langs: Languages | None = None) -> tuple[Classifier, ...]:
    """The change classifiers of a clause's language, in the order they are tried (none for a
    language without a `change_clause` table); `langs`: the packs a word of any language is read
    from (every rule on by default). Built once per pack and packs."""
    langs = langs or all_on()
    key = (id(lang), id(langs))
    held = _built.get(key)
    if held is None or held[0] is not lang or held[1] is not langs:
        table = lang.table(CLAUSE_TABLE)
        groups: dict[str, list[Entry]] = {}
        for entry in table.values():
            if entry.setting("rule"):
                groups.setdefault(str(entry.setting("group", entry.name)), []).append(entry)
        grammar = _Grammar(table, langs)
        built = tuple(_group(n, tuple(es), grammar, lang) for n, es in groups.items())
        if len(_built) > 64:
            _built.clear()
        held = _built[key] = (lang, langs, built)
    return held[2]
