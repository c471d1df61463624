"""Progress on import, migrate, reindex and doctor: drawn on stderr when it is a terminal,
nothing extra otherwise (so JSON on stdout and a piped stderr stay as they were)."""

from __future__ import annotations

import io
import json
import sys

import pytest

from openclaw_memory.cli import main
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.portability import jsonl
from openclaw_memory.core.progress import TerminalProgress
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of

#: reindex and doctor open the SQLite file and Chroma's folder themselves
pytestmark = pytest.mark.real_store("reindex and doctor open the files themselves")


class Terminal(io.StringIO):
    """A stream that says it is a terminal, as stderr does in an interactive shell."""

    def isatty(self) -> bool:
        return True


def _yaml(tmp_path, name: str = "c.yaml"):
    path = tmp_path / name
    data_dir = tmp_path / name.replace(".yaml", "")
    path.write_text(
        f"storage:\n  data_dir: {data_dir}\n  embedding_model: hash\n", encoding="utf-8"
    )
    return path, data_dir


def _fill(cfg_path) -> None:
    from openclaw_memory.config import load_config

    engine = MemoryEngine.open(load_config(cfg_path), background=False)
    try:
        writer_of(engine).write(
            Scope("alice"),
            [
                Candidate(MemoryType.FACT, "alice plays the cello", subject="hobby"),
                Candidate(MemoryType.FACT, "爱丽丝住在里斯本", subject="住址"),
            ],
        )
        writer_of(engine).write(
            Scope("bob"), [Candidate(MemoryType.FACT, "bob plays chess", subject="hobby")]
        )
        engine.sync_index()
    finally:
        engine.close()


@pytest.fixture
def store(tmp_path):
    path, _ = _yaml(tmp_path)
    _fill(path)
    return path


def test_the_helper_draws_only_on_a_terminal():
    tty, pipe = Terminal(), io.StringIO()
    for stream in (tty, pipe):
        with TerminalProgress("reindex", stream=stream) as bar:
            for i in range(3):
                bar(i + 1, 3)
        with TerminalProgress("import", stream=stream, units={"read": "lines"}) as bars:
            bars.count("read", 1000)
            bars.count("written", 1000)
    assert "reindex" in tty.getvalue() and "3/3" in tty.getvalue()
    assert "import read: 1000 lines" in tty.getvalue() and "import written: 1000" in tty.getvalue()
    assert pipe.getvalue() == ""


@pytest.mark.parametrize("command", [["reindex", "--json"], ["doctor", "--json"]])
def test_reindex_and_doctor_show_progress_on_a_terminal(store, command, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert main(["--config", str(store), *command]) == 0
    drawn = sys.stderr.getvalue()
    assert f"{command[0]}:" in drawn and "100%" in drawn
    json.loads(capsys.readouterr().out)  # stdout is the JSON alone


@pytest.mark.parametrize("command", [["reindex", "--json"], ["doctor", "--json"]])
def test_reindex_and_doctor_print_nothing_extra_without_a_terminal(store, command, capsys):
    assert main(["--config", str(store), *command]) == 0
    out, err = capsys.readouterr()
    json.loads(out)
    assert err == ""


def test_import_counts_lines_and_records_on_a_terminal_and_is_silent_otherwise(
    store, tmp_path, monkeypatch, capsys
):
    export = tmp_path / "alice.jsonl"
    assert main(["--config", str(store), "export", "--user", "alice", "--out", str(export)]) == 0
    capsys.readouterr()
    monkeypatch.setattr(jsonl, "PROGRESS_EVERY", 1)  # a report per line, as 1,000 lines would
    target, _ = _yaml(tmp_path, "t.yaml")
    monkeypatch.setattr(sys, "stderr", Terminal())
    argv = ["--config", str(target), "import", str(export), "--user", "alice", "--json"]
    assert main(argv) == 0
    drawn = sys.stderr.getvalue()
    assert "import read:" in drawn and "lines" in drawn
    assert "import written: 2 records" in drawn
    assert json.loads(capsys.readouterr().out)["format"] == "jsonl"

    monkeypatch.undo()
    monkeypatch.setattr(jsonl, "PROGRESS_EVERY", 1)
    again, _ = _yaml(tmp_path, "u.yaml")
    argv = ["--config", str(again), "import", str(export), "--user", "alice", "--json"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    # off a terminal no progress (a new store is still announced: nothing is made silently)
    assert json.loads(out)["format"] == "jsonl" and "import read" not in err
    assert "import written" not in err


def test_migrate_shows_rows_copied_per_table_on_a_terminal(store, pg_dsn, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert main(["--config", str(store), "migrate", "--to", pg_dsn]) == 0
    drawn = sys.stderr.getvalue()
    assert "migrate records: 3 rows" in drawn
    assert "counts match" in capsys.readouterr().out
