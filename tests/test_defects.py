"""Small defects found in review, each pinned by a test."""

from __future__ import annotations

import pytest

from openclaw_memory.config import load_config
from openclaw_memory.errors import ConfigError
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.llm import ScriptedLLM
from store_helpers import writer_of


def test_warm_up_in_llm_mode_spends_no_llm_call(tmp_path):
    llm = ScriptedLLM()
    mw = build_middleware(
        overrides={
            "storage": {"data_dir": str(tmp_path), "embedding_model": "hash"},
            "extraction": {"mode": "llm"},
        },
        llm=llm,
        background=False,
    )
    try:
        mw.flush()  # the factory queued the warm-up on the worker
        assert llm.prompts == []
    finally:
        mw.close()


# ---- examples/tune_project.py on a plain install (no pytest) ---------------------------------


def test_tune_project_example_runs_where_pytest_is_not_installed(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    # sys.modules["pytest"] = None makes `import pytest` fail, as on an install without it
    code = (
        "import runpy, sys; sys.modules['pytest'] = None; sys.argv = ['tune_project.py']; "
        f"runpy.run_path({str(repo / 'examples' / 'tune_project.py')!r}, run_name='__main__')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "found=True" in out.stdout
    assert "pytest" not in out.stderr


# ---- evaluate/report.py -------------------------------------------------------------------


def test_format_comparison_annotations_resolve_and_it_lines_up_retrievers():
    import typing

    from openclaw_memory_bench.evaluate.report import format_comparison

    assert "results" in typing.get_type_hints(format_comparison)
    results = [
        {
            "retriever": name,
            "overall": {"recall_all@5": r5, "recall_all@10": r10},
            "injected": {"recall_all": inj, "tokens_mean": tok},
        }
        for name, r5, r10, inj, tok in (
            ("hybrid", 0.61, 0.72, 0.70, 1012.4),
            ("vector", 0.55, 0.66, 0.64, 998.0),
        )
    ]
    table = format_comparison(results).splitlines()
    assert table[0].split() == ["retriever", "recall_all@5", "recall_all@10", "injected", "tokens"]
    assert table[1].split() == ["hybrid", "0.610", "0.720", "0.700", "1012"]
    assert table[2].split() == ["vector", "0.550", "0.660", "0.640", "998"]


# ---- retired config keys ------------------------------------------------------------------


@pytest.mark.parametrize(
    "yaml_text,key,instead",
    [
        ("long_term:\n  vector_dim: 384\n", "long_term.vector_dim", "storage.embedding_model"),
        ("long_term:\n  min_score: 0.45\n", "long_term.min_score", "recall.min_semantic"),
        (
            "long_term:\n  time_decay_factor: 0.02\n",
            "long_term.time_decay_factor",
            "recall.event_half_life_days",
        ),
        (
            "forgetting:\n  summary_keep_days: 30\n",
            "forgetting.summary_keep_days",
            "summaries are kept",
        ),
    ],
)
def test_a_retired_key_loads_with_a_warning_naming_file_key_and_replacement(
    tmp_path, yaml_text, key, instead
):
    path = tmp_path / "old.yaml"
    path.write_text(yaml_text + "short_term:\n  window_size: 4\n", encoding="utf-8")
    with pytest.warns(FutureWarning) as caught:
        cfg = load_config(path)
    # only the FutureWarning: a ResourceWarning of an earlier test collected meanwhile is no answer
    (message,) = [str(w.message) for w in caught if issubclass(w.category, FutureWarning)]
    assert str(path) in message and f"'{key}'" in message and instead in message
    section, name = key.split(".")
    assert cfg.short_term.window_size == 4 and not hasattr(getattr(cfg, section), name)


def test_an_unknown_key_next_to_a_retired_one_is_still_an_error(tmp_path):
    path = tmp_path / "old.yaml"
    path.write_text("long_term:\n  min_score: 0.4\n  top_kk: 3\n", encoding="utf-8")
    with (
        pytest.warns(FutureWarning),
        pytest.raises(ConfigError, match="unknown key 'long_term.top_kk'"),
    ):
        load_config(path)


# ---- every command the docs and config files mention exists --------------------------------


def _mentioned_commands() -> set[tuple[str, str]]:
    import re
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    files = [
        repo / "README.md",
        *sorted(p for p in (repo / "docs").glob("*.md") if p.name != "benchmark-history.md"),
        *sorted((repo / "config").glob("*.yaml")),
        *sorted((repo / "examples").glob("*")),
    ]
    inline = re.compile(r"`openclaw-memory ((?:--config \S+ )?[a-z][a-z-]*)")
    block = re.compile(r"^\s*openclaw-memory ((?:--config \S+ )?[a-z][a-z-]*)")
    found = set()
    for path in files:
        in_code = False
        for line in path.read_text(encoding="utf-8").splitlines():
            in_code ^= line.lstrip().startswith("```")
            for match in inline.finditer(line):
                found.add((path.name, match.group(1).split()[-1]))
            if in_code and (match := block.match(line)):
                found.add((path.name, match.group(1).split()[-1]))
    return found


def test_every_command_the_docs_and_config_files_mention_exists():
    from openclaw_memory.cli import _parser

    parser = _parser()
    (sub,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    mentioned = _mentioned_commands()
    assert {"demo", "serve"} <= {cmd for _, cmd in mentioned}  # the scan itself finds commands
    missing = sorted((name, cmd) for name, cmd in mentioned if cmd not in sub.choices)
    assert missing == []


# ---- no dead members in the error tree or the channel enum ---------------------------------


def _package_source(exclude: tuple[str, ...]) -> str:
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "openclaw_memory"
    return "\n".join(
        p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*.py"))
        if p.relative_to(root).as_posix() not in exclude
    )


def test_every_error_class_is_raised_somewhere():
    import inspect

    from openclaw_memory import errors

    source = _package_source(("errors.py",))
    classes = [
        n
        for n, c in inspect.getmembers(errors, inspect.isclass)
        if issubclass(c, errors.OpenClawMemoryError) and n != "OpenClawMemoryError"
    ]
    assert "ConfigError" in classes
    assert [n for n in classes if f"raise {n}(" not in source] == []


def test_every_channel_is_produced_by_some_writer():
    from openclaw_memory.types import Channel

    # the tables that only weigh channels do not count as producing them
    source = _package_source(("types.py", "extract/base.py"))
    # admin: what an operator's tool wrote before imports had their own channel (stores hold
    # such records, and exports carry them back in), weighed between explicit and imported
    read_only = {"ADMIN"}
    assert [c.name for c in Channel if f"channel=Channel.{c.name}" not in source] == sorted(
        read_only
    )


# ---- capture/events.py: a process event's task expires by the configured task TTL -----------


@pytest.mark.parametrize("status", ["in_progress", "done"])
def test_a_process_event_task_expires_after_task_ttl_days(engine, status):
    from openclaw_memory.capture.events import process_event_candidates
    from openclaw_memory.core.clock import DAY
    from openclaw_memory.types import MemoryType, Scope

    scope = Scope("u1")
    cands = process_event_candidates("task/report", status, "季度报告 quarterly report")
    (written,) = [
        w
        for w in writer_of(engine).write(scope, cands, writer="test")
        if w.record.type is MemoryType.TASK
    ]
    ttl_days = engine.config.forgetting.task_ttl_days
    assert written.record.expires_at == pytest.approx(engine.clock.now() + ttl_days * DAY)
