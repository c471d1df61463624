"""Does a request refer to the user's own world? (the first half of relevance gating)

And what it says when it asks about a profile subject without naming it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence, Set as AbstractSet
from ..extract.entities import PARTICLE_END
from ..lang.text import (  # the package's one jieba loader (dictionary loaded once, no network)
    _jieba,
    has_cjk,
    search_tokens,
)
from ..types import MemoryRecord, MemoryType, Status
from .kinds import Kind

# Does a request refer to the user's own world? (the first half of relevance gating)
#
# A request about the user or the people and things of their memory ("where do I live?", "what did
# Caroline paint?", 我上次说的那家店叫什么？) may be answered by a memory that only loosely
# resembles it, so it is gated as before (`recall.min_semantic`). A request that refers to nothing
# of theirs (chit-chat with the assistant, general knowledge, coding, translation) gets a memory
# only when the memory clearly stands out from the request's own background
# (`background.py`): otherwise the block stays empty.
#
# Reference, per language:
# - the user speaking of themselves (I / my / we / our; 我 as subject or possessor, 我的, 我们, 咱们).
#   Not: 我 as the object of a request (给我讲, 帮我写), the generic "I" of a how-to question on an
#   object named with an article ("how do I sort a list?" asks for a method; "how do I get to
#   work?" is about the user), the generic person of what an asked-for thing is for ("a fun fact
#   I can share at lunch", 告诉我一个冷知识，我午饭时分享; "conferences I might find interesting"
#   asks about the user's taste and stays theirs), or quoted text (translate "I am learning to
#   swim");
# - the user's people named by their relation, without a possessor: in Chinese a bare kinship or
#   relation term is the speaker's own (外婆的寿宴 = my grandmother's birthday), as are "mom",
#   "grandma", "my boss" in English;
# - something both sides know, in Chinese: 那个 / 那次 / 上次 ... (重复扣款那个bug);
# - a name the user's memories hold, written in the request: a speaker, an entity (among them a
#   name given with the language's naming words, 一只垂耳兔，叫汤圆; 我家猫叫芝麻; "a rabbit named
#   Biscuit", which the write path files as the memory's entity: extract/entities.py), an
#   identifier (ERP-2041, FW-517, 灵鹰3) or a quoted name (“毛孩子”) written in a memory, or a
#   Chinese word the language's dictionary does not know that a memory holds (a child's, a pet's
#   or a shop's name: 小宇, 阿福, 刚子粉铺). A given name is often an ordinary word (芝麻 sesame,
#   汤圆 a dumpling): the naming word, not the dictionary, says it is a name.

#: quoted text; a straight single quote opens a quotation only where no letter precedes it and
#: closes one only where none follows, and an apostrophe between letters stays inside it:
#: "What's my dog's name?" holds apostrophes, not a quotation; 'my mother's house' is one
_QUOTED = re.compile(
    r"“[^”]*”|\"[^\"]*\"|(?<!\w)'(?:[^']|(?<=\w)'(?=\w)){3,}?'(?!\w)|「[^」]*」|‘[^’]*’"
)
_EN_SELF = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|my|mine|myself|we|we're|we've|our|ours|us)\b", re.IGNORECASE
)
#: 我 after a verb of asking is the object of the request (给我讲个笑话), not the user's life
_ZH_OBJECT = re.compile(r"(?:给|帮|替|跟|对|让|陪|教|告诉|叫|请|和|为|考考|逗)我(?!们|的|家)")
_ZH_SELF = re.compile(r"我|咱")
#: the same generic person in Chinese: a request for an indefinite thing, then what the speaker
#: will do with it (告诉我一个冷知识，我午饭时分享), or a relative clause of ability before the thing
#: (一个我能在午饭时分享的冷知识). Read clause by clause, each pattern in one pass: a request
#: of a million characters costs a million steps, not their square.
_ZH_ASKS_FOR_A_THING = re.compile(
    r"^(?:请|麻烦)?你?(?:告诉|给|帮|推荐|讲|写|来|找|说|教|编)我?[^我]*?"
    r"(?:一个|一些|几个|一首|一段|一条|一句|个)"
)
_ZH_FOR_ITS_USE = re.compile(r"\s*(?:好让|让|以便|方便)?我(?!们|的|家)")
_ZH_ABLE_BEFORE_THE_THING = re.compile(
    r"(?:一个|一些|几个|一首|一段|一条|一句)我(?:可以|能|能够)[^，,。！!？?的]{1,12}的"
)
#: "how do I sort a list ...", "how can we center a div": the generic person of a request for a
#: method on an object named with an article ("how do I get to work?" is about the user's commute)
_EN_HOW_TO = re.compile(
    r"\bhow (?:do|can|should|would|could) (?:i|we) \w+ (?:a|an|the|two|this|that)\b", re.IGNORECASE
)
#: "give me a fun fact I can share", "suggest some exercises we could do": the generic person of a
#: relative clause of ability describing the thing asked for, named with an indefinite article
#: ("some publications I might find interesting" asks about the user's taste: still the user's)
_EN_GENERIC_USE = re.compile(
    r"\b(?:a|an|some|any)\s+(?:[\w'-]+\s+){0,4}?(?:that\s+|which\s+|where\s+)?(?:i|we)\s+"
    r"(?:can|could)\b",
    re.IGNORECASE,
)
#: relation terms that, without a possessor, name the speaker's own people (Chinese), and the
#: English ones used as names (mom, grandma) or that a request rarely uses of strangers
_ZH_RELATIONS = re.compile(
    r"外婆|外公|奶奶|爷爷|姥姥|姥爷|爸爸|妈妈|老爸|老妈|爸妈|老公|老婆|媳妇|儿子|闺女|女儿|哥哥|姐姐|弟弟|妹妹|"
    r"舅舅|舅妈|姑姑|姑父|姨妈|婶婶|叔叔|伯伯|婆婆|公公|岳父|岳母|丈母娘|男朋友|女朋友|男友|女友|老板|领导|室友"
)
_EN_RELATIONS = re.compile(r"\b(?:mom|mum|dad|grandma|grandpa|granny|nana)\b", re.IGNORECASE)
#: a thing both sides know (that bug, that time, last time), Chinese
_ZH_SHARED = re.compile(r"那个|那次|那家|那只|那位|那回|上次|上回")
_HAN_WORD = re.compile(r"[\u4e00-\u9fff]{2,}")
#: a quoted name in a memory (王浩: "毛孩子"？), two to twelve characters
_QUOTED_NAME = re.compile(r"“([^”]{2,12})”|\"([^\"]{2,12})\"|「([^」]{2,12})」")
#: an identifier: letters then digits, as project, ticket and model names are written (ERP-2041, 灵鹰3)
IDENTIFIER = re.compile(
    r"(?<![A-Za-z0-9])(?:[A-Za-z]+[-_]?\d+[A-Za-z0-9]*|[\u4e00-\u9fff]{1,4}\d+)(?![A-Za-z0-9])"
)


def unquoted(text: str) -> str:
    """The request without its quoted text."""
    return _QUOTED.sub(" ", text)


def speaks_of_self(text: str) -> bool:
    """The user speaks of themselves (quoted text and 给我/帮我 objects aside)."""
    bare = _QUOTED.sub(" ", text)
    generic = _EN_GENERIC_USE.sub(" ", _EN_HOW_TO.sub(" ", bare.replace("’", "'")))
    if _EN_SELF.search(generic):
        return True
    return bool(_ZH_SELF.search(_ZH_OBJECT.sub("", _without_generic_use(bare))))


def _without_generic_use(text: str) -> str:
    """Chinese text without the generic person of what it asks for (see `_ZH_ASKS_FOR_A_THING`)."""
    text = _ZH_ABLE_BEFORE_THE_THING.sub("", text)
    first, sep, rest = _split(text)
    asked = _ZH_ASKS_FOR_A_THING.match(first)
    use = _ZH_FOR_ITS_USE.match(rest) if sep else None
    if asked and use:
        return first[asked.end() :] + sep + rest[use.end() :]
    return text


def _split(text: str) -> tuple[str, str, str]:
    """The first clause, its comma and the rest ("", "" when there is no comma)."""
    m = re.search(r"[，,]", text)
    return (text[: m.start()], m.group(), text[m.end() :]) if m else (text, "", "")


def names_relations(text: str) -> bool:
    """The request names the user's people by their relation (外婆, 女儿, mom), quoted text aside."""
    bare = _QUOTED.sub(" ", text)
    return bool(_ZH_RELATIONS.search(bare) or _EN_RELATIONS.search(bare))


def identifiers(text: str) -> set[str]:
    """Identifier-like names written in a memory (ERP-2041, FW-517, 灵鹰3)."""
    return {m.group(0) for m in IDENTIFIER.finditer(text)}


def memory_names(text: str) -> set[str]:
    """Names a memory writes out: identifiers and quoted names written as names are in their
    language (Chinese, or a capitalised Latin word: "Charlotte's Web"; a quoted English word in
    lower case, "short", is a word, not a name). Names given with naming words are the memory's
    entities, filed at write time (extract/entities.py)."""
    quoted = {next(g for g in m.groups() if g) for m in _QUOTED_NAME.finditer(text)}
    named = {q for q in quoted if _HAN_WORD.search(q) or q[:1].isupper()}
    return identifiers(text) | named


def dictionary_word(word: str) -> bool:
    """The bundled jieba dictionary knows `word` (a frequency above 0: it also lists every prefix
    of a word, at 0). Names people coin are not in it."""
    return bool(_jieba().dt.FREQ.get(word))


def coined_words(request: str, memories: Sequence[str]) -> set[str]:
    """Chinese words of the request that the dictionary does not know and a memory holds: the
    user's own names for their people, pets and places (小宇, 阿福, 刚子粉铺)."""
    if not _HAN_WORD.search(request):
        return set()
    words = {
        w
        for w in _jieba().lcut(_QUOTED.sub(" ", request))
        if _HAN_WORD.fullmatch(w) and not PARTICLE_END.search(w) and not dictionary_word(w)
    }
    return {w for w in words if any(w in m for m in memories)}


def shared_reference(text: str) -> bool:
    """The request points at something both sides know (重复扣款那个bug, 上次那家店)."""
    return bool(_ZH_SHARED.search(_QUOTED.sub(" ", text)))


def names_known(text: str, names: Iterable[str]) -> bool:
    """A name from the user's memories (two characters or more) is written in the request, as
    a name: a name that is also an ordinary word (芝麻 sesame, "Sesame") is no name inside a
    longer dictionary word (黑芝麻, 芝麻糊), nor in lower case in a request that writes capitals
    ("Is sesame oil good?"; a request in lower case throughout may write names so)."""
    low = text.lower()
    for raw in names:
        name = raw.strip()
        key = name.lower()
        # `key in low` first: a pattern compiled for every name of a store outgrows re's cache
        if len(key) < 2 or key not in low:
            continue
        if key.isascii():
            # an ASCII name stands alone among ASCII letters and digits (a CJK character beside
            # it is a boundary: ERP-2041的切换), not inside a longer word
            if _whole_word(key, low) and (not _proper(name) or text == low or name in text):
                return True
        elif not dictionary_word(key) or _stands_as_word(key, low):
            return True
    return False


def _stands_as_word(word: str, text: str) -> bool:
    """`word` occurs in `text` once at least outside a longer dictionary word (芝麻 in
    芝麻最后葬在哪里, not in 黑芝麻 or 芝麻糊): dictionary look-ups, no segmentation."""
    at = text.find(word)
    while at >= 0:
        if not inside_longer_word(text, at, at + len(word)):
            return True
        at = text.find(word, at + 1)
    return False


def inside_longer_word(
    text: str, start: int, end: int, ours: AbstractSet[int] = frozenset()
) -> bool:
    """text[start:end] lies inside a longer dictionary word, one or two characters more on either
    side (黑芝麻 around 芝麻, 保险公司 around 公司); not one whose every character is at a position
    of `ours` (大学毕业 around 大学, when 毕业 is a word of the same vocabulary)."""
    around = [(start - k, end) for k in (1, 2) if start >= k]
    around += [(start, end + k) for k in (1, 2) if end + k <= len(text)]
    return any(dictionary_word(text[a:b]) and not set(range(a, b)) <= ours for a, b in around)


def _proper(name: str) -> bool:
    """A capitalised word written as a name is (Sesame, Caroline; not ERP-2041, not "short")."""
    return name[:1].isupper() and any(c.islower() for c in name)


def _whole_word(word: str, text: str) -> bool:
    """`word` stands in `text` with no ASCII letter or digit beside it."""
    return re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", text) is not None


def refers_to_user(text: str, names: Iterable[str] = (), memories: Sequence[str] = ()) -> bool:
    """Does the request refer to the user's world? `names`: names their memories hold;
    `memories`: the texts of the memories pooled for it (for the words only they use)."""
    return (
        speaks_of_self(text)
        or names_relations(text)
        or shared_reference(text)
        or names_known(text, names)
        or bool(coined_words(text, memories))
    )


# What a request says when it asks about a profile subject without naming it.
#
# A profile fact is filed under its subject ("age", "degree/bachelor", "employer"), and the
# structure signal matches a request that names the subject ("what is my age?",
# `channels.subject_matches`). People rarely ask that way: "how old am I?", "when did I
# graduate?", "where do I work?", 我今年多大了, 我在哪儿上班. This table holds, per subject root (the
# part before "/"), the words such a question uses, English and Chinese side by side: the
# attribute's own vocabulary, not any one question's wording. English words at word boundaries;
# a Chinese one not inside a longer dictionary word that says something else (哪家保险公司 asks for
# an insurer, not the user's company; 工作室 is a studio).
#
# A request that asks about a subject asks about its value too: "how long have I been in my current
# role?" is about being a Senior Marketing Specialist when the profile says the user is one, and a
# memory that names the value ("as a Senior Marketing Specialist, I ...") speaks of it, as a memory
# that names taekwondo speaks of martial arts (recall/kinds.py). `profile_kinds` makes each asked
# subject's current values (its active profile memories') the members of a kind the request names by
# its vocabulary words.

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
