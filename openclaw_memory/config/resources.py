"""Where the shipped defaults live: config/memory_config.yaml and the prompts/ folder.

The top-level `config/` and `prompts/` folders of the repository are the sources. A wheel carries
them as the data packages `openclaw_memory._config` and `openclaw_memory._prompts` (mapped in
pyproject.toml), read here through importlib.resources; a source checkout or an editable install
has no such packages and reads the top-level folders instead.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: the folder holding the `openclaw_memory` package
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
#: the repository root, in a source checkout or an editable install
PROJECT_ROOT = PACKAGE_ROOT.parent


def data_dir(name: str) -> Path:
    """The installed folder `openclaw_memory/_<name>` if present, else `<repository>/<name>`.

    `name` is "config" or "prompts". Wheels install unpacked, so the folder is a real path.
    """
    if name not in ("config", "prompts"):
        raise ValueError(f"data_dir: expected 'config' or 'prompts', found {name!r}")
    installed = resources.files("openclaw_memory").joinpath(f"_{name}")
    if installed.is_dir():
        return Path(str(installed))
    return PROJECT_ROOT / name


def default_config_path() -> Path:
    """The shipped defaults file, memory_config.yaml."""
    return data_dir("config") / "memory_config.yaml"


def default_prompts_dir() -> Path:
    """The shipped prompt folder (extract_facts.txt, summarize_session.txt)."""
    return data_dir("prompts")
