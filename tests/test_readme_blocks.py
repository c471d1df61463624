"""Every code block of README.md and of the reference pages under docs/ runs: Python blocks are
executed in a fresh folder (after the YAML blocks of the same page that name a file are written
there, as a reader would save them), YAML and JSON blocks parse (a memory config validates), and
every `openclaw-memory` command line of a shell block parses with the real command-line parser
(its flags and subcommands exist). Test ids name the page and the line of each block.

A block the reader cannot run as it stands says so just above it in an HTML comment
(`<!-- readme-test: needs NAME -->`), and the test provides NAME: `messages` (a short chat) and
`call_your_model` (an echo model). Nothing else is skipped."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from openclaw_memory.cli import _parser
from openclaw_memory.config import config_from_dict

REPO = Path(__file__).resolve().parents[1]
# The benchmark history is a log of past runs: its commands stay as they were run.
LOGS = {"docs/benchmark-history.md"}
PAGES = [
    "README.md",
    *(
        p.relative_to(REPO).as_posix()
        for p in sorted(REPO.joinpath("docs").glob("*.md"))
        if p.relative_to(REPO).as_posix() not in LOGS
    ),
]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
NEEDS = re.compile(r"<!-- readme-test: needs ([\w, ]+) -->\s*$")
FILE_HEADER = re.compile(r"^#\s*([\w.-]+\.ya?ml)\s*$")
YAML_NAME = re.compile(r"""^[rbuRBU]?(["'])([\w.-]+\.ya?ml)\1$""")


@dataclass(frozen=True)
class Block:
    page: str
    lang: str
    code: str
    line: int
    needs: frozenset[str]

    @property
    def id(self) -> str:
        return f"{self.lang or 'text'}@{self.page}:{self.line}"

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def _blocks(page: str) -> list[Block]:
    text = REPO.joinpath(page).read_text(encoding="utf-8")
    found = []
    for m in FENCE.finditer(text):
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        need = NEEDS.search(before)
        names = frozenset(n.strip() for n in need.group(1).split(",")) if need else frozenset()
        line = text.count("\n", 0, m.start()) + 1
        found.append(Block(page, m.group(1), m.group(2), line, names))
    return found


BLOCKS = [block for page in PAGES for block in _blocks(page)]


def _of(*langs: str) -> list[Block]:
    return [b for b in BLOCKS if b.lang in langs]


def test_the_pages_have_blocks_of_each_kind():
    assert len(_of("python")) >= 3 and _of("yaml") and _of("bash") and _of("json")
    readme = {b.lang for b in BLOCKS if b.page == "README.md"}
    assert {"python", "bash"} <= readme  # the front page's example and its setup are checked too


def test_every_page_the_readme_links_to_is_checked():
    readme = REPO.joinpath("README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\((docs/[\w.-]+\.md)(?:#[\w-]*)?\)", readme))
    assert "docs/python.md" in linked  # the scan finds the table of contents
    assert sorted(linked - set(PAGES)) == []


def _provided(needs: frozenset[str]) -> dict:
    given = {
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "I live in Lisbon and I'm allergic to peanuts."},
        ],
        "call_your_model": lambda msgs: "Noted.",
    }
    unknown = needs - given.keys()
    assert not unknown, f"a page asks the test for {sorted(unknown)}, which it does not provide"
    return {name: given[name] for name in needs}


def _named_yaml(page: str) -> dict[str, str]:
    """The YAML blocks of a page that open with `# name.yaml`: files a reader saves before the
    code of that page."""
    named = {}
    for block in _of("yaml"):
        first = block.code.splitlines()[0] if block.code else ""
        m = FILE_HEADER.match(first)
        if m and block.page == page:
            named[m.group(1)] = block.code
    return named


def _yaml_files_read(code: str) -> set[str]:
    """The YAML file names a Python block spells as string literals (comments do not count)."""
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return {
        m.group(2)
        for tok in tokens
        if tok.type == tokenize.STRING and (m := YAML_NAME.match(tok.string))
    }


@pytest.mark.parametrize("block", _of("python"), ids=lambda b: b.id)
def test_python_block_runs(block, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home" / ".local" / "share"))
    named = _named_yaml(block.page)
    unsaved = sorted(_yaml_files_read(block.code) - named.keys())
    assert not unsaved, f"{block.where} reads {unsaved}: no `# name.yaml` block of {block.page}"
    for name, code in named.items():
        tmp_path.joinpath(name).write_text(code, encoding="utf-8")
    namespace = {"__name__": "__readme__", **_provided(block.needs)}
    exec(compile(block.code, block.where, "exec"), namespace)  # noqa: S102
    for value in list(namespace.values()):  # close what the block left open
        close = getattr(value, "close", None)
        if callable(close) and type(value).__module__.startswith("openclaw_memory"):
            close()


@pytest.mark.parametrize("block", _of("yaml"), ids=lambda b: b.id)
def test_yaml_block_parses_and_a_memory_config_validates(block):
    data = yaml.safe_load(block.code)
    assert isinstance(data, dict), f"{block.where}: a YAML block is a mapping"
    sections = {"storage", "long_term", "injection", "extraction", "recall", "service"}
    if set(data) & sections and "middlewares" not in data:
        config_from_dict(data)  # raises ConfigError naming the key when the page is wrong


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
            pytest.fail(f"{block.where}: `{line}` does not parse ({exc})")
