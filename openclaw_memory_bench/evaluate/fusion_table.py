"""Fusion tables from features files: `openclaw-memory fit-fusion` and `eval --fusion-oof`.

`fit-fusion FEATURES... --out fusion.yaml` fits the weights per language on every question of
the files and writes a fusion table (`openclaw_memory/recall/rank.py`) whose `source` lines say
what they were fitted on; with `--folds K` it first scores the fit out of fold (folds by
conversation) against the order the files were ranked in, per language and per set, and prints
both. `eval ... --fusion-oof FEATURES... --folds K` ranks each conversation of the run with a
table fitted without its fold (`oof_tables`), so the run's figures are out of fold.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from openclaw_memory.recall.rank import FUSED
from openclaw_memory.recall.rank import parse_table
from .features import read_features
from .fit import MODELS, Question, by_language, mean_recall, out_of_fold, questions_of
from .outcomes import fold_of

__all__ = ["add_parser", "oof_tables", "table_text"]


def table_text(
    weights: Mapping[str, Mapping[str, float]], model: str, sources: Mapping[str, str]
) -> str:
    """A fusion table's YAML text (checked by the reader's own parser before it is returned)."""
    data = {
        "model": model,
        "languages": {
            lang: {"weights": {n: float(w[n]) for n in FUSED}, "source": sources[lang]}
            for lang, w in sorted(weights.items())
        },
    }
    parse_table(data, "fusion table")
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def _describe(questions: Sequence[Question], lang: str) -> str:
    mine = [q for q in questions if q.lang == lang]
    sets = sorted({q.set_name for q in mine})
    conversations = len({q.key for q in mine})
    return (
        f"fitted on {len(mine)} questions of {conversations} conversations "
        f"({', '.join(s for s in sets if s) or 'one set'})"
    )


def oof_tables(
    paths: Sequence[str],
    set_name: str,
    k: int,
    out_dir: Path,
    model: str = "listwise",
    pooled: bool = False,
) -> dict[str, str]:
    """Conversation id of `set_name` -> a fusion table fitted on every question of the files but
    those of its fold (folds by conversation within the set, `outcomes.fold_of`; the other sets'
    conversations are other conversations, so they train every fold)."""
    questions = questions_of(read_features(paths))
    mine = sorted({q.key for q in questions if q.set_name == set_name})
    if not mine:
        return {}
    folds = fold_of(mine, k)
    out: dict[str, str] = {}
    for f in range(k):
        held = {key for key, g in folds.items() if g == f}
        train = [q for q in questions if q.key not in held]
        weights = by_language(train, model, pooled)
        sources = {lang: f"out of fold {f} of {k}: " + _describe(train, lang) for lang in weights}
        path = out_dir / f"fold{f}.yaml"
        path.write_text(table_text(weights, model, sources), encoding="utf-8")
        for key in held:
            out[key.split("|", 1)[1]] = str(path)
    return out


def oof_runner(args: argparse.Namespace, set_name: str) -> tuple[Any, tempfile.TemporaryDirectory]:
    """`eval --fusion-oof`: the conversation -> table lookup of the run, and the folder of its
    tables (removed when the caller is done with it)."""
    tmp = tempfile.TemporaryDirectory(prefix="ocm-fusion-")
    tables = oof_tables(
        args.fusion_oof, set_name, args.folds, Path(tmp.name), args.fusion_model, args.pooled
    )
    return tables.get, tmp


def cmd_fit_fusion(args: argparse.Namespace, config: Any) -> int:
    questions = questions_of(read_features(args.features))
    weights = by_language(questions, args.model, args.pooled)
    notes = {}
    if args.folds:
        notes = _report_folds(questions, args.folds, args.model, args.pooled)
    sources = {
        lang: _describe(questions, lang) + (f"; {notes[lang]}" if lang in notes else "")
        for lang in weights
    }
    text = table_text(weights, args.model, sources)
    Path(args.out).write_text(text, encoding="utf-8")
    print(text, end="")
    print(f"fit-fusion: wrote {args.out}", file=sys.stderr)
    return 0


def _report_folds(
    questions: Sequence[Question], k: int, model: str, pooled: bool
) -> dict[str, str]:
    """R_all@10 of the files' own order against the fitted weights out of fold, per language and
    set (printed), and a note per language for its source line."""
    oof = out_of_fold(questions, k, model, pooled)

    def fitted(q: Question) -> Mapping[str, float] | None:
        return oof[q.key].get(q.lang)

    notes = {}
    groups = sorted({(q.lang, q.set_name) for q in questions})
    for lang in sorted({q.lang for q in questions}):
        for group in [g for g in groups if g[0] == lang] + [(lang, "")]:
            mine = [q for q in questions if q.lang == lang and group[1] in ("", q.set_name)]
            hand, fit = mean_recall(mine, lambda q: None), mean_recall(mine, fitted)
            name = group[1] or f"all {lang}"
            print(
                f"{name}: R_all@10 as ranked {hand:.3f}, fitted out of fold {fit:.3f} ({len(mine)})"
            )
        notes[lang] = (
            f"R_all@10 of the candidates as ranked {hand:.3f}, fitted out of {k} folds {fit:.3f}"
        )
    return notes


def add_parser(sub) -> None:
    p = sub.add_parser(
        "fit-fusion",
        help="fit the ranker's fusion weights per language on labelled candidates (eval --features-out)",
    )
    p.add_argument(
        "features", nargs="+", help="features files (JSON lines) written by eval --features-out"
    )
    p.add_argument(
        "--out", required=True, help="the fusion table to write (set recall.fusion_file to it)"
    )
    p.add_argument(
        "--folds",
        type=_whole(2),
        default=None,
        metavar="K",
        help="also score the fit out of fold, K folds by conversation, against the files' own order",
    )
    p.add_argument(
        "--model", choices=sorted(MODELS), default="listwise", help="the fit (default listwise)"
    )
    p.add_argument("--pooled", action="store_true", help="one set of weights for every language")
    p.set_defaults(func=cmd_fit_fusion)


def _whole(minimum: int):
    from openclaw_memory.core.progress import whole_number

    return whole_number(minimum)
