"""The package as installed: the shipped defaults, and a wheel that works outside the repository."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest
import yaml

from openclaw_memory.config import DEFAULT_CONFIG_PATH, MemoryConfig, config_from_dict
from openclaw_memory.extract.base import DEFAULT_PROMPTS_DIR
from openclaw_memory.config import PROJECT_ROOT
from openclaw_memory.config import data_dir

REPO = Path(__file__).resolve().parents[1]


def _dataclass_keys(cls, prefix: str = "") -> set[str]:
    keys: set[str] = set()
    for f in dataclasses.fields(cls):
        key = f"{prefix}{f.name}"
        default = getattr(cls(), f.name)
        if dataclasses.is_dataclass(default):
            keys |= _dataclass_keys(type(default), key + ".")
        else:
            keys.add(key)
    return keys


def _yaml_keys(data: dict, prefix: str = "") -> set[str]:
    keys: set[str] = set()
    for name, value in data.items():
        key = f"{prefix}{name}"
        keys |= _yaml_keys(value, key + ".") if isinstance(value, dict) else {key}
    return keys


def test_shipped_yaml_lists_every_key_and_equals_the_dataclass_defaults():
    data = yaml.safe_load(DEFAULT_CONFIG_PATH.read_text(encoding="utf-8"))
    assert _yaml_keys(data) == _dataclass_keys(MemoryConfig) - {"base_dir"}
    assert config_from_dict(data, where=str(DEFAULT_CONFIG_PATH)) == MemoryConfig()


def test_a_changed_default_is_caught_by_the_comparison():
    data = yaml.safe_load(DEFAULT_CONFIG_PATH.read_text(encoding="utf-8"))
    data["recall"]["weights_unspaced"]["semantic"] = 0.61
    assert config_from_dict(data) != MemoryConfig()


def test_in_a_checkout_the_defaults_are_the_top_level_folders():
    assert PROJECT_ROOT == REPO
    assert DEFAULT_CONFIG_PATH == REPO / "config" / "memory_config.yaml"
    assert DEFAULT_PROMPTS_DIR == REPO / "prompts" == data_dir("prompts")
    with pytest.raises(ValueError, match="expected 'config' or 'prompts'"):
        data_dir("secrets")


def test_every_language_pack_file_is_package_data():
    import tomllib
    from fnmatch import fnmatch

    setup = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    globs = setup["setuptools"]["package-data"]["openclaw_memory"]
    package = REPO / "openclaw_memory"
    data = [p for p in (package / "lang").rglob("*") if p.is_file() and p.suffix == ".yaml"]
    assert {"en", "zh", "ja"} <= {p.parent.name for p in data}
    for path in data:
        rel = path.relative_to(package).as_posix()
        assert any(fnmatch(rel, g) for g in globs), f"{rel} is not package data"


def _copy_sources(dest: Path) -> Path:
    """The files a build reads, copied so the build leaves nothing in the working tree."""
    dest.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "node_modules", "*.egg-info")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(REPO / name, dest / name)
    for name in ("openclaw_memory", "openclaw_memory_bench", "config", "prompts"):
        shutil.copytree(REPO / name, dest / name, ignore=ignore)
    return dest


LLM_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import openclaw_memory
    from openclaw_memory.config import DEFAULT_CONFIG_PATH
    from openclaw_memory.runtime.factory import build_middleware
    from openclaw_memory.llm import ScriptedLLM
    from openclaw_memory.middleware import ChatRequest
    from openclaw_memory.types import Scope

    reply = json.dumps([
        {"type": "preference", "subject": "drink", "fact": "用户喜欢喝乌龙茶", "certainty": 0.9},
        {"type": "profile", "subject": "employer", "fact": "The user works at Globex", "certainty": 0.9},
    ], ensure_ascii=False)
    llm = ScriptedLLM([reply])
    mw = build_middleware(overrides={"storage": {"data_dir": sys.argv[1], "embedding_model": "hash"},
                                     "extraction": {"mode": "llm"}}, llm=llm, background=False)
    try:
        scope = Scope("alice", "wheel")
        request = ChatRequest(scope, "s1", [{"role": "user", "content": "我平时喝乌龙茶, and I work at Globex now"}])
        mw.before_request(request)
        mw.after_response(request, "好的 / noted")
        mw.flush()
        stored = sorted(r.summary for r in mw.engine.store.listing(scope, curated_only=True))
    finally:
        mw.close()
    print(json.dumps({"package": openclaw_memory.__file__, "config": str(DEFAULT_CONFIG_PATH),
                      "prompted": "Today's date is" in llm.prompts[0], "stored": stored}, ensure_ascii=False))
    """
)


#: the measuring package's data files, as the wheel must carry them
MEASURING_DATA = sorted(
    p.relative_to(REPO).as_posix()
    for p in (REPO / "openclaw_memory_bench").rglob("*")
    if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
)


def test_the_measuring_package_has_its_data_files_in_the_source_tree():
    assert "openclaw_memory_bench/evaluate/data/updates.json" in MEASURING_DATA
    assert "openclaw_memory_bench/evaluate/data/offtopic.json" in MEASURING_DATA


def _assert_the_packages_split(wheel: Path) -> None:
    """The runtime package carries no evaluation or benchmark module; the measuring package beside
    it carries every module and data file of its source tree."""
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    runtime = {n for n in names if n.startswith("openclaw_memory/")}
    assert (
        "openclaw_memory/cli/__init__.py" in runtime
        and "openclaw_memory/data/background.json" in runtime
    )
    assert (
        sorted(
            n
            for n in runtime
            if n.startswith(("openclaw_memory/evaluate/", "openclaw_memory/bench/"))
        )
        == []
    )
    sources = {
        p.relative_to(REPO).as_posix()
        for p in (REPO / "openclaw_memory_bench").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert len(sources) > 30
    assert sorted((sources | set(MEASURING_DATA)) - names) == []


#: where the installed measuring package reads its evaluation sets from, and what is there
MEASURING_DATA_SCRIPT = textwrap.dedent(
    """
    import json
    from openclaw_memory_bench.evaluate.precision import DATA
    print(json.dumps({"dir": str(DATA), "files": sorted(p.name for p in DATA.iterdir())}))
    """
)


@pytest.mark.wheel
def test_the_wheel_installs_outside_the_repository_and_runs_the_demo_and_llm_mode(tmp_path):
    src = _copy_sources(tmp_path / "src")
    wheels = tmp_path / "wheels"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(wheels),
            str(src),
        ],
        check=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    (wheel,) = wheels.glob("openclaw_memory-*.whl")
    _assert_the_packages_split(wheel)

    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    python = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    # The dependencies come from this interpreter's site-packages, appended after the venv's own
    # (a path in a .pth file is not a site dir, so an editable install there is not activated).
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    deps = dict.fromkeys(
        [
            sysconfig.get_paths()["purelib"],
            sysconfig.get_paths()["platlib"],
            *site.getsitepackages(),
        ]
    )
    Path(purelib, "zz_test_deps.pth").write_text("\n".join(deps) + "\n", encoding="utf-8")

    run = tmp_path / "run"
    run.mkdir()
    (run / "hash.yaml").write_text("storage:\n  embedding_model: hash\n", encoding="utf-8")
    demo = subprocess.run(
        [str(venv / "bin" / "openclaw-memory"), "--config", "hash.yaml", "demo"],
        cwd=run,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert "绿茶" in demo.stdout and "bob asks the same: 0 memory messages" in demo.stdout

    evaluate = subprocess.run(
        [str(venv / "bin" / "openclaw-memory"), "eval", "--help"],
        cwd=run,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert evaluate.returncode == 0, evaluate.stderr[-2000:]
    assert "--no-precision" in evaluate.stdout and "not installed" not in evaluate.stdout
    data = subprocess.run(
        [str(python), "-c", MEASURING_DATA_SCRIPT], cwd=run, env=env, capture_output=True, text=True
    )
    assert data.returncode == 0, data.stderr[-2000:]
    installed = json.loads(data.stdout)
    assert Path(installed["dir"]).resolve().is_relative_to(venv.resolve())
    assert installed["files"] == sorted(Path(p).name for p in MEASURING_DATA if "/data/" in p)

    (run / "llm_mode.py").write_text(LLM_SCRIPT, encoding="utf-8")
    out = subprocess.run(
        [str(python), "llm_mode.py", str(run / "data")],
        cwd=run,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert Path(result["package"]).resolve().is_relative_to(venv.resolve())
    assert Path(result["config"]).resolve().is_relative_to(venv.resolve())
    assert result["prompted"] is True
    assert "用户喜欢喝乌龙茶" in result["stored"] and "The user works at Globex" in result["stored"]
