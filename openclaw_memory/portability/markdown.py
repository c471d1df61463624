"""A readable Markdown export: a user's memories by type, newest first, with their facts.

For people, not for machines (the JSON Lines export is the one that round-trips). Live memories
come first, one section per type; inactive (forgotten or replaced) and archived ones follow in
their own sections, so a reader sees at a glance what the agent would use.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..core.clock import iso_time
from ..types import MemoryRecord, MemoryType, Scope, Status

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine

#: section order and titles
TYPE_TITLES: dict[MemoryType, str] = {
    MemoryType.PROFILE: "Profile",
    MemoryType.PREFERENCE: "Preferences",
    MemoryType.FACT: "Facts",
    MemoryType.DECISION: "Decisions",
    MemoryType.TASK: "Tasks",
    MemoryType.PROCEDURE: "Procedures",
    MemoryType.EVENT: "Events",
    MemoryType.SUMMARY: "Session summaries",
    MemoryType.EPISODE: "Conversation log",
}


def user_records(
    engine: MemoryEngine, user_id: str, agent_id: str | None = None
) -> list[MemoryRecord]:
    """Every record of a user (every agent, or one), newest first."""
    Scope(user_id, agent_id or "default")
    return engine.store.user_records(user_id, agent_id, newest_first=True)


def _escape(text: str) -> str:
    """One line of Markdown text: newlines folded, leading markup characters neutralised."""
    line = " ".join(text.split())
    return "\\" + line if line[:1] in "#>-*+|" else line


def _entry(r: MemoryRecord) -> list[str]:
    head = f"**{_escape(r.subject)}**: " if r.subject else ""
    lines = [f"- {head}{_escape(r.summary)}"]
    if r.detail:
        lines.append(f"  {_escape(r.detail)}")
    facts = [
        r.status.value,
        f"v{r.version}",
        iso_time(r.created_at) + " UTC",
        f"importance {r.importance:.2f}",
        f"confidence {r.confidence:.2f}",
    ]
    if r.tags:
        facts.append("tags: " + ", ".join(r.tags))
    if r.scope.agent_id != "default":
        facts.append(f"agent {r.scope.agent_id}")
    facts.append(f"id `{r.id}`")
    lines.append("  _" + " · ".join(facts) + "_")
    return lines


def _section(title: str, records: Iterable[MemoryRecord]) -> list[str]:
    items = list(records)
    if not items:
        return []
    out = [f"## {title} ({len(items)})", ""]
    for r in items:
        out += _entry(r)
    return [*out, ""]


def render_markdown(records: list[MemoryRecord], user_id: str, exported_at: float) -> str:
    """The Markdown document for these records."""
    live = [r for r in records if r.status is Status.ACTIVE]
    out = [
        f"# Memories of {_escape(user_id)}",
        "",
        f"Exported {iso_time(exported_at)} UTC: {len(records)} memories ({len(live)} active).",
        "",
    ]
    for kind, title in TYPE_TITLES.items():
        out += _section(title, (r for r in live if r.type is kind))
    out += _section("Archived", (r for r in records if r.status is Status.ARCHIVED))
    out += _section(
        "Inactive (forgotten or replaced)", (r for r in records if r.status is Status.INACTIVE)
    )
    return "\n".join(out).rstrip() + "\n"


def export_markdown(engine: MemoryEngine, user_id: str, agent_id: str | None = None) -> str:
    """A user's memories as one Markdown document."""
    return render_markdown(user_records(engine, user_id, agent_id), user_id, engine.clock.now())
