"""Preference classifiers: the user's likes, dislikes, favourites and switches; the standing
instructions to the assistant (reply language, format, prohibitions) come first
(`instruction_rules`).

Each reads one clause (`standing` is true inside a "from now on" / 以后 instruction) and returns
a preference `Slot` or None. Questions yield nothing. A like and a later dislike of the same
object share one subject key (see `lexicon.object_subject`). The frames, the words that turn a
like into a dislike, a preference or a change, and the summaries' templates are each language's
`preference` table (`lang/<code>/preference.yaml`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ..lang import LanguagePack, Languages, all_on
from ..lang.pack import Table
from ..lang.text import tokenize
from .instruction_rules import prohibition, reply_format, reply_language
from .lexicon import en_head, object_subject, zh_head
from .slot import PREFERENCE, QUESTION_WORDS, Slot, outside


def _switch(clause: str, cjk: bool, table: Table) -> Slot | None:
    switch = table.entry("switch")
    m = switch.pattern.match(clause.replace("’", "'"))
    if not m:
        return None
    obj = ((m.groupdict().get("verb") or "") + m.group("obj")).rstrip(switch.setting("strip"))
    slot = _like_slot(obj, cjk, False, "prefer", table)
    # The user states their own change: a correction in their own words, not an inference.
    return dataclasses.replace(slot, tags=(*slot.tags, "switch")) if slot else None


def _preference(
    clause: str, cjk: bool, standing: bool, langs: Languages | None = None
) -> Slot | None:
    langs = langs or all_on()
    pack = langs.of(clause)
    table = pack.table("preference")
    switched = _switch(clause, cjk, table)
    if switched:
        return switched
    # a favourite in any language's frame ("my favourite food is 火锅" holds Han)
    for other in langs.all():
        m = other.table("preference").entry("favourite").pattern.match(clause)
        if m:
            return favorite_slot(m.group("cat").strip(), m.group("obj"), cjk, pack)
    m = table.entry("like").pattern.match(clause.replace("’", "'"))
    if not m or _any_match(langs, "bad_object", m.group("obj").strip()):
        return None
    verb = m.group("verb").lower()
    negative = bool(table.entry("negative_verb").pattern.search(verb))
    said = verb + (m.group("adv") or "")
    kind = "prefer" if table.entry("prefer_verb").pattern.search(said) else "like"
    obj, instead = _instead(m.group("obj"), langs)
    slot = _like_slot(obj, cjk, negative, kind, table)
    if slot and (instead or table.entry("now").pattern.search(m.group("adv") or "")):
        # "I now prefer green tea instead of coffee": the user states a change of their own
        return dataclasses.replace(slot, tags=(*slot.tags, "switch"), replaces=instead)
    return slot


def _any_match(langs: Languages, entry: str, text: str) -> bool:
    """Whether `entry` of any language's preference table matches at the start of text (an
    object may be said in another language than its clause)."""
    return any(p.table("preference").entry(entry).pattern.match(text) for p in langs.all())


def _instead(obj: str, langs: Languages) -> tuple[str, str]:
    """The liked object, and the one it replaces ("green tea instead of coffee"), by the
    earliest `instead` frame of any language."""
    found = [p.table("preference").entry("instead").pattern.search(obj) for p in langs.all()]
    m = min((f for f in found if f), key=lambda f: f.start(), default=None)
    if not m:
        return obj, ""
    return obj[: m.start()], (m.group(1) or "").strip(" 。.!！")


def favourite_key(cat: str, cjk: bool, pack: LanguagePack | None = None) -> str:
    """A favourite's category by its head noun, so "programming language" and "language",
    编程语言 and 语言, colour and color are one key."""
    entry = (pack or all_on().of_han(cjk)).table("preference").entry("favourite")
    if cjk:
        head = zh_head(cat) or cat
    else:
        head = (en_head(cat) or cat).split()[-1].lower()
    if entry.setting("key") == "last_chars":
        chars = int(entry.setting("chars"))
        return head[-chars:] if len(head) > chars else head
    return dict(entry.setting("spelling", {})).get(head, head)


def favorite_slot(cat: str, obj: str, cjk: bool, pack: LanguagePack | None = None) -> Slot | None:
    """ "我最喜欢的颜色是蓝色": keyed by the category, so a new favourite replaces the old."""
    pack = pack or all_on().of_han(cjk)
    entry = pack.table("preference").entry("favourite")
    obj = obj.strip(" 。.!！~")
    template = entry.setting("template")
    if not obj or QUESTION_WORDS.search(obj) or template is None:
        return None
    subject, head = object_subject(obj, cjk)
    if subject.startswith("pref/"):
        subject = f"pref/{favourite_key(cat, cjk, pack)}"
    summary = str(template).format(c=cat, o=outside(obj, cjk))
    return Slot(PREFERENCE, subject, summary, ("like",), (head,), entry.confidence or 0.0)


def _like_slot(obj: str, cjk: bool, negative: bool, kind: str, table: Table) -> Slot | None:
    like = table.entry("like")
    obj = table.entry("object_tail").pattern.sub("", obj.strip(" 。.!！~"), count=1)
    if not obj or QUESTION_WORDS.search(obj) or not tokenize(obj, drop_stopwords=True):
        return None
    if table.entry("bare_verb").pattern.match(obj) or like.setting("template") is None:
        return None
    subject, head = object_subject(obj, cjk)
    verb = dict(like.setting("verbs", {}))["dislike" if negative else kind]
    summary = str(like.setting("template")).format(v=verb, o=outside(obj, cjk))
    tags = ("dislike",) if negative else ("like",)
    return Slot(PREFERENCE, subject, summary, tags, (head,), like.confidence or 0.0)


#: Preference classifiers in the order they are tried.
CLASSIFIERS: tuple[Callable[[str, bool, bool, Languages | None], Slot | None], ...] = (
    reply_language,
    reply_format,
    prohibition,
    _preference,
)
