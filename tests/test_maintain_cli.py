"""The maintenance CLI commands: help text, exit codes, readable and JSON output."""

from __future__ import annotations

import argparse
import json

import pytest

from openclaw_memory.config import config_from_dict
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.maintain import add_parsers
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import find, writer_of

COMMANDS = ("reindex", "doctor", "maintain", "purge")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="openclaw-memory")
    add_parsers(p.add_subparsers(dest="command"))
    return p


@pytest.fixture
def config(tmp_path):
    cfg = config_from_dict(  # every tier in Chroma: doctor finds drift there
        {
            "storage": {
                "data_dir": str(tmp_path),
                "embedding_model": "hash",
                "vector_store": {"exact_below": 0},
            }
        }
    )
    engine = MemoryEngine.open(cfg, background=False)
    writer_of(engine).write(
        Scope("alice"),
        [
            Candidate(MemoryType.FACT, "alice plays the cello", subject="hobby"),
            Candidate(MemoryType.FACT, "爱丽丝会拉大提琴", subject="爱好"),
        ],
    )
    writer_of(engine).write(
        Scope("bob"), [Candidate(MemoryType.FACT, "bob plays chess", subject="hobby")]
    )
    engine.close()
    return cfg


def run(config, *argv) -> int:
    args = parser().parse_args(list(argv))
    return args.func(args, config)


def count(config, user):
    engine = MemoryEngine.open(config, background=False)
    try:
        return len(find(engine, Scope(user), limit=100))
    finally:
        engine.close()


def test_every_command_has_help_text():
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in sub._choices_actions}
    assert set(COMMANDS) <= set(helps) and all(helps[c] for c in COMMANDS)
    for name in COMMANDS:
        for action in sub.choices[name]._actions:
            assert action.help, f"{name} {action.dest}"


def test_doctor_json_and_text(config, capsys):
    assert run(config, "doctor", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["problems"] == 0 and data["repair"] is True and data["scopes"] == 2
    assert run(config, "doctor", "--no-repair") == 0
    assert "doctor: healthy" in capsys.readouterr().out


def test_doctor_shows_the_plugins_fail_open_count(config, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "state"))
    assert run(config, "doctor") == 0
    assert "plugin_fail_open: none counted" in capsys.readouterr().out
    spool = tmp_path / "state" / "openclaw-memory" / "spool"
    spool.mkdir(parents=True)
    (spool / "failopen.json").write_text(
        json.dumps(
            {
                "count": 7,
                "spooled": 3,
                "outages": 2,
                "first_at": "2026-12-01T10:00:00.000Z",
                "last_at": "2026-12-01T10:05:00.000Z",
                "last_error": "/v1/recall: fetch failed (ECONNREFUSED)",
            }
        )
    )
    assert run(config, "doctor") == 0
    out = capsys.readouterr().out
    assert "7 call(s) ran without memory in 2 outage(s) (3 write(s) spooled" in out
    assert "ECONNREFUSED" in out
    assert run(config, "doctor", "--json") == 0
    assert json.loads(capsys.readouterr().out)["plugin_fail_open"]["count"] == 7


def test_maintain_for_one_user(config, capsys):
    assert run(config, "maintain", "--user", "alice", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scopes"] == 1 and list(data["by_scope"]) == ["alice/default"]


def test_purge_asks_first_and_then_deletes(config, capsys):
    assert run(config, "purge", "--user", "alice") == 1  # stdin is not a terminal: refused
    assert "--yes" in capsys.readouterr().err
    assert count(config, "alice") == 2
    assert run(config, "purge", "--user", "alice", "--yes") == 0
    assert "purged every memory of user alice" in capsys.readouterr().out
    assert count(config, "alice") == 0 and count(config, "bob") == 1


def test_purge_of_an_unknown_record_is_a_clear_error(config, capsys):
    assert run(config, "purge", "--user", "alice", "--record", "mem_nope", "--yes") == 2
    assert "mem_nope" in capsys.readouterr().err


@pytest.mark.real_store("reindex rebuilds Chroma's files from the SQLite file")
def test_reindex_after_switching_embedder(config, capsys):
    switched = config_from_dict({"storage": {"embedding_model": "hash:64"}}, base=config)
    assert run(switched, "doctor") == 2
    assert "openclaw-memory reindex" in capsys.readouterr().err
    assert run(switched, "reindex", "--json") == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["reembedded"] == 3
    assert captured.err == ""  # no progress drawn when stderr is not a terminal
    assert run(switched, "doctor", "--json") == 0


def test_maintain_text_lists_the_partitions_that_changed(config, capsys):
    engine = MemoryEngine.open(config, background=False)
    writer_of(engine).write(
        Scope("carol"), [Candidate(MemoryType.EVENT, f"ping {i}", subject="p") for i in range(51)]
    )
    engine.close()
    assert run(config, "maintain") == 0
    out = capsys.readouterr().out
    assert out.startswith("maintenance: 31 change(s) in 3 scope(s)")
    assert "carol/default: expired 0, capped 0, summaries 1, compacted 30, deleted 0" in out
    assert "alice/default" not in out


def test_doctor_exit_code_says_whether_problems_remain(config, capsys):
    engine = MemoryEngine.open(config, background=False)
    vec = engine.embed_query("ghost")
    engine.index.upsert(
        Scope("ghost"), "hot", [("mem_ghost", vec, {"type": "fact", "workspace": ""})]
    )
    engine.close()
    assert run(config, "doctor", "--no-repair") == 1
    out = capsys.readouterr().out
    assert "doctor: problems found" in out and "found: orphan_collections 1" in out
    assert "fixed: none" in out
    assert run(config, "doctor") == 0
    assert "doctor: repaired" in capsys.readouterr().out
    assert run(config, "doctor") == 0
    assert "found: none" in capsys.readouterr().out
