"""Instruction classifiers: standing rules for the assistant itself. Reply language, reply
format and length, and prohibitions ("never use emojis", 以后不要加表情).

Each reads one clause (`standing` is true inside a "from now on" / 以后 instruction) and returns
a preference `Slot` or None. One-off requests ("用英文写这封邮件", "translate this") and
questions are not standing rules and yield nothing; nor is encouragement to the listener
("don't worry", 别担心). The words and frames are each language's `instruction` table
(`lang/<code>/instruction.yaml`); a rule that reads words of any language in one clause
("以后用English回复") reads them from every pack at once (`Languages.any_of`).
"""

from __future__ import annotations

import functools
import re

from ..lang import LanguagePack, Languages, all_on
from .lexicon import en_head, zh_head
from .slot import ONE_OFF, PREFERENCE, STANDING, Slot, instruction_summary

_TABLE = "instruction"
#: punctuation and spaces a standing reply rule may end on after the language's name
_TAIL_MARKS = re.compile(r"[\s.!！。]")


@functools.lru_cache(maxsize=8)
def _language_re(langs: Languages) -> tuple[re.Pattern[str], dict[str, str]]:
    """A language named after a verb of using it ("用英文", "in English", "以后用English"), in any
    language, and every language name (lower-cased) -> its code."""
    names: dict[str, str] = {}
    for pack in langs.all():
        entry = pack.table(_TABLE).entry("language_names")
        names.update(entry.setting("names", {}) if entry.on else {})
    alt = "|".join(sorted(names, key=len, reverse=True)) or "(?!)"
    verbs = langs.alternation(_TABLE, "language_verb") or "(?!)"
    pattern = re.compile(rf"(?:{verbs})\s*(?P<lang>{alt})(?![a-z])", re.IGNORECASE)
    return pattern, {k.lower(): v for k, v in names.items()}


def _wants_reply_rule(clause: str, standing: bool, tail: str, langs: Languages) -> bool:
    """A standing reply rule, not a one-off request: it names replies, says "always", or ends
    on the language itself ("请说中文"); "用英文写这封邮件" and translations do not count."""
    said = clause.rstrip()
    if ONE_OFF.search(clause) or said.endswith(("?", "？")):
        return False
    if langs.any_of(_TABLE, "question_end").search(said):
        return False
    at_end = not _TAIL_MARKS.sub("", langs.any_of(_TABLE, "trailing").sub("", tail))
    reply_verb = langs.any_of(_TABLE, "reply_verb")
    return bool(reply_verb.search(clause) or standing or STANDING.search(clause) or at_end)


def reply_language(
    clause: str, cjk: bool, standing: bool, langs: Languages | None = None
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
    clause: str, cjk: bool, standing: bool, langs: Languages | None = None
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
        summary = instruction_summary(clause, cjk)
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
    clause: str, cjk: bool, standing: bool, langs: Languages | None = None
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
    if too_short or encouraged or (ONE_OFF.search(rest) and not standing):
        return None
    if table.entry("about_you").pattern.search(rest) or _past_tense(rest, pack):
        return None
    head = (
        zh_head(table.entry("head_noise").pattern.sub("", rest))
        if cjk
        else rule_head_en(rest, pack)
    )
    summary = instruction_summary(clause, cjk)
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
    table = (pack or all_on().of_han(False)).table(_TABLE)
    rest = table.entry("adverbs").pattern.sub("", rest.strip(), count=1)
    verb, _, obj = rest.partition(" ")
    obj = table.entry("object_pronoun").pattern.sub("", obj, count=1)
    if obj and not table.entry("preposition").pattern.match(obj):
        return en_head(obj)
    return verb.lower()
