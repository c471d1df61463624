"""The sensitive-information filter: secrets are never stored anywhere (docs/design.md "filter").

`SecretFilter.scan` finds spans of passwords (ASCII, Chinese and multi-word values, and the
password of any URL), API keys and tokens (OpenAI, Stripe, GitLab, GitHub, Slack tokens and
webhook URLs, AWS access and unlabelled secret keys, ...), PEM private keys, payment card numbers
(Luhn-checked, spaced, dashed or dotted), Chinese resident ID numbers (checksum and birth date
checked), phone numbers (Chinese, international, North American) and user-marked
`<private>...</private>` spans. `redact_value` applies the filter to any JSON-like value (nested
tool arguments, argv lists). Rules are regular expressions plus
validators; lookalikes (order numbers, timestamps, hashes in prose, "password policy" sentences)
are rejected by the validators, and `tests/data/secrets_corpus.tsv` measures both sides.
"""

# ruff: noqa: SIM905  (word lists read best as one string)

from __future__ import annotations

import datetime as _dt
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

#: Kinds in priority order: when two findings overlap, the earlier kind wins.
KINDS = ("private", "private_key", "api_key", "password", "cn_id", "card_number", "phone")
_PRIORITY = {kind: i for i, kind in enumerate(KINDS)}


@dataclass(frozen=True)
class SecretFinding:
    """One secret span in a text: `text[start:end]` is the secret value (labels are kept)."""

    kind: str
    start: int
    end: int


# --- patterns -------------------------------------------------------------------------------

_PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
_PEM = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|\Z)",
    re.DOTALL,
)
_TOKEN_PATTERNS = (
    re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_\-]{20,}"),
    re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])"),
    re.compile(r"(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{30,}"),
    re.compile(r"(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{22,}"),
    re.compile(r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9\-]{10,}"),
    re.compile(r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}"),
    re.compile(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_\-]{35}"),
    re.compile(r"(?<![A-Za-z0-9])eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    re.compile(
        r"(?<![A-Za-z0-9])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"
    ),  # Stripe secret/restricted
    re.compile(r"(?<![A-Za-z0-9])whsec_[A-Za-z0-9]{20,}"),  # Stripe webhook signing secret
    re.compile(r"(?<![A-Za-z0-9])gl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_\-]{20,}"),  # GitLab
    re.compile(r"(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}"),
    re.compile(r"(?<![A-Za-z0-9])SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"),  # SendGrid
    re.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{16,}"),
    re.compile(r"(?:discord(?:app)?\.com)/api/webhooks/\d+/[A-Za-z0-9_\-]{20,}"),
)
#: the password of a URL's user info: scheme://user:PASSWORD@host
_URL_PASSWORD = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@]{0,64}:(?P<pw>[^\s@/]{1,128})@[\w.\-\[\]]"
)
#: an unlabelled 40-character AWS-style secret key (base64 alphabet, mixed case and digits)
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_BEARER = re.compile(r"\bBearer\s+([A-Za-z0-9\-._~+/]{16,}=*)", re.IGNORECASE)
_KEY_LABEL = re.compile(
    r"(?:(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_\-])*(?:api[_\-]?key|apikey|secret|token|key|credentials?)"
    r"(?![A-Za-z0-9])|密钥|秘钥|令牌)"
    r"\s*(?:[:=：]|\bis\b|是|为)\s*[\"'`]?([A-Za-z0-9_\-./+=]{16,})",
    re.IGNORECASE,
)
_PW_VALUE = r"(?:[\"'`“‘](?P<q>[^\"'`”’\n]{1,64})[\"'`”’]|(?P<v>[\x21-\x7e]+))"
_PW_EN = re.compile(
    r"(?P<pre>\b(?:my|our|his|her|their|wifi|wi-fi|admin|root|account|login|email|bank)\s+)?"
    r"\b(?P<label>password|passwd|passphrase|passcode|pwd|pw|pin(?:\s+code)?)\b"
    r"(?P<sep>\s*(?:[:=：]|\bis\b|\bwas\b|\bto\b)?\s*)" + _PW_VALUE,
    re.IGNORECASE,
)
_PW_ZH = re.compile(
    r"(?P<label>密码|口令|PIN码|pin码|PIN)"
    r"(?P<sep>\s*(?:是|为|：|:|=|改成了?|改为|设成了?|设置成了?|设为|设置为)?\s*)" + _PW_VALUE
)
#: a Chinese (or other non-ASCII) password value after an explicit separator: 我的密码是天王盖地虎
_PW_ZH_WORDS = re.compile(
    r"(?P<label>密码|口令|暗号)(?P<sep>\s*(?:是|为|：|:|=|改成了?|改为|设成了?|设置成了?|设为|设置为)\s*)"
    r"(?P<v>[^\s，。,;；！!？?、\x00-\x7f]{4,32})"
)
_ZH_NOT_A_VALUE = re.compile(
    r"^(?:什么|多少|啥|哪|几|怎么|如何|不|没|别|错|对|正确|必须|需要|要|一样|相同|同一|空|默认|忘|记不|"
    r"区分|包含|至少|最少|长度|太|很|非常|有效|无效|过期|强|弱|安全|复杂|简单|随机|临时|初始|原来|之前|"
    r"以前|已经|刚|被|由|在|从|用|和|跟|与|及|或|还|也|都|就|才|又|再|更|最|挺|真)"
)
#: a multi-word passphrase after "my ... password is": 3-6 plain words, none of them a function word
_PASSPHRASE = re.compile(
    r"(?P<pre>\b(?:my|our|his|her|their|the|wifi|wi-fi|admin|root|account|login|email|bank)\s+)"
    r"(?:\w+\s+)?\b(?:password|passphrase)\s+(?:is|was)\s+"
    r"(?P<v>[A-Za-z]+(?:[ \-][A-Za-z]+){2,5})(?=\s*(?:[.,;!?)\n]|$))",
    re.IGNORECASE,
)
_FUNCTION_WORDS = frozenset(
    """a an the and or but if of for to in on at by with from into onto about as than then so too
    very really quite not no never always still just only also again now soon today tomorrow
    yesterday next last this that these those it its is was be been being are were has have had
    do does did will would can could should must may might shall my your his her our their me you
    him us them i we they he she here there where when what which who how why all any some every
    each both few more most less least much many stored saved written kept set changed reset
    expired expiring same different easy hard long short weak strong simple complex secure safe
    wrong incorrect invalid required sensitive case manager policy somewhere""".split()
)
#: North American numbers: (415) 555-2671, 415-555-2671, 415.555.2671
_NANP_PHONE = re.compile(
    r"(?<![\d\-.])(?:\+?1[ \-.]?)?(?:\(\d{3}\)\s?|\d{3}[\-. ])\d{3}[\-. ]\d{4}(?![\d\-])"
)
_HOTLINE_AREAS = frozenset({"400", "800", "833", "844", "855", "866", "877", "888", "900"})
#: a card number in dotted groups of four: 4111.1111.1111.1111
_CARD_DOTTED = re.compile(r"(?<![\d.])\d{4}(?:\.\d{4}){2,3}(?:\.\d{1,3})?(?![\d.])")
_CN_ID = re.compile(
    r"(?<![0-9A-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx]"
    r"(?![0-9A-Za-z])"
)
_CARD = re.compile(r"(?<![\dA-Za-z.])\d(?:[ \-]?\d){12,18}(?![\dA-Za-z]|\.\d)")
_CN_MOBILE = re.compile(
    r"(?<![\dA-Za-z])(?:(?:\+|00)86[ \-]?)?1[3-9]\d(?:[ \-]?\d{4}){2}(?![\dA-Za-z])"
)
_INTL_PHONE = re.compile(
    r"(?<![\w+])\+\d{1,3}[ \-]?(?:\(\d{1,4}\)[ \-]?)?\d{1,4}(?:[ \-]?\d{2,4}){1,4}(?![\d])"
)

_CARD_CONTEXT = re.compile(r"卡|card|visa|master|amex|银联|信用|借记|储蓄|\bcc\b", re.IGNORECASE)
_ORDER_CONTEXT = re.compile(
    r"订单|单号|运单|快递|物流|流水|编号|发票|工单|条码|条形码|order|tracking|invoice|\bref|serial|\bid\b|"
    r"no\.|#|\bean\b|\bupc\b|isbn|barcode|\bsku\b",
    re.IGNORECASE,
)
_PW_STOPWORDS = frozenset(
    """required optional incorrect wrong invalid expired reset changed updated policy policies
    manager managers strength length field protected hidden empty none null n/a na same different
    weak strong too very not set the a an your my must should will can needs need requirements
    rules rule hint here below above redacted secure long short complex simple easy hard missing
    correct saved stored forgotten mandatory case-sensitive sensitive please and or of for with
    into if when that this it written kept somewhere there on in at""".split()
)
_UNIT_AFTER = re.compile(
    r"\s*(?:位|个|年|月|日|号|次|天|字|分钟|小时|秒|元|块|characters?\b|chars?\b|digits?\b)"
)
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


# --- validators ------------------------------------------------------------------------------


def luhn_ok(digits: str) -> bool:
    """True when a digit string passes the Luhn checksum used by payment cards."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def cn_id_ok(value: str) -> bool:
    """True for an 18-character Chinese resident ID with a valid checksum and a real birth date."""
    value = value.upper()
    if len(value) != 18 or not value[:17].isdigit():
        return False
    try:
        born = _dt.date(int(value[6:10]), int(value[10:12]), int(value[12:14]))
    except ValueError:
        return False
    if not 1900 <= born.year <= 2099:
        return False
    total = sum(int(d) * w for d, w in zip(value[:17], _ID_WEIGHTS))
    return _ID_CHECK[total % 11] == value[17]


def _iin_plausible(digits: str) -> bool:
    """Issuer prefixes actually in use (Visa, Mastercard, Amex, UnionPay, JCB, Diners, ...)."""
    head2 = int(digits[:2])
    if digits[0] in "46":
        return True
    if digits[0] == "5":
        return True
    if digits[0] == "3":
        return head2 in (30, 34, 35, 36, 37, 38, 39)
    if digits[0] == "2":
        return 2221 <= int(digits[:4]) <= 2720
    return False


def _entropy(value: str) -> float:
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _char_classes(value: str) -> int:
    return sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )


# --- per-kind scanners -----------------------------------------------------------------------


def _scan_private(text: str) -> Iterator[SecretFinding]:
    for m in _PRIVATE.finditer(text):
        yield SecretFinding("private", m.start(), m.end())
    for m in _PEM.finditer(text):
        yield SecretFinding("private_key", m.start(), m.end())


def _scan_api_keys(text: str) -> Iterator[SecretFinding]:
    for pattern in _TOKEN_PATTERNS:
        for m in pattern.finditer(text):
            yield SecretFinding("api_key", m.start(), m.end())
    for m in _BEARER.finditer(text):
        yield SecretFinding("api_key", m.start(1), m.end(1))
    for m in _KEY_LABEL.finditer(text):
        value = m.group(1)
        mixed = _char_classes(value.strip("=")) >= 2 and any(c.isdigit() for c in value)
        if mixed and _entropy(value) >= 3.0:  # a random-looking value, not "placeholder_value"
            yield SecretFinding("api_key", m.start(1), m.end(1))
    for m in _AWS_SECRET.finditer(text):
        value = m.group()
        # upper, lower and digits, and random: a git hash is hex, a word run has no digits
        if _char_classes(value.replace("/", "").replace("+", "")) >= 3 and _entropy(value) >= 4.2:
            yield SecretFinding("api_key", m.start(), m.end())


def _password_value(m: re.Match[str], text: str, relaxed: bool) -> tuple[int, int] | None:
    if m.group("q") is not None:
        return m.start("q"), m.end("q")
    start, end = m.start("v"), m.end("v")
    value = text[start:end]
    stripped = value.rstrip(".,;:!?)]}")
    end -= len(value) - len(stripped)
    value = stripped
    if len(value) < 4 or value.lower() in _PW_STOPWORDS or set(value) <= set("*xX#•.-_"):
        return None
    if _UNIT_AFTER.match(text, end):
        return None
    if not relaxed and (_char_classes(value) < 2 or len(value) < 6):
        return None
    if value.isalpha() and value.lower().endswith(("ing", "ed")):  # "is expiring", "was changed"
        return None
    return start, end


def _looks_numeric_pin(value: str | None) -> bool:
    return value is not None and value.isdigit() and len(value) >= 6


def _scan_passwords(text: str) -> Iterator[SecretFinding]:
    for m in _URL_PASSWORD.finditer(text):
        yield SecretFinding("password", m.start("pw"), m.end("pw"))
    for m in _PASSPHRASE.finditer(text):
        words = re.split(r"[ \-]", m.group("v").lower())
        if not any(w in _FUNCTION_WORDS or w.endswith(("ing", "ed")) for w in words):
            yield SecretFinding("password", m.start("v"), m.end("v"))
    for m in _PW_ZH_WORDS.finditer(text):
        if not _ZH_NOT_A_VALUE.match(m.group("v")) and not _UNIT_AFTER.match(text, m.end("v")):
            yield SecretFinding("password", m.start("v"), m.end("v"))
    for m in _PW_EN.finditer(text):
        sep = m.group("sep").strip()
        relaxed = sep in (":", "=", "：") or (m.group("pre") is not None and sep != "")
        span = _password_value(m, text, relaxed)
        if span:
            yield SecretFinding("password", *span)
    for m in _PW_ZH.finditer(text):
        if m.group("sep").strip():
            span = _password_value(m, text, relaxed=True)
        else:  # "密码 Alice#2023", "密码123456": no separator, so the value must look like one
            span = _password_value(m, text, relaxed=_looks_numeric_pin(m.group("v")))
        if span:
            yield SecretFinding("password", *span)


def _scan_numbers(text: str) -> Iterator[SecretFinding]:
    for m in _CN_ID.finditer(text):
        if cn_id_ok(m.group()):
            yield SecretFinding("cn_id", m.start(), m.end())
    for m in _CARD.finditer(text):
        if _card_ok(text, m):
            yield SecretFinding("card_number", m.start(), m.end())
    for m in _CN_MOBILE.finditer(text):
        yield SecretFinding("phone", m.start(), m.end())
    for m in _INTL_PHONE.finditer(text):
        if 8 <= sum(c.isdigit() for c in m.group()) <= 15:
            yield SecretFinding("phone", m.start(), m.end())
    for m in _NANP_PHONE.finditer(text):
        before = text[max(0, m.start() - 16) : m.start()]
        digits = re.sub(r"\D", "", m.group())[-10:]
        # a real area code and exchange (2-9, then not N11), and not a toll-free or 400 hotline,
        # which are businesses' published numbers (客服热线 400-800-8888)
        valid = digits[0] in "23456789" and digits[3] in "23456789" and digits[1:3] != "11"
        if valid and digits[:3] not in _HOTLINE_AREAS and not _ORDER_CONTEXT.search(before):
            yield SecretFinding("phone", m.start(), m.end())
    for m in _CARD_DOTTED.finditer(text):
        digits = m.group().replace(".", "")
        if (
            13 <= len(digits) <= 19
            and luhn_ok(digits)
            and (
                _CARD_CONTEXT.search(text[max(0, m.start() - 16) : m.start()])
                or _iin_plausible(digits)
            )
        ):
            yield SecretFinding("card_number", m.start(), m.end())


def _card_ok(text: str, m: re.Match[str]) -> bool:
    raw = m.group()
    digits = re.sub(r"\D", "", raw)
    if not 13 <= len(digits) <= 19 or not luhn_ok(digits):
        return False
    groups = re.split(r"[ \-]", raw)
    if len(groups) > 1 and not (
        all(len(g) == 4 for g in groups[:-1]) or [len(g) for g in groups] == [4, 6, 5]
    ):
        return False
    before = text[max(0, m.start() - 16) : m.start()]
    card_context = bool(_CARD_CONTEXT.search(before))
    if _ORDER_CONTEXT.search(before) and not card_context:
        return False
    return card_context or _iin_plausible(digits)


_SCANNERS: tuple[Callable[[str], Iterator[SecretFinding]], ...] = (
    _scan_private,
    _scan_api_keys,
    _scan_passwords,
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


class SecretFilter:
    """Finds, redacts or strips secrets. Stateless and thread-safe."""

    def redact_value(self, value: object, *, depth: int = 0) -> object:
        """A JSON-like value with every string in it redacted, keys included, at any depth
        (nested tool arguments, argv lists); other scalars are kept, deeper than 32 levels
        everything becomes its redacted text."""
        if isinstance(value, str):
            return self.redact(value)
        if depth > 32:
            return self.redact(str(value))
        if isinstance(value, dict):
            return {
                self.redact(str(k)): self.redact_value(v, depth=depth + 1) for k, v in value.items()
            }
        if isinstance(value, (list, tuple, set, frozenset)):
            return [self.redact_value(v, depth=depth + 1) for v in value]
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, (int, float)):  # a card number sent as a JSON number
            text = str(value)
            redacted = self.redact(text)
            return value if redacted == text else redacted
        return self.redact(str(value))

    def scan(self, text: str) -> list[SecretFinding]:
        """Non-overlapping findings sorted by start; on overlap the higher-priority kind wins."""
        found = [f for scanner in _SCANNERS for f in scanner(text)]
        found.sort(key=lambda f: (_PRIORITY[f.kind], -(f.end - f.start), f.start))
        kept: list[SecretFinding] = []
        for f in found:
            if all(f.end <= k.start or f.start >= k.end for k in kept):
                kept.append(f)
        return sorted(kept, key=lambda f: f.start)

    def contains_secret(self, text: str) -> bool:
        """True when scan() finds anything."""
        return bool(self.scan(text))

    def redact(self, text: str) -> str:
        """The text with each secret span replaced by `[REDACTED:<kind>]`."""
        out = text
        for f in reversed(self.scan(text)):
            out = f"{out[: f.start]}[REDACTED:{f.kind}]{out[f.end :]}"
        return out

    def strip(self, text: str) -> str:
        """`<private>` spans cut out and every clause holding a secret dropped: what may be kept.

        Dropping the whole clause (not just the value) keeps "my password is" style leftovers
        out of memories; a text that is only a secret strips to "". Clauses holding a
        `[REDACTED:<kind>]` marker (text redacted upstream) are dropped the same way.
        """
        text = _PRIVATE.sub(" ", text)
        spans = [(f.start, f.end) for f in self.scan(text)]
        spans += [m.span() for m in _MARKER.finditer(text)]  # already redacted upstream
        if not spans:
            return text.strip()
        kept = [
            text[a:b] for a, b in split_clauses(text) if all(e <= a or s >= b for s, e in spans)
        ]
        return "".join(kept).strip()
