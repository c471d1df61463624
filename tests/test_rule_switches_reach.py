"""Every rule switch reaches the code that reads its table: outside the language packs
(`openclaw_memory/lang/`), the packs with every rule on (`all_on()`, `pack(code)`) are read only
as the fallback of an optional `langs` parameter (`langs or all_on()`), or where a reason below
says why the switches cannot apply. A read of the all-on packs anywhere else would accept a
table switched off by `rules.disabled` and go on reading it."""

from __future__ import annotations

import ast
from pathlib import Path

import openclaw_memory

PACKAGE = Path(openclaw_memory.__file__).resolve().parent

#: the functions of the language registry that hand out packs with every rule on
ALL_ON_READS = frozenset({"all_on", "pack"})

#: (module path, function) -> why that read of the all-on packs is right
ALLOWED = {
    (
        "cli/__init__.py",
        "demo_script",
    ): "the demo command's conversation, a script shipped as data: no rule reads it",
    (
        "inject/render.py",
        "_lang_key",
    ): "which codes have render labels: a configured `lang` names one, whatever is switched off",
    (
        "inject/escape.py",
        "<module>",
    ): "the block's defence against forged markers and role lines, which no switch weakens",
    (
        "portability/openclaw.py",
        "<module>",
    ): "OpenClaw's own file format (its headings and labels), read and written as OpenClaw does",
    (
        "embed/embedding.py",
        "level",
    ): "only the code of the language a has-Han flag means (which background bank): no table",
    (
        "embed/embedding.py",
        "level_of",
    ): "only the code of a text's language (which background bank): no table is read",
}


def _lang_names(tree: ast.Module) -> set[str]:
    """The local names this module gives `all_on` and `pack` of the language registry."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "lang":
            names.update(a.asname or a.name for a in node.names if a.name in ALL_ON_READS)
    return names


def _fallbacks(tree: ast.Module) -> set[int]:
    """The ids of the nodes of what ends an `or` (`langs or all_on()`, `pack or
    all_on().of("")`): the default of a caller that gave no packs."""
    return {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)
        for inner in ast.walk(node.values[-1])
    }


def _reads(path: Path) -> list[tuple[str, int, str]]:
    """(function, line, call) of every read of the all-on packs in a module that is neither a
    fallback nor allowed."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = _lang_names(tree)
    if not names:
        return []
    fallbacks = _fallbacks(tree)
    found = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = child.name
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Name)
                and child.func.id in names
                and id(child) not in fallbacks
            ):
                found.append((where, child.lineno, ast.unparse(child)))
            visit(child, inner)

    visit(tree, "<module>")
    return found


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if PACKAGE / "lang" not in p.parents)


def test_the_all_on_packs_are_read_only_as_a_fallback_or_for_a_stated_reason():
    unswitched = [
        f"{rel}:{line} in {where}: {call}"
        for path in _modules()
        for rel in [path.relative_to(PACKAGE).as_posix()]
        for where, line, call in _reads(path)
        if (rel, where) not in ALLOWED
    ]
    assert not unswitched, "tables read with every rule on:\n" + "\n".join(unswitched)


def test_every_allowed_read_is_still_there():
    """An allowance outlives nothing: each names a function that still reads the all-on packs."""
    read = {
        (path.relative_to(PACKAGE).as_posix(), where)
        for path in _modules()
        for where, _, _ in _reads(path)
    }
    assert set(ALLOWED) <= read, sorted(set(ALLOWED) - read)


def test_the_check_finds_a_read_and_lets_a_fallback_pass(tmp_path):
    """The check itself: a module-level read and one inside a function are found, the fallback
    of an optional `langs` is not."""
    source = tmp_path / "m.py"
    source.write_text(
        "from ..lang import all_on, pack as lang_pack\n"
        "WORDS = all_on().any_of('t', 'e')\n"
        "def f(text, langs=None):\n"
        "    return (langs or all_on()).of(text)\n"
        "def g(code):\n"
        "    return lang_pack(code).table('t')\n",
        encoding="utf-8",
    )
    assert [(w, line) for w, line, _ in _reads(source)] == [("<module>", 2), ("g", 6)]
