"""Assemble: what the model will see this turn (working memory), inside fixed token budgets.

recall result -> keep the top_k related memories -> pack into the per-section budgets -> render
the reference block -> an InjectionPlan that explains every decision. `wrap` applies the
configured system_prefix template; `unless_live` leaves out what the host's live transcript
already shows the model.

Packing is a pure function (`pack`): every memory goes to one of four sections with its own fixed
budget (profile 100-300 tokens, recent summaries 300-800, retrieved 500-1500, and procedures: how
earlier tasks of the request's kind were done), and all sections together stay under a total cap
(memory takes 15-20% of the context), each memory kept or dropped with its reason. Budgets count
the rendered memory lines only; the block's own header, headings and markers are a small fixed
cost the caller leaves room for (`render.block_overhead`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from ..config import BudgetConfig, MemoryConfig, InjectionConfig
from ..errors import ValidationError
from ..core.tokens import truncate_tokens, count_tokens
from ..core.policy import POLICY
from ..types import MemoryRecord, ScoredMemory, InjectionPlan, Scope
from typing import TYPE_CHECKING
from ..core.clock import Clock
from ..procedure import ProcedureRecall
from ..store.ports import RecordStore
from ..lang import Languages
from .render import block_overhead, choose_lang, merge_same_day, render_block, render_record

if TYPE_CHECKING:
    from ..recall.recaller import RecallResult

# Budget packing: ranked candidates + fixed token budgets -> kept + dropped, with reasons.
#
# A pure function (style.md rule 7). Every memory goes to one of four sections with its own fixed
# budget (docs/design.md seed 001 §6.1: profile 100-300 tokens, recent summaries 300-800, retrieved 500-1500;
# and procedures: how earlier tasks of the request's kind were done), and all sections together
# stay under a total cap (docs/design.md seed 000 §4.2: memory takes 15-20% of the context).
# Budgets count the rendered memory lines only; the block's own header, headings and markers are
# a small fixed cost the caller leaves room for (see `render.block_overhead`).

#: Section names in the order they are rendered.
SECTIONS: tuple[str, ...] = ("profile", "summaries", "retrieved")
#: ...and the section of procedures (how earlier tasks of the request's kind were done), which a
#: caller may leave out of its budgets (then it gets none)
ALL_SECTIONS: tuple[str, ...] = (*SECTIONS, "procedures")
_OPTIONAL = {"procedures": 0}


def section_of(record: MemoryRecord) -> str:
    """The section a record is budgeted and rendered in: profile, summaries, retrieved or
    procedures."""
    return POLICY[record.type].section


@dataclass(frozen=True)
class Packing:
    """The outcome of `pack`.

    kept: candidates that fit, in rank order, with kept=True and rank set.
    dropped: the others, with kept=False, rank set and a reason.
    tokens_by_section: tokens used in each section (every section present, 0 when empty).
    total_tokens: the sum of tokens_by_section.
    lines: the rendered (possibly truncated) line of each kept candidate, by section.
    """

    kept: tuple[ScoredMemory, ...]
    dropped: tuple[ScoredMemory, ...]
    tokens_by_section: Mapping[str, int]
    total_tokens: int
    lines: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)


def total_budget(cfg: BudgetConfig, request_tokens: int) -> int:
    """The total token cap for injected memory.

    total = min(profile + summaries + retrieved + procedures,
                floor(total_share * model_context_tokens),
                model_context_tokens - request_tokens)

    The first term is the sum of the fixed section budgets, the second keeps memory to its share
    of the model's window (docs/design.md seed 000 §4.2: 15-20%), and the third keeps the request itself (the
    prompt's own tokens, `request_tokens`) plus memory inside the window. Never negative.
    """
    if (
        isinstance(request_tokens, bool)
        or not isinstance(request_tokens, int)
        or (request_tokens < 0)
    ):
        raise ValidationError(
            f"request_tokens: expected a token count >= 0, found {request_tokens!r}"
        )
    sections = cfg.profile + cfg.summaries + cfg.retrieved + cfg.procedures
    share = math.floor(cfg.total_share * cfg.model_context_tokens)
    room = cfg.model_context_tokens - request_tokens
    return max(0, min(sections, share, room))


def _check_budgets(budgets: Mapping[str, int], total: int | None) -> None:
    for name in ALL_SECTIONS:
        value = budgets.get(name) if isinstance(budgets, Mapping) else None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValidationError(
                f"budgets.{name}: expected a token count >= 0 for each of "
                f"{', '.join(ALL_SECTIONS)}, found {value!r}"
            )
    unknown = sorted(set(budgets) - set(ALL_SECTIONS))
    if unknown:
        raise ValidationError(
            f"budgets.{unknown[0]}: unknown section; expected only {', '.join(ALL_SECTIONS)}"
        )
    if total is not None and (isinstance(total, bool) or not isinstance(total, int) or total < 0):
        raise ValidationError(f"total: expected a token count >= 0 or None, found {total!r}")


def _ranked(candidates: Sequence[ScoredMemory]) -> list[ScoredMemory]:
    """Candidates with a rank (> 0) first in rank order, then the rest in the order given."""
    order = sorted(
        range(len(candidates)),
        key=lambda i: (candidates[i].rank <= 0, candidates[i].rank, i),
    )
    return [candidates[i] for i in order]


def _superseded(candidates: Sequence[ScoredMemory]) -> dict[str, str]:
    """old id -> id of the candidate that replaced it (only the newest version is injected)."""
    return {
        c.record.prev_id: c.record.id for c in candidates if c.kept and c.record.prev_id is not None
    }


def _fit(
    line: str,
    limit: int,
    count: Callable[[str], int],
    truncate: Callable[[str, int], str],
) -> str:
    """Cut line until `count` says it fits in limit; "" when nothing useful fits."""
    n = limit
    for _ in range(12):
        if n <= 0:
            return ""
        cut = truncate(line, n)
        used = count(cut)
        if used <= limit:
            return cut
        n -= max(1, used - limit)
    return ""


@dataclass
class _State:
    """Running totals while packing (local to one `pack` call)."""

    budgets: Mapping[str, int]
    total: int | None
    used: dict[str, int]
    lines: dict[str, list[str]]
    seen_ids: dict[str, str]
    seen_text: dict[str, str]

    @property
    def used_total(self) -> int:
        return sum(self.used.values())

    def total_left(self) -> int | None:
        return None if self.total is None else self.total - self.used_total


def _place(line: str, cost: int, section: str, st: _State, count, truncate) -> tuple[str, str]:
    """Decide one line: returns (line to keep, "") or ("", reason it was dropped)."""
    budget, used = st.budgets[section], st.used[section]
    left = st.total_left()
    if used + cost > budget:
        if used == 0 and not st.lines[section]:
            limit = budget if left is None else min(budget, left)
            cut = _fit(line, limit, count, truncate)
            if cut:
                return cut, ""
            if limit < budget:
                return "", f"over total budget ({st.used_total}+{cost}>{st.total})"
        return "", f"over section budget {section} ({used}+{cost}>{budget})"
    if left is not None and cost > left:
        return "", f"over total budget ({st.used_total}+{cost}>{st.total})"
    return line, ""


def pack(
    candidates: Sequence[ScoredMemory],
    budgets: Mapping[str, int],
    *,
    total: int | None,
    count: Callable[[str], int],
    render_one: Callable[[MemoryRecord], str],
    truncate: Callable[[str, int], str] = truncate_tokens,
) -> Packing:
    """Pack ranked candidates into per-section budgets and a total cap.

    Candidates are taken in rank order (those with rank > 0 by rank, then the rest as given);
    every one gets rank = its 1-based position. Each is rendered with `render_one` and kept when
    its line fits both its section's budget and the total cap (`None`: no cap beyond the
    sections). Dropped candidates carry a reason: "over section budget <section> (used+cost>
    budget)", "over total budget (...)", "duplicate of <id>" (same record, or the same line as a
    kept one), "superseded by <id>" (an older version of a kept candidate), or the reason they
    arrived with when kept=False. A line longer than a whole section budget is cut with
    `truncate` rather than dropped when it would be the first line of its section.
    """
    if isinstance(budgets, Mapping):
        budgets = {**_OPTIONAL, **budgets}
    _check_budgets(budgets, total)
    st = _State(budgets, total, {s: 0 for s in ALL_SECTIONS}, {s: [] for s in ALL_SECTIONS}, {}, {})
    replaced_by = _superseded(candidates)
    kept: list[ScoredMemory] = []
    dropped: list[ScoredMemory] = []
    for rank, cand in enumerate(_ranked(candidates), start=1):
        line, reason = _decide(cand, st, replaced_by, count, render_one, truncate)
        if reason:
            dropped.append(_with_fate(cand, rank, False, reason))
        else:
            section = section_of(cand.record)
            st.lines[section].append(line)
            st.used[section] += count(line)
            kept.append(_with_fate(cand, rank, True, cand.reason))
    return Packing(
        kept=tuple(kept),
        dropped=tuple(dropped),
        tokens_by_section=dict(st.used),
        total_tokens=st.used_total,
        lines={s: tuple(v) for s, v in st.lines.items()},
    )


def _with_fate(cand: ScoredMemory, rank: int, kept: bool, reason: str) -> ScoredMemory:
    """cand with this rank and fate; cand itself when it has them already (most candidates of a
    recall arrive ranked, and dropped with their reason: ~50 copies a request saved)."""
    if cand.rank == rank and cand.kept == kept and cand.reason == reason:
        return cand
    return dataclasses.replace(cand, rank=rank, kept=kept, reason=reason)


def _decide(cand, st: _State, replaced_by, count, render_one, truncate) -> tuple[str, str]:
    """(line, "") to keep cand, or ("", reason) to drop it; records what it has seen."""
    if not cand.kept:
        return "", cand.reason or "dropped before packing"
    rid = cand.record.id
    if rid in st.seen_ids:
        return "", f"duplicate of {st.seen_ids[rid]}"
    st.seen_ids[rid] = rid
    if rid in replaced_by:
        return "", f"superseded by {replaced_by[rid]}"
    line = render_one(cand.record)
    key = " ".join(line.split()).casefold()
    if key in st.seen_text:
        return "", f"duplicate of {st.seen_text[key]}"
    if not key:
        return "", "empty rendering"
    kept_line, reason = _place(line, count(line), section_of(cand.record), st, count, truncate)
    if not reason:
        st.seen_text[key] = rid
    return kept_line, reason


# Assemble: what the model will see this turn (docs/design.md seed 002 §1.2, working memory).
#
# recall result -> keep the top_k related memories -> pack into the per-section budgets -> render
# the reference block -> an InjectionPlan that explains every decision. `wrap` applies the
# configured system_prefix template; `unless_live` leaves out what the host's live transcript
# already shows the model.

__all__ = ["BlockAssembler", "unless_live", "wrap"]


class BlockAssembler:
    """A recall result -> the InjectionPlan of this turn, under the config's budgets. Reads the
    record store for the versions a change note names and for the procedures of the request."""

    def __init__(
        self,
        store: RecordStore,
        clock: Clock,
        config: MemoryConfig,
        procedures: ProcedureRecall | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.cfg = config
        #: how earlier tasks of the request's kind were done (procedure/__init__.py)
        self.procedures = procedures if procedures is not None else ProcedureRecall(store)

    def assemble(
        self,
        scope: Scope,
        result: RecallResult,
        *,
        request_tokens: int = 0,
        sections: Sequence[str] = ALL_SECTIONS,
    ) -> InjectionPlan:
        """The plan of one turn: the ranked memories limited, packed, rendered and explained."""
        ranked = result.ranked
        if "procedures" in sections:
            read = result.query.analysis
            ranked = self.procedures.apply(scope, read.request, ranked, read.langs)
        ranked = self._limit(ranked, sections, several=result.query.several)
        now = self.clock.now()
        prevs = self._previous(scope, [s.record for s in ranked if s.kept])
        days = self.cfg.recall.change_note_days
        windows = {s.record.id: s.context for s in ranked if s.kept and s.context}
        # the packs the request was read with (`rules.disabled`) word the block too
        langs = result.query.analysis.langs

        def render_one(r: MemoryRecord) -> str:
            return render_record(
                r,
                now=now,
                prev=prevs.get(r.prev_id or ""),
                change_note_days=days,
                window=windows.get(r.id, ()),
                langs=langs,
            )

        b = self.cfg.injection.budgets
        if not any(s.kept and section_of(s.record) == "procedures" for s in ranked):
            # the procedures' share counts toward the total only for a request that gets one:
            # every other request is packed exactly as before the section existed
            b = dataclasses.replace(b, procedures=0)
        budgets = {
            "profile": b.profile,
            "summaries": b.summaries,
            "retrieved": b.retrieved,
            "procedures": b.procedures,
        }
        lang = choose_lang([s.record.summary for s in ranked if s.kept][:10], langs)
        total = max(0, total_budget(b, request_tokens) - block_overhead(lang=lang, langs=langs))
        packing = pack(ranked, budgets, total=total, count=count_tokens, render_one=render_one)
        lines, used = _merge_days(packing, langs)
        block = render_block(lines, lang=lang, langs=langs)
        candidates = sorted([*packing.kept, *packing.dropped], key=lambda s: s.rank)
        return InjectionPlan(
            block=block,
            position=self.cfg.injection.position,
            query=result.query.text,
            candidates=tuple(candidates),
            sections=used,
            tokens=count_tokens(block),
            to_confirm=tuple(result.to_confirm),
        )

    def _limit(
        self, ranked: Sequence[ScoredMemory], sections: Sequence[str], *, several: bool = False
    ) -> list[ScoredMemory]:
        """Few and right: at most top_k related memories (list_top_k for a list question, whose
        answer is spread over sessions); sections not asked for are left out."""
        lt = self.cfg.long_term
        top_k = max(lt.top_k, lt.list_top_k) if several else lt.top_k
        out, related = [], 0
        for s in ranked:
            section = section_of(s.record)
            if s.kept and section not in sections:
                s = dataclasses.replace(s, kept=False, reason=f"section {section} not requested")
            elif s.kept and section == "retrieved":
                related += 1
                if related > top_k:
                    s = dataclasses.replace(s, kept=False, reason=f"beyond top_k ({top_k})")
            out.append(s)
        return out

    def _previous(self, scope: Scope, records: Sequence[MemoryRecord]) -> dict[str, MemoryRecord]:
        ids = [r.prev_id for r in records if r.prev_id]
        return self.store.get_many(scope, ids) if ids else {}


def _merge_days(
    packing: Packing, langs: Languages | None = None
) -> tuple[dict[str, tuple[str, ...]], dict[str, int]]:
    """The packed lines with each day's episodes on one line, and the tokens each section uses.

    Packing charged every episode its own dated line, so merging only lowers the cost."""
    related = [s.record for s in packing.kept if section_of(s.record) == "retrieved"]
    merged = tuple(merge_same_day(zip(packing.lines["retrieved"], related), langs))
    lines = {**packing.lines, "retrieved": merged}
    used = {**packing.tokens_by_section, "retrieved": sum(count_tokens(x) for x in merged)}
    return lines, used


def wrap(plan: InjectionPlan, injection: InjectionConfig) -> InjectionPlan:
    """Apply the system_prefix template when the block is not placed by it already."""
    template = injection.system_prefix
    if not plan.block or plan.position == "system_prefix" or template.strip() == "{memory_block}":
        return plan
    return dataclasses.replace(plan, block=template.replace("{memory_block}", plan.block))


def unless_live(
    ranked: Sequence[ScoredMemory], session_id: str, live: set[str]
) -> list[ScoredMemory]:
    """The ranked memories with those left out whose every source turn is still in the host's
    live transcript (keys `session#turn`): the model reads those turns in its own context."""
    return [_unless_live(s, session_id, live) for s in ranked]


def _unless_live(item: ScoredMemory, session_id: str, live: set[str]) -> ScoredMemory:
    rec = item.record
    turns = rec.source.turn_ids
    if (
        item.kept
        and turns
        and (rec.session_id == session_id or rec.source.session_id == session_id)
        and all(t in live for t in turns)
    ):
        return dataclasses.replace(item, kept=False, reason="in the live transcript already")
    return item
