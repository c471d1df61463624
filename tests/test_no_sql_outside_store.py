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


# ---- the tests: SQL through the store's inspection port only -----------------------------------

TESTS = PACKAGE.parent / "tests"
#: names a test reaches the store's inspection port by (`openclaw_memory.store.inspect`)
INSPECT_NAMES = {"inspect", "store_inspect"}
#: test file -> why it still runs a statement or holds a database driver itself
TESTS_ALLOWED: dict[str, str] = {
    "conftest.py": "starts the run's PostgreSQL server when psycopg is installed",
    "pg_server.py": "creates and drops the tests' PostgreSQL databases on the server",
    "store_backends.py": "checks that psycopg is installed before opening the PostgreSQL store",
    "reliability_helpers.py": "Chroma's own client, to read Chroma's files",
    "test_bench_backends.py": "lists the benchmark's databases on the PostgreSQL server",
    "test_encryption_at_rest.py": "the keyword query's plan under both drivers, sqlite3 and SQLCipher",
    "test_engine_write_batch.py": "SQLite's commits traced, and its driver's error class",
    "test_store_schema.py": "the statements SQLite runs, traced, for their plans",
    "test_store_rows.py": "the row mapping over a bare SQLite table (the SQL layer itself)",
    "test_store_postgres_migrate.py": "SQLite to PostgreSQL migration, both files read whole",
    "test_reliability_recovery.py": "Chroma's own tables, and a whole dump of a damaged file",
    "test_query_plans.py": "the plans (EXPLAIN) of the statements a request sends, on both backends",
}


def statements_in(path: Path) -> list[str]:
    """Statements a test runs itself, and the database drivers it imports, one line each; a
    call on the inspection port (`inspect.rows(...)`) is not one."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in (
            "execute",
            "executemany",
            "executescript",
            "iterdump",
            "set_trace_callback",
        ):
            if not (isinstance(node.value, ast.Name) and node.value.id in INSPECT_NAMES):
                found.append(f"line {node.lineno}: .{node.attr}(")
        elif isinstance(node, ast.Import):
            found += [
                f"line {node.lineno}: import {a.name}"
                for a in node.names
                if a.name.split(".")[0] in DRIVERS | {"sqlcipher3"}
            ]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in (
            DRIVERS | {"sqlcipher3"}
        ):
            found.append(f"line {node.lineno}: from {node.module} import")
    return found


def _tests() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if p.name != Path(__file__).name)


@pytest.mark.parametrize("path", _tests(), ids=lambda p: str(p.relative_to(TESTS)))
def test_no_test_runs_sql_outside_the_inspection_port(path):
    rel = str(path.relative_to(TESTS))
    found = statements_in(path)
    if rel in TESTS_ALLOWED:
        assert found, f"{rel} runs no statement itself any more: take it off TESTS_ALLOWED"
        return
    assert not found, (
        f"{rel} runs SQL or imports a driver itself (ask the store's methods, or "
        "openclaw_memory/store/inspect.py):\n" + "\n".join(found)
    )


def test_the_test_check_sees_a_statement_and_passes_the_port():
    sample = TESTS / "data" / "_sql_probe.py"
    try:
        sample.write_text('with db.read() as c:\n    c.execute("SELECT 1")\n', encoding="utf-8")
        assert statements_in(sample) == ["line 2: .execute("]
        sample.write_text('inspect.execute(store, "DELETE FROM vectors")\n', encoding="utf-8")
        assert statements_in(sample) == []
    finally:
        sample.unlink(missing_ok=True)
