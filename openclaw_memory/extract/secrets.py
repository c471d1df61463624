"""The sensitive-information filter: secrets are never stored anywhere.

It is over 600 lines because it is one pass with one contract: every way a secret reaches a
turn (free text, a command line's flag values) is found and masked before anything is stored;
the patterns themselves are a table (`secret_patterns.py`).
"""

from __future__ import annotations

import os
import re
import bisect
from collections.abc import Iterator, Sequence, Callable, Mapping
from . import secret_patterns as patterns
from dataclasses import dataclass
from typing import Any
from ..config.tuning import tuned

#: bits of entropy per character that make a value random enough to be a secret: a mixed value
#: assigned to a secret's name, a bare token of three character classes, a mixed-case
#: password-like value, a value of 24 characters or more; under the last, a value near a secret
#: word is not one
_ASSIGNED_ENTROPY = tuned("secrets.assigned_entropy")
_TOKEN_ENTROPY = tuned("secrets.token_entropy")
_MIXED_CASE_ENTROPY = tuned("secrets.mixed_case_entropy")
_LONG_VALUE_ENTROPY = tuned("secrets.long_value_entropy")
_NEAR_WORD_ENTROPY = tuned("secrets.near_word_entropy")

# Secrets in command lines: the value after a flag that names a secret.
#
# One rule set for both shapes a command reaches the filter in: an argv list (`["mysql", "-u",
# "root", "-pS3cret"]`, a tool event's arguments) and a command written in text (`sshpass -p X ssh
# host`). Long flags are judged by their name (`--password X`, `--token=X`, `--api-key X`,
# `-Dspring.datasource.password=X`); short flags only for the programs whose short flag takes a
# password (`mysql -pX`, `sshpass -p X`, `redis-cli -a X`, `curl -u user:X`, `zip -P X`), because
# `-p` is a port or a path elsewhere.

#: (token index, start, end, kind): the part of argv[index] that is secret
ArgvSpan = tuple[int, int, int, str]

#: words that run a program without being it
_WRAPPERS = frozenset({"sudo", "env", "time", "nohup", "exec", "command", "doas", "nice", "xargs"})
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: a program of the short-flag table named in text (at a word start, a path before it allowed)
_PROGRAM = re.compile(
    r"(?<![\w\-.])(?:[\w.\-]*/)?(?P<cmd>"
    + "|".join(sorted(map(re.escape, patterns.PASSWORD_SHORT_FLAGS), key=len, reverse=True))
    + r")(?![\w\-])"
)
#: one shell word: a quoted string or a run of non-space characters
_WORD = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'|;&]+")
_COMMAND_END = re.compile(r"[\n|;&]")
#: a command line is read this far at most
_COMMAND_CHARS = 4096


def _program(argv: Sequence[str]) -> tuple[str, int]:
    """The program an argv runs (its basename) and its index, skipping sudo/env and VAR=x."""
    for i, word in enumerate(argv):
        base = os.path.basename(word.strip())
        if base in _WRAPPERS or _ASSIGN.match(word) or (i and word.startswith("-")):
            continue
        return base, i
    return "", -1


def _value_span(word: str, start: int, kind: str, *, user_pass: bool) -> tuple[int, int] | None:
    """The secret part of word[start:], or None for a placeholder or a user with no password."""
    value = word[start:]
    if user_pass:
        m = patterns.USER_PASS.match(value)
        if m is None:
            return None
        return start + m.start("pw"), len(word)
    if patterns.PLACEHOLDER.match(value.strip("\"'")):
        return None
    return start, len(word)


def _long_flag(word: str) -> tuple[str, str | None]:
    """(flag name, inline value or None) of `--name=value` / `-name`; ("", None) otherwise."""
    if not word.startswith("-") or len(word) < 3:
        return "", None
    name, eq, value = word.lstrip("-").partition("=")
    return name, (value if eq else None)


def argv_spans(argv: Sequence[str]) -> Iterator[ArgvSpan]:
    """The secret parts of an argv list: values of secret-named flags and of the known
    programs' password flags, attached (`-pX`, `--token=X`) or in the next word."""
    program, at = _program(argv)
    short = patterns.PASSWORD_SHORT_FLAGS.get(program, {})
    needs = patterns.SHORT_FLAG_SUBCOMMAND.get(program)
    if needs is not None and needs not in argv[at + 1 :]:
        short = {}
    i = max(at, 0)
    while i < len(argv):
        word, nxt = argv[i], argv[i + 1] if i + 1 < len(argv) else None
        span, takes_next = _flag_value(word, short)
        if span is not None:
            yield (i, *span)
        elif takes_next is not None and nxt is not None and not nxt.startswith("--"):
            kind, user_pass = takes_next
            inner = _value_span(nxt, 0, kind, user_pass=user_pass)
            if inner is not None:
                yield (i + 1, *inner, kind)
            i += 1
        i += 1


def _flag_value(
    word: str, short: dict[str, bool]
) -> tuple[tuple[int, int, str] | None, tuple[str, bool] | None]:
    """For one word: (its own secret span, or None; what the next word is, if it is a value)."""
    user_pass = word in ("-u", "-U", "--user", "--proxy-user")
    if word in short:
        return None, ("password", user_pass)
    for flag, attached in short.items():
        if attached and word.startswith(flag) and len(word) > len(flag) and len(flag) == 2:
            span = _value_span(word, len(flag), "password", user_pass=False)
            return ((*span, "password") if span else None), None
    name, inline = _long_flag(word)
    # a long flag by its name; a one-dash flag only as a dotted property (-Ddb.password=X)
    if not name or not (word.startswith("--") or "." in name):
        return None, None
    kind = patterns.secret_name(name)
    if kind is None:
        return None, None
    if inline is not None:
        span = _value_span(word, len(word) - len(inline), kind, user_pass=False)
        return ((*span, kind) if span else None), None
    return None, (kind, False)


def command_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of the secret values of the commands of the short-flag table written
    in text (`mysql -u root -pS3cret`, `sshpass -p 'X' ssh host`); long flags are the
    text scanner's (FLAG)."""
    pos = 0
    while (m := _PROGRAM.search(text, pos)) is not None:
        stop = _COMMAND_END.search(text, m.end(), m.end() + _COMMAND_CHARS)
        end = stop.start() if stop else min(len(text), m.end() + _COMMAND_CHARS)
        pos = end  # one program per command: the words after it are its arguments
        words = [(w.group(), w.start()) for w in _WORD.finditer(text, m.start(), end)]
        argv = [w.strip("\"'") if w[:1] in "\"'" else w for w, _ in words]
        for index, start, stop_at, kind in argv_spans(argv):
            offset = words[index][1] + (1 if words[index][0][:1] in "\"'" else 0)
            yield offset + start, offset + stop_at, kind


# The sensitive-information filter: secrets are never stored anywhere (docs/design.md "filter").
#
# `SecretFilter.scan` finds spans of passwords (ASCII, Chinese and multi-word values, and the
# password of any URL), API keys and tokens (vendor shapes by prefix and length: OpenAI, Anthropic,
# GitHub, GitLab, Slack, Stripe, Google, AWS, Azure, Telegram, Discord, DigitalOcean, Alibaba,
# Tencent, Mailgun, Shopify and more; JWTs; unlabelled AWS secret keys), values of secret-named
# fields in text (`DB_PASSWORD=x`, `"password": "x"` with its quotes kept, `?token=x&`,
# `Password=x;`, `Authorization: Basic x`, `--password x`, `mysql -px`, 数据库密码：x), random-looking
# values next to a secret word in either language, PEM private keys, payment card numbers
# (Luhn-checked), Chinese resident ID numbers (checksum and birth date checked), US social security
# numbers (never-issued ranges excluded), passport numbers after the word, phone numbers and
# user-marked `<private>...</private>` spans. `redact_value` reads structure instead of a
# serialisation: a value under a secret-named key is replaced whole, argv lists are read as
# commands (`secret_argv.py`). Rules are regular expressions plus validators, one table in
# `secret_patterns.py`, written to stay linear on hostile input; lookalikes (order numbers,
# versions, commit ids, ports after `-p`, "password policy" sentences) are rejected by the
# validators, and `tests/data/secrets_corpus.tsv` and `tests/data/secrets/` measure both sides.

#: Kinds in priority order: when two findings overlap, the earlier kind wins.
KINDS = (
    "private",
    "private_key",
    "api_key",
    "password",
    "cn_id",
    "ssn",
    "passport",
    "card_number",
    "phone",
)
_PRIORITY = {kind: i for i, kind in enumerate(KINDS)}


@dataclass(frozen=True)
class SecretFinding:
    """One secret span in a text: `text[start:end]` is the secret value (labels are kept)."""

    kind: str
    start: int
    end: int


# --- per-kind scanners -----------------------------------------------------------------------


def _scan_private(text: str) -> Iterator[SecretFinding]:
    for m in patterns.PRIVATE.finditer(text):
        yield SecretFinding("private", m.start(), m.end())
    for m in patterns.PEM.finditer(text):
        yield SecretFinding("private_key", m.start(), m.end())


def _scan_api_keys(text: str) -> Iterator[SecretFinding]:
    for pattern in patterns.TOKEN_PATTERNS:
        for m in pattern.finditer(text):
            yield SecretFinding("api_key", m.start(), m.end())
    for m in patterns.BEARER.finditer(text):
        yield SecretFinding("api_key", m.start(1), m.end(1))
    for m in patterns.AUTH_HEADER.finditer(text):
        if not patterns.PLACEHOLDER.match(m.group("v")):
            yield SecretFinding("api_key", m.start("v"), m.end("v"))
    for m in patterns.KEY_LABEL.finditer(text):
        value = m.group(1)
        mixed = patterns.char_classes(value.strip("=")) >= 2 and any(c.isdigit() for c in value)
        if (
            mixed and patterns.entropy(value) >= _ASSIGNED_ENTROPY
        ):  # a random-looking value, not "placeholder_value"
            yield SecretFinding("api_key", m.start(1), m.end(1))
    for m in patterns.AWS_SECRET.finditer(text):
        value = m.group()
        # upper, lower and digits, and random: a git hash is hex, a word run has no digits
        if (
            patterns.char_classes(value.replace("/", "").replace("+", "")) >= 3
            and patterns.entropy(value) >= _TOKEN_ENTROPY
        ):
            yield SecretFinding("api_key", m.start(), m.end())


def _password_value(m: re.Match[str], text: str, relaxed: bool) -> tuple[int, int] | None:
    if m.group("q") is not None:
        quoted = m.group("q")
        if not any(c.isalnum() for c in quoted) and len(quoted.strip()) < 4:
            return None  # `"password": "x"`: the quotes around the colon are no value
        return m.start("q"), m.end("q")
    start, end = m.start("v"), m.end("v")
    if start == m.end("label") and m.group("label").isascii():  # "password@host": no value
        return None
    value = text[start:end]
    stripped = value.rstrip(".,;:!?)]}\"'")
    end -= len(value) - len(stripped)
    value = stripped
    if len(value) < 4 or value.lower() in patterns.PW_STOPWORDS or set(value) <= set("*xX#•.-_"):
        return None
    if patterns.UNIT_AFTER.match(text, end):
        return None
    if not relaxed and (patterns.char_classes(value) < 2 or len(value) < 6):
        return None
    if value.isalpha() and value.lower().endswith(("ing", "ed")):  # "is expiring", "was changed"
        return None
    return start, end


def _looks_numeric_pin(value: str | None) -> bool:
    return value is not None and value.isdigit() and len(value) >= 6


def _scan_passwords(text: str) -> Iterator[SecretFinding]:
    for m in patterns.URL_PASSWORD.finditer(text):
        if m.group("pw").lower().strip("<>{}[]$") not in patterns.URL_PASSWORD_PLACEHOLDERS:
            yield SecretFinding("password", m.start("pw"), m.end("pw"))
    for m in patterns.PASSPHRASE.finditer(text):
        words = re.split(r"[ \-]", m.group("v").lower())
        if not any(w in patterns.FUNCTION_WORDS or w.endswith(("ing", "ed")) for w in words):
            yield SecretFinding("password", m.start("v"), m.end("v"))
    for m in patterns.PW_ZH_WORDS.finditer(text):
        if not patterns.ZH_NOT_A_VALUE.match(m.group("v")) and not patterns.UNIT_AFTER.match(
            text, m.end("v")
        ):
            yield SecretFinding("password", m.start("v"), m.end("v"))
    for m in patterns.PW_EN.finditer(text):
        sep = m.group("sep").strip()
        relaxed = sep in (":", "=", "：") or (m.group("pre") is not None and sep != "")
        span = _password_value(m, text, relaxed)
        if span:
            yield SecretFinding("password", *span)
    for m in patterns.PW_ZH.finditer(text):
        if m.group("sep").strip():
            span = _password_value(m, text, relaxed=True)
        else:  # "密码 Alice#2023", "密码123456": no separator, so the value must look like one
            span = _password_value(m, text, relaxed=_looks_numeric_pin(m.group("v")))
        if span:
            yield SecretFinding("password", *span)


_TRAILING = ".,;:)"
#: words between a secret word and a value that say the value is something else
_GAP_STOP = frozenset(
    """manager managers policy policies rule rules hint reset field length strength expired
    expires expiry bug bugs issue issues commit version in at on since fixed count limit limits
    page docs doc endpoint url file path type format example sample hash hashed salt digest
    id name""".split()
)
_GAP_STOP_ZH = re.compile(r"管理|策略|规则|长度|强度|学|提示|重置|过期|版本|提交|文档|示例|格式")
_GAP_SEPARATOR = re.compile(r"[:=：]|\b(?:is|was)\b|是|为")


def _field_value_ok(kind: str, value: str, quoted: bool, text: str, end: int) -> bool:
    """Whether the value of a secret-named field is a secret (not a placeholder or prose)."""
    if patterns.PLACEHOLDER.match(value.strip()):
        return False
    if kind == "password":
        if quoted:
            return True
        return (
            len(value) >= 3
            and value.lower() not in patterns.PW_STOPWORDS
            and not patterns.UNIT_AFTER.match(text, end)
        )
    if kind in ("ssn", "passport", "cn_id"):
        return any(c.isdigit() for c in value)
    if quoted and len(value) >= 3:
        return True
    mixed_case = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return len(value) >= 8 and (
        any(c.isdigit() for c in value)
        or (mixed_case and patterns.entropy(value) >= _MIXED_CASE_ENTROPY)
        or (len(value) >= 24 and patterns.entropy(value) >= _LONG_VALUE_ENTROPY)
    )


def _value_group(m: re.Match[str]) -> tuple[str, bool] | None:
    """(group name, quoted) of the value an assignment pattern matched."""
    for group, quoted in (("qv", True), ("dq", True), ("sq", True), ("eq", True), ("v", False)):
        if group in m.re.groupindex and m.group(group) is not None:
            return group, quoted
    return None


def _searches(pattern: re.Pattern[str], text: str, resume: str) -> Iterator[re.Match[str]]:
    """Every match of pattern, each search resuming at the end of group `resume` of the last
    match (not its end), so a match that turns out not to be a secret (`Noted: DB_PASSWORD=x`,
    `--verbose --password x`) does not swallow the one inside it."""
    pos = 0
    while pos <= len(text) and (m := pattern.search(text, pos)) is not None:
        yield m
        pos = max(m.end(resume), m.start() + 1)


def _value_span_secrets(m: re.Match[str], text: str, group: str, quoted: bool) -> tuple[int, int]:
    """The value's span: unquoted values lose trailing punctuation, and in a query string
    (`?token=x&page=2`) end at the next `&`."""
    start, end = m.start(group), m.end(group)
    if quoted:
        return start, end
    if text[max(0, m.start() - 1) : m.start()] in ("?", "&"):
        cut = text.find("&", start, end)
        end = cut if cut != -1 else end
    value = text[start:end]
    return start, end - (len(value) - len(value.rstrip(_TRAILING)))


_ASSIGNMENT_HINT = re.compile(r"[:=：]")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{2,}PASSWORD")


def _assignment_findings(pattern: re.Pattern[str], text: str) -> Iterator[SecretFinding]:
    for m in _searches(pattern, text, "name"):
        kind = patterns.secret_name(m.group("name"))
        found = _value_group(m) if kind else None
        if kind is None or found is None:
            continue
        start, end = _value_span_secrets(m, text, *found)
        # an environment line (`AWS_SECRET_ACCESS_KEY=x`) says what its value is: any value
        quoted = found[1] or _ENV_NAME.fullmatch(m.group("name")) is not None
        if start < end and _field_value_ok(kind, text[start:end], quoted, text, end):
            yield SecretFinding(kind, start, end)


def _scan_fields(text: str) -> Iterator[SecretFinding]:
    """Values of secret-named fields, flags and commands: `DB_PASSWORD=x`, `"token": "x"`,
    `--password x`, `mysql -px`, 数据库密码：x."""
    if _ASSIGNMENT_HINT.search(text):
        yield from _assignment_findings(patterns.ASSIGNMENT, text)
    yield from _assignment_findings(patterns.ASSIGNMENT_ZH, text)
    for m in _searches(patterns.FLAG, text, "name"):
        name = m.group("name")
        found = _value_group(m)
        kind = patterns.secret_name(name)
        if not (m.group().startswith("--") or "." in name) or kind is None or found is None:
            continue
        if m.group(found[0]).startswith("-"):
            continue
        start, end = m.start(found[0]), m.end(found[0])
        if start < end and not patterns.PLACEHOLDER.match(text[start:end]):
            yield SecretFinding(kind, start, end)
    for start, end, kind in command_spans(text):
        yield SecretFinding(kind, start, end)
    for m in _searches(patterns.SECRET_WORD_VALUE, text, "word"):
        value = m.group("v").rstrip(_TRAILING)
        if _random_value(value, text[m.start() : m.start("v")]):
            kind = "password" if re.search(r"pass|密码|口令", m.group(), re.I) else "api_key"
            yield SecretFinding(kind, m.start("v"), m.start("v") + len(value))


def _random_value(value: str, gap: str) -> bool:
    """A value near a secret word that looks random, with nothing between them saying it is
    something else (a manager's name, a version, a commit, a bug)."""
    if len(value) < 8 or value.isdigit() or patterns.entropy(value) < _NEAR_WORD_ENTROPY:
        return False
    words = re.findall(r"[A-Za-z]+", gap)[1:]
    if len(words) > 6 or any(w.lower() in _GAP_STOP for w in words) or _GAP_STOP_ZH.search(gap):
        return False
    hexish = all(c in "0123456789abcdefABCDEF" for c in value)
    if hexish or patterns.char_classes(value) < 3:
        return (
            bool(_GAP_SEPARATOR.search(gap))
            and patterns.char_classes(value) >= 2
            and (any(c.isdigit() for c in value))
        )
    return True


def _scan_numbers(text: str) -> Iterator[SecretFinding]:
    for m in patterns.CN_ID.finditer(text):
        if patterns.cn_id_ok(m.group()):
            yield SecretFinding("cn_id", m.start(), m.end())
    for m in patterns.SSN.finditer(text):
        before = text[max(0, m.start() - 16) : m.start()]
        digits = re.sub(r"\D", "", m.group())
        if patterns.ssn_ok(digits) and not patterns.ORDER_CONTEXT.search(before):
            yield SecretFinding("ssn", m.start(), m.end())
    for m in patterns.SSN_LABELLED.finditer(text):
        if patterns.ssn_ok(m.group("v")):
            yield SecretFinding("ssn", m.start("v"), m.end("v"))
    for m in patterns.PASSPORT.finditer(text):
        yield SecretFinding("passport", m.start("v"), m.end("v"))
    for m in patterns.CARD.finditer(text):
        if _card_ok(text, m):
            yield SecretFinding("card_number", m.start(), m.end())
    for m in patterns.CN_MOBILE.finditer(text):
        yield SecretFinding("phone", m.start(), m.end())
    for m in patterns.INTL_PHONE.finditer(text):
        if 8 <= sum(c.isdigit() for c in m.group()) <= 15:
            yield SecretFinding("phone", m.start(), m.end())
    for m in patterns.NANP_PHONE.finditer(text):
        before = text[max(0, m.start() - 16) : m.start()]
        digits = re.sub(r"\D", "", m.group())[-10:]
        # a real area code and exchange (2-9, then not N11), and not a toll-free or 400 hotline,
        # which are businesses' published numbers (客服热线 400-800-8888)
        valid = digits[0] in "23456789" and digits[3] in "23456789" and digits[1:3] != "11"
        if (
            valid
            and digits[:3] not in patterns.HOTLINE_AREAS
            and not patterns.ORDER_CONTEXT.search(before)
        ):
            yield SecretFinding("phone", m.start(), m.end())
    for m in patterns.CARD_DOTTED.finditer(text):
        digits = m.group().replace(".", "")
        if (
            13 <= len(digits) <= 19
            and patterns.luhn_ok(digits)
            and (
                patterns.CARD_CONTEXT.search(text[max(0, m.start() - 16) : m.start()])
                or patterns.iin_plausible(digits)
            )
        ):
            yield SecretFinding("card_number", m.start(), m.end())


def _card_ok(text: str, m: re.Match[str]) -> bool:
    raw = m.group()
    digits = re.sub(r"\D", "", raw)
    if not 13 <= len(digits) <= 19 or not patterns.luhn_ok(digits):
        return False
    groups = re.split(r"[ \-]", raw)
    if len(groups) > 1 and not (
        all(len(g) == 4 for g in groups[:-1]) or [len(g) for g in groups] == [4, 6, 5]
    ):
        return False
    before = text[max(0, m.start() - 16) : m.start()]
    card_context = bool(patterns.CARD_CONTEXT.search(before))
    if patterns.ORDER_CONTEXT.search(before) and not card_context:
        return False
    return card_context or patterns.iin_plausible(digits)


_SCANNERS: tuple[Callable[[str], Iterator[SecretFinding]], ...] = (
    _scan_private,
    _scan_api_keys,
    _scan_passwords,
    _scan_fields,
    _scan_numbers,
)

_MARKER = re.compile(r"\[REDACTED:[a-z_]+\]")
_CLAUSE_END = re.compile(r"[。！？!?；;，,\n]|\.(?=\s|$)")


def split_clauses(text: str) -> list[tuple[int, int]]:
    """(start, end) of each clause, the delimiter included (CJK and ASCII punctuation)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _CLAUSE_END.finditer(text):
        spans.append((start, m.end()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


#: the keys that hold the value of a `{"name": ..., "value": ...}` pair (Kubernetes env, forms)
_PAIR_NAME_KEYS = ("name", "key", "field", "variable", "var", "id")
_PAIR_VALUE_KEYS = frozenset({"value", "val", "data", "content", "secret"})


def _named_pair_kind(value: Mapping[Any, Any]) -> str | None:
    """The secret kind of a mapping that names its value (`{"name": "DB_PASSWORD", "value":
    ...}`), or None."""
    for key in _PAIR_NAME_KEYS:
        name = value.get(key)
        if isinstance(name, str):
            return patterns.secret_name(name)
    return None


def _holds_secret(kind: str, item: object) -> bool:
    """Whether the value under a secret-named key is a secret to replace whole: any non-empty
    text that is no placeholder, any container, a number under a password key (a PIN)."""
    if item is None or isinstance(item, bool):
        return False
    if isinstance(item, str):
        return not patterns.PLACEHOLDER.match(item.strip())
    if isinstance(item, (int, float)):
        return kind == "password"
    return not isinstance(item, (Mapping, list, tuple, set, frozenset)) or bool(item)


def _argv_word(item: object) -> str:
    """A list item as a command-line word ("" for what cannot be one)."""
    if isinstance(item, str):
        return item
    if isinstance(item, (int, float)) and not isinstance(item, bool):
        return str(item)
    return ""


class SecretFilter:
    """Finds, redacts or strips secrets. Stateless and thread-safe."""

    def redact_value(self, value: object, *, depth: int = 0) -> object:
        """A JSON-like value with its secrets redacted, judged by its structure, at any depth.

        A value under a secret-named key (`password`, `api_key`, `AccountKey`, 密码, ...) is
        replaced whole, whatever it holds; `{"name": "DB_PASSWORD", "value": ...}` pairs the
        same; in a list, the word after a secret flag (`["--password", X]`, `["mysql",
        "-pX"]`); every other string, keys included, goes through `redact`. Other scalars are
        kept (a number under a password key, or one that reads as a card, is redacted); deeper
        than 32 levels everything becomes its redacted text.
        """
        if isinstance(value, str):
            return self.redact(value)
        if depth > 32:
            return self.redact(str(value))
        if isinstance(value, Mapping):
            return self._redact_mapping(value, depth)
        if isinstance(value, (list, tuple, set, frozenset)):
            return self._redact_list(list(value), depth)
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, (int, float)):  # a card number sent as a JSON number
            text = str(value)
            redacted = self.redact(text)
            return value if redacted == text else redacted
        return self.redact(str(value))

    def _redact_mapping(self, value: Mapping[Any, Any], depth: int) -> dict[str, object]:
        named = _named_pair_kind(value)
        out: dict[str, object] = {}
        for key, item in value.items():
            kind = patterns.secret_name(str(key))
            if kind is None and named and str(key).lower() in _PAIR_VALUE_KEYS:
                kind = named
            if kind is not None and _holds_secret(kind, item):
                out[self.redact(str(key))] = f"[REDACTED:{kind}]"
            else:
                out[self.redact(str(key))] = self.redact_value(item, depth=depth + 1)
        return out

    def _redact_list(self, items: list[object], depth: int) -> list[object]:
        out = [self.redact_value(v, depth=depth + 1) for v in items]
        words = [_argv_word(v) for v in items]
        if any(words):
            for index, start, end, kind in argv_spans(words):
                word = words[index]
                out[index] = (
                    f"{self.redact(word[:start])}[REDACTED:{kind}]{self.redact(word[end:])}"
                )
        return out

    def scan(self, text: str) -> list[SecretFinding]:
        """Non-overlapping findings sorted by start; on overlap the higher-priority kind wins."""
        found = [f for scanner in _SCANNERS for f in scanner(text)]
        found.sort(key=lambda f: (_PRIORITY[f.kind], -(f.end - f.start), f.start))
        starts: list[int] = []  # the kept findings, sorted by start and never overlapping
        kept: list[SecretFinding] = []
        for f in found:
            at = bisect.bisect_right(starts, f.start)
            if at and kept[at - 1].end > f.start:
                continue
            if at < len(kept) and kept[at].start < f.end:
                continue
            starts.insert(at, f.start)
            kept.insert(at, f)
        return kept

    def contains_secret(self, text: str) -> bool:
        """True when scan() finds anything."""
        return bool(self.scan(text))

    def redact(self, text: str) -> str:
        """The text with each secret span replaced by `[REDACTED:<kind>]`."""
        parts: list[str] = []
        pos = 0
        for f in self.scan(text):
            parts += (text[pos : f.start], f"[REDACTED:{f.kind}]")
            pos = f.end
        parts.append(text[pos:])
        return "".join(parts)

    def strip(self, text: str) -> str:
        """`<private>` spans cut out and every clause holding a secret dropped: what may be kept.

        Dropping the whole clause (not just the value) keeps "my password is" style leftovers
        out of memories; a text that is only a secret strips to "". Clauses holding a
        `[REDACTED:<kind>]` marker (text redacted upstream) are dropped the same way.
        """
        text = patterns.PRIVATE.sub(" ", text)
        spans = [(f.start, f.end) for f in self.scan(text)]
        spans += [m.span() for m in _MARKER.finditer(text)]  # already redacted upstream
        if not spans:
            return text.strip()
        kept = [
            text[a:b] for a, b in split_clauses(text) if all(e <= a or s >= b for s, e in spans)
        ]
        return "".join(kept).strip()
