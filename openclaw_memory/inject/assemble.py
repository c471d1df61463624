"""Assemble: what the model will see this turn (docs/design.md seed 002 §1.2, working memory).

recall result -> keep the top_k related memories -> pack into the per-section budgets -> render
the reference block -> an InjectionPlan that explains every decision. `wrap` applies the
configured system_prefix template; `unless_live` leaves out what the host's live transcript
already shows the model.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Sequence

from ..config import MemoryConfig
from ..config import InjectionConfig
from ..core.clock import Clock
from ..core.tokens import count_tokens
from ..procedure import ProcedureRecall
from ..store.ports import RecordStore
from ..types import InjectionPlan, MemoryRecord, ScoredMemory, Scope
from .budget import ALL_SECTIONS, Packing, pack, section_of, total_budget
from .render import block_overhead, choose_lang, merge_same_day, render_block, render_record

if TYPE_CHECKING:
    from ..recall.recaller import RecallResult

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
            request = result.query.current or result.query.text
            ranked = self.procedures.apply(scope, request, ranked)
        ranked = self._limit(ranked, sections, several=result.query.several)
        now = self.clock.now()
        prevs = self._previous(scope, [s.record for s in ranked if s.kept])
        days = self.cfg.recall.change_note_days
        windows = {s.record.id: s.context for s in ranked if s.kept and s.context}

        def render_one(r: MemoryRecord) -> str:
            return render_record(
                r,
                now=now,
                prev=prevs.get(r.prev_id or ""),
                change_note_days=days,
                window=windows.get(r.id, ()),
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
        lang = choose_lang([s.record.summary for s in ranked if s.kept][:10])
        total = max(0, total_budget(b, request_tokens) - block_overhead(lang=lang))
        packing = pack(ranked, budgets, total=total, count=count_tokens, render_one=render_one)
        lines, used = _merge_days(packing)
        block = render_block(lines, lang=lang)
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


def _merge_days(packing: Packing) -> tuple[dict[str, tuple[str, ...]], dict[str, int]]:
    """The packed lines with each day's episodes on one line, and the tokens each section uses.

    Packing charged every episode its own dated line, so merging only lowers the cost."""
    related = [s.record for s in packing.kept if section_of(s.record) == "retrieved"]
    merged = tuple(merge_same_day(zip(packing.lines["retrieved"], related)))
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
