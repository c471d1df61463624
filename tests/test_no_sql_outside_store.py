"""Every SQL statement lives in `openclaw_memory/store/`: stages speak to the storage ports
(store/ports.py), so a server database can take SQLite's place (docs/design.md "Scale path").

The check reads the package's source: string literals (f-strings included) that hold an SQL
statement or a WHERE fragment, `.execute(` calls, and imports of a database driver.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "openclaw_memory"
STORE = PACKAGE / "store"

#: path (relative to the package) -> why it may hold SQL for now. Empty: nothing waits.
ALLOWED: dict[str, str] = {}

STATEMENT = re.compile(
    r"\bSELECT\b.+\bFROM\b|\bINSERT\s+(OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b|"
    r"\bDELETE\s+FROM\b|\bCREATE\s+(TABLE|INDEX|TRIGGER|VIRTUAL)\b|\bPRAGMA\s+\w+|"
    r"\bORDER\s+BY\b|\bGROUP\s+BY\b",
    re.DOTALL,
)
#: a condition on a column with a bound parameter, or a column test, as a WHERE fragment writes it
FRAGMENT = re.compile(
    r"\b[a-z_]+ (=|!=|<=|>=|<|>) (\?|'\w+')|\b[a-z_]+ IS (NOT )?NULL\b"
    r"|\b[a-z_]+ (NOT )?IN \((\?|')"
)
DRIVERS = {"sqlite3", "psycopg", "psycopg2", "chromadb"}


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def sql_in(path: Path) -> list[str]:
    """What in this module looks like SQL, one line each."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if STATEMENT.search(node.value) or FRAGMENT.search(node.value):
                found.append(f"line {node.lineno}: string {node.value[:60]!r}")
        elif isinstance(node, ast.Attribute) and node.attr in ("execute", "executemany"):
            found.append(f"line {node.lineno}: .{node.attr}(")
        elif isinstance(node, ast.Import):
            found += [
                f"line {node.lineno}: import {a.name}"
                for a in node.names
                if a.name.split(".")[0] in DRIVERS
            ]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in DRIVERS:
            found.append(f"line {node.lineno}: from {node.module} import")
    return found


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if STORE not in p.parents)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_sql_outside_the_store(path):
    rel = str(path.relative_to(PACKAGE))
    found = sql_in(path)
    if rel in ALLOWED:
        assert found, f"{rel} holds no SQL any more: take it off ALLOWED"
        return
    assert not found, (
        f"{rel} holds SQL outside store/ (move it behind store/ports.py):\n" + "\n".join(found)
    )


def test_the_check_sees_sql():
    """The detector itself: it finds what it must, and passes prose."""
    sample = PACKAGE.parent / "tests" / "data" / "_sql_probe.py"
    probe = [
        'db.execute("SELECT id FROM records WHERE user_id = ?", (u,))',
        'q = f"DELETE FROM {table} WHERE x = 1"',
        "where = \"status = 'active' AND subject = ?\"",
        "import sqlite3",
    ]
    try:
        for line in probe:
            sample.write_text(line + "\n", encoding="utf-8")
            assert sql_in(sample), line
        sample.write_text('"""Select the update from the rows."""\nx = "an UPDATE with a chain"\n')
        assert sql_in(sample) == []
    finally:
        sample.unlink(missing_ok=True)
