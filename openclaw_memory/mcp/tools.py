"""The memory tools an MCP client's model calls, over one middleware and one fixed scope.

The scope (user, agent) is chosen by whoever starts the server, never by the model: no tool takes
a user or agent argument, so a model cannot reach another user's memory whatever it sends.

Every answer that carries stored text is framed as reference data (`frame`): each line
sanitized like the injected block, between markers stored content can neither close nor forge.
Our own guidance (how to expand a memory, when to go deep) stays outside the frame.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from typing import Any

from ..core.clock import iso_time
from ..errors import ValidationError
from ..inject.escape import REFERENCE_CLOSE, REFERENCE_OPEN, frame_reference, sanitize  # noqa: F401 - the markers, re-exported
from ..types import InjectionPlan, MemoryRecord, Scope, ScoredMemory

SEARCH_HINT = (
    "Call memory_get with an id for its detail, provenance and earlier versions. "
    "Nothing relevant? Call memory_search again with deep=true: it also searches archived "
    "and expired memories (older events, compacted history)."
)
MAX_LIMIT = 20


def frame(lines: Iterable[str]) -> str:
    """Stored text as reference data (escape.frame_reference: each line sanitized, inside the
    reference markers, which stored content can neither close nor forge)."""
    return frame_reference("\n".join(lines))


class MemoryTools:
    """memory_search / get / store / forget / restore / explain for one scope.

    middleware: a MemoryMiddleware (or anything with its methods); scope: fixed at start;
    session_id: the session the server's writes are recorded under (provenance).
    """

    def __init__(self, middleware: Any, scope: Scope, *, session_id: str | None = None) -> None:
        self.mw = middleware
        self.scope = scope
        self.session_id = session_id or f"mcp-{secrets.token_hex(4)}"

    @property
    def can_restore(self) -> bool:
        """Whether the middleware can undo a forget (memory_restore is offered only then)."""
        return callable(getattr(self.mw, "restore", None))

    def search(self, query: str, limit: int = 5, deep: bool = False) -> str:
        """The memories that match query (deep: the cold archive too), framed, then the hint."""
        _check_text("query", query)
        found = self.mw.search(self.scope, query, _limit(limit), deep=bool(deep))
        head = f"{len(found)} memories for this request{' (archive included)' if deep else ''}:"
        lines = [head, *(_scored_line(s) for s in found)] if found else ["No matching memories."]
        return frame(lines) + "\n" + SEARCH_HINT

    def get(self, id: str) -> str:
        """One memory: detail, provenance, its earlier versions and the records it replaced."""
        _check_text("id", id)
        engine = self.mw.engine
        chain = engine.chain(self.scope, id)
        newer = engine.store.successors(self.scope, id, limit=3)
        lines = [
            *_record_lines(chain[0]),
            *_version_lines(engine.versions(self.scope, id)),
            *_replaced_lines(chain[1:]),
        ]
        lines += [
            f"replaced by [{r.id}] ({r.status.value}, from {iso_time(r.created_at)} UTC): {r.summary}"
            for r in newer
        ]
        return frame(lines)

    def store(self, text: str, type: str | None = None, subject: str | None = None) -> str:
        """Remember text (the explicit channel); says what was done and the memory's id."""
        _check_text("text", text)
        result = self.mw.remember(
            self.scope, text, type=type or None, subject=subject or None, session_id=self.session_id
        )
        rid = result.record.id if result.record is not None else "-"
        return f"{result.action}: {rid} ({sanitize(result.reason)})"

    def forget(self, id: str | None = None, query: str | None = None) -> str:
        """Deactivate one memory by id, or what a description clearly names (exactly one of them)."""
        if bool(id) == bool(query):
            raise ValidationError(
                "id or query: expected exactly one of them (an id from memory_search, "
                "or a description of what to forget)"
            )
        ids = self.mw.forget(self.scope, memory_id=id or None, query=query or None)
        if not ids:
            return "Nothing matched clearly enough; nothing was forgotten."
        return f"Forgot {len(ids)}: {', '.join(ids)} (memory_restore undoes it)."

    def restore(self, id: str) -> str:
        """Bring a forgotten (or archived) memory back into recall."""
        _check_text("id", id)
        record = self.mw.restore(self.scope, id)
        return f"restored: {record.id}\n" + frame([_record_head(record)])

    def explain(self, query: str, deep: bool = False) -> str:
        """Why these memories for this request: every candidate with its score, fate and reason."""
        _check_text("query", query)
        plan: InjectionPlan = self.mw.working.plan(self.scope, query, (), deep=bool(deep))
        ranked = sorted(plan.candidates, key=lambda c: (c.rank <= 0, c.rank))
        kept = len([c for c in ranked if c.kept])
        lines = [f"{kept} of {len(ranked)} candidates would be injected ({plan.tokens} tokens):"]
        lines += [_explain_line(c) for c in ranked] or ["No candidate matched."]
        lines += [
            f"to confirm (low confidence, never injected): [{r.id}] {r.summary}"
            for r in plan.to_confirm
        ]
        return frame(lines)


def _check_text(field: str, value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{field}: expected a non-empty string, found {value!r}")


def _limit(limit: Any) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ValidationError(f"limit: expected an integer from 1 to {MAX_LIMIT}, found {limit!r}")
    return limit


def _status(record: MemoryRecord) -> str:
    return "" if record.status.value == "active" else f", {record.status.value}"


def _scored_line(item: ScoredMemory) -> str:
    r = item.record
    subject = f" {r.subject}:" if r.subject else ""
    return f"- [{r.id}] {r.type.value}{_status(r)}, score {item.score:.2f}:{subject} {r.summary}"


def _record_head(r: MemoryRecord) -> str:
    subject = f", subject {r.subject}" if r.subject else ""
    return f"[{r.id}] {r.type.value}{_status(r)}, version {r.version}{subject}: {r.summary}"


def _record_lines(r: MemoryRecord) -> list[str]:
    src = r.source
    turns = f", turns {', '.join(src.turn_ids[:10])}" if src.turn_ids else ""
    lines = [_record_head(r)]
    if r.detail:
        lines += [f"detail: {line}" for line in r.detail.splitlines() if line.strip()]
    lines.append(
        f"written {iso_time(r.created_at)} UTC, updated {iso_time(r.updated_at)} UTC, "
        f"importance {r.importance:.2f}, confidence {r.confidence:.2f}"
    )
    lines.append(
        f"source: {src.channel.value} channel, session {src.session_id or '-'}{turns}, by {src.writer}"
    )
    if r.expires_at:
        lines.append(f"expires {iso_time(r.expires_at)} UTC")
    return lines


def _version_lines(versions: Sequence[dict]) -> list[str]:
    return [
        f"earlier version {v['version']} (until {iso_time(v['superseded_at'])} UTC): {v['summary']}"
        for v in versions
    ]


def _replaced_lines(chain: Sequence[MemoryRecord]) -> list[str]:
    return [
        f"replaced [{r.id}] ({r.status.value}, from {iso_time(r.created_at)} UTC): {r.summary}"
        for r in chain
    ]


def _explain_line(c: ScoredMemory) -> str:
    r = c.record
    fate = "kept" if c.kept else "dropped"
    parts = ", ".join(f"{k} {v:.2f}" for k, v in sorted(c.components.items()))
    why = f" - {c.reason}" if c.reason else ""
    return f"{c.rank}. {fate} [{r.id}] {r.type.value}{_status(r)} score {c.score:.2f} ({parts}): {r.summary}{why}"
