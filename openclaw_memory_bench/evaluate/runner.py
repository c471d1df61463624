"""Drive any memory system through a benchmark and report retrieval quality, cost and speed.

The system under test implements `EvalSystem`. For each conversation the runner resets the
system, ingests the history, then for each question asks for the top max(ks) memories (timed)
and for the block it would inject (its turn-id coverage and token count). The result is a plain
dict with a fixed shape that other tools parse:

    {"dataset", "retriever", "questions",
     "overall": {"<metric>@<k>": float, ...},
     "by_category": {"<category>": {same keys}},
     "injected": {"recall_all", "tokens_mean", "full_context_tokens_mean"},
     "latency_ms": {"p50", "p95"},
     "ingest": {"items", "seconds"},
     "noise": {...}, "absent": {...}, "update": {...}}   (systems with `plan_for`, see `precision`)

Metrics are recall_all, recall_any, evidence_recall and ndcg_any (see `metrics`). LongMemEval
keys carry a level prefix, "session." or "turn."; session level maps each retrieved turn id to
its session and keeps the first occurrence of each session. `injected.recall_all` is the share
of questions whose gold TURNS are all in the injected block; token means are per question, the
full context being the question's whole history (every turn) rendered by `render_full_context`.

A system that can plan a block for any text (`plan_for`, as `MemorySystem`) is also measured for
precision: after each conversation, off-topic requests of its language (`noise`) and personal
requests about topics none of its turns names (`absent`, see `absent`), and at the end
the package's knowledge-update scenarios of the set's language (`update`; for LongMemEval also
its own knowledge-update questions, `update.longmemeval`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast, runtime_checkable

from openclaw_memory.errors import ValidationError
from openclaw_memory.core.tokens import count_tokens
from .datasets import (
    Conversation,
    Question,
    format_locomo_date,
    load_locomo,
    load_longmemeval,
)
from .metrics import (
    latency_summary,
    mean,
    mean_by_category,
    mean_rows,
    recall_all_at_k,
    score_at_ks,
    to_sessions,
)
from .absent import absent_requests
from .outcomes import fold_figures, outcome
from .precision import (
    NoiseTally,
    PrecisionSystem,
    ask_offtopic,
    bank_for,
    conversation_lang,
    run_updates,
)
from .report import format_report

__all__ = ["EvalSystem", "format_report", "render_full_context", "run_locomo", "run_longmemeval"]

Progress = Callable[[int, int], None]
Ranked = list[frozenset[str]]
DEFAULT_KS = (5, 10, 20)


@runtime_checkable
class EvalSystem(Protocol):
    """What the runner needs from a memory system under test."""

    def reset(self, conversation_id: str) -> None:
        """Forget everything: the next ingest starts from an empty memory."""
        ...

    def ingest(self, conversation: Conversation, *, user_only: bool) -> int:
        """Write the conversation's history (user turns only if asked); return items written."""
        ...

    def retrieve(self, question: Question, k: int) -> list[frozenset[str]]:
        """Top k memories, best first; each entry is the set of turn ids that memory covers."""
        ...

    def injected(self, question: Question) -> tuple[list[frozenset[str]], int]:
        """Turn-id sets of the block that would actually be injected, and its token count."""
        ...


def render_full_context(conversation: Conversation) -> str:
    """The whole history as LoCoMo's full-context baseline renders it (what no memory costs)."""
    blocks = []
    for session in conversation.sessions:
        lines = "\n".join(f'{t.speaker} said, "{t.text}"' for t in session.turns)
        blocks.append(f"DATE: {format_locomo_date(session.date)}\nCONVERSATION:\n{lines}")
    return "\n\n".join(blocks)


# ---------------------------------------------------------------------------- checks


def _check_ks(ks: Sequence[int]) -> tuple[int, ...]:
    if not ks or any(not isinstance(k, int) or isinstance(k, bool) or k < 1 for k in ks):
        raise ValidationError(f"ks: expected one or more integers >= 1, found {ks!r}")
    return tuple(sorted(set(ks)))


def _check_limit(limit: int | None) -> None:
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ValidationError(f"limit: expected None or an integer >= 1, found {limit!r}")


def _as_ranked(value: Any, where: str) -> Ranked:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise ValidationError(
            f"{where}: expected a list of sets of turn ids, found {type(value).__name__}"
        )
    out: Ranked = []
    for i, item in enumerate(value):
        if isinstance(item, (str, bytes)) or not hasattr(item, "__iter__"):
            raise ValidationError(f"{where}[{i}]: expected a set of turn ids, found {item!r}")
        out.append(frozenset(str(t) for t in item))
    return out


def _injected(system: EvalSystem, question: Question) -> tuple[Ranked, int]:
    value = system.injected(question)
    if (
        not isinstance(value, tuple)
        or len(value) != 2
        or not isinstance(value[1], int)
        or value[1] < 0
    ):
        raise ValidationError(
            f"injected({question.id}): expected (list of turn-id sets, token count >= 0), "
            f"found {value!r}"
        )
    return _as_ranked(value[0], f"injected({question.id})"), value[1]


# ---------------------------------------------------------------------------- scoring


def _session_lookup(conversation: Conversation) -> Callable[[str], str]:
    known = conversation.session_of()

    def lookup(turn_id: str) -> str:
        # Ids the system invented still get a session: the part before '#' (LongMemEval form).
        return known.get(turn_id) or turn_id.split("#", 1)[0]

    return lookup


def _score_locomo(
    ranked: Ranked, q: Question, lookup: Callable[[str], str], ks: tuple[int, ...]
) -> dict[str, float]:
    return score_at_ks(ranked, frozenset(q.evidence), ks)


def _score_longmemeval(
    ranked: Ranked, q: Question, lookup: Callable[[str], str], ks: tuple[int, ...]
) -> dict[str, float]:
    sessions = to_sessions(ranked, lookup)
    out = score_at_ks(sessions, frozenset(q.evidence_sessions), ks, prefix="session.")
    out.update(score_at_ks(ranked, frozenset(q.evidence), ks, prefix="turn."))
    return out


Scorer = Callable[[Ranked, Question, Callable[[str], str], tuple[int, ...]], dict[str, float]]


@dataclass
class _Tally:
    """Running totals of one benchmark run."""

    rows: list[tuple[str, dict[str, float]]] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    injected_recall: list[float] = field(default_factory=list)
    injected_tokens: list[int] = field(default_factory=list)
    full_tokens: list[int] = field(default_factory=list)
    items: int = 0
    ingest_seconds: float = 0.0
    noise: NoiseTally = field(default_factory=NoiseTally.empty)
    absent: NoiseTally = field(default_factory=NoiseTally.empty)
    langs: list[str] = field(default_factory=list)
    outcomes: list[dict[str, Any]] = field(default_factory=list)

    def result(self, dataset: str, retriever: str) -> dict[str, Any]:
        return {
            "dataset": dataset,
            "retriever": retriever,
            "questions": len(self.rows),
            "overall": mean_rows([row for _, row in self.rows]),
            "by_category": mean_by_category(self.rows),
            "injected": {
                "recall_all": mean(self.injected_recall),
                "tokens_mean": mean(self.injected_tokens),
                "full_context_tokens_mean": mean(self.full_tokens),
            },
            "latency_ms": latency_summary(self.latencies_ms),
            "ingest": {"items": self.items, "seconds": self.ingest_seconds},
        }


def _ingest(system: EvalSystem, conv: Conversation, user_only: bool, tally: _Tally) -> None:
    system.reset(conv.id)
    start = time.perf_counter()
    written = system.ingest(conv, user_only=user_only)
    tally.ingest_seconds += time.perf_counter() - start
    if not isinstance(written, int) or isinstance(written, bool) or written < 0:
        raise ValidationError(
            f"ingest({conv.id}): expected a count of items written >= 0, found {written!r}"
        )
    tally.items += written


@dataclass(frozen=True)
class _Context:
    """What every question of one conversation is asked and scored with."""

    scorer: Scorer
    lookup: Callable[[str], str]
    ks: tuple[int, ...]
    set_name: str
    retriever: str


def _ask(system: EvalSystem, q: Question, ctx: _Context, full_tokens: int, tally: _Tally) -> None:
    start = time.perf_counter()
    raw = system.retrieve(q, ctx.ks[-1])
    tally.latencies_ms.append((time.perf_counter() - start) * 1000.0)
    ranked = _as_ranked(raw, f"retrieve({q.id})")[: ctx.ks[-1]]
    # Optional on a system: the channels that found each of the memories retrieve() returned.
    channels = getattr(system, "last_channels", None)
    scores = ctx.scorer(ranked, q, ctx.lookup, ctx.ks)
    tally.rows.append((q.category, scores))
    sets, tokens = _injected(system, q)
    gold = frozenset(q.evidence)
    hit = recall_all_at_k(sets, gold, len(sets)) if sets else 0.0
    tally.injected_recall.append(hit)
    tally.injected_tokens.append(tokens)
    tally.full_tokens.append(full_tokens)
    tally.outcomes.append(
        outcome(
            question=q,
            set_name=ctx.set_name,
            retriever=ctx.retriever,
            scores=scores,
            ranked=ranked,
            channels=channels if isinstance(channels, list) else None,
            injected=hit >= 1.0,
            ks=ctx.ks,
        )
    )


def _run(
    system: EvalSystem,
    groups: list[tuple[Conversation, list[Question]]],
    *,
    dataset: str,
    user_only: bool,
    scorer: Scorer,
    ks: Sequence[int],
    progress: Progress | None,
    retriever: str | None,
    precision: bool = True,
    set_name: str = "",
    folds: int | None = None,
    outcomes: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    ks_sorted = _check_ks(ks)
    precision = precision and hasattr(system, "plan_for")
    tally = _Tally()
    name = retriever or getattr(system, "name", None) or type(system).__name__
    total = sum(len(qs) for _, qs in groups)
    done = 0
    for conv, questions in groups:
        _ingest(system, conv, user_only, tally)
        full = count_tokens(render_full_context(conv))
        ctx = _Context(scorer, _session_lookup(conv), ks_sorted, set_name or dataset, str(name))
        for q in questions:
            _ask(system, q, ctx, full, tally)
            done += 1
            if progress is not None:
                progress(done, total)
        if precision:
            lang = conversation_lang(conv)
            tally.langs.append(lang)
            ask_offtopic(
                cast(PrecisionSystem, system),
                lang,
                bank_for(lang, len(tally.langs) - 1, len(groups)),
                tally.noise,
            )
            ask_offtopic(
                cast(PrecisionSystem, system), lang, absent_requests(conv, lang), tally.absent
            )
    result = tally.result(dataset, str(name))
    if folds is not None and tally.outcomes:
        result["folds"] = fold_figures(tally.outcomes, folds)
    if outcomes is not None:
        outcomes.extend(tally.outcomes)
    if precision:
        result["noise"] = tally.noise.result()
        result["absent"] = tally.absent.result()
        main = max(set(tally.langs), key=tally.langs.count) if tally.langs else "en"
        result["update"] = run_updates(cast(PrecisionSystem, system), langs=(main,))
        if dataset == "longmemeval":
            result["update"]["longmemeval"] = _category_figures(tally, "knowledge-update")
    return result


def _category_figures(tally: _Tally, category: str) -> dict[str, Any]:
    """One category's recall and injected recall on their own (LongMemEval's knowledge updates)."""
    picked = [i for i, (cat, _) in enumerate(tally.rows) if cat == category]
    rows = [tally.rows[i][1] for i in picked]
    return {
        "questions": len(picked),
        "overall": mean_rows(rows) if rows else {},
        "injected_recall_all": mean([tally.injected_recall[i] for i in picked]),
    }


def _stem(path: str | Path) -> str:
    name = Path(path).name
    for suffix in (".gz", ".json"):
        name = name.removesuffix(suffix)
    return name


def run_locomo(
    system: EvalSystem,
    path: str | Path,
    *,
    limit: int | None = None,
    ks: Sequence[int] = DEFAULT_KS,
    progress: Progress | None = None,
    retriever: str | None = None,
    precision: bool = True,
    folds: int | None = None,
    outcomes: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Score `system` on a LoCoMo file: all turns ingested, keys "<metric>@<k>".

    `limit` keeps the first N scorable questions and ingests only the conversations they need.
    `retriever` names the system in the result (default: its `name` attribute or class name).
    `folds` adds each fold's figures (`outcomes.fold_figures`) under "folds"; `outcomes`, a list,
    receives every question's outcome (`outcomes.outcome`).
    """
    _check_limit(limit)
    conversations, questions = load_locomo(path)
    if limit is not None:
        questions = questions[:limit]
    groups = [(c, [q for q in questions if q.conversation_id == c.id]) for c in conversations]
    groups = [(c, qs) for c, qs in groups if qs]
    return _run(
        system,
        groups,
        dataset="locomo",
        user_only=False,
        scorer=_score_locomo,
        ks=ks,
        progress=progress,
        retriever=retriever,
        precision=precision,
        set_name=f"locomo:{_stem(path)}",
        folds=folds,
        outcomes=outcomes,
    )


def run_longmemeval(
    system: EvalSystem,
    path: str | Path,
    *,
    limit: int | None = None,
    ks: Sequence[int] = DEFAULT_KS,
    progress: Progress | None = None,
    retriever: str | None = None,
    precision: bool = True,
    folds: int | None = None,
    outcomes: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Score `system` on a LongMemEval file: user turns only, keys "session.*" and "turn.*".

    Each question is its own haystack, so the system is reset and re-ingested per question.
    `limit` keeps the first N scorable questions.
    """
    _check_limit(limit)
    items = load_longmemeval(path)
    if limit is not None:
        items = items[:limit]
    groups = [(conv, [q]) for conv, q in items]
    return _run(
        system,
        groups,
        dataset="longmemeval",
        user_only=True,
        scorer=_score_longmemeval,
        ks=ks,
        progress=progress,
        retriever=retriever,
        precision=precision,
        set_name=f"longmemeval:{_stem(path)}",
        folds=folds,
        outcomes=outcomes,
    )
