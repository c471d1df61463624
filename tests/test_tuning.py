"""The tuning table (openclaw_memory/config/tuning.yaml): every entry documented and used, the
config's tuned defaults read from it, and no tuned number left inline in the modules of the
read and write paths."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from openclaw_memory.config import tuning
from openclaw_memory.config import MemoryConfig
from openclaw_memory.errors import ConfigError
from openclaw_memory.config.tuning import BY_HAND, SECTION, table, tuned, tuned_int

PACKAGE = Path(tuning.__file__).resolve().parents[1]
REPO = PACKAGE.parent
#: the stages whose modules hold no tuned number inline: the read path, the write path
#: (extraction, consolidation, capture) and the block's assembly
STAGES = ("recall", "extract", "write", "capture", "inject")
CLEANED = sorted(
    str(p.relative_to(PACKAGE)) for stage in STAGES for p in (PACKAGE / stage).rglob("*.py")
)
#: floats that are no tuned number: nothing, a half, all
PLAIN = {0.0, 0.5, 1.0}
#: the files a source may cite
CITED = ("BENCHMARKS.md", "docs/benchmark-history.md")


def inline_floats(source: str) -> list[tuple[int, float]]:
    """(line, value) of every float literal of source other than PLAIN."""
    return [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and type(node.value) is float and node.value not in PLAIN
    ]


def test_the_checker_finds_a_tuned_float():
    assert inline_floats("x = f(0.15) + 0.5 * y - 1.0") == [(1, 0.15)]
    assert inline_floats("x = 3 + 0.0") == []


@pytest.mark.parametrize("module", CLEANED)
def test_a_stage_module_has_no_inline_tuned_float(module):
    path = PACKAGE / module
    found = inline_floats(path.read_text(encoding="utf-8"))
    assert not found, f"{path}: tuned numbers belong in tuning.yaml, found {found}"


def _sources() -> str:
    return "\n".join(
        p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py") if p.name != "tuning.py"
    )


def test_every_entry_is_read_somewhere():
    code = _sources()
    unused = [name for name in table() if f'"{name}"' not in code]
    assert not unused, f"entries no module reads: {unused}"


def _headings(file: str) -> list[str]:
    text = (REPO / file).read_text(encoding="utf-8")
    return [m.group(1).strip() for m in re.finditer(r"^#+ (.+)$", text, re.M)]


@pytest.mark.parametrize("name", sorted(table()))
def test_every_entry_says_what_it_means_and_where_it_came_from(name):
    entry = table()[name]
    assert "\n" not in entry.meaning and len(entry.meaning) > 10
    if entry.source == BY_HAND:
        return
    file, _, heading = entry.source.partition(SECTION)
    assert file in CITED, f"{name}: source {entry.source!r} expected {CITED} or {BY_HAND!r}"
    assert any(h.startswith(heading) for h in _headings(file)), (
        f"{name}: no heading of {file} starts with {heading!r}"
    )


def _config_default(name: str):
    value = MemoryConfig()
    for part in name.split("."):
        value = getattr(value, part)
    return value


CONFIG_SECTIONS = {f.name for f in dataclasses.fields(MemoryConfig)}
CONFIG_ENTRIES = sorted(n for n in table() if n.split(".")[0] in CONFIG_SECTIONS)


def test_the_config_schema_reads_every_config_entry_and_no_other():
    tree = ast.parse((PACKAGE / "config" / "schema.py").read_text(encoding="utf-8"))
    read = {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) in ("tuned", "tuned_int")
        and isinstance(node.args[0], ast.Constant)
    }
    assert read == set(CONFIG_ENTRIES)


@pytest.mark.parametrize("name", CONFIG_ENTRIES)
def test_a_config_default_is_its_entrys_value(name):
    default = _config_default(name)
    assert default == table()[name].value and type(default) is type(table()[name].value)


def test_a_number_is_read_with_its_kind():
    assert tuned("recall.weights.session") == 0.25
    assert tuned_int("long_term.top_k") == 7
    with pytest.raises(ConfigError, match="long_term.top_k' expects a number with a point"):
        tuned("long_term.top_k")
    with pytest.raises(ConfigError, match="recall.weights.session' expects a whole number"):
        tuned_int("recall.weights.session")
    with pytest.raises(ConfigError, match="no entry 'recall.nothing'"):
        tuned("recall.nothing")


@pytest.mark.parametrize(
    "text,error",
    [
        ("a.b:\n  value: 1\n  meaning: m\n", r"entry 'a.b': expected exactly the keys"),
        (
            "a.b:\n  value: yes\n  meaning: m\n  source: s\n",
            r"entry 'a.b': 'value' expects a number",
        ),
        ("a.b:\n  value: 0.1\n  meaning: ''\n  source: s\n", r"entry 'a.b': 'meaning' expects"),
        ("- 1\n", r"expected a mapping of entry names"),
    ],
)
def test_a_malformed_table_names_the_entry(tmp_path, monkeypatch, text, error):
    path = tmp_path / "tuning.yaml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(tuning, "TABLE", path)
    tuning.table.cache_clear()
    try:
        with pytest.raises(ConfigError, match=error):
            tuning.table()
    finally:
        monkeypatch.undo()
        tuning.table.cache_clear()
