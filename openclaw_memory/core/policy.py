"""One table: what happens to each memory type, and one trust order for the channels.

docs/design.md "The type policy table" explains each column. Every site that applies a per-type
rule reads it from here (`POLICY[type]`, `types_where`, or the sets and orders derived below):
consolidation's write rule, TTL and trust, recall's decay, time window, profile channel and
episode coverage, injection's sections and per-type forms, extraction's base importance, the
cap, cleanup's protected types, import's typed entries. tests/test_policy.py checks every site
against the table row by row. This module imports only `types` (the enums), so any module can
read it without a cycle.

Still outside the table (rules not yet expressed as a column): consolidation's decision and
summary branches and its claim types (`consolidate_decide.CLAIM_TYPES`: profile, preference and fact
may restate one another), the recent channel leaving out episodes and summaries, the nouns and
task states render.py words lines with, and the MCP tool's list of storable types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..types import Channel, MemoryType

CURATED, EPISODIC = "curated", "episodic"


@dataclass(frozen=True)
class TypePolicy:
    """The rules of one memory type."""

    #: "curated" (distilled, versioned) or "episodic" (the verbatim log: the evidence)
    layer: str
    #: consolidated by subject: a restatement updates in place, a change retires the old value
    keyed: bool
    #: never overwritten: each one is a new record (compaction aggregates them later)
    append_only: bool
    #: recency halves every recall.event_half_life_days (only reorders, never removes)
    decays: bool
    #: a time phrase in the request ("last week", 上周) restricts it to that window
    windowed: bool
    #: the injection section it is budgeted and rendered in
    section: str
    #: counted against long_term.max_facts_per_user
    capped: bool
    #: never deleted by cleanup, however old and unimportant
    kept_by_cleanup: bool
    #: the forgetting.* key holding its TTL in days (None: no TTL)
    ttl_key: str | None
    #: importance before channel, tags and confidence adjust it
    base_importance: float
    #: its compressed form in the block
    render: str
    #: a claim distilled from the user's turns: live, it stands for them (an episode of those
    #: turns ranked below it is not injected); retired, it marks them outdated
    distilled: bool


_P = TypePolicy
#: fields in order: layer, keyed, append_only, decays, windowed, section, capped, kept_by_cleanup,
#: ttl_key, base_importance, render, distilled
# one row per type, so the table reads across: kept out of the formatter
# fmt: off
POLICY: Mapping[MemoryType, TypePolicy] = {
    MemoryType.PROFILE:
        _P(CURATED, True, False, False, False, "profile", True, True, None, 0.75, "value", True),
    MemoryType.PREFERENCE:
        _P(CURATED, True, False, False, False, "profile", True, False, None, 0.6, "rule", True),
    MemoryType.FACT:
        _P(CURATED, True, False, False, False, "retrieved", True, False, None, 0.55, "subject status summary", True),
    MemoryType.DECISION:
        _P(CURATED, False, False, False, False, "retrieved", True, False, None, 0.7, "subject status summary", True),
    MemoryType.TASK:
        _P(CURATED, True, False, True, True, "retrieved", True, False, "task_ttl_days", 0.6, "subject status summary", True),
    MemoryType.SUMMARY:
        _P(CURATED, False, False, True, True, "summaries", False, True, None, 0.5, "summary lines", False),
    MemoryType.EVENT:
        _P(EPISODIC, False, True, True, True, "retrieved", False, False, "event_ttl_days", 0.35, "time kind result", False),
    MemoryType.EPISODE:
        _P(EPISODIC, False, True, True, True, "retrieved", False, False, "episode_ttl_days", 0.2, "turn and neighbours", False),
    MemoryType.PROCEDURE:
        _P(CURATED, True, False, False, False, "procedures", False, False, "procedure_ttl_days", 0.65, "kind and steps", False),
}
# fmt: on

#: conflicts and ranking trust: a claim from a later channel never overwrites one from an earlier
#: (an imported file ranks below what a person stated or an operator wrote, above what was
#: inferred; conversation still corrects it: consolidate_decide.Decisions._is_doubt)
TRUST_ORDER: tuple[Channel, ...] = (
    Channel.EXPLICIT,
    Channel.ADMIN,
    Channel.IMPORTED,
    Channel.TOOL,
    Channel.SUMMARY,
    Channel.IMPLICIT,
)
#: consolidation's comparison of two channels: higher wins (the trust order, as numbers)
CHANNEL_PRIORITY: Mapping[Channel, int] = {
    c: len(TRUST_ORDER) - i for i, c in enumerate(TRUST_ORDER)
}
_RANKED = tuple(c for c in TRUST_ORDER if c is not Channel.IMPORTED)
#: ranking's trust component per channel: 1.0 for the first, 0.1 less for each next one; an
#: imported memory halfway between admin and tool (the values of the others predate it)
CHANNEL_TRUST: Mapping[Channel, float] = {
    **{c: round(1.0 - 0.1 * i, 2) for i, c in enumerate(_RANKED)},
    Channel.IMPORTED: 0.85,
}


def types_where(**rule: object) -> frozenset[MemoryType]:
    """The types whose policy has every given field equal to the given value, e.g.
    `types_where(capped=False)` or `types_where(section="profile")`."""
    unknown = sorted(set(rule) - set(TypePolicy.__dataclass_fields__))
    if unknown:
        raise ValueError(
            f"types_where: unknown policy field {unknown[0]!r}; "
            f"expected one of {sorted(TypePolicy.__dataclass_fields__)}"
        )
    return frozenset(
        t for t, p in POLICY.items() if all(getattr(p, k) == v for k, v in rule.items())
    )


def type_values(types: frozenset[MemoryType]) -> tuple[str, ...]:
    """The types' stored names, sorted (for SQL `IN (...)` lists)."""
    return tuple(sorted(t.value for t in types))


def sql_list(types: frozenset[MemoryType]) -> str:
    """The types' stored names as the inside of an SQL `IN (...)`: `'fact', 'task'`."""
    return ", ".join(f"'{name}'" for name in type_values(types))


#: consolidated by subject (a restatement updates in place, a change retires the old value)
KEYED_TYPES = types_where(keyed=True)
#: never overwritten: each one a new record
APPEND_ONLY_TYPES = types_where(append_only=True)


__all__ = [
    "APPEND_ONLY_TYPES",
    "CHANNEL_PRIORITY",
    "CHANNEL_TRUST",
    "KEYED_TYPES",
    "POLICY",
    "TRUST_ORDER",
    "TypePolicy",
    "sql_list",
    "type_values",
    "types_where",
]
