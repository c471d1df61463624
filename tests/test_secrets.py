"""The sensitive-information filter, against a labelled corpus and unit cases (zh and en)."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest

from openclaw_memory.extract.secret_patterns import cn_id_ok, luhn_ok
from openclaw_memory.extract.secrets import SecretFilter

CORPUS = Path(__file__).parent / "data" / "secrets_corpus.tsv"
FILTER = SecretFilter()


def _rows() -> list[tuple[str, str, str, str]]:
    rows = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        label, kind, text, secret = line.split("\t")
        rows.append((label, kind, text.replace("\\n", "\n"), secret))
    return rows


def _fragments(secret: str) -> list[str]:
    """Pieces of a secret that must not survive redaction: every window of half its length
    (at least 6 characters), so a partial redaction that leaves half the secret fails."""
    if len(secret) < 8:
        return [secret]
    width = max(6, len(secret) // 2)
    return [secret[i : i + width] for i in range(len(secret) - width + 1)]


def test_corpus_shape() -> None:
    rows = _rows()
    labels = Counter(r[0] for r in rows)
    assert len(rows) >= 200
    assert labels["secret"] >= 80 and labels["plain"] >= 120
    assert any("密码" in r[2] for r in rows) and any("password" in r[2].lower() for r in rows)


def test_corpus_secrets_caught_and_plain_lines_mostly_clean(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = _rows()
    missed, leaked, flagged = [], [], []
    for label, kind, text, secret in rows:
        findings = FILTER.scan(text)
        if label == "secret":
            at = text.index(secret)
            kinds = {f.kind for f in findings if f.start < at + len(secret) and f.end > at}
            if kind not in kinds:
                missed.append((kind, text))
            redacted = FILTER.redact(text)
            if any(piece in redacted for piece in _fragments(secret)):
                leaked.append((kind, redacted))
        elif findings:
            flagged.append((kind, text, [f.kind for f in findings]))
    n_secret = sum(r[0] == "secret" for r in rows)
    n_plain = len(rows) - n_secret
    with capsys.disabled():
        print(
            f"\nsecrets corpus: {n_secret - len(missed)}/{n_secret} secret lines caught, "
            f"{len(leaked)} leaked after redact, {len(flagged)}/{n_plain} plain lines flagged "
            f"({len(flagged) / n_plain:.1%}): {flagged}"
        )
    assert missed == []
    assert leaked == []
    assert len(flagged) / n_plain <= 0.02


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("我的密码是abc12345", "password", "abc12345"),
        ("my password is hunter22", "password", "hunter22"),
        (
            "key sk-proj-4fGh7Jk2LmN9pQr5StUv8WxYz1Ab3Cd",
            "api_key",
            "sk-proj-4fGh7Jk2LmN9pQr5StUv8WxYz1Ab3Cd",
        ),
        ("身份证 110101199003071233", "cn_id", "110101199003071233"),
        ("信用卡 4111 1111 1111 1111", "card_number", "4111 1111 1111 1111"),
        ("手机13812345678", "phone", "13812345678"),
        ("call +1 415 555 2671", "phone", "+1 415 555 2671"),
    ],
)
def test_redact_replaces_the_value_with_its_kind(text: str, kind: str, value: str) -> None:
    redacted = FILTER.redact(text)
    assert value not in redacted
    assert f"[REDACTED:{kind}]" in redacted
    assert FILTER.contains_secret(text)


def test_findings_do_not_overlap_and_higher_priority_kind_wins() -> None:
    # An api key after "password:" is both; the api_key rule has priority.
    text = "password: sk-9aZbYcXdWeVfUgThSiRjQkPlOm8n7 and phone 13812345678"
    findings = FILTER.scan(text)
    assert [f.kind for f in findings] == ["api_key", "phone"]
    assert all(a.end <= b.start for a, b in itertools.pairwise(findings))


@pytest.mark.parametrize(
    ("text", "kept", "gone"),
    [
        ("我叫张三，密码是hunter22，我喜欢喝茶", "我叫张三，我喜欢喝茶", "hunter22"),
        ("My name is Bob. My password is hunter22. I like tea.", "I like tea", "hunter22"),
        ("我喜欢喝茶<private>我在看心理医生</private>。", "我喜欢喝茶", "心理医生"),
        ("I like jazz <private>and my ex is Tom", "I like jazz", "Tom"),
    ],
)
def test_strip_drops_secret_clauses_and_private_spans(text: str, kept: str, gone: str) -> None:
    stripped = FILTER.strip(text)
    assert kept in stripped
    assert gone not in stripped
    assert "password" not in stripped.lower() and "密码" not in stripped


@pytest.mark.parametrize(
    "text", ["我的密码是abc12345", "password: Tr0ub4dor&3", "<private>全部私密</private>"]
)
def test_a_text_that_is_only_a_secret_strips_to_nothing(text: str) -> None:
    assert FILTER.strip(text) == ""


@pytest.mark.parametrize(
    ("digits", "ok"),
    [
        ("4111111111111111", True),
        ("4111111111111112", False),
        ("378282246310005", True),
        ("0", True),
    ],
)
def test_luhn(digits: str, ok: bool) -> None:
    assert luhn_ok(digits) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("110101199003071233", True),
        ("110101199003071230", False),  # checksum
        ("110101199002301236", False),  # 30 February
        ("11010118000307123X", False),  # year out of range / checksum
    ],
)
def test_cn_id_checksum_and_birth_date(value: str, ok: bool) -> None:
    assert cn_id_ok(value) is ok


# ---- structure, not a serialisation --------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"password": "X1y2z3!"}, {"password": "[REDACTED:password]"}),
        ({"密码": "天王盖地虎"}, {"密码": "[REDACTED:password]"}),
        ({"db": {"PGPASSWORD": "pw"}}, {"db": {"PGPASSWORD": "[REDACTED:password]"}}),
        ({"AccountKey": "abc=="}, {"AccountKey": "[REDACTED:api_key]"}),
        ({"X-Api-Key": "k1"}, {"X-Api-Key": "[REDACTED:api_key]"}),
        ({"Authorization": "Basic dXNlcjpwdw=="}, {"Authorization": "[REDACTED:api_key]"}),
        ({"pin": 4821}, {"pin": "[REDACTED:password]"}),
        ({"credentials": {"user": "bob", "pw": "x"}}, {"credentials": "[REDACTED:api_key]"}),
        (
            {"env": [{"name": "DB_PASSWORD", "value": "s3cr3t"}]},
            {"env": [{"name": "DB_PASSWORD", "value": "[REDACTED:password]"}]},
        ),
        (
            {"argv": ["deploy", "--password", "NestedArgvPassw0rd!"]},
            {"argv": ["deploy", "--password", "[REDACTED:password]"]},
        ),
        ({"argv": ["x", "--token=abcDEF123456"]}, {"argv": ["x", "--token=[REDACTED:api_key]"]}),
        (
            {"argv": ["mysql", "-uroot", "-pTopSecret1"]},
            {"argv": ["mysql", "-uroot", "-p[REDACTED:password]"]},
        ),
        (
            {"argv": ["sshpass", "-p", "Pw 1", "ssh", "h"]},
            {"argv": ["sshpass", "-p", "[REDACTED:password]", "ssh", "h"]},
        ),
        (
            {"argv": ["curl", "-u", "bob:hunter22", "u"]},
            {"argv": ["curl", "-u", "bob:[REDACTED:password]", "u"]},
        ),
        (
            {"argv": ["docker", "login", "-p", "Dk9!x"]},
            {"argv": ["docker", "login", "-p", "[REDACTED:password]"]},
        ),
        (
            {"ssn": "123456789", "passport_no": "E1234567", "护照号": "E7654321"},
            {
                "ssn": "[REDACTED:ssn]",
                "passport_no": "[REDACTED:passport]",
                "护照号": "[REDACTED:passport]",
            },
        ),
        (
            {"argv": ["env", "AWS_SECRET_ACCESS_KEY=abc", "run"]},
            {"argv": ["env", "AWS_SECRET_ACCESS_KEY=[REDACTED:api_key]", "run"]},
        ),
        # kept: no secret in them
        ({"passport_expiry": "2031-01-01", "api_key": "your-key-here", "token": "<token>"}, None),
        ({"max_tokens": 512, "token_count": 9, "password_file": "/run/pw"}, None),
        ({"password": "", "token": None, "api_key": "${API_KEY}", "secret": "***"}, None),
        ({"argv": ["docker", "run", "-p", "8080:80", "nginx"]}, None),
        ({"argv": ["ssh", "-p", "2222", "host"], "cmd": ["mkdir", "-p", "build"]}, None),
        ({"name": "alice", "value": "tea"}, None),
    ],
)
def test_redact_value_reads_the_structure(value: object, expected: object) -> None:
    assert FILTER.redact_value(value) == (value if expected is None else expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"password": "X12345678"}', '{"password": "[REDACTED:password]"}'),
        (
            "{'password': 'X1234', 'user': 'bob'}",
            "{'password': '[REDACTED:password]', 'user': 'bob'}",
        ),
        ('{"密码": "天王盖地虎"}', '{"密码": "[REDACTED:password]"}'),
        ('{\\"token\\": \\"Esc4ped!xyz\\"}', '{\\"token\\": \\"[REDACTED:api_key]\\"}'),
        ("--password NestedArgvPassw0rd!", "--password [REDACTED:password]"),
        ("run --verbose --password Xy12abc!", "run --verbose --password [REDACTED:password]"),
        ("DB_PASSWORD=hunter2abc", "DB_PASSWORD=[REDACTED:password]"),
        ("export PGPASSWORD=abcdef12", "export PGPASSWORD=[REDACTED:password]"),
        ("Noted: DB_PASSWORD=Panda3898&l", "Noted: DB_PASSWORD=[REDACTED:password]"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED:api_key]"),
        (
            "https://x.cn/q?access_token=Abc123def456&page=2",
            "https://x.cn/q?access_token=[REDACTED:api_key]&page=2",
        ),
        (
            "Server=db;User Id=sa;Password=Pw#2024x;",
            "Server=db;User Id=sa;Password=[REDACTED:password];",
        ),
        ("数据库密码：Db#2024pass", "数据库密码：[REDACTED:password]"),
        ("mysql -u root -pS3cretPw db", "mysql -u root -p[REDACTED:password] db"),
    ],
)
def test_redact_keeps_the_quoting_and_takes_the_value(text: str, expected: str) -> None:
    assert FILTER.redact(text) == expected


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("telegram 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw2", "api_key"),
        (
            "discord MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GhT5xQ.abcdefghijklmnopqrstuvwxyz0123456789",
            "api_key",
        ),
        ("azure secret abc8Q~0123456789abcdefghijklmnopqrstuvwx", "api_key"),
        ("dop_v1_" + "a1" * 32, "api_key"),
        ("阿里云 LTAI5tQ8nB3xYz9KpLm2", "api_key"),
        ("腾讯云 AKIDz8krbsJ5yKBZQpn74WFkmLPx3gnPhESA", "api_key"),
        ("mailgun key-" + "0f" * 16, "api_key"),
        ("shopify shpat_" + "ab12" * 8, "api_key"),
        ("anthropic sk-ant-api03-Abc123Def456Ghi789Jkl012Mno345", "api_key"),
        ("my SSN is 123-45-6789", "ssn"),
        ("social security number 234567890", "ssn"),
        ("passport number E12345678", "passport"),
        ("护照号码：EA1234567", "passport"),
        ("测试环境的令牌是 Zx9_kQ2-mN7pLw4Rt8Yv", "api_key"),
        ("the password for the router is now Gx8#k2Lqz!", "password"),
        ("telegram docs 110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", "api_key"),
        ("//registry.npmjs.org/:_authToken=3f1c2a9e-1b2c-4d5e-8f90-a1b2c3d4e5f6", "api_key"),
        ("https://a.blob.core.windows.net/c?sv=2022-11-02&sig=AbC%2Fdef123XYZ%3D&se=1", "api_key"),
    ],
)
def test_new_kinds_are_found(text: str, kind: str) -> None:
    assert kind in {f.kind for f in FILTER.scan(text)}, FILTER.redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "SSN 666-12-3456 is not a real number",  # area 666 is never issued
        "SSN 900-12-3456 is an ITIN range",
        "order 123-45-6789 shipped",
        "my password manager is Bitwarden2024",
        "我在学密码学，今天讲椭圆曲线",
        "fixed the token refresh bug in 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "docker run -p 8080:80 nginx",
        "the format is postgres://user:password@host:port/db",
        "my passport expires in 2031",
        "max_tokens=4096",
        "API_KEY=your-key-here, TOKEN=your_token, DB_PASSWORD=yourpassword",
        "token: expired",
    ],
)
def test_near_misses_are_not_secrets(text: str) -> None:
    assert FILTER.scan(text) == [], FILTER.redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "a" * 50_000,
        "password " * 5_000,
        "--password " * 5_000,
        '{"password": "' + "x" * 50_000,
        "密码" * 20_000,
        "a=" * 20_000,
        "Authorization: " * 5_000,
        "-" * 50_000,
        "token " + "Ab1-" * 12_000,
        "mysql " * 8_000,
        "mysql -p" * 6_000,
    ],
)
def test_the_filter_is_fast_on_hostile_input(text: str) -> None:
    import time

    start = time.process_time()  # CPU time: other jobs on the machine do not count
    FILTER.redact(text)
    assert time.process_time() - start < 3.0
