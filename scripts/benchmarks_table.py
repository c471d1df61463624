"""The tables of BENCHMARKS.md "Current figures", from the JSON that `openclaw-memory eval` prints.

    python scripts/benchmarks_table.py NAME=RESULT.json [NAME=RESULT.json ...]

Each RESULT.json is the output of `openclaw-memory eval ... --json` (hybrid, or `--retriever all`,
of which the hybrid entry is read). Prints one Markdown table of recall, one of precision.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _hybrid(data):
    if isinstance(data, list):
        return next(d for d in data if d.get("retriever") == "hybrid")
    return data


def _f(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def recall_row(name: str, d: dict) -> str:
    o = d.get("overall", {})
    if "session.recall_all@5" in o:
        cells = [
            f"session {_f(o['session.recall_all@5'])} / {_f(o['session.recall_all@10'])}",
            f"turn {_f(o['turn.recall_all@5'])} / {_f(o['turn.recall_all@10'])}",
            "-",
        ]
    else:
        cells = [_f(o.get("recall_all@5")), _f(o.get("recall_all@10")), _f(o.get("recall_all@20"))]
    inj = d.get("injected", {})
    cats = d.get("by_category", {})
    key = "turn.recall_all@10" if "session.recall_all@5" in o else "recall_all@10"
    by_cat = ", ".join(f"{c} {_f(v.get(key))}" for c, v in cats.items()) if len(cats) > 1 else ""
    return (
        f"| {name} | {d.get('questions')} | "
        + " | ".join(cells)
        + f" | {_f(inj.get('recall_all'))} ({inj.get('tokens_mean', 0):,.0f}) "
        + f"| {inj.get('full_context_tokens_mean', 0):,.0f} | {by_cat} |"
    )


def precision_rows(name: str, d: dict) -> list[str]:
    rows = []
    for lang in sorted(d.get("noise", {}).get("by_lang", {})):
        noise = d["noise"]["by_lang"][lang]
        absent = d.get("absent", {}).get("by_lang", {}).get(lang, {})
        update = d.get("update", {}).get("by_lang", {}).get(lang, {})
        rows.append(
            f"| {name} | {lang} | {_f(noise.get('rate'))} ({noise.get('lines_mean', 0):.3f}) "
            f"| {_f(absent.get('rate'))} | {_f(update.get('current_ok'))} "
            f"| {_f(update.get('stale_as_current'))} |"
        )
    return rows


def main(argv: list[str]) -> int:
    runs = []
    for arg in argv:
        name, _, path = arg.partition("=")
        runs.append((name, _hybrid(json.loads(Path(path).read_text(encoding="utf-8")))))
    print(
        "| set | questions | R_all@5 | R_all@10 | R_all@20 | injected R_all (tokens) "
        "| full context | R_all@10 by category |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, d in runs:
        if "overall" in d:
            print(recall_row(name, d))
    print()
    print(
        "| set | language | noise rate (lines) | absent rate | update current_ok "
        "| stale_as_current |"
    )
    print("|---|---|---|---|---|---|")
    for name, d in runs:
        for row in precision_rows(name, d):
            print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
