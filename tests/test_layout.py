"""The floor plan: a short top level, and the bottom layers importing only what is below them.

Packages are named after their stage; the layers at the bottom (`core`, `lang`, `config`,
`embed`, `llm`) are what every stage may use, so none of them may reach up into a stage (a store,
the read or write path, a door). The check reads every import, lazy ones included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "openclaw_memory"
TOP_LEVEL = {"__init__", "__main__", "errors", "types", "middleware", "memory"}
#: a bottom package -> the parts of the package it may import (besides itself)
BELOW = {
    "core": {"errors", "types"},
    "lang": {"errors", "types", "core"},
    "config": {"errors", "types", "core", "lang"},
    "embed": {"errors", "types", "core", "lang", "config"},
    "llm": {"errors", "types", "core", "lang", "config"},
}


def test_the_top_level_holds_only_the_public_entry_points():
    assert {p.stem for p in PACKAGE.glob("*.py")} == TOP_LEVEL


def _imported(path: Path) -> set[str]:
    """The first part under `openclaw_memory` of every module the file imports."""
    package = path.relative_to(PACKAGE).parent.parts
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                parts = [*base, *(node.module.split(".") if node.module else [])]
                if not parts:  # `from . import x` at the top level
                    parts = [a.name for a in node.names]
            elif node.module and node.module.split(".")[0] == "openclaw_memory":
                parts = node.module.split(".")[1:]
            else:
                continue
            if parts:
                found.add(parts[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name.split(".")
                if name[0] == "openclaw_memory" and len(name) > 1:
                    found.add(name[1])
    return found


@pytest.mark.parametrize("layer", sorted(BELOW))
def test_a_bottom_layer_imports_nothing_above_it(layer):
    reached = {
        f"{path.relative_to(PACKAGE)} -> {part}"
        for path in (PACKAGE / layer).rglob("*.py")
        for part in _imported(path)
        if part != layer and part not in BELOW[layer]
    }
    assert not reached, f"{layer} reaches up: {sorted(reached)}"


def test_the_check_sees_relative_absolute_and_lazy_imports():
    module = PACKAGE / "core" / "clock.py"
    assert _imported(module) <= BELOW["core"] | {"core"}
    lazy = "def f():\n    from ..store import db\n    import openclaw_memory.recall.rank\n"
    probe = PACKAGE / "core" / "_probe_for_test.py"
    try:
        probe.write_text(lazy, encoding="utf-8")
        assert _imported(probe) == {"store", "recall"}
    finally:
        probe.unlink()
