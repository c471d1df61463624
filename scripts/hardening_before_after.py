"""The secret filter and the marker escaping on the hardening cases, for one source tree.

    python scripts/hardening_before_after.py [SOURCE_TREE]

SOURCE_TREE is a directory holding an `openclaw_memory` package (e.g. `git archive <commit>
openclaw_memory | tar -x -C /tmp/old`); without it, this checkout. Prints: secret lines of
tests/data/secrets_corpus.tsv missed (no finding, or the secret survives redact), plain lines
flagged, everyday lines of tests/data/secrets_benign.txt flagged, and look-alike close markers
(tests/test_reliability_hardening.py LOOKALIKES) that survive sanitize.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    tree = Path(argv[1]).resolve() if len(argv) > 1 else ROOT
    sys.path[:0] = [str(tree), str(ROOT / "tests")]
    from openclaw_memory.extract.secrets import SecretFilter
    from openclaw_memory.inject.escape import sanitize

    import test_reliability_hardening as cases

    flt = SecretFilter()
    rows = [
        ln.split("\t")
        for ln in (ROOT / "tests/data/secrets_corpus.tsv").read_text(encoding="utf-8").splitlines()
        if ln and not ln.startswith("#")
    ]
    secret = [(text.replace("\\n", "\n"), s) for label, _, text, s in rows if label == "secret"]
    plain = [text for label, _, text, _ in rows if label == "plain"]
    benign = [
        ln
        for ln in (ROOT / "tests/data/secrets_benign.txt").read_text(encoding="utf-8").splitlines()
        if ln and not ln.startswith("#")
    ]
    missed = [t for t, s in secret if not flt.scan(t) or s in flt.redact(t)]
    marker = re.compile(r"<[/]?memory(context|reference)|memory(context|reference)>")
    survived = [x for x in cases.LOOKALIKES if marker.search(cases._normalised(sanitize(x)))]
    print(f"source: {tree}")
    print(f"secret lines missed: {len(missed)} of {len(secret)}")
    print(
        f"plain look-alike lines flagged: {sum(bool(flt.scan(t)) for t in plain)} of {len(plain)}"
    )
    print(f"everyday lines flagged: {sum(bool(flt.scan(t)) for t in benign)} of {len(benign)}")
    print(f"look-alike markers surviving sanitize: {len(survived)} of {len(cases.LOOKALIKES)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
