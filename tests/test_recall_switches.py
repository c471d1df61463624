"""Recall channels switched off by config (`rules.disabled`: `channel.<name>`): what only that channel
found is no longer recalled, in English and Chinese; an unknown name is refused when the
middleware is built."""

from __future__ import annotations

import pytest

from openclaw_memory.errors import ConfigError
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.recall.channels import CHANNELS, build_channels, channel_switch
from openclaw_memory.recall.channels import EntityChannel
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.core import ALL_ON
from openclaw_memory.core import switches_from
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of
from test_recall_kinds import FILLERS  # the same off-topic store the kind channel is tested on

ALICE = Scope("alice")

#: a question naming a kind, and a memory naming one of its members that shares no word with it
KIND_CASES = {
    "en": ("What martial arts has John done?", "Off to taekwondo class tonight, wish me luck!"),
    "zh": ("他会哪些乐器？", "他最近在学大提琴，每周上一次课。"),
}


def _stock(engine, lang: str) -> None:
    writer_of(engine).write(
        ALICE,
        [
            Candidate(MemoryType.EPISODE, t, turn_ids=(f"s1#{i}",))
            for i, t in enumerate(FILLERS[lang])
        ],
    )
    writer_of(engine).write(
        ALICE, [Candidate(MemoryType.EPISODE, KIND_CASES[lang][1], turn_ids=("s2#1",))]
    )


def _only_by(result, name: str) -> set[str]:
    """Ids every one of whose proposals came from the channel `name` ("kind:instrument")."""
    return {
        s.record.id
        for s in result.ranked
        if s.channels and all(c.split(":", 1)[0] == name for c in s.channels)
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_kind_channel_switched_off_loses_what_only_it_found(engine, lang):
    _stock(engine, lang)
    question, memory = KIND_CASES[lang]
    on = Recaller(read_ports(engine), engine.config.recall, switches=ALL_ON).recall(ALICE, question)
    alone = _only_by(on, "kind")
    assert any(s.record.summary == memory and s.record.id in alone for s in on.ranked)
    off = Recaller(
        read_ports(engine), engine.config.recall, switches=switches_from(["channel.kind"])
    )
    result = off.recall(ALICE, question)
    assert not alone & {s.record.id for s in result.ranked}
    assert not result.query.kinds  # nor does ranking read the kinds the request names
    assert not any(c.startswith("kind") for s in result.ranked for c in s.channels)


@pytest.mark.parametrize("name", CHANNELS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_any_channel_switched_off_proposes_nothing(engine, lang, name):
    _stock(engine, lang)
    question = KIND_CASES[lang][0]
    on = Recaller(read_ports(engine), engine.config.recall, switches=ALL_ON).recall(ALICE, question)
    off = Recaller(
        read_ports(engine), engine.config.recall, switches=switches_from([channel_switch(name)])
    )
    result = off.recall(ALICE, question)
    assert not any(c.split(":", 1)[0] == name for s in result.ranked for c in s.channels)
    assert not _only_by(on, name) & {s.record.id for s in result.ranked}


@pytest.mark.parametrize("name", CHANNELS)
def test_every_built_in_channel_is_named_and_can_be_left_out(engine, name):
    def names(switches) -> list[str]:
        out = []
        for c in build_channels(read_ports(engine), engine.config.recall, 3, switches):
            if isinstance(c, EntityChannel):  # one object, two switches
                out += [n for n, on in (("entity", c.named), ("hop", c.hop)) if on]
            else:
                out.append(c.name)
        return out

    assert names(ALL_ON) == list(CHANNELS)
    assert names(switches_from([channel_switch(name)])) == [n for n in CHANNELS if n != name]


def test_the_factorys_recaller_reads_the_configs_rules_disabled(make_config, tmp_path, clock):
    from openclaw_memory.runtime.engine import MemoryEngine
    from openclaw_memory.runtime.factory import build_recaller

    cfg = make_config(tmp_path, rules={"disabled": ["channel.kind", "channel.hop"]})
    engine = MemoryEngine.open(cfg, clock=clock, background=False)
    try:
        recaller = build_recaller(engine, cfg)
        names = [c.name for c in recaller.channels]
        assert "kind" not in names and "vector" in names
        entity = next(c for c in recaller.channels if isinstance(c, EntityChannel))
        assert entity.named and not entity.hop
        # a recaller given no switches runs every built-in channel
        everything = Recaller(read_ports(engine), cfg.recall)
        assert [c.name for c in everything.channels] == [n for n in CHANNELS if n != "hop"]
    finally:
        engine.close()


def test_the_middleware_switches_channels_off_from_config(make_config, tmp_path, clock):
    cfg = make_config(tmp_path, rules={"disabled": ["channel.keyword", "channel.speaker"]})
    mw = build_middleware(cfg, clock=clock)
    try:
        names = [c.name for c in mw.recaller.channels]
        assert "keyword" not in names and "speaker" not in names and "vector" in names
    finally:
        mw.close()


@pytest.mark.parametrize("off", [["channel.vectr"], ["channels"], ["channel.kind", "kinds"]])
def test_an_unknown_name_is_refused_naming_rules_disabled(make_config, tmp_path, clock, off):
    with pytest.raises(ConfigError, match=r"rules\.disabled: .*names no rule or channel"):
        build_middleware(make_config(tmp_path, rules={"disabled": off}), clock=clock)


class _Own:
    name = "tickets"

    def __init__(self) -> None:
        self.calls = 0

    def propose(self, scope, query, qvec, pool) -> None:
        self.calls += 1


def test_a_users_own_channel_is_switched_by_its_name(make_config, tmp_path, clock):
    own = _Own()
    cfg = make_config(tmp_path, rules={"disabled": ["channel.tickets"]})
    mw = build_middleware(cfg, clock=clock, recall_channels=[own])
    try:
        assert own not in mw.recaller.channels
    finally:
        mw.close()
    kept = _Own()
    mw = build_middleware(make_config(tmp_path / "b"), clock=clock, recall_channels=[kept])
    try:
        assert kept in mw.recaller.channels
    finally:
        mw.close()


def test_an_evaluation_runs_under_the_configs_switches(make_config, tmp_path, clock):
    """`openclaw-memory --config FILE eval ...`: an ablation is a config file."""
    from openclaw_memory_bench.evaluate.memory_system import MemorySystem

    cfg = make_config(tmp_path, rules={"disabled": ["channel.kind"]})
    system = MemorySystem(cfg, tmp_path / "eval")
    try:
        for retriever in ("hybrid", "vector"):
            system.use(retriever)
            assert "kind" not in [c.name for c in system.mw.recaller.channels]
            assert not system.mw.recaller.kinds
    finally:
        system.mw.close()
