"""What a request says when it asks about a profile subject without naming it.

A profile fact is filed under its subject ("age", "degree/bachelor", "employer"), and the
structure signal matches a request that names the subject ("what is my age?",
`channels.subject_matches`). People rarely ask that way: "how old am I?", "when did I
graduate?", "where do I work?", 我今年多大了, 我在哪儿上班. This table holds, per subject root (the
part before "/"), the words such a question uses, English and Chinese side by side: the
attribute's own vocabulary, not any one question's wording. English words at word boundaries;
a Chinese one not inside a longer dictionary word that says something else (哪家保险公司 asks for
an insurer, not the user's company; 工作室 is a studio).

A request that asks about a subject asks about its value too: "how long have I been in my current
role?" is about being a Senior Marketing Specialist when the profile says the user is one, and a
memory that names the value ("as a Senior Marketing Specialist, I ...") speaks of it, as a memory
that names taekwondo speaks of martial arts (recall/kinds.py). `profile_kinds` makes each asked
subject's current values (its active profile memories') the members of a kind the request names by
its vocabulary words.
"""

from __future__ import annotations

import re
from typing import Iterable

from ..lang.text import has_cjk, search_tokens
from ..types import MemoryRecord, MemoryType, Status
from .kinds import Kind
from .reference import inside_longer_word

_EDUCATION = (
    r"\bgraduat\w*|\bcollege\b|\buniversit(?:y|ies)\b|\bdegrees?\b|\bdiploma\b|\bmajor(?:ed)?\b"
    r"|\bstud(?:y|ied)\b|\balma mater\b|毕业|大学|学历|学位|文凭|专业|读的书|上的学"
)
_WORK = (
    r"\bwork(?:s|ed|ing)?\b|\bjobs?\b|\bemploy(?:er|ed|ment)\b|\bcareer\b|\bprofession\b"
    r"|\boccupation\b|\bcurrent role\b|\bfor a living\b|工作|上班|职业|职位|公司|单位|干什么的|做什么的"
)
_HOME = (
    r"\blive[sd]?\b|\bliving\b|\bhometown\b|\bgrew up\b|\bmoved?\b|\bresiden\w*"
    r"|住在|住哪|住的|老家|家乡|搬到|搬家|在哪里长大"
)

#: subject root -> the words of a question about it (a request may name none of the subject)
ASKED_BY: dict[str, str] = {
    "age": r"\bhow old\b|\bage[sd]?\b|\byears? (?:older|younger)\b|\b(?:older|younger) than\b"
    r"|多大|几岁|年龄|岁数|年纪",
    "birthday": r"\bbirthdays?\b|\bborn\b|\bdate of birth\b|生日|出生",
    "degree": _EDUCATION,
    "major": _EDUCATION,
    "school": _EDUCATION,
    "job": _WORK,
    "employer": _WORK,
    "work_location": _WORK,
    "location": _HOME,
    "hometown": _HOME,
    "name": r"\bname\b|\bcalled\b|名字|叫什么|怎么称呼",
    "nickname": r"\bnickname\b|\bcall me\b|外号|昵称|小名",
}


#: the table compiled once (a request's subjects are the user's own: no cache keyed by them)
_PATTERNS = {root: re.compile(words, re.IGNORECASE) for root, words in ASKED_BY.items()}


#: each vocabulary once (several roots share one: degree, major and school)
_VOCABULARIES = tuple({p.pattern: p for p in _PATTERNS.values()}.values())


def vocabularies(text: str) -> tuple[re.Pattern[str], ...]:
    """The subject vocabularies the text uses ("where do I work now?": work's)."""
    return tuple(p for p in _VOCABULARIES if _uses(p, text))


def roots_used(text: str) -> frozenset[str]:
    """The subject roots whose vocabulary the text uses ("where do I work?": job, employer,
    work_location; 职业: the same)."""
    return frozenset(root for root, p in _PATTERNS.items() if _uses(p, text))


def asks_about(subject: str, text: str) -> bool:
    """Whether the request text asks about this profile subject in the subject's vocabulary
    (the subject's root: "degree/master" -> "degree")."""
    pattern = _PATTERNS.get(subject.lower().split("/", 1)[0].strip())
    return pattern is not None and _uses(pattern, text)


def _uses(pattern: re.Pattern[str], text: str) -> bool:
    """The text uses a word of the vocabulary (`_used`)."""
    return bool(_used(pattern, text))


def _used(pattern: re.Pattern[str], text: str) -> list[str]:
    """The words of the vocabulary the text uses: an English one as matched; a Chinese one unless
    a longer dictionary word around it says something else (保险公司 around 公司; not 大学毕业
    around 大学, whose rest is the vocabulary's too)."""
    spans = [m.span() for m in pattern.finditer(text)]
    ours = {i for a, b in spans for i in range(a, b)}
    return [
        text[a:b]
        for a, b in spans
        if text[a:b].isascii() or not inside_longer_word(text, a, b, ours)
    ]


def profile_kinds(
    text: str, terms: Iterable[str], records: Iterable[MemoryRecord]
) -> tuple[Kind, ...]:
    """A kind per profile subject the request text asks about in the subject's vocabulary, whose
    members are the values of the active profile memories of that subject (their entities: a
    Chinese value as written, an English one as all of its words) and whose terms are the
    request's terms that the vocabulary's words in it make ("working", "current role": work,
    current, role). None for a subject with no such memory among records (the pool's: the
    profile channel's, recall/channels.py)."""
    asked = set(terms)
    values: dict[str, list[str]] = {}
    for r in records:
        if r.type is not MemoryType.PROFILE or r.status is not Status.ACTIVE or not r.subject:
            continue
        root = r.subject.lower().split("/", 1)[0].strip()
        if root in _PATTERNS and r.entities:
            values.setdefault(root, []).extend(r.entities)
    kinds = []
    for root, named in sorted(values.items()):
        words = {t for w in _used(_PATTERNS[root], text) for t in search_tokens(w)} & asked
        members = frozenset(v for v in named if has_cjk(v) and len(v) >= 2)
        words_of = (frozenset(search_tokens(v, drop_stopwords=True)) for v in named)
        phrases = tuple(dict.fromkeys(p for v, p in zip(named, words_of) if p and not has_cjk(v)))
        if words and (members or phrases):
            kinds.append(Kind(f"my {root}", frozenset(words), members, (), phrases))
    return tuple(kinds)
