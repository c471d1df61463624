"""The measuring package (openclaw_memory_bench) beside the runtime one: the runtime never loads
it, the CLI's `eval` and `bench` come from it, and without it they say what is missing."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RUNTIME = REPO / "openclaw_memory"
MEASURING = "openclaw_memory_bench"

#: prints, as JSON, the measuring package's modules loaded after what argv[2] names was done
PROBE = """
import json, sys
from openclaw_memory import ChatRequest, Scope, build_middleware

mw = build_middleware(overrides={"storage": {"data_dir": sys.argv[1], "embedding_model": "hash"}},
                      background=False)
try:
    request = ChatRequest(Scope("alice", "main"), "s1",
                          [{"role": "user", "content": "我喜欢乌龙茶, and I live in Boston"}])
    mw.before_request(request)
    mw.after_response(request, "好的 / noted")
    mw.flush()
finally:
    mw.close()
if sys.argv[2] == "parser":
    from openclaw_memory.cli import _parser
    _parser()
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "openclaw_memory_bench")))
"""


def _probe(tmp_path: Path, then: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / then), then],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # a fresh interpreter (or several) per test
def test_the_runtime_and_a_middleware_in_use_load_no_module_of_the_measuring_package(tmp_path):
    assert _probe(tmp_path, "middleware") == []


@pytest.mark.slow  # a fresh interpreter (or several) per test
def test_building_the_cli_parser_is_what_loads_it(tmp_path):
    loaded = _probe(tmp_path, "parser")
    assert {f"{MEASURING}.evaluate.cli", f"{MEASURING}.bench.cli"} <= set(loaded)


def _measuring_imports(path: Path) -> list[tuple[str, int, str]]:
    """(module file, line, enclosing function or "") of each import of the measuring package."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = [
        n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        if any(n.split(".")[0] == MEASURING for n in names):
            inside = [f.name for f in functions if f.lineno <= node.lineno <= (f.end_lineno or 0)]
            found.append((path.relative_to(REPO).as_posix(), node.lineno, "/".join(inside)))
    return found


def test_the_runtime_imports_the_measuring_package_only_in_the_cli_dispatch():
    found = [hit for path in sorted(RUNTIME.rglob("*.py")) for hit in _measuring_imports(path)]
    assert found, "the scan finds the CLI's imports"
    assert {(f, where) for f, _, where in found} == {
        ("openclaw_memory/cli/__init__.py", "_measuring_parsers")
    }


def test_the_runtime_package_holds_no_evaluation_or_benchmark_code():
    assert not (RUNTIME / "evaluate").exists() and not (RUNTIME / "bench").exists()
    assert (REPO / MEASURING / "evaluate" / "cli.py").is_file()
    assert (REPO / MEASURING / "bench" / "cli.py").is_file()


#: runs the CLI with the measuring package unimportable (None in sys.modules blocks its import)
WITHOUT = (
    "import sys; sys.modules['openclaw_memory_bench'] = None\n"
    "from openclaw_memory.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def _cli_without(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    config = tmp_path / "hash.yaml"
    config.write_text(
        f"storage:\n  data_dir: {tmp_path / 'data'}\n  embedding_model: hash\n", encoding="utf-8"
    )
    return subprocess.run(
        [sys.executable, "-c", WITHOUT, "--config", str(config), *argv],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ("eval", "precision", "--json", "--no-progress"),
        ("eval", "locomo", "tests/data/zh_locomo.json", "--retriever", "all"),
        ("bench", "--memories", "100", "--json"),
        ("bench", "--help"),
    ],
)
@pytest.mark.slow  # a fresh interpreter (or several) per test
def test_without_the_measuring_package_eval_and_bench_name_what_to_install(tmp_path, argv):
    out = _cli_without(tmp_path, *argv)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert (
        f"openclaw-memory {argv[0]}: error: needs the measuring package {MEASURING}" in out.stderr
    )
    assert "pip install openclaw-memory" in out.stderr
    assert out.stdout == ""


@pytest.mark.slow  # a fresh interpreter (or several) per test
def test_without_the_measuring_package_the_other_commands_and_the_help_still_work(tmp_path):
    listed = _cli_without(tmp_path, "list", "--user", "alice")
    assert listed.returncode == 0, listed.stderr[-2000:]
    helped = _cli_without(tmp_path, "--help")
    assert helped.returncode == 0
    assert f"{MEASURING} is not installed" in " ".join(helped.stdout.split())


@pytest.mark.slow  # a fresh interpreter (or several) per test
def test_python_m_from_a_source_checkout_finds_the_measuring_package():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-m", "openclaw_memory", "eval", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=REPO,
        env=env,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "--no-precision" in out.stdout and "not installed" not in out.stdout


@pytest.mark.slow  # a fresh interpreter (or several) per test
def test_every_module_of_the_measuring_package_imports():
    """Each module loads in a fresh interpreter: every import the move rewrote resolves."""
    names = sorted(
        ".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        for p in (REPO / MEASURING).rglob("*.py")
        if p.name != "__main__.py"
    )
    assert len(names) > 25 and f"{MEASURING}.evaluate.block" in names
    code = "import importlib, sys\nfor n in sys.argv[1:]:\n    importlib.import_module(n)\n"
    out = subprocess.run(
        [sys.executable, "-c", code, *names], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
