"""The type policy table (openclaw_memory/policy.py) against every site that applies a part of it.

One row per memory type; each test reads a column and checks what the code does with it, so a
site that keeps its own list and drifts from the table fails here.
"""

from __future__ import annotations

import pytest

from openclaw_memory.clock import DAY, FakeClock
from openclaw_memory.extract.importance import importance_for
from openclaw_memory.inject.budget import section_of
from openclaw_memory.maintain.common import UNCAPPED_TYPES
from openclaw_memory.policy import POLICY, TRUST_ORDER, type_values, types_where
from openclaw_memory.recall.channels import TYPES_WITHOUT_DECAY
from openclaw_memory.recall.rank import TRUST, WINDOWED_TYPES
from openclaw_memory.types import (
    APPEND_ONLY_TYPES,
    CHANNEL_PRIORITY,
    KEYED_TYPES,
    Candidate,
    Channel,
    MemoryRecord,
    MemoryType,
    Scope,
    Source,
)

ROWS = sorted(POLICY.items(), key=lambda kv: kv[0].value)
IDS = [t.value for t, _ in ROWS]


def test_every_type_has_one_row_and_keyed_excludes_append_only():
    assert set(POLICY) == set(MemoryType)
    assert not types_where(keyed=True) & types_where(append_only=True)


def test_types_where_rejects_an_unknown_field():
    with pytest.raises(ValueError, match="unknown policy field 'keyd'"):
        types_where(keyd=True)


@pytest.mark.parametrize("kind,policy", ROWS, ids=IDS)
def test_write_rule_matches_consolidation(kind, policy):
    assert (kind in KEYED_TYPES) is policy.keyed
    assert (kind in APPEND_ONLY_TYPES) is policy.append_only


@pytest.mark.parametrize("kind,policy", ROWS, ids=IDS)
def test_decay_and_time_window_match_recall(kind, policy):
    assert (kind not in TYPES_WITHOUT_DECAY) is policy.decays
    assert (kind in WINDOWED_TYPES) is policy.windowed


def _record(kind: MemoryType) -> MemoryRecord:
    return MemoryRecord(id="m1", scope=Scope("u1"), type=kind, summary="x 测试",
                        source=Source(Channel.IMPLICIT, None, (), "test"), created_at=0.0, updated_at=0.0)


@pytest.mark.parametrize("kind,policy", ROWS, ids=IDS)
def test_section_and_base_importance_match_injection_and_extraction(kind, policy):
    assert section_of(_record(kind)) == policy.section
    assert importance_for(kind, Channel.IMPLICIT, (), 0.8) == pytest.approx(policy.base_importance)


@pytest.mark.parametrize("kind,policy", ROWS, ids=IDS)
def test_cap_matches_maintenance(kind, policy):
    assert (kind.value not in UNCAPPED_TYPES) is policy.capped


@pytest.mark.parametrize("kind,policy", ROWS, ids=IDS)
def test_ttl_matches_what_consolidation_writes(engine, kind, policy):
    if policy.append_only or kind is MemoryType.SUMMARY:
        subject = None if kind is not MemoryType.SUMMARY else "session/s1"
    else:
        subject = f"{kind.value}/x"
    cand = Candidate(type=kind, summary=f"{kind.value} 记录 record", subject=subject, confidence=0.9)
    (written,) = [w for w in engine.write(Scope("u1"), [cand], writer="test") if w.record is not None]
    days = getattr(engine.config.forgetting, policy.ttl_key) if policy.ttl_key else 0.0
    expected = engine.clock.now() + days * DAY if days else None
    assert written.record.expires_at == (pytest.approx(expected) if expected else None)


@pytest.mark.parametrize("kind,policy", ROWS, ids=IDS)
def test_cleanup_keeps_what_the_table_protects(engine, kind, policy):
    from openclaw_memory.maintain.cleanup import cleanup

    scope = Scope("u1")
    subject = "session/s1" if kind is MemoryType.SUMMARY else f"{kind.value}/old"
    cand = Candidate(type=kind, summary=f"old {kind.value} 旧记录", subject=subject, importance=0.1,
                     confidence=0.9)
    (written,) = [w for w in engine.write(scope, [cand], writer="test") if w.record is not None]
    clock: FakeClock = engine.clock
    clock.advance(days=engine.config.forgetting.cleanup_unused_days + 1)
    cleanup(engine, scope)
    still_there = engine.find(scope, where="id = ?", args=(written.record.id,))
    assert bool(still_there) is policy.kept_by_cleanup


def test_one_trust_order_in_consolidation_and_ranking():
    assert set(TRUST_ORDER) == set(Channel)
    trust = [TRUST[c.value] for c in TRUST_ORDER]
    assert trust == sorted(trust, reverse=True) and len(set(trust)) == len(trust)  # strictly
    priority = [CHANNEL_PRIORITY[c] for c in TRUST_ORDER]
    assert priority == sorted(priority, reverse=True)  # consolidation ties summary and implicit


def test_type_values_are_sorted_names():
    assert type_values(types_where(section="profile")) == ("preference", "profile")
