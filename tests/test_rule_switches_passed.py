"""Every call that can pass the packs passes them: outside the language packs
(`openclaw_memory/lang/`), a call to a function of `lang/` whose signature has a `langs`
parameter gives it (by position or by keyword), or a reason below says why the packs with every
rule on are right there (`ALLOWED`, a call) or read no rule at all (`NO_RULE`, a function). A call
that leaves it out reads every table with every rule on, whatever `rules.disabled` switched off,
and nothing else would tell."""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import openclaw_memory

PACKAGE = Path(openclaw_memory.__file__).resolve().parent
LANG = f"{PACKAGE.name}.lang"

#: (module path, calling function, called function) -> why the call is right without packs
ALLOWED = {
    (
        "embed/onnx.py",
        "<module>",
        "across",
    ): "the texts a new embedding runtime is checked on, shipped as data: no rule reads them",
    (
        "service/server.py",
        "<module>",
        "across",
    ): "one warm-up request a language, shipped as data: no rule reads it",
    (
        "store/entity_linking.py",
        "_by_nickname",
        "nickname_of",
    ): "the store files what a writer read and holds no packs: a nickname's common-word guard",
    (
        "store/entity_linking.py",
        "_absorb_nicknames",
        "nickname_of",
    ): "the store files what a writer read and holds no packs: a nickname's common-word guard",
    (
        "write/consolidate/records.py",
        "deactivate",
        "mentions_of",
    ): "an inactive record names nothing: `mentions_of` returns before it reads a table",
}

#: functions of `lang/` whose `langs` picks a pack but whose answer no switch changes (checked
#: below: every rule off, they answer as with every rule on) -> what they read
NO_RULE = {
    "tokenize": "a text's tokens by its pack's tokenizer and stopwords",
    "unspaced": "its pack's `spaced`",
    "cuts_at_space": "its pack's `spaced`",
    "pack_for": "which pack has a table (a switched-off entry keeps its place in it)",
    "majority": "`pack_for` of each text",
}

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _with_langs(obj: Any) -> inspect.Signature | None:
    """The signature of a callable defined in `lang/` that takes `langs`, else None."""
    if not callable(obj) or not str(getattr(obj, "__module__", "")).startswith(LANG):
        return None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return sig if "langs" in sig.parameters else None


def _package_of(rel: str) -> list[str]:
    """The dotted parts of the package a module at `rel` (inside the package) belongs to."""
    parts = [PACKAGE.name, *Path(rel).with_suffix("").parts]
    return parts[:-1]


def _imported(node: ast.ImportFrom, rel: str) -> ModuleType | None:
    """The module a `from ... import` names, resolved against the module at `rel`."""
    if node.level:
        base = _package_of(rel)[: len(_package_of(rel)) - (node.level - 1)]
        name = ".".join([*base, *([node.module] if node.module else [])])
    else:
        name = node.module or ""
    if name.split(".")[0] != PACKAGE.name:
        return None
    return importlib.import_module(name)


def _callee(
    tree: ast.Module, rel: str
) -> Callable[[ast.Call], tuple[str, inspect.Signature] | None]:
    """What this module calls that can take the packs: a reader that names the called function
    of a call (a name imported from `lang/`, or a function reached through an imported module of
    it, `lang.text.negated`) with its signature, or None."""
    functions: dict[str, inspect.Signature] = {}
    modules: dict[str, ModuleType] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or (module := _imported(node, rel)) is None:
            continue
        for alias in node.names:
            obj = getattr(module, alias.name, None)
            local = alias.asname or alias.name
            if isinstance(obj, ModuleType) and obj.__name__.startswith(LANG):
                modules[local] = obj
            elif (sig := _with_langs(obj)) is not None:
                functions[local] = sig

    def called(call: ast.Call) -> tuple[str, inspect.Signature] | None:
        func, path = call.func, []
        while isinstance(func, ast.Attribute):
            path.insert(0, func.attr)
            func = func.value
        if not isinstance(func, ast.Name):
            return None
        if not path:
            sig = functions.get(func.id)
            return (func.id, sig) if sig is not None else None
        if func.id not in modules:
            return None
        obj: Any = modules[func.id]
        for attr in path:
            obj = getattr(obj, attr, None)
        sig = _with_langs(obj)
        return (".".join([func.id, *path]), sig) if sig is not None else None

    return called


def _passes(call: ast.Call, sig: inspect.Signature) -> bool:
    """Whether the call gives `langs`: by keyword, by `**`, by `*`, or in its position."""
    if any(k.arg in ("langs", None) for k in call.keywords):
        return True
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True
    param = sig.parameters["langs"]
    if param.kind not in _POSITIONAL:
        return False
    positional = [p for p in sig.parameters.values() if p.kind in _POSITIONAL]
    return len(call.args) > positional.index(param)


def _omitted(source: str, rel: str) -> list[tuple[str, int, str, str]]:
    """(calling function, line, called function, call) of every call in a module that could
    pass the packs and does not."""
    tree = ast.parse(source)
    called = _callee(tree, rel)
    found = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = child.name
            if isinstance(child, ast.Call) and (hit := called(child)) is not None:
                name, sig = hit
                if not _passes(child, sig):
                    found.append((where, child.lineno, name, ast.unparse(child)))
            visit(child, inner)

    visit(tree, "<module>")
    return found


def _modules() -> list[tuple[Path, str]]:
    return sorted(
        (p, p.relative_to(PACKAGE).as_posix())
        for p in PACKAGE.rglob("*.py")
        if PACKAGE / "lang" not in p.parents
    )


def _all_omitted() -> list[tuple[str, str, int, str, str]]:
    return [
        (rel, where, line, name, call)
        for path, rel in _modules()
        for where, line, name, call in _omitted(path.read_text(encoding="utf-8"), rel)
    ]


def test_every_call_that_can_pass_the_packs_passes_them():
    omitted = [
        f"{rel}:{line} in {where}: {call}"
        for rel, where, line, name, call in _all_omitted()
        if (rel, where, name) not in ALLOWED and name.split(".")[-1] not in NO_RULE
    ]
    assert not omitted, f"{len(omitted)} calls read every rule on:\n" + "\n".join(omitted)


def test_every_allowed_call_is_still_there():
    """An allowance outlives nothing: each names a call that still leaves the packs out."""
    found = {(rel, where, name) for rel, where, _, name, _ in _all_omitted()}
    assert set(ALLOWED) <= found, sorted(set(ALLOWED) - found)


def test_the_check_finds_an_omitted_langs_and_lets_a_passed_one_pass():
    """The check itself, on a module of the recall stage: a call without `langs` is found, by a
    name or through the registry's module; one that passes it by position, by keyword or by
    `**` is not, nor a call of a function that takes no packs."""
    source = (
        "from .. import lang\n"
        "from ..lang.text import negated, tokenize, has_cjk\n"
        "from ..lang.entities import extract as find\n"
        "def f(text, langs, kw):\n"
        "    a = negated(text)\n"
        "    b = negated(text, langs)\n"
        "    c = tokenize(text, langs=langs)\n"
        "    d = tokenize(text, drop_stopwords=True)\n"
        "    e = find(text, **kw)\n"
        "    g = lang.text.negated(text)\n"
        "    h = has_cjk(text)\n"
        "    return lang.languages()\n"
    )
    found = [(where, line, name) for where, line, name, _ in _omitted(source, "recall/m.py")]
    assert found == [("f", 5, "negated"), ("f", 8, "tokenize"), ("f", 10, "lang.text.negated")]


def test_what_reads_no_rule_answers_the_same_with_every_rule_off():
    """The functions read without packs for no rule (`NO_RULE`) answer alike whether every
    rule of every language is on or off: no switch reaches what they read."""
    from openclaw_memory.core import switches_from
    from openclaw_memory.lang import Languages, codes, text

    off = Languages(switches_from(codes()))
    texts = [
        "我家猫叫芝麻，每天喂它。",
        "I adopted a rabbit named Biscuit!",
        "東京に行きました",
        "",
    ]
    assert all(callable(getattr(text, name, None)) for name in NO_RULE)
    for t in texts:
        assert text.tokenize(t, langs=off) == text.tokenize(t)
        assert text.tokenize(t, drop_stopwords=True, langs=off) == text.tokenize(
            t, drop_stopwords=True
        )
        assert text.unspaced(t, off) == text.unspaced(t)
        assert text.cuts_at_space(t, off) == text.cuts_at_space(t)
        for table in ("render", "escape", "compaction", "summary"):
            assert text.pack_for(t, table, off).code == text.pack_for(t, table).code
    for table in ("compaction", "render"):
        for ties in (True, False):
            assert (
                text.majority(texts, table, ties=ties, langs=off).code
                == text.majority(texts, table, ties=ties).code
            )
