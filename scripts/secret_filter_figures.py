"""The secret filter's figures on the committed corpora, without a store (seconds to run).

    python scripts/secret_filter_figures.py

Prints, for tests/data/secrets/secrets_en_zh.txt, how many lines the filter redacts with no
half of the secret left (as text, and inside a structure: a dict and an argv list), per kind;
for tests/data/secrets/everyday_en_zh.txt, how many lines it flags (the false-positive rate);
and the mean time of one `redact` per line. The figures of the doors (remember, MCP, chat turns,
tool events, process events, bytes on disk) come from
`python -m pytest -s tests/test_reliability_secrets.py -k "any_door or everyday_text_comes"`.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from openclaw_memory.extract.secrets import SecretFilter

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "secrets"


def _fragments(secret: str) -> list[str]:
    if len(secret) < 8:
        return [secret]
    width = max(6, len(secret) // 2)
    return [secret[i : i + width] for i in range(len(secret) - width + 1)]


def _leaves(value: object) -> list[str]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [str(k), *_leaves(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _leaves(v)]
    return [str(value)]


def main() -> None:
    flt = SecretFilter()
    rows = []
    for line in (DATA / "secrets_en_zh.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            kind, text, secret = line.split("\t")
            rows.append((kind, text.replace("\\n", "\n"), secret))
    kinds: Counter[str] = Counter(r[0] for r in rows)
    missed: Counter[str] = Counter()
    for kind, text, secret in rows:
        structured = flt.redact_value({"text": text, "argv": ["run", "--password", secret]})
        outputs = [flt.redact(text), *_leaves(structured)]
        if any(piece in out for out in outputs for piece in _fragments(secret)):
            missed[kind] += 1
            print(f"  missed ({kind}): {text!r}")
    caught = len(rows) - sum(missed.values())
    print(f"secrets_en_zh.txt: {caught}/{len(rows)} secret lines caught ({caught / len(rows):.1%})")
    for kind, n in sorted(kinds.items()):
        print(f"  {kind}: {n - missed[kind]}/{n}")
    lines = [
        ln
        for ln in (DATA / "everyday_en_zh.txt").read_text(encoding="utf-8").splitlines()
        if ln and not ln.startswith("#")
    ]
    flagged = [ln for ln in lines if flt.scan(ln)]
    for ln in flagged:
        print(f"  flagged: {ln!r} -> {flt.redact(ln)!r}")
    print(
        f"everyday_en_zh.txt: {len(flagged)}/{len(lines)} lines flagged "
        f"(false positives {len(flagged) / len(lines):.1%})"
    )
    texts = [r[1] for r in rows] + lines
    start = time.perf_counter()
    for _ in range(3):
        for text in texts:
            flt.redact(text)
    per = (time.perf_counter() - start) / (3 * len(texts)) * 1e6
    print(f"redact: {per:.0f} us per line (mean over {len(texts)} lines, 3 rounds)")


if __name__ == "__main__":
    main()
