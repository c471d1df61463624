"""The package's floor plan: stages import only what lies below them.

Each top-level package (or module) of `openclaw_memory` has a layer in LAYERS; a module may
import, when it is imported (not under `TYPE_CHECKING`, not inside a function), from its own
package or from a lower layer, never from a higher one. The doors share the top layer; only the
command line imports the command line. A move that breaks the plan fails here with the module and
the import that climbs.

Some packages also stay apart from packages they have no business with (APART), anywhere in a
module, even inside a function or for type checking: the read path (recall, inject) reads no part
of the write path (extract, write), and what both sides read of a language lies in `lang/`. The
stages do not name the runtime either (HANDED_PORTS): each is handed the ports it uses
(`recall.ReadPorts`, `write.Storage`), never the engine that opened them; a door whose
commands open the runtime names it in that one function only (OPENS_THE_RUNTIME).
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import openclaw_memory

PACKAGE = Path(openclaw_memory.__file__).resolve().parent

#: bottom first: a package may import from its own row and the rows above it in this list
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "types"),
    ("core",),
    ("lang",),
    ("config",),
    ("llm", "embed"),
    ("store",),
    ("procedure",),
    ("extract",),
    ("write",),
    ("capture",),
    ("recall", "inject"),
    ("runtime",),
    ("middleware",),
    ("maintain", "portability", "console", "service", "mcp", "adapters", "testing", "memory"),
    ("cli", "__main__", "__init__"),
)
LAYER = {name: depth for depth, row in enumerate(LAYERS) for name in row}

#: a package -> the packages it never imports from, though they lie below it
APART: dict[str, tuple[str, ...]] = {
    "recall": ("extract", "write"),
    "inject": ("extract", "write"),
}

#: packages handed the ports they read, which never name the runtime that opens the storage
#: (`runtime.engine`), though it lies above them and a type annotation could
HANDED_PORTS = ("recall", "inject", "write", "extract", "capture")
#: door packages whose commands open the runtime themselves, each in one function; everything
#: else in them is handed the storage it uses (`write.Storage`, `maintain.MaintenancePorts`)
OPENS_THE_RUNTIME = {"portability": "_open", "maintain": "_open"}


def _package_of(parts: list[str]) -> str:
    """`openclaw_memory.recall.rank` -> recall; `openclaw_memory.errors` -> errors."""
    return parts[1] if len(parts) > 1 else "__init__"


def _import_time(tree: ast.Module):
    """The `from` imports run when the module is imported."""
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        body = node.body if isinstance(node, ast.Try) else [node]
        yield from (n for n in body if isinstance(n, ast.ImportFrom))


def _module_parts(path: Path) -> list[str]:
    """`recall/rank.py` -> ["openclaw_memory", "recall", "rank"]."""
    return ["openclaw_memory", *path.relative_to(PACKAGE).with_suffix("").parts]


def _target(parts: list[str], node: ast.ImportFrom) -> list[str]:
    """The dotted module a `from` import in the module `parts` reads, as parts."""
    if not node.level:
        return (node.module or "").split(".")
    is_package = parts[-1] == "__init__"
    here = parts[:-1] if is_package else parts
    base = here if is_package else here[:-1]
    base = base[: len(base) - (node.level - 1)]
    return base + (node.module.split(".") if node.module else [])


def _imports(every: bool = False):
    """(path, line, source package, imported package) of each import of the package's own
    modules: those run when the module is imported, or with `every` all of them (inside
    functions and under `TYPE_CHECKING` too)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = _module_parts(path)
        is_package = parts[-1] == "__init__"
        source = _package_of(parts if not is_package or len(parts) > 2 else ["openclaw_memory"])
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = (
            (n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom))
            if every
            else _import_time(tree)
        )
        for node in nodes:
            target = _target(parts, node)
            if target[0] != "openclaw_memory":
                continue
            dest = _package_of(target)
            if dest == "__init__" and node.module is None:
                dest = node.names[0].name  # `from .. import lang`
            yield path.relative_to(PACKAGE), node.lineno, source, dest


def _climbs() -> list[str]:
    return [
        f"{path}:{line} {source} -> {dest}"
        for path, line, source, dest in _imports()
        if dest != source
        and (LAYER.get(dest, -1) > LAYER[source] or (dest == "cli" and source != "__main__"))
    ]


def _crossings(apart: dict[str, tuple[str, ...]] = APART) -> list[str]:
    return [
        f"{path}:{line} {source} -> {dest}"
        for path, line, source, dest in _imports(every=True)
        if dest in apart.get(source, ())
    ]


def test_every_package_has_a_layer():
    names = {
        p.stem if p.is_file() else p.name
        for p in PACKAGE.iterdir()
        if p.suffix == ".py" or (p / "__init__.py").exists()
    }
    assert names <= set(LAYER), f"give these a row in LAYERS: {sorted(names - set(LAYER))}"


def test_no_module_imports_from_a_higher_layer():
    assert _climbs() == []


def test_the_read_path_reads_nothing_of_the_write_path():
    assert _crossings() == []


def test_the_stages_are_handed_their_ports_not_the_runtime():
    assert _crossings({name: ("runtime",) for name in HANDED_PORTS}) == []


def test_a_door_names_the_runtime_only_where_its_commands_open_it():
    import importlib

    found = _crossings({name: ("runtime",) for name in OPENS_THE_RUNTIME})
    for name, opener in OPENS_THE_RUNTIME.items():
        lines, first = inspect.getsourcelines(
            getattr(importlib.import_module(f"openclaw_memory.{name}"), opener)
        )
        inside = {
            f"{name}/__init__.py:{n} {name} -> runtime" for n in range(first, first + len(lines))
        }
        found = [c for c in found if c not in inside]
    assert found == []


def test_a_crossing_is_found():
    # the rule sees the imports as written: were recall kept apart from `lang`, its relevance
    # gate would cross
    assert any(c.startswith("recall/gate.py:") for c in _crossings({"recall": ("lang",)}))


# The store files what a record names; it never reads a text in a language. The write path reads
# the text (lang/entities.py: `extract`, `aliases`, and what calls them) and hands the store the
# result (`Mentions`), so nothing under store/ imports a reader of text, the extraction stage or
# the write path, at import time or inside a function.

#: stages whose modules the store never imports
NOT_FOR_THE_STORE = ("extract", "write")


def _text_readers() -> set[str]:
    """The functions of lang/entities.py that read a text or a record in a language (their
    first parameter is `text` or `record`): `extract`, `aliases`, `named_in`, ..."""
    from openclaw_memory.lang import entities

    return {
        name
        for name, f in vars(entities).items()
        if inspect.isfunction(f)
        and f.__module__ == entities.__name__
        and next(iter(inspect.signature(f).parameters), "") in ("text", "record")
    }


def _reads_text(target: list[str], names: list[str], readers: set[str]) -> bool:
    """An import of `names` from module `target` (no names: the module itself) that gives the
    store a reader of text."""
    if target[0] != "openclaw_memory":
        return False
    if len(target) > 1 and target[1] in NOT_FOR_THE_STORE:
        return True
    if target[1:] == ["lang"]:
        return "entities" in names or "*" in names
    if target[1:] == ["lang", "entities"]:
        return not names or "*" in names or bool(set(names) & readers)
    return False


def _store_reads_text() -> list[str]:
    readers = _text_readers()
    found = []
    for path in sorted((PACKAGE / "store").rglob("*.py")):
        parts = _module_parts(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imports = [(a.name.split("."), []) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                imports = [(_target(parts, node), [a.name for a in node.names])]
            else:
                continue
            if any(_reads_text(target, names, readers) for target, names in imports):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {ast.unparse(node)}")
    return found


def test_the_readers_of_text_are_known():
    assert {"extract", "aliases", "named_in", "mentions_of"} <= _text_readers()
    assert not {"normalise", "nickname_of"} & _text_readers()  # filing helpers: keys and names


def test_the_store_reads_no_text_in_a_language():
    assert _store_reads_text() == []
