"""The house's measures of a checkout: modules, language outside the packs, the store's ports.

    python scripts/house.py .          (-v: the modules with Han literals and each port's methods)

Counted over `openclaw_memory/`: modules, top-level modules, modules outside `lang/` (and the
secret filter) with a Han string literal that is not a docstring, mentions of `cjk` outside
`lang/`, `re.compile` calls outside `lang/` and the secret filter, and the public methods of the
store's Protocol classes.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

#: the secret filter's patterns are not language knowledge
SECRET_FILTER = {"extract/secrets.py", "extract/secret_patterns.py"}
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def docstring_ids(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are a module's, class's or function's docstring."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def has_han_literal(tree: ast.AST) -> bool:
    docs = docstring_ids(tree)
    return any(
        isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and id(n) not in docs
        and HAN.search(n.value)
        for n in ast.walk(tree)
    )


def re_compiles(tree: ast.AST) -> int:
    return sum(
        1
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "compile"
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "re"
    )


def protocol_methods(tree: ast.AST) -> dict[str, list[str]]:
    """Protocol class -> its public methods."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(
            getattr(b, "id", getattr(b, "attr", None)) == "Protocol" for b in node.bases
        ):
            out[node.name] = [
                f.name
                for f in node.body
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                and not f.name.startswith("_")
            ]
    return out


def main(argv: list[str]) -> int:
    package = Path(argv[1] if len(argv) > 1 else ".").resolve() / "openclaw_memory"
    verbose = "-v" in argv
    modules = sorted(package.rglob("*.py"))
    han, cjk, compiles = [], 0, 0
    for path in modules:
        rel = path.relative_to(package).as_posix()
        if rel.startswith("lang/") or rel in SECRET_FILTER:
            continue
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        if has_han_literal(tree):
            han.append(rel)
        cjk += len(re.findall("cjk", source, re.IGNORECASE))
        compiles += re_compiles(tree)
    ports = {}
    for path in sorted((package / "store").rglob("*.py")):
        for name, methods in protocol_methods(ast.parse(path.read_text(encoding="utf-8"))).items():
            ports[f"{path.relative_to(package).as_posix()}:{name}"] = methods
    print("modules", len(modules))
    print("top-level modules", len(list(package.glob("*.py"))))
    print("modules with Han literals outside lang/", len(han), *(han if verbose else []))
    print("cjk mentions outside lang/", cjk)
    print("re.compile outside lang/ and the secret filter", compiles)
    total = sum(len(m) for m in ports.values())
    print("store Protocol public methods", total, "in", len(ports), "classes")
    if verbose:
        for name, methods in ports.items():
            print("  ", name, len(methods))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
