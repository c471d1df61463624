"""Preference and instruction classifiers: what the user likes and what the assistant must do.

The user's likes, dislikes, favourites and switches; standing rules for the assistant itself
(reply language, reply format, prohibitions).
"""

from __future__ import annotations

import functools
import re
import dataclasses
from ..lang import LanguagePack, Languages, all_on
from .slot import (
    en_head,
    heads,
    zh_head,
    one_off_words,
    PREFERENCE,
    standing_words,
    Slot,
    instruction_summary,
    object_subject,
    question_words,
    outside,
)
from collections.abc import Callable
from ..lang.pack import Table
from ..lang.text import tokenize

# Instruction classifiers: standing rules for the assistant itself. Reply language, reply
# format and length, and prohibitions ("never use emojis", 以后不要加表情).
#
# Each reads one clause (`standing` is true inside a "from now on" / 以后 instruction) and returns
# a preference `Slot` or None. One-off requests ("用英文写这封邮件", "translate this") and
# questions are not standing rules and yield nothing; nor is encouragement to the listener
# ("don't worry", 别担心). The words and frames are each language's `instruction` table
# (`lang/<code>/instruction.yaml`); a rule that reads words of any language in one clause
# ("以后用English回复") reads them from every pack at once (`Languages.any_of`).

_TABLE = "instruction"


@functools.lru_cache(maxsize=8)
def _language_re(langs: Languages) -> tuple[re.Pattern[str], dict[str, str]]:
    """A language named after a verb of using it ("用英文", "in English", "以后用English"), in any
    language, and every language name (lower-cased) -> its code."""
    names: dict[str, str] = {}
    for pack in langs.all():
        entry = pack.table(_TABLE).entry("language_names")
        names.update(entry.setting("names", {}) if entry.on else {})
    alt = "|".join(sorted(names, key=len, reverse=True)) or "(?!)"
    frame = "(?:{})\\s*(?P<lang>" + alt + ")(?![a-z])"
    return langs.any_of(_TABLE, "language_verb", frame), {k.lower(): v for k, v in names.items()}


def _wants_reply_rule(clause: str, standing: bool, tail: str, langs: Languages) -> bool:
    """A standing reply rule, not a one-off request: it names replies, says "always", or ends
    on the language itself ("请说中文"); "用英文写这封邮件" and translations do not count."""
    said = clause.rstrip()
    if one_off_words(langs).search(clause) or said.endswith(("?", "？")):
        return False
    if langs.any_of(_TABLE, "question_end").search(said):
        return False
    at_end = not langs.any_of(_TABLE, "tail_marks").sub(
        "", langs.any_of(_TABLE, "trailing").sub("", tail)
    )
    reply_verb = langs.any_of(_TABLE, "reply_verb")
    said_standing = standing or standing_words(langs).search(clause)
    return bool(reply_verb.search(clause) or said_standing or at_end)


def reply_language(
    clause: str, lang: LanguagePack, standing: bool, langs: Languages | None = None
) -> Slot | None:
    langs = langs or all_on()
    language, codes = _language_re(langs)
    m = language.search(clause)
    if not m or not _wants_reply_rule(clause, standing, clause[m.end() :], langs):
        return None
    code = codes[m.group("lang").lower()]
    table = langs.of(clause).table(_TABLE)
    label = table.entry("language_labels").setting("labels", {}).get(code)
    refused = bool(langs.any_of(_TABLE, "negation").search(clause[: m.start()]))
    said = table.entry("refuses_language" if refused else "wants_language")
    if label is None or said.setting("template") is None:
        return None
    summary = str(said.setting("template")).format(l=label)
    tags = ("prohibition",) if refused else ()
    return Slot(PREFERENCE, "reply_language", summary, tags, (code,), said.confidence or 0.0)


def _terse(clause: str, m: re.Match[str], pack: LanguagePack) -> bool:
    """A wish short enough to be one by itself ("简洁点", "太长了", "bullet points please")."""
    terse = pack.table(_TABLE).entry("terse")
    if terse.setting("max_chars") is not None:
        return len(clause) <= int(terse.setting("max_chars"))
    if terse.setting("max_words") is None:
        return False
    rest = re.findall(r"[a-z']+", (clause[: m.start()] + " " + clause[m.end() :]).lower())
    return len(clause.split()) <= int(terse.setting("max_words")) and all(
        w in terse.wordset for w in rest
    )


def _names_replies(clause: str, m: re.Match[str], pack: LanguagePack, langs: Languages) -> bool:
    """The wish names replies near its format or length word: "keep your replies short", not "been
    running longer since our last chat" (English: at most two words apart)."""
    verbs = list(langs.any_of(_TABLE, "reply_verb").finditer(clause))
    near = pack.table(_TABLE).entry("reply_verb").setting("near_words")
    if near is None or not verbs:
        return bool(verbs)

    def apart(a: int, b: int) -> int:
        return len(clause[a:b].split())

    return any(apart(min(v.end(), m.end()), max(v.start(), m.start())) <= near for v in verbs)


def reply_format(
    clause: str, lang: LanguagePack, standing: bool, langs: Languages | None = None
) -> Slot | None:
    langs = langs or all_on()
    pack = langs.of(clause)
    table = pack.table(_TABLE)
    for subject in ("reply_format", "reply_length"):
        m = langs.any_of(_TABLE, subject).search(clause)
        if not m or not _wants_reply_rule(clause, standing, "...", langs):
            continue
        if subject == "reply_length" and table.entry("length_idiom").pattern.search(clause):
            continue
        imperative = langs.any_of(_TABLE, "imperative").match(clause.strip())
        if not (_names_replies(clause, m, pack, langs) or imperative or _terse(clause, m, pack)):
            continue
        negated = langs.any_of(_TABLE, "negation").search(clause[: m.start()])
        tags = ("prohibition",) if negated else ()
        summary = instruction_summary(clause, lang, langs)
        return Slot(
            PREFERENCE, subject, summary, tags, (m.group().lower(),), _confidence(langs, subject)
        )
    return None


def _confidence(langs: Languages, entry: str) -> float:
    """The confidence of the first pack whose `entry` states one (the words that matched may be
    of another language than the clause)."""
    found = (p.table(_TABLE).entry(entry).confidence for p in langs.all())
    return next((c for c in found if c is not None), 0.0)


# --- prohibitions ----------------------------------------------------------------------------


def _too_short(rest: str, prohibit_settings: dict[str, int]) -> bool:
    if "min_chars" in prohibit_settings:
        return len(rest) < prohibit_settings["min_chars"]
    return len(rest.split()) < prohibit_settings.get("min_words", 0)


def _past_tense(rest: str, pack: LanguagePack) -> bool:
    """ "never had a chance", "never thought": a past tense after never/don't is a statement."""
    table = pack.table(_TABLE)
    word = (rest.split() or [""])[0].lower()
    return word in table.entry("irregular_past").wordset or bool(
        table.entry("regular_past").pattern.match(word)
    )


def prohibition(
    clause: str, lang: LanguagePack, standing: bool, langs: Languages | None = None
) -> Slot | None:
    langs = langs or all_on()
    pack = langs.of(clause)
    table = pack.table(_TABLE)
    prohibit = table.entry("prohibit")
    m = prohibit.pattern.match(clause)
    if not m:
        return None
    rest = m.group("rest").strip(" 。.!！")
    too_short = _too_short(rest, dict(prohibit.settings))
    encouraged = langs.any_of(_TABLE, "not_prohibition").match(rest)
    if too_short or encouraged or (one_off_words(langs).search(rest) and not standing):
        return None
    if table.entry("about_you").pattern.search(rest) or _past_tense(rest, pack):
        return None
    head = (
        zh_head(table.entry("head_noise").pattern.sub("", rest))
        if heads(lang) == "posseg"
        else rule_head_en(rest, pack)
    )
    summary = instruction_summary(clause, lang, langs)
    return Slot(
        PREFERENCE,
        f"prohibition/{head or rest[:12]}",
        summary,
        ("prohibition",),
        (head,),
        prohibit.confidence or 0.0,
    )


def rule_head_en(rest: str, pack: LanguagePack | None = None) -> str:
    """The object of "(never) <verb> <object>", or the verb itself when no object follows."""
    table = (pack or all_on().of("")).table(_TABLE)
    rest = table.entry("adverbs").pattern.sub("", rest.strip(), count=1)
    verb, _, obj = rest.partition(" ")
    obj = table.entry("object_pronoun").pattern.sub("", obj, count=1)
    if obj and not table.entry("preposition").pattern.match(obj):
        return en_head(obj)
    return verb.lower()


# Preference classifiers: the user's likes, dislikes, favourites and switches; the standing
# instructions to the assistant (reply language, format, prohibitions) come first
# (`instruction_rules`).
#
# Each reads one clause (`standing` is true inside a "from now on" / 以后 instruction) and returns
# a preference `Slot` or None. Questions yield nothing. A like and a later dislike of the same
# object share one subject key (see `lexicon.object_subject`). The frames, the words that turn a
# like into a dislike, a preference or a change, and the summaries' templates are each language's
# `preference` table (`lang/<code>/preference.yaml`).


def _switch(
    clause: str, lang: LanguagePack, table: Table, langs: Languages | None = None
) -> Slot | None:
    switch = table.entry("switch")
    m = switch.pattern.match(clause.replace("’", "'"))
    if not m:
        return None
    obj = ((m.groupdict().get("verb") or "") + m.group("obj")).rstrip(switch.setting("strip"))
    slot = _like_slot(obj, lang, False, "prefer", table, langs)
    # The user states their own change: a correction in their own words, not an inference.
    return dataclasses.replace(slot, tags=(*slot.tags, "switch")) if slot else None


def _preference(
    clause: str, lang: LanguagePack, standing: bool, langs: Languages | None = None
) -> Slot | None:
    langs = langs or all_on()
    pack = langs.of(clause)
    table = pack.table("preference")
    switched = _switch(clause, lang, table, langs)
    if switched:
        return switched
    # a favourite in any language's frame ("my favourite food is 火锅" holds Han)
    for other in langs.all():
        m = other.table("preference").entry("favourite").pattern.match(clause)
        if m:
            return favorite_slot(m.group("cat").strip(), m.group("obj"), lang, pack, langs)
    m = table.entry("like").pattern.match(clause.replace("’", "'"))
    if not m or _any_match(langs, "bad_object", m.group("obj").strip()):
        return None
    verb = m.group("verb").lower()
    negative = bool(table.entry("negative_verb").pattern.search(verb))
    said = verb + (m.group("adv") or "")
    kind = "prefer" if table.entry("prefer_verb").pattern.search(said) else "like"
    obj, instead = _instead(m.group("obj"), langs)
    slot = _like_slot(obj, lang, negative, kind, table, langs)
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


def favourite_key(cat: str, lang: LanguagePack, pack: LanguagePack | None = None) -> str:
    """A favourite's category by its head noun, so "programming language" and "language",
    编程语言 and 语言, colour and color are one key."""
    entry = (pack or lang).table("preference").entry("favourite")
    if heads(lang) == "posseg":
        head = zh_head(cat) or cat
    else:
        head = (en_head(cat) or cat).split()[-1].lower()
    if entry.setting("key") == "last_chars":
        chars = int(entry.setting("chars"))
        return head[-chars:] if len(head) > chars else head
    return dict(entry.setting("spelling", {})).get(head, head)


def favorite_slot(
    cat: str,
    obj: str,
    lang: LanguagePack,
    pack: LanguagePack | None = None,
    langs: Languages | None = None,
) -> Slot | None:
    """ "我最喜欢的颜色是蓝色": keyed by the category, so a new favourite replaces the old."""
    pack = pack or lang
    entry = pack.table("preference").entry("favourite")
    obj = obj.strip(" 。.!！~")
    template = entry.setting("template")
    if not obj or question_words(langs).search(obj) or template is None:
        return None
    subject, head = object_subject(obj, lang)
    if subject.startswith("pref/"):
        subject = f"pref/{favourite_key(cat, lang, pack)}"
    summary = str(template).format(c=cat, o=outside(obj, lang))
    return Slot(PREFERENCE, subject, summary, ("like",), (head,), entry.confidence or 0.0)


def _like_slot(
    obj: str,
    lang: LanguagePack,
    negative: bool,
    kind: str,
    table: Table,
    langs: Languages | None = None,
) -> Slot | None:
    like = table.entry("like")
    obj = table.entry("object_tail").pattern.sub("", obj.strip(" 。.!！~"), count=1)
    if (
        not obj
        or question_words(langs).search(obj)
        or not tokenize(obj, drop_stopwords=True, langs=langs)
    ):
        return None
    if table.entry("bare_verb").pattern.match(obj) or like.setting("template") is None:
        return None
    subject, head = object_subject(obj, lang)
    verb = dict(like.setting("verbs", {}))["dislike" if negative else kind]
    summary = str(like.setting("template")).format(v=verb, o=outside(obj, lang))
    tags = ("dislike",) if negative else ("like",)
    return Slot(PREFERENCE, subject, summary, tags, (head,), like.confidence or 0.0)


#: Preference classifiers in the order they are tried.
CLASSIFIERS: tuple[Callable[[str, LanguagePack, bool, Languages | None], Slot | None], ...] = (
    reply_language,
    reply_format,
    prohibition,
    _preference,
)
