"""The public API (`openclaw_memory.__all__`) and the package's import graph."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import openclaw_memory

ROOT = Path(openclaw_memory.__file__).resolve().parent
PUBLIC = [name for name in openclaw_memory.__all__ if name != "__version__"]


def _own_doc(obj: object) -> str:
    """The object's own docstring, not one generated for it (dataclass signature, enum default)."""
    doc = inspect.cleandoc(getattr(obj, "__doc__", None) or "")
    name = getattr(obj, "__name__", "")
    generated = doc.startswith(f"{name}(") or doc in ("An enumeration.", "")
    return "" if generated else doc


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_imports_from_the_package_and_has_a_docstring(name):
    namespace: dict = {}
    exec(f"from openclaw_memory import {name}", namespace)  # the import a user writes
    value = namespace[name]
    assert value is getattr(openclaw_memory, name)
    assert _own_doc(value), f"{name} has no docstring of its own"


@pytest.mark.parametrize(
    "name", [n for n in PUBLIC if inspect.isclass(getattr(openclaw_memory, n))]
)
def test_public_methods_of_public_classes_have_docstrings(name):
    cls = getattr(openclaw_memory, name)
    missing = []
    for attr, member in vars(cls).items():
        if attr.startswith("_") or not (
            inspect.isfunction(member) or isinstance(member, (property, classmethod, staticmethod))
        ):
            continue
        target = (
            member.fget if isinstance(member, property) else getattr(member, "__func__", member)
        )
        if not inspect.getdoc(target):
            missing.append(attr)
    assert missing == [], f"{name}: public methods without a docstring: {missing}"


def test_version_is_the_installed_distribution_version():
    assert openclaw_memory.__version__ == metadata.version("openclaw-memory")
    assert "__version__" in openclaw_memory.__all__


def test_an_unknown_name_is_an_attribute_error_and_dir_lists_the_api():
    with pytest.raises(AttributeError, match="no attribute 'MemoryMiddlewar'"):
        openclaw_memory.MemoryMiddlewar  # noqa: B018
    assert set(PUBLIC) <= set(dir(openclaw_memory))


def test_importing_the_package_is_cheap():
    """`import openclaw_memory` loads no store, vector index or LlamaIndex (names load on use)."""
    code = (
        "import sys, openclaw_memory; heavy = [m for m in ('chromadb', 'llama_index.core', "
        "'openclaw_memory.middleware') if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---- import cycles ------------------------------------------------------------------------


def _modules() -> dict[str, Path]:
    mods = {}
    for path in ROOT.rglob("*.py"):
        parts = ["openclaw_memory", *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


def _import_time_statements(body: list[ast.stmt]):
    """Import statements run when the module loads: not inside functions or TYPE_CHECKING."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if "TYPE_CHECKING" not in ast.unparse(node.test):
                yield from _import_time_statements(node.body)
            yield from _import_time_statements(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _import_time_statements(block)


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports at load time. `from pkg import submodule` is an
    edge to the submodule only (the package is already initialising when that runs)."""
    mods = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in _import_time_statements(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, ast.Import):
                edges |= {a.name for a in node.names}
                continue
            base = (
                package.split(".")[: len(package.split(".")) - (node.level - 1)]
                if node.level
                else []
            )
            target = ".".join([*base, *([node.module] if node.module else [])])
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                edges.add(sub if sub in mods else target)
        graph[name] = {e for e in edges if e in mods and e != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_cycle():
    graph = import_graph()
    assert "openclaw_memory.config" in graph["openclaw_memory.runtime.factory"]  # the graph is real
    assert cycles(graph) == []


def test_every_module_of_the_package_imports():
    """Every module loads (in a fresh interpreter): nothing breaks at import time, cycle or not."""
    names = sorted(n for n in _modules() if not n.endswith("__main__"))
    code = "import importlib, sys\nfor n in sys.argv[1:]:\n    importlib.import_module(n)\n"
    out = subprocess.run([sys.executable, "-c", code, *names], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]


def test_all_lists_exactly_the_exported_names():
    assert set(openclaw_memory.__all__) == {"__version__", *openclaw_memory._EXPORTS}
    assert len(openclaw_memory.__all__) == len(set(openclaw_memory.__all__))
