"""Install the JavaScript plugin into a local OpenClaw and point it at the memory service.

OpenClaw keeps its config in `$HOME/.openclaw/openclaw.json` (JSON5). We never write that file
ourselves: `openclaw plugins install --link` registers the plugin, and `openclaw config patch`
(one validated write) sets what install leaves out:

    plugins.entries.openclaw-memory.hooks.allowConversationAccess = true   (else every
        conversation hook of a non-bundled plugin is silently blocked)
    plugins.entries.openclaw-memory.config = {serviceUrl, token, tokenFile, user, inject}
        (everything the plugin needs to reach the service and to know whose runs without a
        channel sender are: a gateway restarted from any shell keeps memory, with no
        environment variable)
    plugins.slots.memory = "openclaw-memory"
    plugins.entries.memory-core.enabled = false   (its tools would clash with ours by name, and
        OpenClaw would log an ERROR for it on every run; its recall is off anyway once the
        memory slot is ours)

The service side the plugin talks to (its data dir, token, config file and user unit) is set up
by `service/setup.py`.

Reading is done from the file (plain JSON first, OpenClaw's own json5 package through node when
that fails), because `openclaw config get` redacts secrets such as the token. Both operations are
idempotent: a second run reports no changes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..errors import OpenClawMemoryError

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
