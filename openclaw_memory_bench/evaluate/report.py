"""A readable text table of a runner result (overall metrics, then one line per category)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _split_key(key: str) -> tuple[str, int]:
    name, _, k = key.rpartition("@")
    return name, int(k)


def _grid(metrics: Mapping[str, float]) -> tuple[list[str], list[int]]:
    """Metric names (in first-seen order) and the ks, from keys like "turn.recall_all@10"."""
    names: list[str] = []
    ks: list[int] = []
    for key in metrics:
        name, k = _split_key(key)
        if name not in names:
            names.append(name)
        if k not in ks:
            ks.append(k)
    return names, sorted(ks)


def _overall_table(metrics: Mapping[str, float]) -> list[str]:
    names, ks = _grid(metrics)
    width = max((len(n) for n in names), default=6) + 2
    lines = ["metric".ljust(width) + "".join(f"{'@' + str(k):>8}" for k in ks)]
    for name in names:
        cells = "".join(
            f"{metrics[f'{name}@{k}']:>8.3f}" if f"{name}@{k}" in metrics else f"{'-':>8}"
            for k in ks
        )
        lines.append(name.ljust(width) + cells)
    return lines


def _category_table(by_category: Mapping[str, Mapping[str, float]]) -> list[str]:
    """One line per category with the recall_all columns (the headline metric) at every k."""
    if not by_category:
        return []
    first = next(iter(by_category.values()))
    cols = [key for key in first if _split_key(key)[0].endswith("recall_all")]
    width = max(len(c) for c in by_category) + 2
    head = "category".ljust(width) + "".join(f"{c:>22}" for c in cols)
    rows = [
        c.ljust(width) + "".join(f"{m.get(col, 0.0):>22.3f}" for col in cols)
        for c, m in by_category.items()
    ]
    return [head, *rows]


def format_report(result: Mapping[str, Any]) -> str:
    """Render a runner result as plain text: header, overall table, per-category table, costs."""
    inj, lat, ing = result["injected"], result["latency_ms"], result["ingest"]
    lines = [
        (
            f"{result['dataset']} | retriever: {result['retriever']} "
            f"| questions: {result['questions']}"
        ),
        "",
        *_overall_table(result["overall"]),
        "",
        *_category_table(result["by_category"]),
        "",
        (
            f"injected: recall_all {inj['recall_all']:.3f}, tokens {inj['tokens_mean']:.0f} "
            f"(full context {inj['full_context_tokens_mean']:.0f})"
        ),
        f"retrieve latency: p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms",
        f"ingest: {ing['items']} items in {ing['seconds']:.1f} s",
    ]
    if "noise" in result:
        lines += ["", *_precision_lines(result)]
    return "\n".join(lines)


def _precision_lines(result: Mapping[str, Any]) -> list[str]:
    lines = []
    noise, update = result.get("noise") or {}, result.get("update") or {}
    for lang, n in (noise.get("by_lang") or {}).items():
        lines.append(
            f"noise [{lang}]: rate {n['rate']:.3f}, lines {n['lines_mean']:.2f} a request, "
            f"profile shown {n['profile_rate']:.3f} ({n['requests']} off-topic requests)"
        )
    for lang, n in ((result.get("absent") or {}).get("by_lang") or {}).items():
        lines.append(
            f"absent [{lang}]: rate {n['rate']:.3f}, lines {n['lines_mean']:.2f} a request "
            f"({n['requests']} personal requests about nothing stored)"
        )
    for lang, u in (update.get("by_lang") or {}).items():
        lines.append(
            f"update [{lang}]: current_ok {u['current_ok']:.3f}, stale_as_current "
            f"{u['stale_as_current']:.3f} ({u['scenarios']} scenarios)"
        )
    lme = update.get("longmemeval")
    if lme:
        lines.append(
            f"LongMemEval knowledge-update: {lme['questions']} questions, injected recall_all "
            f"{lme['injected_recall_all']:.3f}"
        )
    return lines


def format_precision(result: Mapping[str, Any]) -> str:
    """`eval precision` as text: noise and updates per language, then the split check."""
    lines = [f"precision | retriever: {result['retriever']}", "", *_precision_lines(result)]
    for split, langs in (result["update"].get("by_split") or {}).items():
        cells = ", ".join(
            f"{lang} {u['current_ok']:.3f} / {u['stale_as_current']:.3f}"
            for lang, u in langs.items()
        )
        lines.append(f"update split {split} (current_ok / stale): {cells}")
    return "\n".join(lines)


def format_comparison(results: Sequence[Mapping[str, Any]]) -> str:
    """Retrievers side by side on the headline metrics (one ingestion, several read paths)."""
    keys = [k for k in results[0]["overall"] if k.split("@")[0].endswith("recall_all")]
    head = ["retriever", *keys, "injected", "tokens"]
    rows = [
        [
            r["retriever"],
            *(f"{r['overall'][k]:.3f}" for k in keys),
            f"{r['injected']['recall_all']:.3f}",
            f"{r['injected']['tokens_mean']:.0f}",
        ]
        for r in results
    ]
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    return "\n".join([line(head), *(line(r) for r in rows)])


#: the columns of `eval block`, in the order they are printed
_BLOCK_COLUMNS = (
    "blocks",
    "lines",
    "noise_share",
    "echoed",
    "question_lists",
    "others_as_user",
    "fact_recall",
    "cross_recall",
)


def format_block(result: Mapping[str, Any]) -> str:
    """`eval block` as text: one row per language of the generated sessions."""
    head = ["lang", *_BLOCK_COLUMNS]
    rows = [[lang, *(str(t[c]) for c in _BLOCK_COLUMNS)] for lang, t in result["by_lang"].items()]
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    title = (
        f"block quality | seed {result['seed']} | {result['users_per_language']} users a language"
    )
    return "\n".join([title, "", line(head), *(line(r) for r in rows)])
