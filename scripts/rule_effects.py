"""What each class of rules is worth: the evaluation with one class switched off, on every set.

    python scripts/rule_effects.py --work /tmp/effects \\
        --set zh=locomo:tests/data/zh_locomo.json \\
        --set memdaily=locomo:$DATA/memdaily/memdaily_zh_dev.json \\
        --set locomo=locomo:$DATA/locomo/locomo_dev5.json \\
        --set lme=longmemeval:$DATA/longmemeval/longmemeval_s_dev100.json.gz \\
        --off channel.kind --off zh.focus --off en.focus --markdown

runs `openclaw-memory eval` on each set with every rule on (twice, see below) and once per
`--off` name with that name in `rules.disabled` (a rule `<code>.<table>.<entry>`, a table such as
`zh.focus`, a language, or a recall channel `channel.<name>`; a name that matches none is an
error listing some that do), each question's outcome written with `--questions-out`, and prints
per class and set the change of R_all@10 and of the injected R_all, all on minus the class off
(and the questions it earns / costs at 10). A class that costs one set what it gives another,
or that moves one question, has not earned its place.

`--precision` adds `eval precision` (noise, absent subjects, updates in both languages) with
every rule on and with each `--off` class off, and prints its figures per class beside the
all-on row; `--block SEED ...` adds `eval block` (the injected block over generated
assistant-style sessions: noise share, another person's fact filed as the user's, fact recall)
the same way, its figures summed over the seeds. `--off` takes several names joined by commas (`en.change,zh.change`: a table in
both languages, switched off in one run).

A run over a store it has just ingested and a run over the same store opened again do not rank
every question alike (a few questions of each set move, both ways), so a run is compared with a
run of its own kind: a recall channel or step only changes the read path, so its runs open the
store the first all-on run ingested, and their baseline is one more all-on run over that store;
any other class may change what is stored, so its runs ingest again into their own store, taking
the passages' vectors from the first store (`--reuse-vectors`: nothing is embedded twice), and
their baseline is the first all-on run, which had just ingested too.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

#: names whose switch changes only the read path (their runs reuse the all-on store)
READ_ONLY_PREFIXES = ("channel.",)


def parse_set(spec: str) -> tuple[str, str, str]:
    """`name=kind:path` -> (name, kind, path); kind is locomo or longmemeval."""
    name, sep, rest = spec.partition("=")
    kind, sep2, path = rest.partition(":")
    if not (sep and sep2 and name and path) or kind not in ("locomo", "longmemeval"):
        raise SystemExit(f"--set: expected name=locomo:PATH or name=longmemeval:PATH, got {spec!r}")
    return name, kind, path


def _command(out: Path, off: str | None) -> list[str]:
    """The package's command line, with the names in `off` (comma-separated) switched off."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "openclaw_memory"]
    if off:
        config = out / "config.yaml"
        names = ", ".join(n.strip() for n in off.split(",") if n.strip())
        config.write_text(f"rules:\n  disabled: [{names}]\n", encoding="utf-8")
        cmd += ["--config", str(config)]
    return cmd


def _run(cmd: list[str], out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"eval failed ({' '.join(cmd)}):\n{done.stderr[-2000:]}")
    (out / "result.json").write_text(done.stdout, encoding="utf-8")
    return json.loads(done.stdout)


def run_eval(
    kind: str, path: str, out: Path, data_dir: Path, off: str | None, reuse: Path | None
) -> dict:
    """One evaluation; its JSON result (the hybrid read path), questions written beside it."""
    cmd = _command(out, off) + ["eval", kind, path, "--json", "--no-progress", "--no-precision"]
    cmd += ["--data-dir", str(data_dir), "--questions-out", str(out / "questions.jsonl")]
    if reuse is not None:
        cmd += ["--reuse-vectors", str(reuse)]
    return _run(cmd, out)


#: `eval precision`'s figures per language: (section, key) in its JSON
PRECISION = (
    ("noise", "rate"),
    ("absent", "rate"),
    ("update", "current_ok"),
    ("update", "stale_as_current"),
)


def run_block(out: Path, off: str | None, seeds: list[int]) -> dict[str, tuple[float, ...]]:
    """`eval block` with `off` switched off, over the seeds: language -> noise lines over all
    lines, blocks with another person's fact as the user's, fact recall (mean over the seeds)."""
    lines: dict[str, list[float]] = {}
    for seed in seeds:
        cmd = _command(out, off) + ["eval", "block", "--seed", str(seed), "--json", "--no-progress"]
        for lang, fig in _run(cmd, out / f"seed{seed}")["by_lang"].items():
            row = lines.setdefault(lang, [0.0, 0.0, 0.0, 0.0])
            row[0] += fig["noise_share"] * fig["lines"]
            row[1] += fig["lines"]
            row[2] += fig["others_as_user"]
            row[3] += fig["fact_recall"] / len(seeds)
    return {
        lang: (noise / max(total, 1.0), int(others), recall)
        for lang, (noise, total, others, recall) in sorted(lines.items())
    }


def _figure(value: float) -> str:
    """A rate to three places; a count (another person's facts) as a whole number."""
    return str(value) if isinstance(value, int) else f"{value:.3f}"


def run_precision(out: Path, off: str | None) -> dict[str, tuple[float, ...]]:
    """`eval precision` with `off` switched off: language -> noise rate, absent-subject rate,
    current values kept, stale values shown as current."""
    result = _run(_command(out, off) + ["eval", "precision", "--json", "--no-progress"], out)
    langs = result["noise"]["by_lang"]
    return {
        lang: tuple(float(result[sec]["by_lang"][lang][key]) for sec, key in PRECISION)
        for lang in sorted(langs)
    }


def figures(result: dict) -> tuple[float, float, float]:
    """R_all@10 (turn level for LongMemEval), injected R_all, injected mean tokens."""
    if "turn" in result and isinstance(result["turn"], dict):
        r10 = result["turn"].get("recall_all@10", 0.0)
    else:
        r10 = result.get("overall", {}).get("recall_all@10", 0.0)
    injected = result.get("injected", {})
    return r10, injected.get("recall_all", 0.0), injected.get("tokens_mean", 0.0)


def outcomes(path: Path) -> dict[str, tuple[bool, bool]]:
    """Question id -> (hit at 10, injected)."""
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            q = json.loads(line)
            rows[q["id"]] = (bool(q["hit"].get("10")), bool(q.get("injected")))
    return rows


def moved(
    base: dict[str, tuple[bool, bool]], other: dict[str, tuple[bool, bool]]
) -> tuple[int, int]:
    """(earns, costs): questions hit at 10 only with the class on, and only with it off."""
    lost = sum(1 for q, (hit, _) in base.items() if hit and not other.get(q, (False, False))[0])
    gained = sum(1 for q, (hit, _) in base.items() if not hit and other.get(q, (False, False))[0])
    return lost, gained


def _store(work: Path, name: str) -> Path:
    """The store the first run of a set ingests, kept for the read-side classes."""
    return work / name / "ingest" / "store"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", required=True, type=Path, help="stores and outcomes go here")
    parser.add_argument("--set", action="append", default=[], dest="sets", help="name=kind:path")
    parser.add_argument(
        "--precision", action="store_true", help="also eval precision, per class and language"
    )
    parser.add_argument(
        "--block", type=int, nargs="+", metavar="SEED", help="also eval block over these seeds"
    )
    parser.add_argument("--off", action="append", default=[], help="a rule, table or channel name")
    parser.add_argument(
        "--reuse-vectors", type=Path, help="an earlier store of each set: DIR/<set>"
    )
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = parser.parse_args(argv)
    if not args.sets and not args.precision and not args.block:
        parser.error("give at least one --set, or --precision, or --block")
    sets = [parse_set(s) for s in args.sets]
    report: dict[str, dict] = {"sets": {}, "classes": {}}
    runs: dict[str, dict[str, tuple[tuple[float, float, float], dict]]] = {}
    for name, kind, path in sets:  # the first run ingests
        reuse = args.reuse_vectors / name if args.reuse_vectors else None
        ingest = args.work / name / "ingest"
        result = run_eval(kind, path, ingest, _store(args.work, name), None, reuse)
        runs.setdefault(name, {})["ingest"] = (
            figures(result),
            outcomes(ingest / "questions.jsonl"),
        )
    done: dict[str, dict[str, tuple[tuple[float, float, float], dict, bool]]] = {}
    for off in args.off:
        for name, kind, path in sets:
            out = args.work / name / off
            read_only = off.startswith(READ_ONLY_PREFIXES)
            store = _store(args.work, name) if read_only else out / "store"
            reuse = None if read_only else _store(args.work, name)
            result = run_eval(kind, path, out, store, off, reuse)
            done.setdefault(off, {})[name] = (
                figures(result),
                outcomes(out / "questions.jsonl"),
                read_only,
            )
    for name, kind, path in sets:  # the read-side classes' baseline: the store opened again
        last = args.work / name / "all-on"
        result = run_eval(kind, path, last, _store(args.work, name), None, None)
        runs[name]["kept"] = (figures(result), outcomes(last / "questions.jsonl"))
        report["sets"][name] = {
            run: dict(zip(("r10", "injected", "tokens"), figs))
            for run, (figs, _) in runs[name].items()
        }
    for off, by_set in done.items():
        row = report["classes"][off] = {}
        for name, (figs, rows, read_only) in by_set.items():
            base_figs, base_rows = runs[name]["kept" if read_only else "ingest"]
            earns, costs = moved(base_rows, rows)
            row[name] = {
                "r10_delta": round(base_figs[0] - figs[0], 4),
                "injected_delta": round(base_figs[1] - figs[1], 4),
                "tokens_delta": round(base_figs[2] - figs[2], 1),
                "earns": earns,
                "costs": costs,
            }
    if args.precision:
        report["precision"] = {"all on": run_precision(args.work / "precision" / "all-on", None)}
        for off in args.off:
            report["precision"][off] = run_precision(args.work / "precision" / off, off)
    if args.block:
        report["block"] = {"all on": run_block(args.work / "block" / "all-on", None, args.block)}
        for off in args.off:
            report["block"][off] = run_block(args.work / "block" / off, off, args.block)
    for kind in ("precision", "block"):
        if not args.markdown or kind not in report:
            continue
        langs = list(report[kind]["all on"])
        print(f"| {kind} | " + " | ".join(langs) + " |")
        print("|---|" + "---|" * len(langs))
        for off, by_lang in report[kind].items():
            cells = [" / ".join(map(_figure, by_lang[lang])) for lang in langs]
            print(f"| {off if off == 'all on' else f'`{off}` off'} | " + " | ".join(cells) + " |")
        print()
    if args.markdown and sets:
        names = [n for n, _, _ in sets]
        print("| class off | " + " | ".join(names) + " |")
        print("|---|" + "---|" * len(names))
        for off, row in report["classes"].items():
            cells = [
                f"{row[n]['r10_delta']:+.3f} / {row[n]['injected_delta']:+.3f} "
                f"(+{row[n]['earns']} -{row[n]['costs']})"
                for n in names
            ]
            print(f"| `{off}` | " + " | ".join(cells) + " |")
    if not args.markdown:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
