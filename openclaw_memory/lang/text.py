"""CJK-aware keyword tokens.

FTS5's default tokenizer keeps a run of Han characters as one token and the trigram tokenizer
cannot match two-character words (咖啡, 花生), so each run of word characters is split by the
tokenizer of its language's pack (`lang/`: Chinese by jieba's search mode, Japanese by character
pairs, English as lower-cased words) and the tokens are joined by spaces before they reach FTS5.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any, Mapping

from . import Languages, all_on
from .pack import LanguagePack, jieba_module

_SURROGATE = re.compile("[\ud800-\udfff]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[\w]+", re.UNICODE)

#: words that carry no retrieval signal, in every language (each pack's `stopwords`)
STOPWORDS = all_on().stopwords()

#: the package's one jieba loader (its dictionary loaded once, no network)
_jieba = jieba_module


def valid_unicode(text: str) -> str:
    """text with every lone surrogate replaced by U+FFFD.

    Bytes that were not UTF-8, decoded with `surrogateescape` (file names, pipes, some terminals),
    leave lone surrogates in a str; SQLite cannot encode them and would fail the whole write. The
    API entry points pass input text through here, so such a turn is stored with a visible
    replacement character instead of being lost.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def has_cjk(text: str) -> bool:
    return bool(_HAN.search(text))


def unspaced(text: str, langs: Languages | None = None) -> bool:
    """Whether text is in a language that writes its words without spaces between them (its
    pack's `spaced`, by `detect`): its words are found inside a text, not word by word."""
    return not (langs or all_on()).of(text).spaced


def tokenize(
    text: str, *, drop_stopwords: bool = False, langs: Languages | None = None
) -> list[str]:
    """Lower-cased tokens: each run of word characters by the tokenizer of its language's pack
    (Chinese by jieba's search mode, overlapping words; Japanese by character pairs)."""
    langs = langs or all_on()
    tokens: list[str] = []
    for piece in _WORD.findall(text.lower()):
        tokens.extend(langs.of(piece).tokenize(piece))
    if drop_stopwords:
        tokens = [t for t in tokens if t not in STOPWORDS]
    return tokens


@functools.lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem.snowball import SnowballStemmer  # rule-based: no data to download

    return SnowballStemmer("english")


@functools.lru_cache(maxsize=200_000)
def stem(token: str) -> str:
    """English words to their Snowball stem (painted, painting -> paint); other tokens unchanged."""
    if not token.isascii() or not token.isalpha() or len(token) < 4:
        return token
    return _stemmer().stem(token)


def search_tokens(text: str, *, drop_stopwords: bool = False) -> list[str]:
    """Tokens for keyword search: CJK-aware tokens with English words stemmed."""
    return [stem(t) for t in tokenize(text, drop_stopwords=drop_stopwords)]


def fts_document(text: str) -> str:
    """The text as stored in the FTS5 table: search tokens joined by spaces."""
    return " ".join(search_tokens(text))


#: terms of one keyword query at most (`fts_query`)
FTS_TERMS = 32


def fts_query(text: str, *, max_terms: int = FTS_TERMS) -> str:
    """An FTS5 MATCH expression: OR of the quoted content tokens of text ('' if none)."""
    seen: list[str] = []
    for tok in search_tokens(text, drop_stopwords=True):
        if tok not in seen:
            seen.append(tok)
    terms = ['"' + t.replace('"', '""') + '"' for t in seen[:max_terms]]
    return " OR ".join(terms)


def negated(text: str, langs: Languages | None = None) -> bool:
    """Whether text carries a negation cue (an odd count of them, in any language: each pack's
    `negation` table). Embeddings barely see negation (我喜欢/我不喜欢 score 0.99 with e5), so
    consolidation compares this polarity before calling two claims the same."""
    cues = (langs or all_on()).any_of("negation", "cue")
    return len(cues.findall(text)) % 2 == 1


def lexical_overlap(a: str, b: str) -> float:
    """Jaccard overlap of the content tokens of two texts (stopwords removed), in [0, 1]."""
    ta, tb = set(tokenize(a, drop_stopwords=True)), set(tokenize(b, drop_stopwords=True))
    if not ta and not tb:
        return 1.0
    return len(ta & tb) / len(ta | tb)


def message_text(message: Mapping[str, Any]) -> str:
    """A chat message's text (a string, or OpenAI content parts); lone surrogates become U+FFFD."""
    content = message.get("content")
    if isinstance(content, str):
        return valid_unicode(content)
    if isinstance(content, list):
        return valid_unicode(
            " ".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
        )
    return ""


#: where a sentence ends: after . ! ? … (and closing quotes) before a space, after a CJK full
#: stop, question or exclamation mark or semicolon, and at a line break
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+|(?<=[。！？；])|\n+")
_LATIN_WORD = re.compile(r"[^\W\d_]+|\d+", re.UNICODE)
#: a sentence lighter than this (words; 1.4 Han characters count as one) joins its neighbour
_MIN_PART_WORDS = 5


def _words(text: str) -> float:
    han = len(_HAN.findall(text))
    latin = sum(1 for w in _LATIN_WORD.findall(text) if not _HAN.search(w))
    return latin + han / 1.4


def _join(a: str, b: str) -> str:
    return a + b if a[-1:] in "。！？；" or _HAN.match(b[:1]) else f"{a} {b}"


#: the most sentence parts a memory can be indexed by (`long_term.sentence_vectors` is bounded by it)
MAX_SENTENCE_PARTS = 16


def sentence_parts(text: str, max_parts: int) -> list[str]:
    """The passages a memory's sentences are indexed by, or [] when it is one passage.

    A turn that mentions its subject in passing ("By the way, I've been in marketing for three
    years" inside a question about a product launch) gets one vector about the launch; its
    sentences, embedded apart, each keep their own topic. Sentences of fewer than five words
    (or seven Han characters) join a neighbour; more than `max_parts` are grouped, in order,
    into `max_parts` runs of near-equal length. Parts keep the text's words in order.
    """
    if max_parts < 2:
        return []
    parts: list[str] = []
    for piece in _SENTENCE_END.split(text):
        piece = piece.strip()
        if not piece:
            continue
        if parts and _words(parts[-1]) < _MIN_PART_WORDS:
            parts[-1] = _join(parts[-1], piece)
        else:
            parts.append(piece)
    if len(parts) > 1 and _words(parts[-1]) < _MIN_PART_WORDS:
        tail = parts.pop()
        parts[-1] = _join(parts[-1], tail)
    if len(parts) < 2:
        return []
    if len(parts) > max_parts:
        size = len(parts) / max_parts
        runs = [parts[round(i * size) : round((i + 1) * size)] for i in range(max_parts)]
        parts = [functools.reduce(_join, run) for run in runs]
    return parts


def pack_for(text: str, table: str, langs: Languages | None = None) -> LanguagePack:
    """The pack whose `table` speaks for text: the pack of its language (`detect`) when that pack
    has the table, else the pack of text with no marked script. Japanese text, whose pack has no
    render labels, is rendered in the labels of unmarked text, never in Chinese ones by accident."""
    langs = langs or all_on()
    found = langs.of(text)
    return found if found.table(table) else langs.of("")


def majority(
    texts: Iterable[str], table: str, *, ties: bool, langs: Languages | None = None
) -> LanguagePack:
    """The pack (`pack_for`) most of texts are written in: a pack of a marked script when it
    speaks for more than half of them (or for half, when `ties`), else the pack of text with
    no marked script. An empty text counts for the unmarked pack."""
    langs = langs or all_on()
    unmarked = langs.of("")
    counts = Counter(pack_for(t, table, langs).code for t in texts)
    total = sum(counts.values())
    for code, count in counts.most_common():
        if code != unmarked.code and (2 * count > total or (ties and 2 * count == total)):
            return langs.pack(code)
    return unmarked


def cuts_at_space(text: str, langs: Languages | None = None) -> bool:
    """Whether text may be cut at a space: its language sets its words apart by spaces
    (a pack's `spaced`)."""
    return (langs or all_on()).of(text).spaced


def across(table: str, entry: str, key: str, langs: Languages | None = None) -> tuple[Any, ...]:
    """The setting `key` of `entry` in every pack's `table` that has it on, in the order
    scripts are tried (`Languages.all`): the same text in each language, say."""
    found = (p.table(table).entry(entry) for p in (langs or all_on()).all())
    return tuple(e.setting(key) for e in found if e.on and key in e.settings)


def in_every_language(table: str, entry: str, key: str = "text") -> str:
    """One text holding `entry`'s `key` of every pack's `table`, joined by spaces (`across`):
    a warm-up text that loads each language's tokenizer at once, say."""
    return " ".join(across(table, entry, key))
