"""Installing: the JavaScript plugin into a local OpenClaw, and the service side of it.

Where the memory service keeps its data, token and config, and how the bearer token comes to exist.
Over 600 lines: one install, both ends.
"""

from __future__ import annotations

import os
import secrets
import json
import re
import shutil
import subprocess
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence
from ..errors import OpenClawMemoryError

# The service's bearer token: where it lives and how it comes to exist.
#
# Nothing listens without a token. The token is chosen, in order, from the environment variable
# ``OPENCLAW_MEMORY_TOKEN``, the config's ``service.token``, and the token file
# ``<data_dir>/service.token``; when none is set, a new random token is written to that file with
# mode 0600 on first start. The OpenClaw installer reads the same file and hands the token to the
# plugin, so a user never types it.

TOKEN_ENV = "OPENCLAW_MEMORY_TOKEN"
TOKEN_FILE = "service.token"


def token_path(data_dir: str | os.PathLike[str]) -> Path:
    """The token file of a store's data dir."""
    return Path(data_dir) / TOKEN_FILE


def read_token(data_dir: str | os.PathLike[str]) -> str:
    """The token in the data dir's token file, or "" when there is none."""
    try:
        return token_path(data_dir).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return ""


def load_or_create_token(data_dir: str | os.PathLike[str], configured: str = "") -> str:
    """The token to require: the environment, then `configured`, then the file, else a new one.

    A new token is written atomically to ``<data_dir>/service.token`` with mode 0600 (the data dir
    is created 0700 if missing), so only the user running the service can read it.
    """
    chosen = os.environ.get(TOKEN_ENV, "").strip() or (configured or "").strip()
    if chosen:
        return chosen
    existing = read_token(data_dir)
    if existing:
        return existing
    return _write_new_token(Path(data_dir))


def _write_new_token(data_dir: Path) -> str:
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    path = token_path(data_dir)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(token + "\n")
    try:
        os.link(tmp, path)  # fails if another process created the file first: keep theirs
    except FileExistsError:
        token = read_token(data_dir)
    finally:
        tmp.unlink(missing_ok=True)
    return token


# Install the JavaScript plugin into a local OpenClaw and point it at the memory service.
#
# OpenClaw keeps its config in `$HOME/.openclaw/openclaw.json` (JSON5). We never write that file
# ourselves: `openclaw plugins install --link` registers the plugin, and `openclaw config patch`
# (one validated write) sets what install leaves out:
#
#     plugins.entries.openclaw-memory.hooks.allowConversationAccess = true   (else every
#         conversation hook of a non-bundled plugin is silently blocked)
#     plugins.entries.openclaw-memory.config = {serviceUrl, token, tokenFile, user, inject}
#         (everything the plugin needs to reach the service and to know whose runs without a
#         channel sender are: a gateway restarted from any shell keeps memory, with no
#         environment variable)
#     plugins.slots.memory = "openclaw-memory"
#     plugins.entries.memory-core.enabled = false   (its tools would clash with ours by name, and
#         OpenClaw would log an ERROR for it on every run; its recall is off anyway once the
#         memory slot is ours)
#
# The service side the plugin talks to (its data dir, token, config file and user unit) is set up
# by `service/installer.py`.
#
# Reading is done from the file (plain JSON first, OpenClaw's own json5 package through node when
# that fails), because `openclaw config get` redacts secrets such as the token. Both operations are
# idempotent: a second run reports no changes.

PLUGIN_ID = "openclaw-memory"
MEMORY_CORE = "memory-core"
PLUGIN_DIR = Path(__file__).resolve().parent / "plugin"
INJECT_MODES = ("append_system", "prepend_context")
#: a user id as the service takes it (service/models.py ID_HINT)
USER_RE = re.compile(r"^[A-Za-z0-9_.:@+\-]{1,128}$")
MIN_NODE = (24, 16)
MIN_NODE_NEXT = (26, 1)
_ENV = {"OPENCLAW_NO_UPDATE_CHECK": "1", "NO_COLOR": "1"}

#: runs argv with optional stdin text; returns the finished process (stdout/stderr as text)
Runner = Callable[[Sequence[str], "str | None"], subprocess.CompletedProcess]


class InstallError(OpenClawMemoryError):
    """OpenClaw or Node is missing or too old, or an openclaw command failed."""


@dataclass
class InstallReport:
    """What install/uninstall changed; empty `changes` means there was nothing to do."""

    action: str
    config_path: Path
    changes: list[str] = field(default_factory=list)
    #: what stays true after the run (where things are, what is switched off), changed or not
    notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """Human-readable summary, one change a line, then the notes."""
        if not self.changes:
            lines = [
                f"openclaw-memory: {self.action}: no changes ({self.config_path} is up to date)"
            ]
        else:
            lines = [
                f"openclaw-memory: {self.action}: {len(self.changes)} change(s) in {self.config_path}"
            ]
            lines += [f"  {c}" for c in self.changes]
        return "\n".join(lines + [f"  {n}" for n in self.notes])


def subprocess_runner(timeout: float = 300.0) -> Runner:
    """The real runner: subprocess with OpenClaw's update check and colours off."""

    def run(argv: Sequence[str], stdin: str | None) -> subprocess.CompletedProcess:
        env = {**os.environ, **_ENV}
        try:
            return subprocess.run(
                list(argv), input=stdin, capture_output=True, text=True, env=env, timeout=timeout
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InstallError(f"could not run {' '.join(argv[:3])}: {exc}") from exc

    return run


def find_openclaw(openclaw_bin: str | Path | None) -> str:
    """The openclaw executable: the given path, else `openclaw` on PATH."""
    if openclaw_bin:
        path = Path(openclaw_bin).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise InstallError(
                f"--openclaw-bin: expected an executable file, found nothing at {path}"
            )
        return str(path)
    found = shutil.which("openclaw")
    if not found:
        raise InstallError(
            "openclaw was not found on PATH; install it (scripts/openclaw-env.sh installs Node 24 "
            "and openclaw@2026.9.6 into a cache dir and prints the PATH to use) or pass --openclaw-bin"
        )
    return found


def parse_node_version(text: str) -> tuple[int, int, int]:
    """'v24.22.3' -> (24, 22, 3)."""
    m = re.search(r"v?(\d+)\.(\d+)\.(\d+)", text)
    if not m:
        raise InstallError(
            f"node --version: expected a version like v24.16.0, found {text.strip()!r}"
        )
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def node_supported(version: tuple[int, int, int]) -> bool:
    """OpenClaw 2026.9.6 runs on Node >= 24.16 within 24.x, or >= 26.1."""
    major_minor = version[:2]
    return (MIN_NODE <= major_minor and version[0] == MIN_NODE[0]) or major_minor >= MIN_NODE_NEXT


def check_node(run: Runner, node_bin: str | None = None) -> str:
    """Refuse when the node that runs openclaw (first on PATH) is missing or too old."""
    node = node_bin or shutil.which("node")
    if not node:
        raise InstallError("node was not found on PATH; OpenClaw needs Node >= 24.16 (or >= 26.1)")
    proc = run([node, "--version"], None)
    version = parse_node_version(proc.stdout or proc.stderr or "")
    if not node_supported(version):
        shown = ".".join(map(str, version))
        raise InstallError(
            f"OpenClaw needs Node >= 24.16 (or >= 26.1); found v{shown} at {node}. "
            "Put a newer node first on PATH (scripts/openclaw-env.sh --print-env shows how)"
        )
    return node


class OpenClawConfig:
    """Reads OpenClaw's config file and patches it through the openclaw CLI."""

    def __init__(self, openclaw: str, run: Runner, node: str = "node") -> None:
        self._bin = openclaw
        self._run = run
        self._node = node
        self.path = Path(self._check([openclaw, "config", "file"]).strip().splitlines()[-1].strip())

    def _check(self, argv: Sequence[str], stdin: str | None = None) -> str:
        proc = self._run(argv, stdin)
        if proc.returncode != 0:
            detail = (proc.stderr or proc.stdout or "").strip()[-800:]
            raise InstallError(
                f"`openclaw {' '.join(argv[1:4])}` failed (exit {proc.returncode}): {detail}"
            )
        return proc.stdout or ""

    def read(self) -> dict[str, Any]:
        """The whole config as a dict ({} when the file does not exist yet)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(text)
        except ValueError:
            data = self._read_json5()
        if not isinstance(data, dict):
            raise InstallError(
                f"{self.path}: expected a JSON5 object at the top, found {type(data).__name__}"
            )
        return data

    def _read_json5(self) -> Any:
        # OpenClaw depends on the json5 package; resolve it from OpenClaw's own install.
        script = (
            "const {createRequire}=require('node:module');const fs=require('node:fs');"
            "const [bin,file]=process.argv.slice(-2);"
            "const JSON5=createRequire(fs.realpathSync(bin))('json5');"
            "process.stdout.write(JSON.stringify(JSON5.parse(fs.readFileSync(file,'utf8'))));"
        )
        argv = [self._node, "-e", script, self._bin, str(self.path)]
        proc = self._run(argv, None)
        if proc.returncode != 0:
            raise InstallError(
                f"{self.path}: not valid JSON5: {(proc.stderr or '').strip()[-400:]}"
            )
        return json.loads(proc.stdout)

    def patch(self, patch: Mapping[str, Any]) -> None:
        """One validated write; objects merge, null deletes."""
        self._check([self._bin, "config", "patch", "--stdin"], json.dumps(patch))

    def command(self, *args: str) -> str:
        return self._check([self._bin, *args])


def _get(data: Mapping[str, Any], dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _put(tree: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, leaf = dotted.split(".")
    for part in parents:
        tree = tree.setdefault(part, {})
    tree[leaf] = value


def _shown(path: str, value: Any) -> str:
    if path.endswith(".token") and value:
        return "'***'"
    return json.dumps(value, ensure_ascii=False)


def _entry(suffix: str) -> str:
    return f"plugins.entries.{PLUGIN_ID}.{suffix}"


def default_user(env: Mapping[str, str] = os.environ) -> str:
    """Whose runs without a channel sender are (web chat, the CLI through the Gateway):
    $OPENCLAW_MEMORY_USER, else the login name of the OS user installing."""
    import getpass

    chosen = (env.get("OPENCLAW_MEMORY_USER") or "").strip()
    if chosen:
        return chosen
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name (a container without a passwd entry)
        return ""


def desired_settings(
    service_url: str, token: str, inject: str, *, user: str = "", token_file: str = ""
) -> dict[str, Any]:
    """Dotted config path -> value the plugin needs."""
    if user and not USER_RE.match(user):
        raise InstallError(
            f"--user: expected 1-128 characters of letters, digits or _.:@+-, found {user!r}"
        )
    if inject not in INJECT_MODES:
        raise InstallError(f"--inject: expected one of {list(INJECT_MODES)}, found {inject!r}")
    if not re.match(r"^https?://", service_url):
        raise InstallError(f"--service-url: expected http://host:port, found {service_url!r}")
    out = {
        _entry("enabled"): True,
        _entry("hooks.allowConversationAccess"): True,
        _entry("config.serviceUrl"): service_url.rstrip("/"),
        _entry("config.token"): token,
        _entry("config.inject"): inject,
        "plugins.slots.memory": PLUGIN_ID,
        f"plugins.entries.{MEMORY_CORE}.enabled": False,
    }
    if token_file:
        out[_entry("config.tokenFile")] = token_file
    if user:
        out[_entry("config.user")] = user
    return out


def plan_patch(
    current: Mapping[str, Any], desired: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The patch that turns current into desired (changed leaves only) and one line per change."""
    patch: dict[str, Any] = {}
    lines = []
    for path, value in desired.items():
        old = _get(current, path)
        if old == value:
            continue
        _put(patch, path, value)
        lines.append(f"set {path}: {_shown(path, old)} -> {_shown(path, value)}")
    return patch, lines


def _ours(path: str, plugin_dir: Path) -> bool:
    """A load path that is this plugin's folder, here or in a removed venv or checkout."""
    if path in {str(plugin_dir), str(plugin_dir.resolve())}:
        return True
    return Path(path).parts[-3:] == ("openclaw_memory", "service", "plugin")


def _linked(current: Mapping[str, Any], plugin_dir: Path) -> bool:
    paths = _get(current, "plugins.load.paths") or []
    mine = {str(plugin_dir), str(plugin_dir.resolve())}
    return any(str(p) in mine for p in paths) and _get(current, _entry("enabled")) is True


def install(
    openclaw_bin: str | Path | None = None,
    *,
    service_url: str = "http://127.0.0.1:8765",
    token: str = "",
    inject: str = "append_system",
    user: str = "",
    token_file: str | Path = "",
    run: Runner | None = None,
    node_bin: str | None = None,
    plugin_dir: Path = PLUGIN_DIR,
) -> InstallReport:
    """Link the plugin into OpenClaw and configure it; idempotent.

    user: the operator, whose runs without a channel sender are (empty: such runs read and
    write no memory). token_file: where the service keeps its token, so the plugin can read
    it again when the token there changes.
    """
    desired = desired_settings(
        service_url, token, inject, user=user, token_file=str(token_file or "")
    )
    run = run or subprocess_runner()
    openclaw = find_openclaw(openclaw_bin)
    node = check_node(run, node_bin)
    if not (plugin_dir / "openclaw.plugin.json").is_file():
        raise InstallError(f"plugin assets missing: expected {plugin_dir}/openclaw.plugin.json")
    oc = OpenClawConfig(openclaw, run, node)
    report = InstallReport("install", oc.path)
    current = oc.read()
    if not _linked(current, plugin_dir):
        oc.command(
            "plugins", "install", "--link", str(plugin_dir), "--force", "--accept-capabilities"
        )
        report.changes.append(
            f"linked plugin {plugin_dir} (plugins.load.paths, {_entry('enabled')})"
        )
        current = oc.read()
    patch, lines = plan_patch(current, desired)
    if patch:
        oc.patch(patch)
        report.changes.extend(lines)
    report.notes.append(
        f"runs without a channel sender (web chat, the CLI) belong to: {user} "
        f"(plugins.entries.{PLUGIN_ID}.config.user; change it with --user)"
        if user
        else "runs without a channel sender (web chat, the CLI) read and write no memory: "
        "run `openclaw-memory openclaw install --user <name>` to give them an owner"
    )
    report.notes.append(
        f"memory slot: plugins.slots.memory = {PLUGIN_ID}; OpenClaw's memory-core (MEMORY.md recall, its "
        "memory_search/memory_get) is off while this plugin holds the slot"
    )
    return report


def uninstall(
    openclaw_bin: str | Path | None = None,
    *,
    run: Runner | None = None,
    node_bin: str | None = None,
    plugin_dir: Path = PLUGIN_DIR,
) -> InstallReport:
    """Remove the plugin and every setting install made; idempotent."""
    run = run or subprocess_runner()
    openclaw = find_openclaw(openclaw_bin)
    node = check_node(run, node_bin)
    oc = OpenClawConfig(openclaw, run, node)
    report = InstallReport("uninstall", oc.path)
    current = oc.read()
    if _get(current, _entry("enabled")) is True or _linked(current, plugin_dir):
        try:
            oc.command("plugins", "uninstall", PLUGIN_ID, "--force")
            report.changes.append(f"uninstalled plugin {PLUGIN_ID} (load path, install record)")
        except InstallError as exc:
            # The plugin's folder may be gone with the venv it lived in: undo the link by hand.
            report.changes.append(
                f"`openclaw plugins uninstall` failed ({str(exc)[:120]}); removing the link directly"
            )
        current = oc.read()
    patch: dict[str, Any] = {}
    paths = _get(current, "plugins.load.paths") or []
    kept = [p for p in paths if not _ours(str(p), plugin_dir)]
    if kept != paths:
        _put(patch, "plugins.load.paths", kept)
        report.changes.append("removed the plugin's folder from plugins.load.paths")
    if _get(current, f"plugins.entries.{MEMORY_CORE}.enabled") is False:
        _put(patch, f"plugins.entries.{MEMORY_CORE}.enabled", None)
        report.changes.append(
            f"re-enabled {MEMORY_CORE} (removed plugins.entries.{MEMORY_CORE}.enabled)"
        )
    if _get(current, f"plugins.entries.{PLUGIN_ID}") is not None:
        _put(patch, f"plugins.entries.{PLUGIN_ID}", None)
        report.changes.append(f"removed plugins.entries.{PLUGIN_ID}")
    if _get(current, "plugins.slots.memory") == PLUGIN_ID:
        _put(patch, "plugins.slots.memory", None)
        report.changes.append(
            "removed plugins.slots.memory (OpenClaw's default memory applies again)"
        )
    if patch:
        oc.patch(patch)
    return report


# The service side of an install: where the memory service keeps its data, token and config.
#
# `prepare_service` fixes a data dir (the same from any working directory), makes or reads the
# token in that dir (service/installer.py; the plugin is given the same one), writes a config file
# naming them, a launcher script that reads the token at start, and a systemd user unit that is
# written, never started. Every step is idempotent.

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
