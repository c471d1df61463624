"""Change classifiers: a value the user says has changed, and attribute facts ("my X is Y").

Tried before the profile and preference classifiers. A change is a slot tagged `switch` (the
user corrects their own earlier words: explicit channel) whose `replaces` names the old value
when the sentence does ("I left Acme and joined Globex", 我已经从阿里跳槽到腾讯了), so that
consolidation can retire the memory that still states it.

The phrasings are each language's `change_clause` table (`lang/<code>/change_clause.yaml`): a
frame is a named pattern with the rule that reads its match (`rule`: a switch to a new value, a
favourite, an attribute's new value, a diet, a thing replaced, a habit stopped, an attribute fact)
and the settings of that rule (the slot's subject, kind, summary template and confidence). Frames
are tried in groups, in file order; within a group the first frame that matches decides, so a
match whose value is no value ends the group. Time words are never a value ("switched to a Pixel
8 yesterday" names the Pixel 8; 腾讯了 names 腾讯).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...lang import Entry, LanguagePack, Table, all_on
from ...types import MemoryType
from ..slot import QUESTION_WORDS, Slot, object_subject, third_person
from .shared import favourite_changed, subject_of

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

    def __init__(self, table: Table) -> None:
        self.table = table
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
    if not cut or too_long or QUESTION_WORDS.search(cut):
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
    return favourite_changed(m.group("k"), value(m.group("v"), g), lang)


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
    not_stopped = all_on().any_of(CLAUSE_TABLE, "not_stopped")
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


_built: dict[int, tuple[LanguagePack, tuple[Classifier, ...]]] = {}


def classifiers(lang: LanguagePack) -> tuple[Classifier, ...]:
    """The change classifiers of a clause's language, in the order they are tried (none for a
    language without a `change_clause` table)."""
    held = _built.get(id(lang))
    if held is None or held[0] is not lang:
        table = lang.table(CLAUSE_TABLE)
        groups: dict[str, list[Entry]] = {}
        for entry in table.values():
            if entry.setting("rule"):
                groups.setdefault(str(entry.setting("group", entry.name)), []).append(entry)
        grammar = _Grammar(table)
        built = tuple(_group(n, tuple(es), grammar, lang) for n, es in groups.items())
        if len(_built) > 64:
            _built.clear()
        held = _built[id(lang)] = (lang, built)
    return held[1]
