"""How much a candidate memory matters, as one number in [0, 1] (higher keeps it longer).

Scale:
    0.0-0.2  noise; never promoted to a curated memory
    0.2-0.4  ephemeral: events and episodes that will age out
    0.4-0.6  ordinary facts and implicit preferences
    0.6-0.8  worth injecting often: profile, decisions, standing rules
    0.8-1.0  must not be lost: explicit commands, prohibitions, health and safety facts

The value is a base per memory type, raised for explicit channels and for prohibition or safety
tags, lowered for hedged claims; maintenance uses it for cleanup and recall as a ranking feature.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..write.policy import POLICY
from ..types import Channel, MemoryType

#: the base importance of each type is a column of the policy table
_BASE = {kind: policy.base_importance for kind, policy in POLICY.items()}
_CHANNEL_BONUS = {
    Channel.EXPLICIT: 0.15,
    Channel.TOOL: 0.0,
    Channel.IMPLICIT: 0.0,
    Channel.SUMMARY: -0.05,
}
#: Tags that raise importance: the user forbade something, or getting it wrong could hurt.
_HIGH_TAGS = frozenset({"prohibition", "allergy", "health", "safety"})


def importance_for(
    type: MemoryType,
    channel: Channel = Channel.IMPLICIT,
    tags: Iterable[str] = (),
    confidence: float = 0.8,
) -> float:
    """Importance in [0, 1] from the memory type, its channel, its tags and its confidence."""
    score = _BASE.get(type, 0.5) + _CHANNEL_BONUS.get(channel, 0.0)
    if _HIGH_TAGS.intersection(tags):
        score += 0.15
    if confidence < 0.5:
        score -= 0.15
    return round(min(1.0, max(0.0, score)), 3)
