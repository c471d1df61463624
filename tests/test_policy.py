"""The type policy table (openclaw_memory/core/policy.py) against every site that applies a part of it.

One row per memory type; each test reads a column and checks what the code does with it, so a
site that keeps its own list and drifts from the table fails here.
"""

from __future__ import annotations

import pytest

from openclaw_memory.runtime.factory import maintenance_ports
from openclaw_memory.core.clock import DAY, FakeClock
from openclaw_memory.extract.base import importance_for
from openclaw_memory.inject.assemble import section_of
from openclaw_memory.maintain.runner import UNCAPPED_TYPES
from openclaw_memory.inject.render import FORMS, PLAIN_FORMS, render_record
from openclaw_memory import lang
from openclaw_memory.core.policy import (
    APPEND_ONLY_TYPES,
    CHANNEL_PRIORITY,
    CHANNEL_TRUST,
    KEYED_TYPES,
    POLICY,
    TRUST_ORDER,
    sql_list,
    type_values,
    types_where,
)
from openclaw_memory.portability.openclaw import _CURATED as IMPORT_TYPED
from openclaw_memory.recall.channels import TYPES_WITHOUT_DECAY, ProfileChannel
from openclaw_memory.recall.pool import Pool
from openclaw_memory.recall.query import build_query
from openclaw_memory.recall.rank import WINDOWED_TYPES
from openclaw_memory.recall.rank import _cover
from openclaw_memory.recall.rank import TRUST
from openclaw_memory.types import Candidate, Channel, MemoryRecord, MemoryType, Scope, Source
from store_helpers import find, forget_in, writer_of

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
    return MemoryRecord(
        id="m1",
        scope=Scope("u1"),
        type=kind,
        summary="x 测试",
        source=Source(Channel.IMPLICIT, None, (), "test"),
        created_at=0.0,
        updated_at=0.0,
    )


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
    cand = Candidate(
        type=kind, summary=f"{kind.value} 记录 record", subject=subject, confidence=0.9
    )
    (written,) = [
        w
        for w in writer_of(engine).write(Scope("u1"), [cand], writer="test")
        if w.record is not None
    ]
    days = getattr(engine.config.forgetting, policy.ttl_key) if policy.ttl_key else 0.0
    expected = engine.clock.now() + days * DAY if days else None
    assert written.record.expires_at == (pytest.approx(expected) if expected else None)


@pytest.mark.parametrize("kind,policy", ROWS, ids=IDS)
def test_cleanup_keeps_what_the_table_protects(engine, kind, policy):
    from openclaw_memory.maintain.runner import cleanup

    scope = Scope("u1")
    subject = "session/s1" if kind is MemoryType.SUMMARY else f"{kind.value}/old"
    cand = Candidate(
        type=kind,
        summary=f"old {kind.value} 旧记录",
        subject=subject,
        importance=0.1,
        confidence=0.9,
    )
    (written,) = [
        w for w in writer_of(engine).write(scope, [cand], writer="test") if w.record is not None
    ]
    clock: FakeClock = engine.clock
    clock.advance(days=engine.config.forgetting.cleanup_unused_days + 1)
    cleanup(maintenance_ports(engine), scope)
    still_there = find(engine, scope, id=written.record.id)
    assert bool(still_there) is policy.kept_by_cleanup


def test_one_trust_order_in_consolidation_and_ranking():
    assert set(TRUST_ORDER) == set(Channel)
    for table in ({c: TRUST[c.value] for c in Channel}, CHANNEL_TRUST, CHANNEL_PRIORITY):
        ranks = [table[c] for c in TRUST_ORDER]
        assert ranks == sorted(ranks, reverse=True) and len(set(ranks)) == len(
            ranks
        )  # strictly, one order
    assert TRUST == {
        "explicit": 1.0,
        "admin": 0.9,
        "imported": 0.85,
        "tool": 0.8,
        "summary": 0.7,
        "implicit": 0.6,
    }


def test_the_old_names_in_types_are_the_tables():
    from openclaw_memory import types

    assert types.KEYED_TYPES is KEYED_TYPES and types.APPEND_ONLY_TYPES is APPEND_ONLY_TYPES
    assert types.CHANNEL_PRIORITY is CHANNEL_PRIORITY
    with pytest.raises(AttributeError):
        types.TRUST_TABLE  # noqa: B018


@pytest.mark.parametrize("kind,policy", ROWS, ids=IDS)
def test_render_form_is_the_tables(kind, policy):
    assert policy.render in FORMS or policy.render in PLAIN_FORMS
    record = MemoryRecord(
        id="m1",
        scope=Scope("u1"),
        type=kind,
        summary="喝茶 tea",
        subject="drink/tea",
        tags=("status:done",),
        source=Source(Channel.IMPLICIT, None, (), "test"),
        created_at=1_700_000_000.0,
        updated_at=1_700_000_000.0,
    )
    line = render_record(record, now=1_700_000_000.0)
    if policy.render == "subject status summary":
        # a keyed line without a subject is headed by its type's noun, in every language
        for code in ("en", "zh"):
            assert kind.value in lang.pack(code).table("render").entry("nouns").settings
        assert line.startswith("drink/tea（")
    elif policy.render == "time kind result":
        assert line.startswith("2023-11-14 drink/tea：")
    elif policy.render == "turn and neighbours":
        assert line.startswith("2023-11-14 ")
    elif policy.render == "kind and steps":
        assert line == "drink/tea：喝茶 tea"  # the kind of task, then how it was done
    else:
        assert line == "喝茶 tea"


@pytest.mark.parametrize("kind,policy", ROWS, ids=IDS)
def test_profile_channel_proposes_the_profile_section(engine, kind, policy):
    scope = Scope("u1")
    subject = "session/s1" if kind is MemoryType.SUMMARY else f"{kind.value}/p"
    writer_of(engine).write(
        scope,
        [Candidate(type=kind, summary=f"{kind.value} 资料 data", subject=subject, confidence=0.9)],
        writer="test",
    )
    pool = Pool()
    ProfileChannel(engine.store, engine.config.recall).propose(
        scope, build_query("你好 hello"), None, pool
    )
    assert bool(pool.channels) is (policy.section == "profile")


@pytest.mark.parametrize("kind,policy", ROWS, ids=IDS)
def test_distilled_types_cover_and_retire_their_turns(engine, kind, policy):
    scope = Scope("u1")
    subject = (
        "session/s1"
        if kind is MemoryType.SUMMARY
        else (None if policy.append_only else f"{kind.value}/d")
    )
    cand = Candidate(
        type=kind,
        summary=f"{kind.value} 提炼 distilled",
        subject=subject,
        confidence=0.9,
        turn_ids=("s1#1",),
    )
    (written,) = [
        w for w in writer_of(engine).write(scope, [cand], writer="test") if w.record is not None
    ]
    covered: dict[str, str] = {}
    _cover(covered, written.record)
    assert bool(covered) is policy.distilled  # a live one stands for its turns in ranking
    forget_in(engine, scope, written.record.id)
    assert (
        bool(engine.store.retired_turns(scope, ["s1#1"])) is policy.distilled
    )  # a retired one marks them
    assert (kind in IMPORT_TYPED) is policy.distilled


def test_sql_list_quotes_the_sorted_names():
    assert sql_list(types_where(section="profile")) == "'preference', 'profile'"


def test_type_values_are_sorted_names():
    assert type_values(types_where(section="profile")) == ("preference", "profile")
