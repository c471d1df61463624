"""The secret pattern table: what each kind of secret looks like (regular expressions), and the
validators that tell a secret from its lookalikes (Luhn and ID checksums, issuer prefixes,
entropy, character classes). `secrets.py` scans texts with them and redacts what they find.
"""

# ruff: noqa: SIM905  (word lists read best as one string)

from __future__ import annotations

import datetime as _dt
import math
import re
from collections import Counter

# --- patterns -------------------------------------------------------------------------------

PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
PEM = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|\Z)",
    re.DOTALL,
)
TOKEN_PATTERNS = (
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
URL_PASSWORD = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@]{0,64}:(?P<pw>[^\s@/]{1,128})@[\w.\-\[\]]"
)
#: an unlabelled 40-character AWS-style secret key (base64 alphabet, mixed case and digits)
AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
BEARER = re.compile(r"\bBearer\s+([A-Za-z0-9\-._~+/]{16,}=*)", re.IGNORECASE)
KEY_LABEL = re.compile(
    r"(?:(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_\-])*(?:api[_\-]?key|apikey|secret|token|key|credentials?)"
    r"(?![A-Za-z0-9])|密钥|秘钥|令牌)"
    r"\s*(?:[:=：]|\bis\b|是|为)\s*[\"'`]?([A-Za-z0-9_\-./+=]{16,})",
    re.IGNORECASE,
)
_PW_VALUE = r"(?:[\"'`“‘](?P<q>[^\"'`”’\n]{1,64})[\"'`”’]|(?P<v>[\x21-\x7e]+))"
PW_EN = re.compile(
    r"(?P<pre>\b(?:my|our|his|her|their|wifi|wi-fi|admin|root|account|login|email|bank)\s+)?"
    r"\b(?P<label>password|passwd|passphrase|passcode|pwd|pw|pin(?:\s+code)?)\b"
    r"(?P<sep>\s*(?:[:=：]|\bis\b|\bwas\b|\bto\b)?\s*)" + _PW_VALUE,
    re.IGNORECASE,
)
PW_ZH = re.compile(
    r"(?P<label>密码|口令|PIN码|pin码|PIN)"
    r"(?P<sep>\s*(?:是|为|：|:|=|改成了?|改为|设成了?|设置成了?|设为|设置为)?\s*)" + _PW_VALUE
)
#: a Chinese (or other non-ASCII) password value after an explicit separator: 我的密码是天王盖地虎
PW_ZH_WORDS = re.compile(
    r"(?P<label>密码|口令|暗号)(?P<sep>\s*(?:是|为|：|:|=|改成了?|改为|设成了?|设置成了?|设为|设置为)\s*)"
    r"(?P<v>[^\s，。,;；！!？?、\x00-\x7f]{4,32})"
)
ZH_NOT_A_VALUE = re.compile(
    r"^(?:什么|多少|啥|哪|几|怎么|如何|不|没|别|错|对|正确|必须|需要|要|一样|相同|同一|空|默认|忘|记不|"
    r"区分|包含|至少|最少|长度|太|很|非常|有效|无效|过期|强|弱|安全|复杂|简单|随机|临时|初始|原来|之前|"
    r"以前|已经|刚|被|由|在|从|用|和|跟|与|及|或|还|也|都|就|才|又|再|更|最|挺|真)"
)
#: a multi-word passphrase after "my ... password is": 3-6 plain words, none of them a function word
PASSPHRASE = re.compile(
    r"(?P<pre>\b(?:my|our|his|her|their|the|wifi|wi-fi|admin|root|account|login|email|bank)\s+)"
    r"(?:\w+\s+)?\b(?:password|passphrase)\s+(?:is|was)\s+"
    r"(?P<v>[A-Za-z]+(?:[ \-][A-Za-z]+){2,5})(?=\s*(?:[.,;!?)\n]|$))",
    re.IGNORECASE,
)
FUNCTION_WORDS = frozenset(
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
NANP_PHONE = re.compile(
    r"(?<![\d\-.])(?:\+?1[ \-.]?)?(?:\(\d{3}\)\s?|\d{3}[\-. ])\d{3}[\-. ]\d{4}(?![\d\-])"
)
HOTLINE_AREAS = frozenset({"400", "800", "833", "844", "855", "866", "877", "888", "900"})
#: a card number in dotted groups of four: 4111.1111.1111.1111
CARD_DOTTED = re.compile(r"(?<![\d.])\d{4}(?:\.\d{4}){2,3}(?:\.\d{1,3})?(?![\d.])")
CN_ID = re.compile(
    r"(?<![0-9A-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx]"
    r"(?![0-9A-Za-z])"
)
CARD = re.compile(r"(?<![\dA-Za-z.])\d(?:[ \-]?\d){12,18}(?![\dA-Za-z]|\.\d)")
CN_MOBILE = re.compile(
    r"(?<![\dA-Za-z])(?:(?:\+|00)86[ \-]?)?1[3-9]\d(?:[ \-]?\d{4}){2}(?![\dA-Za-z])"
)
INTL_PHONE = re.compile(
    r"(?<![\w+])\+\d{1,3}[ \-]?(?:\(\d{1,4}\)[ \-]?)?\d{1,4}(?:[ \-]?\d{2,4}){1,4}(?![\d])"
)

CARD_CONTEXT = re.compile(r"卡|card|visa|master|amex|银联|信用|借记|储蓄|\bcc\b", re.IGNORECASE)
ORDER_CONTEXT = re.compile(
    r"订单|单号|运单|快递|物流|流水|编号|发票|工单|条码|条形码|order|tracking|invoice|\bref|serial|\bid\b|"
    r"no\.|#|\bean\b|\bupc\b|isbn|barcode|\bsku\b",
    re.IGNORECASE,
)
PW_STOPWORDS = frozenset(
    """required optional incorrect wrong invalid expired reset changed updated policy policies
    manager managers strength length field protected hidden empty none null n/a na same different
    weak strong too very not set the a an your my must should will can needs need requirements
    rules rule hint here below above redacted secure long short complex simple easy hard missing
    correct saved stored forgotten mandatory case-sensitive sensitive please and or of for with
    into if when that this it written kept somewhere there on in at""".split()
)
UNIT_AFTER = re.compile(
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


def iin_plausible(digits: str) -> bool:
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


def entropy(value: str) -> float:
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def char_classes(value: str) -> int:
    return sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )
