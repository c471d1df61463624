"""Profile classifiers: name, nickname, birthday, location, hometown, employer, job, allergies,
age, education; and whose fact it is (a statement about another person of the user's world).
"""

from __future__ import annotations

import functools
import re
from ..core.subjects import PERSON_TAG
from ..lang import LanguagePack, Languages, all_on, Entry
from ..lang.pack import Table
from .slot import (
    relation_names,
    relation_words,
    FACT,
    Slot,
    third_person,
    singular,
    future_words,
    PROFILE,
    value_of,
)
from collections.abc import Callable, Iterator

# Whose fact is it? A statement about another person of the user's world is a fact about them.
#
# "My daughter Lina is 7", "My wife Sara works as a pilot", 我女儿Lina对芒果过敏, 同事小王喜欢羽毛球:
# each speaks of a person the user names by relation (and often by name). It is filed under that
# person, never as a profile fact of the user ("用户对女儿Lina对芒果过敏" is wrong twice): a fact with
# the subject `<relation>/<name>/<attribute>` (`daughter/lina/age`, `daughter/lina/allergy/mango`),
# so a later age replaces the age and leaves the allergy alone; the person's name as its entity;
# and the relation in both languages as its unshown detail, so "how old is my daughter?" and
# 我女儿多大了？ both find it, by word and by meaning.
#
# The relations are data (each language's `lexicon` table, `relations`); the person frame and the attributes a predicate
# names (age, allergy, job, likes) are each language's `people` table (`lang/<code>/people.yaml`).


def _alternation(pack: LanguagePack) -> str:
    """The relation words of a language as one alternation, longest first."""
    return _longest_first(tuple(relation_words(pack)))


@functools.lru_cache(maxsize=8)
def _longest_first(words: tuple[str, ...]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


def _attribute(pred: str, table: Table) -> str:
    """The attribute a predicate names; another predicate is keyed by its own first words, so
    two different things said of one person never replace each other (是本科毕业的 / 是医生)."""
    for entry in table.values():
        key = entry.setting("attribute")
        m = entry.pattern.search(pred) if key else None
        if m:
            return str(key).format(x=(m.groupdict().get("x") or "").strip().lower())
    head = table.entry("person").setting("key_head", {})
    words = pred[: head["chars"]] if "chars" in head else " ".join(pred.split()[: head["words"]])
    return "said/" + words.strip(" ，,。.!！").lower()


def person_fact(clause: str, lang: LanguagePack, langs: Languages | None = None) -> Slot | None:
    """The fact a clause states about a person of the user's world, or None."""
    pack = (langs or all_on()).of(clause)
    table = pack.table("people")
    person = table.entry("person")
    relations = _alternation(pack)
    if not relations:
        return None
    m = person.regex(relations=relations).match(clause.strip(" 。.!！"))
    if not m or not m.group("pred").strip():
        return None
    word = m.group("rel")
    relation = relation_words(pack)[word.lower()]
    name = m.group("name") or ""
    who = f"{relation}/{name.lower()}" if name else relation
    attribute = _attribute(m.group("pred").strip(), table)
    body = table.entry("remember").pattern.sub("", clause.strip(), count=1)
    owner = table.entry("owner")  # 我女儿 / 同事小王 -> 我的女儿 / 我的同事小王
    body = owner.pattern.sub(str(owner.setting("replacement", "")), body, count=1)
    detail = " ".join(
        dict.fromkeys([relation, *relation_names(relation, langs), *([name] if name else [])])
    )
    return Slot(
        FACT,
        f"{who}/{attribute}",
        third_person(body, lang),
        (PERSON_TAG, relation),
        tuple(x for x in (name, word) if x),
        person.confidence or 0.0,
        detail=detail,
    )


# Profile classifiers: name, nickname, birthday, location, hometown, employer, job, allergies,
# age and education.
#
# Each reads one clause in Chinese or English and returns a `Slot` keyed by the profile field
# (`name`, `location`, `allergy/<thing>` ...), or None. Only what is stated is read: "我朋友住在北京"
# and "I work from home" are not the user's location or employer. The frames, the values that are
# no value, and the summaries' templates are each language's `profile` table
# (`lang/<code>/profile.yaml`): an entry's `frame` names the field it reads. Frames of every
# language are tried on a clause, its own language's first ("I'm allergic to 花生" holds Han); the
# summary is said in the clause's language.

_TABLE = "profile"
#: the fields a plain value frame reads, in the order they are tried
_FIELDS = ("name", "nickname", "birthday", "location", "hometown", "employer")
#: an age outside these years is a number of something else
_AGES = range(10, 111)


def _frames(langs: Languages, clause: str, frame: str) -> Iterator[tuple[LanguagePack, Entry]]:
    """The entries that read `frame`, the clause's own language first, in table order."""
    own = langs.of(clause)
    for pack in (own, *(p for p in langs.all() if p is not own)):
        for entry in pack.table(_TABLE).values():
            if entry.setting("frame") == frame:
                yield pack, entry


def _fill(table: Table, name: str, **values: str) -> str | None:
    template = table.entry(name).setting("template")
    return None if template is None else str(template).format(**values)


def _jobs(pack: LanguagePack) -> str:
    return "|".join(pack.table(_TABLE).entry("jobs").words)


def _allergy(clause: str, lang: LanguagePack, langs: Languages | None = None) -> Slot | None:
    """ "I'm allergic to peanuts", 我对花生过敏; "I'm not allergic to penicillin after all" /
    我其实对青霉素不过敏 is a change of the same key (the old allergy is retired)."""
    langs = langs or all_on()
    table = langs.of(clause).table(_TABLE)
    for _, frame in _frames(langs, clause, "allergy"):
        m = frame.pattern.search(clause)
        if not m:
            continue
        raw = table.entry("allergy_degree").pattern.sub("", m.group("x"), count=1)
        raw = table.entry("allergy_lead").pattern.sub("", raw, count=1)
        negation = table.entry("allergy_negative")
        before = clause[: m.start("x")] if negation.setting("reads") == "before" else raw
        negative = bool(negation.pattern.search(before))
        raw = table.entry("allergy_tail").pattern.sub("", raw, count=1)
        thing = value_of(raw, lang, langs)
        if not thing or table.entry("allergy_bad_start").pattern.match(thing):
            return None
        said = table.entry("allergy")
        key = thing
        if said.setting("key") == "singular_words":
            key = " ".join(singular(w) for w in thing.lower().split())
        template = said.setting("negated_template" if negative else "template")
        if template is None:
            return None
        summary = str(template).format(t=thing)
        tags = ("allergy", "health", "switch") if negative else ("allergy", "health")
        conf = said.confidence or 0.0
        if negative:
            return Slot(PROFILE, f"allergy/{key}", summary, tags, (thing,), conf, thing)
        return Slot(PROFILE, f"allergy/{key}", summary, tags, (thing,), conf)
    return None


def as_role(lead: str, following: str, langs: Languages | None = None) -> str | None:
    """ "As a nurse", then a clause of the speaker's ("I work nights"), says "I am a nurse"
    (作为一名护士，我… says 我是护士): that statement, else None ("As a teacher, how would you
    ..." asks a role of the assistant; "as a kid" is no job)."""
    lead, following = lead.strip(), following.strip()
    for pack in (langs or all_on()).all():
        table = pack.table(_TABLE)
        m = table.entry("as_role").regex(jobs=_jobs(pack)).match(lead)
        if m:
            if not table.entry("as_role_speaker").pattern.match(following):
                return None
            return str(table.entry("as_role").setting("statement")).format(x=m.group("x"))
    return None


def _bad_value(value: str, field: str, langs: Languages) -> bool:
    """A value no field takes (我叫了 ..., "call me later"), in any language's list; a Chinese
    one also as the value's start (`bad_prefix`)."""
    for pack in langs.all():
        entry = pack.table(_TABLE).entry(field)
        bad = entry.setting("bad_values", [])
        if value.lower() in bad:
            return True
        if entry.setting("bad_prefix") and any(value.startswith(b) for b in bad):
            return True
    return False


def _profile(clause: str, lang: LanguagePack, langs: Languages | None = None) -> Slot | None:
    langs = langs or all_on()
    table = langs.of(clause).table(_TABLE)
    for field in _FIELDS:
        for _, frame in _frames(langs, clause, field):
            m = frame.pattern.search(clause)
            value = value_of(m.group("x"), lang, langs) if m else None
            if not value:
                continue
            if _bad_value(value, field, langs):
                return None
            tags: tuple[str, ...] = ()
            subject, said = field, table.entry(field)
            if field == "employer" and table.entry("work_city").pattern.search(value):
                subject = "work_location"
            if field == "location" and future_words(langs).search(clause):
                tags, said = ("planned",), table.entry("planned_move")
            summary = _fill(table, said.name, v=value)
            if summary is None:
                return None
            return Slot(PROFILE, subject, summary, tags, (value,), said.confidence or 0.0)
    return None


def _article(word: str) -> str:
    """ "a" or "an" as the word is said: an engineer, an MBA (em-), a Bachelor's degree."""
    vowel = word[:1].lower() in "aeiou" or (word[:2].isupper() and word[0] in "FHLMNRSX")
    return "an" if vowel else "a"


def _job(clause: str, lang: LanguagePack, langs: Languages | None = None) -> Slot | None:
    pack = (langs or all_on()).of(clause)
    table = pack.table(_TABLE)
    for entry in table.values():
        if entry.setting("frame") != "job":
            continue
        m = entry.regex(jobs=_jobs(pack)).search(clause)
        value = value_of(m.group("x"), lang, langs) if m else None
        if value:
            summary = _fill(table, "job", v=value, a=_article(value))
            if summary is None:
                return None
            return Slot(PROFILE, "job", summary, (), (value,), table.entry("job").confidence or 0.0)
    return None


def _age(clause: str, lang: LanguagePack, langs: Languages | None = None) -> Slot | None:
    """How old the speaker is now: "I'm 32", "I'm a 32-year-old nurse", "I just turned 40",
    我今年32岁; not an age of the past (我20岁的时候, "when I was 20"), nor "I'm 5 minutes away",
    "I'm 100%" or "I'm 12.5% Irish"."""
    table = (langs or all_on()).of(clause).table(_TABLE)
    frames = (e.pattern for e in table.values() if e.setting("frame") == "age")
    m = next((m for r in frames if (m := r.search(clause))), None)
    if not m or (m.group("x").isdigit() and int(m.group("x")) not in _AGES):
        return None
    if table.entry("age_past").pattern.search(clause[: m.start()]):
        return None
    value = m.group("x")
    summary = _fill(table, "age", v=value)
    if summary is None:
        return None
    return Slot(PROFILE, "age", summary, (), (value,), table.entry("age").confidence or 0.0)


def _degree(m: re.Match[str], level: str, table: Table) -> Slot | None:
    said = table.entry("degree")
    field = m.groupdict().get("f")
    written = (m.groupdict().get("d") or "").replace("’", "'")
    name = dict(said.setting("levels", {})).get(level, level)
    summary = _fill(table, "degree", v=name, a=_article(written), d=written)
    if summary is None:
        return None
    if field and said.setting("field_template") is not None:
        summary += str(said.setting("field_template")).format(f=field)
    tags = ("education",)
    return Slot(
        PROFILE, f"degree/{level}", summary, tags, (field or level,), said.confidence or 0.0
    )


def _education(clause: str, lang: LanguagePack, langs: Languages | None = None) -> Slot | None:
    """Degrees, majors and schools: each degree and school its own key, since having one does not
    undo another; "I have a bachelor's in history" and 我毕业于浙江大学."""
    langs = langs or all_on()
    table = langs.of(clause).table(_TABLE)
    for entry in table.values():
        if entry.setting("frame") == "degree" and (m := entry.pattern.search(clause)):
            return _degree(m, str(entry.setting("level")), table)
    for _, frame in _frames(langs, clause, "major"):
        if (m := frame.pattern.search(clause)) and (value := value_of(m.group("x"), lang, langs)):
            summary = _fill(table, "major", v=value)
            conf = table.entry("major").confidence or 0.0
            if summary is None:
                return None
            return Slot(PROFILE, "major", summary, ("education",), (value,), conf)
    for _, frame in _frames(langs, clause, "school"):
        if (m := frame.pattern.search(clause)) and (value := value_of(m.group("x"), lang, langs)):
            if any(
                p.table(_TABLE).entry("school_generic").pattern.match(value.lower())
                for p in langs.all()
            ):
                return None
            summary = _fill(table, "school", v=value)
            conf = table.entry("school").confidence or 0.0
            if summary is None:
                return None
            return Slot(PROFILE, f"school/{value.lower()}", summary, ("education",), (value,), conf)
    return None


#: Profile classifiers in the order they are tried.
CLASSIFIERS: tuple[Callable[[str, LanguagePack, Languages | None], Slot | None], ...] = (
    _allergy,
    _profile,
    _job,
    _age,
    _education,
)
