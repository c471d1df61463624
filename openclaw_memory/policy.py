"""One table: what happens to each memory type, and one trust order for the channels.

docs/design.md "The type policy table" explains each column. Modules read their rule from here
(`types_where`, `POLICY[type]`, `TRUST_ORDER`) instead of keeping a list of their own:
extraction's base importance, injection's sections, the cap and cleanup's protected types do.
Sites that still keep their own copy, each checked against this table by tests/test_policy.py:
`types.KEYED_TYPES`, `types.APPEND_ONLY_TYPES` and `types.CHANNEL_PRIORITY` (this module imports
types, so they cannot read it from there), consolidation's TTL per type (`Consolidator._expiry`),
`recall.channels.TYPES_WITHOUT_DECAY`, `recall.rank.WINDOWED_TYPES` and `recall.rank.TRUST`, and
the per-type forms in inject/render.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .types import Channel, MemoryType

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


_P = TypePolicy
#: fields in order: layer, keyed, append_only, decays, windowed, section, capped, kept_by_cleanup,
#: ttl_key, base_importance, render
POLICY: Mapping[MemoryType, TypePolicy] = {
    MemoryType.PROFILE:
        _P(CURATED, True, False, False, False, "profile", True, True, None, 0.75, "value"),
    MemoryType.PREFERENCE:
        _P(CURATED, True, False, False, False, "profile", True, False, None, 0.6, "rule"),
    MemoryType.FACT:
        _P(CURATED, True, False, False, False, "retrieved", True, False, None, 0.55, "subject status summary"),
    MemoryType.DECISION:
        _P(CURATED, False, False, False, False, "retrieved", True, False, None, 0.7, "subject status summary"),
    MemoryType.TASK:
        _P(CURATED, True, False, True, True, "retrieved", True, False, "task_ttl_days", 0.6, "subject status summary"),
    MemoryType.SUMMARY:
        _P(CURATED, False, False, True, True, "summaries", False, True, None, 0.5, "summary lines"),
    MemoryType.EVENT:
        _P(EPISODIC, False, True, True, True, "retrieved", False, False, "event_ttl_days", 0.35, "time kind result"),
    MemoryType.EPISODE:
        _P(EPISODIC, False, True, True, True, "retrieved", False, False, "episode_ttl_days", 0.2, "turn and neighbours"),
}

#: conflicts and ranking trust: a claim from a later channel never overwrites one from an earlier
TRUST_ORDER: tuple[Channel, ...] = (Channel.EXPLICIT, Channel.ADMIN, Channel.TOOL, Channel.SUMMARY, Channel.IMPLICIT)


def types_where(**rule: object) -> frozenset[MemoryType]:
    """The types whose policy has every given field equal to the given value, e.g.
    `types_where(capped=False)` or `types_where(section="profile")`."""
    unknown = sorted(set(rule) - set(TypePolicy.__dataclass_fields__))
    if unknown:
        raise ValueError(f"types_where: unknown policy field {unknown[0]!r}; "
                         f"expected one of {sorted(TypePolicy.__dataclass_fields__)}")
    return frozenset(t for t, p in POLICY.items() if all(getattr(p, k) == v for k, v in rule.items()))


def type_values(types: frozenset[MemoryType]) -> tuple[str, ...]:
    """The types' stored names, sorted (for SQL `IN (...)` lists)."""
    return tuple(sorted(t.value for t in types))


__all__ = ["POLICY", "TRUST_ORDER", "TypePolicy", "type_values", "types_where"]
