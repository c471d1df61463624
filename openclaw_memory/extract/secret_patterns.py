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
_NB = r"(?<![A-Za-z0-9])"  # no letter or digit before
_NA = r"(?![A-Za-z0-9])"  # none after
#: vendor token shapes: a fixed prefix and the length and alphabet its issuer uses
TOKEN_PATTERNS = (
    re.compile(_NB + r"sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),  # OpenAI, Anthropic
    re.compile(_NB + r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}" + _NA),  # AWS access key id
    re.compile(_NB + r"gh[pousr]_[A-Za-z0-9]{30,}"),  # GitHub
    re.compile(_NB + r"github_pat_[A-Za-z0-9_]{22,}"),
    re.compile(_NB + r"xox[abposre]-[A-Za-z0-9\-]{10,}"),  # Slack
    re.compile(_NB + r"xapp-\d-[A-Za-z0-9\-]{20,}"),
    re.compile(_NB + r"hf_[A-Za-z0-9]{30,}"),  # Hugging Face
    re.compile(_NB + r"AIza[0-9A-Za-z_\-]{35}"),  # Google API key
    re.compile(_NB + r"GOCSPX-[A-Za-z0-9_\-]{24,}"),  # Google OAuth client secret
    re.compile(_NB + r"ya29\.[A-Za-z0-9_\-]{20,}"),  # Google OAuth access token
    re.compile(_NB + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),  # JWT
    re.compile(_NB + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),  # Stripe secret/restricted
    re.compile(_NB + r"whsec_[A-Za-z0-9]{20,}"),  # Stripe webhook signing secret
    re.compile(_NB + r"gl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_\-]{20,}"),  # GitLab
    re.compile(_NB + r"npm_[A-Za-z0-9]{36}"),
    re.compile(_NB + r"pypi-AgE[A-Za-z0-9_\-]{40,}"),
    re.compile(_NB + r"SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"),  # SendGrid
    re.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{16,}"),
    re.compile(r"(?:discord(?:app)?\.com)/api/webhooks/\d+/[A-Za-z0-9_\-]{20,}"),
    # Telegram bot token: the bot's numeric id, a colon, 35 characters
    re.compile(r"(?<![\w:])\d{8,10}:[A-Za-z0-9_\-]{30,40}(?![\w\-])"),
    # Discord bot token: base64 user id, timestamp, HMAC
    re.compile(_NB + r"[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}" + _NA),
    # Azure AD client secret: three characters, a digit, "Q~", then 31-34 more
    re.compile(r"(?<![\w~.\-])[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![\w~.\-])"),
    # Azure storage account key, unlabelled: 86 base64 characters and "=="
    re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{86}=="),
    re.compile(_NB + r"do[opr]_v1_[a-f0-9]{64}" + _NA),  # DigitalOcean
    re.compile(_NB + r"LTAI[A-Za-z0-9]{12,24}" + _NA),  # Alibaba Cloud AccessKey id
    re.compile(_NB + r"AKID[A-Za-z0-9]{13,40}" + _NA),  # Tencent Cloud SecretId
    re.compile(_NB + r"AKLT[A-Za-z0-9_\-]{20,}" + _NA),  # Volcengine
    re.compile(_NB + r"key-[a-f0-9]{32}" + _NA),  # Mailgun
    re.compile(_NB + r"[a-f0-9]{32}-us\d{1,2}" + _NA),  # Mailchimp
    re.compile(_NB + r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}" + _NA),  # Shopify
    re.compile(_NB + r"SK[0-9a-f]{32}" + _NA),  # Twilio API key
    re.compile(_NB + r"sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}"),  # Square
    re.compile(_NB + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + _NA),  # Postman
    re.compile(_NB + r"hv[sb]\.[A-Za-z0-9_\-]{24,}"),  # HashiCorp Vault
    re.compile(_NB + r"dp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{40,}"),  # Doppler
    re.compile(_NB + r"lin_api_[A-Za-z0-9]{40}" + _NA),  # Linear
    re.compile(_NB + r"(?:ntn_|secret_)[A-Za-z0-9]{43,46}" + _NA),  # Notion
    re.compile(_NB + r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _NA),  # Airtable
    re.compile(_NB + r"figd_[A-Za-z0-9_\-]{30,}"),  # Figma
    re.compile(
        _NB + r"(?:gsk_|xai-|pplx-|r8_)[A-Za-z0-9]{30,}"
    ),  # Groq, xAI, Perplexity, Replicate
    re.compile(_NB + r"AGE-SECRET-KEY-1[0-9A-Z]{58}" + _NA),  # age
    re.compile(_NB + r"EAA[A-Za-z0-9]{80,}"),  # Facebook / Meta access token
    re.compile(_NB + r"ATATT3[A-Za-z0-9_\-=]{60,}"),  # Atlassian API token
)
#: the password of a URL's user info: scheme://user:PASSWORD@host
URL_PASSWORD = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@]{0,64}:(?P<pw>[^\s@/]{1,128})@[\w.\-\[\]]"
)
#: what a documentation URL puts where the password goes: scheme://user:password@host
URL_PASSWORD_PLACEHOLDERS = frozenset(
    """password pass passwd pwd secret pw token your_password yourpassword your-password
    mypassword changeme 密码 口令""".split()
)
#: an unlabelled 40-character AWS-style secret key (base64 alphabet, mixed case and digits)
AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
BEARER = re.compile(r"\bBearer\s+([A-Za-z0-9\-._~+/]{16,}=*)", re.IGNORECASE)
KEY_LABEL = re.compile(
    r"(?:(?<![A-Za-z0-9])(?:[A-Za-z0-9]{1,32}[_\-]){0,4}(?:api[_\-]?key|apikey|secret|token|key|credentials?)"
    r"(?![A-Za-z0-9])|密钥|秘钥|令牌)"
    r"\s*(?:[:=：]|\bis\b|是|为)\s*[\"'`]?([A-Za-z0-9_\-./+=]{16,})",
    re.IGNORECASE,
)
#: an HTTP auth header in text: `Authorization: Basic dXNl...`, `Proxy-Authorization: Bearer ...`
AUTH_HEADER = re.compile(
    r"(?<![A-Za-z0-9\-])(?:proxy-)?authori[sz]ation[\"']?\s*[:=]\s*[\"']?"
    r"(?:(?:basic|bearer|token|digest|bot|apikey|api-key|negotiate|ntlm|hmac|aws4-hmac-sha256)\s+)?"
    r"(?P<v>[^\s\"',;]{6,}(?:,\s*[A-Za-z]+=[^\s\"',]+){0,8})",
    re.IGNORECASE,
)
#: `NAME = value`, `NAME: value`, `"name": "value"`, `name=value&` (env lines, JSON, YAML, query
#: strings, connection strings); the name decides whether the value is a secret (`secret_name`)
ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9_\-.])(?P<oq>\\{0,3}[\"']|)(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,63})(?P=oq)"
    r"\s*(?::=|=>|[:=：])\s*"
    r"(?:\\\"(?P<eq>(?:[^\"\\\n]|\\[^\"\n]){0,2048})\\\""
    r"|\"(?P<dq>(?:[^\"\\\n]|\\.){0,2048})\""
    r"|'(?P<sq>(?:[^'\\\n]|\\.){0,2048})'"
    r"|(?P<v>[^\s\"'}\];]{1,256}))"
)
#: the same with a Chinese name: 数据库密码：xxx, 访问密钥=xxx
ASSIGNMENT_ZH = re.compile(
    r"(?P<name>密码|口令|密钥|秘钥|令牌|私钥)[\"'”]?\s*(?:[:=：]|是|为)\s*"
    r"(?:[\"'“‘「](?P<qv>[^\"'”’」\n]{1,128})[\"'”’」]|(?P<v>[\x21-\x7e]{3,256}))"
)
#: a command-line flag naming a secret, and its value: `--password X`, `--token=X`, `--api-key X`
FLAG = re.compile(
    r"(?<![\w\-])--?(?P<name>[A-Za-z][A-Za-z0-9_\-]{1,40})(?:=|\s+)"
    r"(?:(?P<q>[\"'])(?P<qv>[^\"'\n]{1,256})(?P=q)|(?P<v>[^\s\"']{1,256}))"
)
#: programs whose short flag takes a password (flag -> attached value allowed)
PASSWORD_SHORT_FLAGS: dict[str, dict[str, bool]] = {
    "mysql": {"-p": True},
    "mysqldump": {"-p": True},
    "mysqladmin": {"-p": True},
    "mysqlimport": {"-p": True},
    "mariadb": {"-p": True},
    "mariadb-dump": {"-p": True},
    "sshpass": {"-p": False},
    "redis-cli": {"-a": False},
    "docker": {"-p": False},
    "podman": {"-p": False},
    "helm": {"-p": False},
    "nerdctl": {"-p": False},
    "mongo": {"-p": False},
    "mongosh": {"-p": False},
    "mongodump": {"-p": False},
    "mongorestore": {"-p": False},
    "zip": {"-P": False},
    "unzip": {"-P": False},
    "7z": {"-p": True},
    "rar": {"-p": True},
    "unrar": {"-p": True},
    "ldapsearch": {"-w": False},
    "ldapmodify": {"-w": False},
    "ldapadd": {"-w": False},
    "mosquitto_pub": {"-P": False},
    "mosquitto_sub": {"-P": False},
    "smbclient": {"-U": False},
    "curl": {"-u": False, "--user": False, "-U": False, "--proxy-user": False},
    "wget": {},
    "openssl": {"-passin": False, "-passout": False, "-pass": False, "-k": False},
    "htpasswd": {},
    "sqlcmd": {"-P": False},
    "bcp": {"-P": False},
    "vncpasswd": {},
    "psql": {},
}
#: programs whose short password flag belongs to one subcommand (`docker login -p`, where
#: `docker run -p` is a port)
SHORT_FLAG_SUBCOMMAND = {"docker": "login", "podman": "login", "helm": "login", "nerdctl": "login"}
#: user:password values (curl -u, smbclient -U user%password): only the password part is secret
USER_PASS = re.compile(r"^[^:%\s]{1,64}[:%](?P<pw>.+)$")
#: a secret word in either language, then within a few words a value that looks random
SECRET_WORD_VALUE = re.compile(
    r"(?P<word>(?<![A-Za-z])(?:password|passwd|passphrase|passcode|secret|token|api[ _\-]?key|"
    r"access[ _\-]key|secret[ _\-]key|private[ _\-]key|credentials?)(?![A-Za-z])"
    r"|密码|口令|密钥|秘钥|令牌|私钥|凭证|凭据)"
    r"[^\n。！？!?]{0,32}?(?<![A-Za-z0-9_\-+/=])(?P<v>[A-Za-z0-9_\-+/!@#$%^&*.~]{8,128}={0,2})(?![=:])",
    re.IGNORECASE,
)
#: a US social security number, dashed or spaced (area 000, 666 and 900-999, group 00 and
#: serial 0000 are never issued)
SSN = re.compile(r"\d(?<![\d\-]\d)\d\d(?P<s>[\- ])\d\d(?P=s)\d{4}(?![\d\-])")
#: nine digits after a word that says what they are
SSN_LABELLED = re.compile(
    r"(?:\bSSN|\bsocial\s+security(?:\s+(?:number|no\.?|#))?|社会安全号(?:码)?|社保号(?:码)?)"
    r"[^\w\n]{0,6}(?:is\s+|是|为)?\s*(?P<v>(?!000|666|9\d\d)\d{3}(?!00)\d{2}(?!0000)\d{4})(?!\d)",
    re.IGNORECASE,
)
#: numbers published as examples that no one holds
SSN_EXAMPLES = frozenset({"078051120", "219099999"})
#: a passport number after the word: E12345678, EA1234567, 912345678, K1234567
PASSPORT = re.compile(
    r"(?:\bpassport(?:\s+(?:number|no\.?|#|num))?|护照(?:号码|号)?|通行证(?:号码|号)?)"
    r"[^\w\n]{0,6}(?:(?:is|was)\s+|是|为)?\s*"
    r"(?P<v>(?=[A-Z0-9]{6,10}(?![A-Za-z0-9]))[A-Z]{0,2}\d{6,9}[A-Z0-9]?)(?![A-Za-z0-9])",
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


def ssn_ok(digits: str) -> bool:
    """True for nine digits a US social security number can be: area not 000, 666 or 9xx,
    group not 00, serial not 0000, and not one of the published example numbers."""
    return (
        len(digits) == 9
        and digits[:3] not in ("000", "666")
        and digits[0] != "9"
        and digits[3:5] != "00"
        and digits[5:] != "0000"
        and digits not in SSN_EXAMPLES
    )


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


# --- secret names (dict keys, variables, flags, headers) -------------------------------------

_NAME_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
#: a name whose last word is one of these holds a password
PASSWORD_WORDS = frozenset(
    "password passwords passwd pwd passphrase passcode pass pin pincode pwd1 pw".split()
)
#: ... one of these, a token, key or other credential
TOKEN_WORDS = frozenset(
    """secret secrets token apikey credential credentials authorization auth cookie
    accesstoken authtoken sessiontoken secretkey privatekey accesskey""".split()
)
#: "key" is a secret only after one of these words (`api_key`, `AccountKey`, `x-api-key`)
KEY_OWNERS = frozenset(
    """api access secret private signing encryption master license account storage shared
    subscription service ssh gpg pgp deploy client app auth aws session webhook consumer
    primary secondary admin root host function""".split()
)
#: fused names (`PGPASSWORD`, `MYSQL_PWD`'s cousins, `apiKey` written in one word)
_FUSED_ENDINGS = (
    "password",
    "passwd",
    "passphrase",
    "apikey",
    "secretkey",
    "accesskey",
    "privatekey",
    "accountkey",
    "accesstoken",
    "authtoken",
    "clientsecret",
    "secret",
    "token",
)
_ZH_SECRET_NAME = re.compile(r"密码|口令|密钥|秘钥|令牌|私钥|暗号")
_ZH_ID_NAME = re.compile(r"(?:身份证|护照)(?:号码|号)?$")
_ZH_NOT_SECRET_NAME = re.compile(
    r"(?:策略|规则|长度|强度|提示|管理器?|学|框|错误|过期|重置|找回|要求|字段)$"
)


def secret_name(name: str) -> str | None:
    """The kind of secret a field, variable, flag or header called `name` holds, or None.

    The last word decides (`db_password`, `PGPASSWORD`, `AccountKey`, `X-Api-Key`, `--token`,
    `client_secret`, 数据库密码), so `password_file`, `token_count`, `max_tokens` and 密码策略
    are not secrets.
    """
    name = name.strip().strip("\"'`-")
    if not name or len(name) > 80:
        return None
    if not name.isascii():
        if _ZH_SECRET_NAME.search(name) and not _ZH_NOT_SECRET_NAME.search(name):
            return "password" if re.search(r"密码|口令|暗号", name) else "api_key"
        if m := _ZH_ID_NAME.search(name):
            return "cn_id" if m.group().startswith("身份") else "passport"
        name = re.sub(r"[^\x00-\x7f]", " ", name)
    words = [w.lower() for w in _NAME_WORDS.findall(name)]
    if not words:
        return None
    last, joined = words[-1], "".join(words)
    if last == "ssn" or joined.endswith("socialsecuritynumber"):
        return "ssn"
    if "passport" in words and last in ("passport", "number", "no", "num", "id"):
        return "passport"
    if last in PASSWORD_WORDS or joined.endswith(("password", "passwd", "passphrase")):
        return "password"
    if last in TOKEN_WORDS or (last == "key" and len(words) > 1 and words[-2] in KEY_OWNERS):
        return "api_key"
    if joined == "sig":  # an Azure SAS signature in a query string
        return "api_key"
    if len(words) == 1 and joined.endswith(_FUSED_ENDINGS):
        return "api_key"
    return None


#: values that stand for no secret: empty, masked, templated, or already redacted
PLACEHOLDER = re.compile(
    r"^(?:|[*xX•#.\-_ ]+|\[REDACTED(?::[a-z_]+)?\]|<[^<>]{0,40}>|\$\{[^}]{0,60}\}|\$[A-Z_][A-Z0-9_]*"
    r"|\{\{[^}]{0,60}\}\}|%\([a-z_]+\)s|null|none|nil|n/a|true|false|undefined|redacted|hidden|"
    r"env:[A-Za-z_][A-Za-z0-9_]*|file:\S+|fd:\d+|stdin|placeholder|example|sample|"
    r"your[-_][a-z_\-]*|[a-z_\-]*[-_]here|(?:your|my)(?:api)?(?:key|token|secret|password))$",
    re.IGNORECASE,
)
