"""The service side of an install: where the memory service keeps its data, token and config.

`prepare_service` fixes a data dir (the same from any working directory), makes or reads the
token in that dir (service/token.py; the plugin is given the same one), writes a config file
naming them, a launcher script that reads the token at start, and a systemd user unit that is
written, never started. Every step is idempotent.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from .installer import InstallError

UNIT_NAME = "openclaw-memory.service"


@dataclass
class ServiceSetup:
    """Where the service keeps its data and token, its config file, and its user unit."""

    config_file: Path
    data_dir: Path
    token: str
    token_file: Path
    unit_file: Path | None

    def notes(self) -> list[str]:
        """What a user needs to know to run and find the service."""
        out = [
            f"data: {self.data_dir} (memory.db, chroma/; config {self.config_file})",
            f"token: {self.token_file} (0600; the plugin's config has the same token)",
            f"run the service: {self.config_file.parent / 'serve.sh'} (or: openclaw-memory serve --config {self.config_file})",
        ]
        if self.unit_file is not None:
            out.append(
                f"user service unit written (not started): {self.unit_file}; start it with "
                f"`systemctl --user daemon-reload && systemctl --user enable --now {UNIT_NAME}`"
            )
        return out


def default_config_file(env: Mapping[str, str] = os.environ) -> Path:
    """~/.config/openclaw-memory/memory.yaml (XDG_CONFIG_HOME honoured)."""
    base = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME") or Path.home()) / ".config")
    return base / "openclaw-memory" / "memory.yaml"


def default_data_dir(env: Mapping[str, str] = os.environ) -> Path:
    """~/.local/share/openclaw-memory (XDG_DATA_HOME honoured): one place, whatever the cwd."""
    base = Path(
        env.get("XDG_DATA_HOME") or Path(env.get("HOME") or Path.home()) / ".local" / "share"
    )
    return base / "openclaw-memory"


def _configured_data_dir(config_file: Path) -> Path | None:
    from ..config import load_config

    if not config_file.is_file():
        return None
    return load_config(config_file).data_dir


def prepare_service(
    config_file: Path | None = None,
    data_dir: Path | None = None,
    *,
    token: str = "",
    unit: bool = True,
    python: str | None = None,
    env: Mapping[str, str] = os.environ,
) -> ServiceSetup:
    """Fix the service's data dir and config file, make or read its token, write its user unit.

    An existing config file is kept as it is (its data dir is used); a new one names the data
    dir explicitly, so `serve` stores data in the same place from any working directory.
    """
    from .token import load_or_create_token, token_path

    config_file = (config_file or default_config_file(env)).expanduser().resolve()
    existing = _configured_data_dir(config_file)
    data = (
        (data_dir.expanduser().resolve() if data_dir else None) or existing or default_data_dir(env)
    )
    if existing is None:
        config_file.parent.mkdir(parents=True, exist_ok=True)
        config_file.write_text(
            "# openclaw-memory service config, written by `openclaw-memory openclaw install`\n"
            f"storage:\n  data_dir: {json.dumps(str(data))}\n",
            encoding="utf-8",
        )
    elif data_dir and existing != data:
        raise InstallError(
            f"--data-dir: {config_file} already keeps data in {existing}; edit it or drop --data-dir"
        )
    data.mkdir(mode=0o700, parents=True, exist_ok=True)
    chosen = load_or_create_token(data, token)
    if token and not token_path(data).exists():
        # a token given here is the one the service must use too: keep it where serve reads it
        fd = os.open(token_path(data), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(chosen + "\n")
    launcher = write_launcher(config_file, data, python=python)
    unit_file = write_unit(launcher, env=env) if unit else None
    return ServiceSetup(config_file, data, chosen, token_path(data), unit_file)


def launcher_text(config_file: Path, data_dir: Path, python: str) -> str:
    """A shell script that runs `serve` on this config with the token read from its file at
    start (the token is never written into the unit or a command line others can read)."""
    from .token import token_path

    return (
        "#!/bin/sh\n# openclaw-memory service, written by `openclaw-memory openclaw install`\n"
        f'OPENCLAW_MEMORY_TOKEN="$(cat {_sh(str(token_path(data_dir)))})"\n'
        "export OPENCLAW_MEMORY_TOKEN\n"
        f'exec {_sh(python)} -m openclaw_memory serve --config {_sh(str(config_file))} "$@"\n'
    )


def unit_text(launcher: Path) -> str:
    """A systemd user unit running the launcher."""
    return (
        "[Unit]\nDescription=openclaw-memory: long-term memory service for OpenClaw\n"
        "After=network.target\n\n"
        "[Service]\nType=simple\n"
        f'ExecStart="{launcher}"\n'
        "Restart=on-failure\nRestartSec=3\nUMask=0077\n\n"
        "[Install]\nWantedBy=default.target\n"
    )


def _sh(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def write_launcher(config_file: Path, data_dir: Path, *, python: str | None = None) -> Path:
    """Write (or refresh) serve.sh beside the config file (0700)."""
    import sys

    launcher = config_file.parent / "serve.sh"
    launcher.write_text(
        launcher_text(config_file, data_dir, python or sys.executable), encoding="utf-8"
    )
    launcher.chmod(0o700)
    return launcher


def write_unit(launcher: Path, *, env: Mapping[str, str] = os.environ) -> Path:
    """Write (or refresh) ~/.config/systemd/user/openclaw-memory.service; never starts it."""
    base = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME") or Path.home()) / ".config")
    path = base / "systemd" / "user" / UNIT_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(unit_text(launcher), encoding="utf-8")
    return path
