"""Every code block of README.md runs: Python blocks are executed in a fresh folder (after the
YAML blocks that name a file are written there, as a reader would save them), YAML and JSON
blocks parse (a memory config validates), and every `openclaw-memory` command line of a shell
block parses with the real command-line parser (its flags and subcommands exist).

A block the reader cannot run as it stands says so just above it in an HTML comment
(`<!-- readme-test: needs NAME -->`), and the test provides NAME: `messages` (a short chat) and
`call_your_model` (an echo model). Nothing else is skipped."""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from openclaw_memory.cli import _parser
from openclaw_memory.config import config_from_dict

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
NEEDS = re.compile(r"<!-- readme-test: needs ([\w, ]+) -->\s*$")
FILE_HEADER = re.compile(r"^#\s*([\w.-]+\.ya?ml)\s*$")


@dataclass(frozen=True)
class Block:
    lang: str
    code: str
    line: int
    needs: frozenset[str]

    @property
    def id(self) -> str:
        return f"{self.lang or 'text'}@{self.line}"


def _blocks() -> list[Block]:
    text = README.read_text(encoding="utf-8")
    found = []
    for m in FENCE.finditer(text):
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        need = NEEDS.search(before)
        names = frozenset(n.strip() for n in need.group(1).split(",")) if need else frozenset()
        found.append(Block(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1, names))
    return found


BLOCKS = _blocks()


def _of(*langs: str) -> list[Block]:
    return [b for b in BLOCKS if b.lang in langs]


def test_the_readme_has_blocks_of_each_kind():
    assert len(_of("python")) >= 3 and _of("yaml") and _of("bash")


def _provided(needs: frozenset[str]) -> dict:
    given = {
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "I live in Lisbon and I'm allergic to peanuts."},
        ],
        "call_your_model": lambda msgs: "Noted.",
    }
    unknown = needs - given.keys()
    assert not unknown, f"README asks the test for {sorted(unknown)}, which it does not provide"
    return {name: given[name] for name in needs}


def _save_named_yaml(folder: Path) -> None:
    """The YAML blocks that open with `# name.yaml` are files a reader saves before the code."""
    for block in _of("yaml"):
        first = block.code.splitlines()[0] if block.code else ""
        m = FILE_HEADER.match(first)
        if m:
            folder.joinpath(m.group(1)).write_text(block.code, encoding="utf-8")


@pytest.mark.parametrize("block", _of("python"), ids=lambda b: b.id)
def test_python_block_runs(block, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home" / ".local" / "share"))
    _save_named_yaml(tmp_path)
    namespace = {"__name__": "__readme__", **_provided(block.needs)}
    exec(compile(block.code, f"README.md:{block.line}", "exec"), namespace)  # noqa: S102
    for value in list(namespace.values()):  # close what the block left open
        close = getattr(value, "close", None)
        if callable(close) and type(value).__module__.startswith("openclaw_memory"):
            close()


@pytest.mark.parametrize("block", _of("yaml"), ids=lambda b: b.id)
def test_yaml_block_parses_and_a_memory_config_validates(block):
    data = yaml.safe_load(block.code)
    assert isinstance(data, dict), f"README.md:{block.line}: a YAML block is a mapping"
    sections = {"storage", "long_term", "injection", "extraction", "recall", "service"}
    if set(data) & sections and "middlewares" not in data:
        config_from_dict(data)  # raises ConfigError naming the key when the README is wrong


@pytest.mark.parametrize("block", _of("json"), ids=lambda b: b.id)
def test_json_block_parses(block):
    json.loads(block.code)


def _command_lines(code: str) -> list[str]:
    joined = code.replace("\\\n", " ")
    lines = []
    for raw in joined.splitlines():
        line = raw.split(" #", 1)[0].strip()
        for part in re.split(r"\s*(?:&&|\|\||;)\s*", line):
            part = part.strip()
            if part.startswith("openclaw-memory "):
                lines.append(part)
    return lines


@pytest.mark.parametrize("block", _of("bash"), ids=lambda b: b.id)
def test_every_openclaw_memory_command_of_a_shell_block_parses(block):
    parser = _parser()
    for line in _command_lines(block.code):
        words = shlex.split(line.split(" > ", 1)[0].split(" 2>", 1)[0].rstrip("&").strip())
        words = [os.path.expandvars(w) for w in words[1:]]
        try:
            parser.parse_args(words)
        except SystemExit as exc:  # argparse exits on an unknown flag or subcommand
            pytest.fail(f"README.md:{block.line}: `{line}` does not parse ({exc})")
