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
