"""The English change grammar: switched / moved / changed (over) to, replaced A with B, sold A and
bought B, left A and joined B, joined / started at, transferred to, switched careers, my new X
is, now my X is, X is my favourite Y now / these days, I report to, no longer, don't ...
anymore, stopped, quit, gave up, I'm X now, I became X; and attribute facts ("my X is Y",
"I drive a Y"). Time words are never a value ("switched to a Pixel 8 yesterday" names the Pixel 8).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..slot import en_head
from ..slot import object_subject
from ..slot import FACT, PREFERENCE, PROFILE, I, QUESTION_WORDS, Slot, third_person
from .shared import NOT_STOPPED, favourite_changed, role_keys, role_subject, switch

#: time and manner words trailing a value: "a Pixel 8 yesterday", "Rust these days"
_TAIL = re.compile(
    r"(?:\s*,)?\s+(?:yesterday|today|last (?:week|month|year|night|weekend)|this (?:week|month|year|morning|semester|spring|"
    r"summer|autumn|fall|winter)|recently|lately|now|these days|nowadays|anymore|any more|again|instead(?: of .+)?|"
    r"in (?:january|february|march|april|may|june|july|august|september|october|november|december|\d{4})|"
    r"(?:a|an|one|two|three|four|five|six|\d+) (?:days?|weeks?|months?|years?) ago|for (?:coding|work)|at work|"
    r"after all|completely|entirely|full[- ]time)\b.*$",
    I,
)


def _value(raw: str) -> str | None:
    value = _TAIL.sub("", raw.strip(" .,!;")).strip(" .,!;")
    value = re.sub(r"^(?:a|an|the|my|our)\s+", "", value, flags=I)
    if not value or len(value.split()) > 6 or QUESTION_WORDS.search(value):
        return None
    return value


# ---- employer, career, school ----------------------------------------------------------------

_JOB_CHANGE = (
    re.compile(
        r"^i (?:left|quit)\s+(?:my (?:old )?job(?: at (?P<old>[^,]+?))?|(?P<old2>[A-Z][\w&.\- ]*?))"
        r"(?:,|\s+and|\s+to)?\s+(?:joined|moved to|started (?:a new job )?at|now work (?:at|for)|went to)\s+(?P<new>.+)$",
        I,
    ),
    re.compile(
        r"^i(?:'ve| have)?\s+(?:just\s+)?(?:joined|started (?:a new job|working) (?:at|for)|started at)\s+(?P<new>.+)$",
        I,
    ),
    re.compile(r"^[Ii](?:'m| am) (?:at|with) (?P<new>[A-Z][\w&.\- ]+?) now$"),
    re.compile(r"^(?:now|these days) i work (?:at|for) (?P<new>.+)$", I),
)
_CAREER = re.compile(
    r"^i (?:switched|changed) careers?(?:,| and)?\s+(?:i'm|i am|now i'm|became)\s+(?:a |an )?(?P<new>[a-z][a-z ]{1,30}?)"
    r"(?: now)?$",
    I,
)
_TRANSFER = re.compile(
    r"^i (?:transferred|switched schools|changed schools) to (?P<v>(?-i:[A-Z])[\w.&' \-]{1,40}?)"
    r"(?P<term> this (?:semester|term|fall|spring|year))?$",
    I,
)
_SCHOOL_WORD = re.compile(r"\b(?:university|college|school|institute|academy|MIT)\b", I)


def _school_change(clause: str) -> Slot | None:
    """ "I transferred to MIT this semester": a school is named by a school word or a term."""
    m = _TRANSFER.match(clause)
    if not m or not (m.group("term") or _SCHOOL_WORD.search(m.group("v"))):
        return None
    value = m.group("v").strip()
    return switch("school", f"The user studies at {value}", value, kind=FACT)


def _career(clause: str) -> Slot | None:
    """ "I switched careers and I'm a paramedic now": the job changed."""
    m = _CAREER.match(clause)
    value = _value(m.group("new")) if m else None
    if not value:
        return None
    return switch("job", f"The user is a {value}", value)


def _employer_change(clause: str) -> Slot | None:
    for regex in _JOB_CHANGE:
        m = regex.match(clause)
        if not m:
            continue
        new = _value(m.group("new"))
        if not new or not new[:1].isupper():  # "joined a gym" is no employer
            return None
        groups = m.groupdict()
        old = (groups.get("old") or groups.get("old2") or "").strip()
        return switch("employer", f"The user works at {new}", new, old)
    return None


# ---- "my new X is Y", "now my X is Y", favourites -------------------------------------------

_MY_NEW = re.compile(
    r"^(?:and\s+)?(?:now\s+)?my (?P<new>new\s+)?(?P<k>[a-z][a-z' \-]{1,24}?) is (?:now\s+)?(?P<v>.+?)(?: now)?$",
    I,
)
_NOW_MY = re.compile(
    r"^(?:so\s+)?(?:now|these days) my (?P<k>[a-z][a-z' \-]{1,24}?) is (?P<v>.+)$", I
)
#: "photography is my hobby now": the value first, the attribute after "is my"
_IS_MY_NOW = re.compile(
    r"^(?P<v>[\w.+#\- ]{1,30}?) (?:is|are) my (?:new )?(?P<k>[a-z][a-z ]{1,24}?) (?:now|these days|nowadays)$",
    I,
)
_REPORT = re.compile(r"^i (?:now )?report to (?P<v>.+?)(?: now)?$", I)
_FAV_NOW = re.compile(
    r"^(?:(?:these days|lately|now|nowadays),?\s+)?(?P<v>[\w.+#\- ]{1,30}?) is my (?:new )?(?:favou?rite|preferred) "
    r"(?P<k>[a-z][a-z ]{1,24}?)(?: (?:now|these days|nowadays))?$",
    I,
)


def subject_of_role(key: str) -> str:
    """The subject a statement of the speaker's `key` is filed under (a role that passes to a new
    holder, "my landlord", keeps one subject whoever holds it); recall reads requests by it."""
    return role_subject(key, role_keys("en"), en_head)


def _my_new(clause: str) -> Slot | None:
    """ "My new manager is Sara", "now my boss is Daniel", "photography is my hobby now"."""
    m = _NOW_MY.match(clause) or _MY_NEW.match(clause) or _IS_MY_NOW.match(clause)
    if not m or (m.re is _MY_NEW and not m.group("new") and not re.search(r"\bnow\b", clause, I)):
        return None
    key, value = m.group("k"), _value(m.group("v"))
    if not value or re.search(r"favou?rite|name", key, I):
        return None
    summary = f"The user's {key.strip()} is {value}"
    return switch(subject_of_role(key), summary, value, kind=FACT)


def _report_to(clause: str) -> Slot | None:
    m = _REPORT.match(clause)
    value = _value(m.group("v")) if m else None
    if not value:
        return None
    return switch("manager", f"The user reports to {value}", value, kind=FACT)


def _favourite_now(clause: str) -> Slot | None:
    """ "These days Rust is my favourite language" (keyed by category)."""
    m = _FAV_NOW.match(clause)
    if not m:
        return None
    return favourite_changed(m.group("k"), _value(m.group("v")), False)


# ---- devices and things replaced ------------------------------------------------------------

_REPLACED = (
    re.compile(
        r"^i (?:replaced|swapped) (?:my |the |our )?(?P<old>.+?) (?:with|for) (?:a |an |the )?(?P<new>.+)$",
        I,
    ),
    re.compile(
        r"^i sold (?:my |the |our )?(?P<old>.+?) and (?:bought|got) (?:a |an |the )?(?P<new>.+)$", I
    ),
    re.compile(
        r"^i(?:'ve| have)?\s+(?:now\s+|recently\s+|just\s+)?(?:switched|changed|converted|moved over|went over)\s+(?:over\s+)?"
        r"(?:from (?:the |my |a |an )?(?P<old>.+?)\s+)?to (?:a |an |the )?(?P<new>.+)$",
        I,
    ),
    re.compile(
        r"^i(?:'ve| have)?\s+(?:now\s+)?(?:moved|switched) (?:my (?P<what>[a-z ]+?) )?from (?P<old>.+?) to (?P<new>.+)$",
        I,
    ),
)


def _replaced(clause: str) -> Slot | None:
    """ "I switched to a Pixel 8 yesterday", "I replaced my ThinkPad with a MacBook Air"."""
    text = clause.replace("’", "'")
    for regex in _REPLACED:
        m = regex.match(text)
        if not m:
            continue
        value = _value(m.group("new"))
        if not value:
            return None
        old = (m.groupdict().get("old") or "").strip(" ，,")
        old = (_value(old) or "") if old else ""
        subject, head = object_subject(value, False)
        summary = (
            f"The user switched from {old} to {value}" if old else f"The user switched to {value}"
        )
        return Slot(PREFERENCE, subject, summary, ("switch",), (value, head), 0.9, old)
    return None


# ---- stopped, started, "I'm X now" -----------------------------------------------------------

#: a stop is said with "no longer", "not ... anymore" or a verb of stopping; a bare "I'm not X"
#: ("I'm not entirely sure yet", "I'm not young either") is how things are, no habit that ended
_STOPPED = (
    re.compile(
        r"^i(?:'m| am)?\s*(?:have\s+|'ve\s+)?no longer\s+(?P<what>.+?)(?:\s+(?:anymore|any more))?$",
        I,
    ),
    re.compile(r"^i(?:'m| am)\s+not\s+(?P<what>.+?)\s+(?:anymore|any more)$", I),
    re.compile(r"^i (?:don'?t|do not|no longer) (?P<what>.+?)\s+(?:anymore|any more)$", I),
    re.compile(r"^i(?:'ve| have)?\s+(?:stopped|quit|gave up|given up|quitted)\s+(?P<what>.+)$", I),
)


#: what is left after "quit" when the thing is left unsaid and only the time is: "I quit two
#: months ago" (it was named earlier; a duration is no habit the user stopped)
_TIME = (
    r"(?:(?:for|since)\s+)?(?:(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|"
    r"several|some|\d+)\s+(?:days?|weeks?|months?|years?)(?:\s+ago)?|last\s+(?:week|month|year)|"
    r"a while(?:\s+ago)?|recently|yesterday|today)"
)
_ONLY_TIME = re.compile(r"^" + _TIME + "$", I)
#: "I quit smoking two months ago": the time is not the habit
_TRAILING_TIME = re.compile(r"\s+" + _TIME + "$", I)


def _stopped(clause: str) -> Slot | None:
    """ "I don't play tennis anymore", "I quit smoking"."""
    for regex in _STOPPED:
        m = regex.match(clause.replace("’", "'"))
        if not m:
            continue
        what = m.group("what").strip(" ，,。.")
        if NOT_STOPPED.match(what) or len(what.split()) > 8 or _ONLY_TIME.match(what):
            return None
        what = _TRAILING_TIME.sub("", what)
        subject, head = object_subject(what, False)
        summary = third_person(clause, False)
        return Slot(PREFERENCE, subject, summary, ("switch", "stopped"), (head,), 0.9, head)
    return None


_DIETS = r"vegetarian|vegan|pescatarian|pescetarian|flexitarian|omnivore|keto|paleo|gluten[- ]free|dairy[- ]free|halal|kosher"
_DIET = (
    re.compile(
        r"^i(?:'m| am) (?:now |also )?(?:a |an )?(?:strict )?(?P<v>" + _DIETS + r")(?P<now> now)?$",
        I,
    ),
    re.compile(
        r"^i (?:became|went|turned|have become|'ve become|started eating) (?:a |an )?(?P<v>"
        + _DIETS
        + r")\b.*$",
        I,
    ),
    re.compile(r"^i follow (?:a |an )?(?P<v>" + _DIETS + r") diet$", I),
    re.compile(r"^(?:so )?i(?:'m| am) (?P<v>" + _DIETS + r") now$", I),
)


def _diet(clause: str) -> Slot | None:
    for regex in _DIET:
        m = regex.match(clause)
        if not m:
            continue
        value = m.group("v").lower()
        changed = bool(re.search(r"\bnow\b|became|went|turned|started", clause, I))
        tags = ("switch", "diet") if changed else ("diet",)
        summary = f"The user is {value}"
        return Slot(PROFILE, "diet", summary, tags, (value,), 0.9 if changed else 0.85)
    return None


# ---- attribute facts: "my X is Y", "I drive a Y" ---------------------------------------------

_MY_IS = re.compile(
    r"^my (?P<k>[a-z][a-z' \-]{1,24}?) (?:is|are) (?:called |named )?(?P<v>[^,;]{1,40})$", I
)
#: (pattern, subject (empty: the value's own key), summary template (empty: the clause itself))
_ATTR_VERBS = (
    (
        re.compile(r"^[Ii] drive (?:a |an )?(?P<v>[A-Z][\w\- ]{1,30})$"),
        "car",
        "The user drives a {v}",
    ),
    (
        re.compile(r"^i(?:'m| am) on the (?P<v>[\w\- ]{1,20}) team$", I),
        "team",
        "The user is on the {v} team",
    ),
    (
        re.compile(r"^i (?:study|am studying|'m studying) at (?P<v>.{2,40})$", I),
        "school",
        "The user studies at {v}",
    ),
    (re.compile(r"^i(?:'m| am) studying (?P<v>[a-z ]{3,30})$", I), "major", "The user studies {v}"),
    (
        re.compile(
            r"^[Ii] (?:use|code in|write my notes in|read on) (?:a |an )?"
            r"(?P<v>[A-Z][\w.\-]*(?: [A-Z0-9][\w.\-]*){0,3})"
            r"(?: (?:for work|as my browser|for coding))?$"
        ),
        "",
        "The user uses {v}",
    ),
    (
        re.compile(r"^i (?:commute|go to work|get to work) by (?P<v>[a-z ]{2,20})$", I),
        "commute",
        "The user commutes by {v}",
    ),
)


def _attribute(clause: str) -> Slot | None:
    """Plain attribute facts the user states about themselves; the key is the attribute."""
    m = _MY_IS.match(clause)
    if m:
        key, value = m.group("k"), _value(m.group("v"))
        if not value or re.search(r"favou?rite|preferred|name|birthday", key, I):
            return None
        return Slot(FACT, subject_of_role(key), third_person(clause, False), (), (value,), 0.85)
    for regex, subject, template in _ATTR_VERBS:
        m = regex.match(clause)
        if m:
            value = _value(m.group("v")) if subject != "team" else m.group("v")
            if not value:
                return None
            key = subject or object_subject(value, False)[0]
            summary = (template or third_person(clause, False)).format(v=value)
            return Slot(FACT, key, summary, (), (value,), 0.85)
    return None


#: "home for me is Leeds", "my home is in Austin now", "our home is now Bristol": a place is a
#: name ("my home is a mess" is no place to live)
_HOME = re.compile(
    r"^(?:(?:my|our)\s+)?home(?:\s+for\s+(?:me|us))?(?:\s+(?:now|these days))?\s+is\s+"
    r"(?:now\s+)?(?:in\s+)?(?P<v>(?-i:[A-Z])[\w.'\- ]*?)(?:\s+for\s+(?:me|us))?$",
    I,
)


def _home(clause: str) -> Slot | None:
    """Where the user's home is: their location, the key a move supersedes ("I've been living in
    Bristol since last month" after "Home for me is Leeds")."""
    m = _HOME.match(clause)
    value = _value(m.group("v")) if m else None
    if not value:
        return None
    return Slot(PROFILE, "location", f"The user lives in {value}", (), (value,), 0.85)


_TEAM = re.compile(
    r"^i(?:'ve| have)?\s+(?:just\s+|recently\s+)?(?:moved|switched|transferred|changed|joined|went)\s+(?:over\s+)?"
    r"(?:to\s+)?the (?P<v>[\w\- ]{1,24}?) team\b.*$",
    I,
)


def _team(clause: str) -> Slot | None:
    """ "I moved to the search team in March": the team changed (key "team")."""
    m = _TEAM.match(clause)
    if not m:
        return None
    value = m.group("v").strip()
    return switch("team", f"The user is on the {value} team", value, kind=FACT)


#: English change classifiers in the order they are tried (moves are location rules here).
CLASSIFIERS: tuple[Callable[[str], Slot | None], ...] = (
    _home,
    _team,
    _career,
    _school_change,
    _employer_change,
    _report_to,
    _favourite_now,
    _my_new,
    _diet,
    _replaced,
    _stopped,
    _attribute,
)
