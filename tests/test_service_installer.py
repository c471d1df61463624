"""The OpenClaw installer against a fake `openclaw` CLI that edits a real config file.

The fake implements the four commands the installer uses (config file, config patch --stdin,
plugins install --link, plugins uninstall) the way OpenClaw 2026.9.6 behaves, plus `node --version`.
One test runs OpenClaw's own json5 parser through node when the cached OpenClaw is installed.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from openclaw_memory.service.installer import (
    PLUGIN_DIR,
    InstallError,
    OpenClawConfig,
    install,
    node_supported,
    parse_node_version,
    plan_patch,
    subprocess_runner,
    uninstall,
)

PLUGIN = "openclaw-memory"


def _merge(into: dict, patch: dict) -> None:
    for key, value in patch.items():
        if value is None:
            into.pop(key, None)
        elif isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


class FakeOpenClaw:
    """Answers the installer's commands; records them; keeps the config in a JSON file."""

    def __init__(self, home: Path, node_version: str = "v24.22.3") -> None:
        self.config = home / ".openclaw" / "openclaw.json"
        self.node_version = node_version
        self.calls: list[list[str]] = []

    def data(self) -> dict:
        return json.loads(self.config.read_text()) if self.config.exists() else {}

    def _save(self, data: dict) -> None:
        self.config.parent.mkdir(parents=True, exist_ok=True)
        self.config.write_text(json.dumps(data, indent=2))

    def __call__(self, argv, stdin):
        argv = list(argv)
        self.calls.append(argv)
        if argv[0].endswith("node"):
            return subprocess.CompletedProcess(argv, 0, self.node_version + "\n", "")
        cmd, data = argv[1:3], self.data()
        if cmd == ["config", "file"]:
            return subprocess.CompletedProcess(argv, 0, f"{self.config}\n", "")
        if cmd == ["config", "patch"]:
            _merge(data, json.loads(stdin))
        elif cmd == ["plugins", "install"]:
            plugins = data.setdefault("plugins", {})
            plugins.setdefault("load", {}).setdefault("paths", []).append(argv[4])
            plugins.setdefault("entries", {})[PLUGIN] = {"enabled": True}
            plugins.setdefault("slots", {})["memory"] = PLUGIN
        elif cmd == ["plugins", "uninstall"]:
            plugins = data["plugins"]
            plugins["load"]["paths"] = [p for p in plugins["load"]["paths"] if "plugin" not in p]
            plugins["entries"][PLUGIN] = {"enabled": False}
            plugins["slots"].pop("memory", None)
        else:
            return subprocess.CompletedProcess(argv, 1, "", f"unknown command {cmd}")
        self._save(data)
        return subprocess.CompletedProcess(argv, 0, "ok\n", "")

    def commands(self) -> list[list[str]]:
        return [c[1:3] for c in self.calls if not c[0].endswith("node")]


@pytest.fixture
def openclaw_bin(tmp_path) -> Path:
    path = tmp_path / "bin" / "openclaw"
    path.parent.mkdir()
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def fake(tmp_path) -> FakeOpenClaw:
    return FakeOpenClaw(tmp_path / "home")


def _install(fake, openclaw_bin, **kw):
    return install(openclaw_bin, run=fake, node_bin="/usr/bin/node", **kw)


def test_install_links_the_plugin_and_sets_what_install_leaves_out(fake, openclaw_bin):
    report = _install(fake, openclaw_bin, service_url="http://127.0.0.1:9999/", token="tok")
    entry = fake.data()["plugins"]["entries"][PLUGIN]
    assert entry["hooks"] == {"allowConversationAccess": True}
    assert entry["config"] == {
        "serviceUrl": "http://127.0.0.1:9999",
        "token": "tok",
        "inject": "append_system",
    }
    assert fake.data()["plugins"]["slots"]["memory"] == PLUGIN
    assert ["plugins", "install"] in fake.commands()
    install_call = next(c for c in fake.calls if c[1:3] == ["plugins", "install"])
    assert install_call[3:] == ["--link", str(PLUGIN_DIR), "--force", "--accept-capabilities"]
    text = report.describe()
    assert "linked plugin" in text and "allowConversationAccess" in text
    assert "tok" not in text.replace("token", "")  # the token itself is never printed


def test_install_twice_reports_no_changes(fake, openclaw_bin):
    _install(fake, openclaw_bin, token="tok")
    before = fake.config.read_text()
    fake.calls.clear()
    report = _install(fake, openclaw_bin, token="tok")
    assert report.changes == []
    assert "no changes" in report.describe()
    assert fake.commands() == [["config", "file"]]  # read only: no install, no patch
    assert fake.config.read_text() == before


def test_install_updates_only_what_differs(fake, openclaw_bin):
    _install(fake, openclaw_bin, token="tok")
    fake.calls.clear()
    report = _install(fake, openclaw_bin, token="tok", inject="prepend_context")
    assert report.changes == [
        f'set plugins.entries.{PLUGIN}.config.inject: "append_system" -> "prepend_context"'
    ]
    assert ["plugins", "install"] not in fake.commands()


def test_install_keeps_other_settings(fake, openclaw_bin):
    fake.config.parent.mkdir(parents=True)
    fake.config.write_text(
        json.dumps(
            {
                "models": {"providers": {"x": {"baseUrl": "u"}}},
                "plugins": {"entries": {"other": {"enabled": True}}},
            }
        )
    )
    _install(fake, openclaw_bin)
    data = fake.data()
    assert data["models"] == {"providers": {"x": {"baseUrl": "u"}}}
    assert data["plugins"]["entries"]["other"] == {"enabled": True}


def test_uninstall_reverses_install_and_is_idempotent(fake, openclaw_bin):
    fake.config.parent.mkdir(parents=True)
    fake.config.write_text(json.dumps({"plugins": {"entries": {"other": {"enabled": True}}}}))
    _install(fake, openclaw_bin, token="tok")
    report = uninstall(openclaw_bin, run=fake, node_bin="/usr/bin/node")
    plugins = fake.data()["plugins"]
    assert PLUGIN not in plugins["entries"] and plugins["entries"]["other"] == {"enabled": True}
    assert "memory" not in plugins.get("slots", {})
    assert not plugins["load"]["paths"]
    assert any("uninstalled" in c for c in report.changes)
    again = uninstall(openclaw_bin, run=fake, node_bin="/usr/bin/node")
    assert again.changes == []


@pytest.mark.parametrize("version", ["v20.20.2", "v24.15.9", "v25.2.0", "v26.0.0"])
def test_install_refuses_an_old_node(fake, openclaw_bin, version):
    fake.node_version = version
    with pytest.raises(InstallError) as err:
        _install(fake, openclaw_bin)
    assert "Node >= 24.16" in str(err.value) and version in str(err.value)
    assert fake.commands() == []


def test_install_refuses_without_openclaw(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(InstallError, match="openclaw was not found on PATH"):
        install(None, run=fake, node_bin="/usr/bin/node")
    with pytest.raises(InstallError, match="expected an executable file"):
        install(tmp_path / "nope", run=fake, node_bin="/usr/bin/node")


@pytest.mark.parametrize(
    "kw,field",
    [({"inject": "system"}, "--inject"), ({"service_url": "127.0.0.1:8765"}, "--service-url")],
)
def test_install_rejects_bad_options(fake, openclaw_bin, kw, field):
    with pytest.raises(InstallError, match=field):
        _install(fake, openclaw_bin, **kw)
    assert fake.calls == []


def test_a_failing_openclaw_command_is_reported(fake, openclaw_bin):
    def broken(argv, stdin):
        if list(argv[1:3]) == ["plugins", "install"]:
            return subprocess.CompletedProcess(argv, 3, "", "install policy blocked it")
        return fake(argv, stdin)

    with pytest.raises(InstallError, match="exit 3.*install policy blocked it"):
        install(openclaw_bin, run=broken, node_bin="/usr/bin/node")


@pytest.mark.parametrize(
    "text,expected",
    [("v24.22.3", (24, 22, 3)), ("v24.16.0\n", (24, 16, 0)), ("26.1.2", (26, 1, 2))],
)
def test_parse_node_version(text, expected):
    assert parse_node_version(text) == expected


@pytest.mark.parametrize(
    "version,ok",
    [
        ((24, 16, 0), True),
        ((24, 22, 3), True),
        ((24, 15, 9), False),
        ((25, 9, 0), False),
        ((26, 0, 5), False),
        ((26, 1, 0), True),
        ((27, 0, 0), True),
        ((20, 20, 2), False),
    ],
)
def test_node_supported(version, ok):
    assert node_supported(version) is ok


def test_plan_patch_touches_changed_leaves_only():
    current = {
        "plugins": {"slots": {"memory": PLUGIN}, "entries": {PLUGIN: {"config": {"token": "a"}}}}
    }
    desired = {"plugins.slots.memory": PLUGIN, f"plugins.entries.{PLUGIN}.config.token": "b"}
    patch, lines = plan_patch(current, desired)
    assert patch == {"plugins": {"entries": {PLUGIN: {"config": {"token": "b"}}}}}
    assert lines == [f"set plugins.entries.{PLUGIN}.config.token: '***' -> '***'"]


def _cached_openclaw() -> tuple[Path, Path] | None:
    cache = Path(os.environ.get("OPENCLAW_CACHE", Path.home() / ".cache" / "openclaw-memory"))
    openclaw = cache / "openclaw" / "node_modules" / ".bin" / "openclaw"
    nodes = sorted((cache / "node" / "node_modules").glob("node-linux-*/bin/node"))
    return (openclaw, nodes[0]) if openclaw.exists() and nodes else None


@pytest.mark.skipif(
    _cached_openclaw() is None, reason="needs scripts/openclaw-env.sh (OpenClaw's json5)"
)
def test_json5_config_is_read_with_openclaws_parser(tmp_path):
    openclaw, node = _cached_openclaw()
    config = tmp_path / "openclaw.json"
    config.write_text(
        "// JSON5: comments, unquoted keys, trailing commas\n"
        "{plugins: {slots: {memory: 'openclaw-memory',},}, note: '花生',}\n"
    )

    class Reader(OpenClawConfig):
        def __init__(self) -> None:  # skip `openclaw config file` (4 s): read our file
            self._bin, self._run, self._node, self.path = (
                str(openclaw),
                subprocess_runner(60),
                str(node),
                config,
            )

    assert Reader().read() == {"plugins": {"slots": {"memory": "openclaw-memory"}}, "note": "花生"}


def test_install_turns_memory_core_off_says_so_and_uninstall_turns_it_back_on(fake, openclaw_bin):
    report = _install(fake, openclaw_bin, token="tok")
    assert fake.data()["plugins"]["entries"]["memory-core"] == {"enabled": False}
    assert "memory slot: plugins.slots.memory = openclaw-memory" in report.describe()
    assert "memory-core" in report.describe() and "is off" in report.describe()
    uninstall(openclaw_bin, run=fake, node_bin="/usr/bin/node")
    assert "enabled" not in fake.data()["plugins"]["entries"].get("memory-core", {})


def test_uninstall_works_when_the_plugin_folder_is_gone(fake, openclaw_bin, tmp_path):
    gone = tmp_path / "venv" / "lib" / "site-packages" / "openclaw_memory" / "service" / "plugin"
    fake.config.parent.mkdir(parents=True)
    fake.config.write_text(
        json.dumps(
            {
                "plugins": {
                    "load": {"paths": [str(gone), "/opt/other"]},
                    "slots": {"memory": PLUGIN},
                    "entries": {
                        PLUGIN: {"enabled": True, "config": {"token": "t"}},
                        "memory-core": {"enabled": False},
                    },
                }
            }
        )
    )

    def broken_uninstall(argv, stdin):
        if list(argv)[1:3] == ["plugins", "uninstall"]:
            return subprocess.CompletedProcess(argv, 1, "", f"plugin manifest not found in {gone}")
        return fake(argv, stdin)

    report = uninstall(openclaw_bin, run=broken_uninstall, node_bin="/usr/bin/node")
    plugins = fake.data()["plugins"]
    assert plugins["load"]["paths"] == ["/opt/other"]
    assert "memory" not in plugins.get("slots", {}) and PLUGIN not in plugins["entries"]
    assert any("removing the link directly" in c for c in report.changes)


def test_prepare_service_fixes_the_data_dir_shares_the_token_and_writes_a_unit(tmp_path):
    from openclaw_memory.config import load_config
    from openclaw_memory.service.installer import prepare_service
    from openclaw_memory.service.installer import read_token

    env = {"HOME": str(tmp_path / "home")}
    setup = prepare_service(env=env, python="/venv/bin/python")
    assert setup.data_dir == tmp_path / "home" / ".local" / "share" / "openclaw-memory"
    assert load_config(setup.config_file).data_dir == setup.data_dir  # from any working dir
    assert setup.data_dir.stat().st_mode & 0o777 == 0o700
    assert setup.token and read_token(setup.data_dir) == setup.token
    assert setup.token_file.stat().st_mode & 0o777 == 0o600
    launcher = setup.config_file.parent / "serve.sh"
    assert setup.token not in launcher.read_text() and "service.token" in launcher.read_text()
    assert (
        setup.unit_file.read_text().count("ExecStart=") == 1
        and setup.token not in setup.unit_file.read_text()
    )
    again = prepare_service(env=env, python="/venv/bin/python")
    assert again.token == setup.token and again.data_dir == setup.data_dir
    notes = "\n".join(again.notes())
    assert str(setup.data_dir) in notes and "not started" in notes and setup.token not in notes
    given = prepare_service(
        tmp_path / "other.yaml", tmp_path / "d2", token="chosen", unit=False, env=env
    )
    assert read_token(tmp_path / "d2") == "chosen" and given.unit_file is None


def test_install_keeps_the_operator_and_the_token_file_in_the_plugins_config(fake, openclaw_bin):
    """A gateway restarted from a shell without $OPENCLAW_MEMORY_USER still knows whose runs
    without a channel sender are, and where the service's token is."""
    report = _install(fake, openclaw_bin, token="tok", user="mei", token_file="/data/service.token")
    config = fake.data()["plugins"]["entries"][PLUGIN]["config"]
    assert config["user"] == "mei" and config["tokenFile"] == "/data/service.token"
    assert "belong to: mei" in report.describe()
    again = _install(fake, openclaw_bin, token="tok", user="mei", token_file="/data/service.token")
    assert again.changes == []


def test_install_without_a_user_says_what_to_run(fake, openclaw_bin):
    report = _install(fake, openclaw_bin, token="tok", user="")
    assert "user" not in fake.data()["plugins"]["entries"][PLUGIN]["config"]
    assert "openclaw-memory openclaw install --user <name>" in report.describe()


@pytest.mark.parametrize("user", ["has space", "a/b", "x" * 129])
def test_install_rejects_a_user_id_the_service_would_refuse(fake, openclaw_bin, user):
    with pytest.raises(InstallError, match="--user: expected 1-128 characters"):
        _install(fake, openclaw_bin, token="tok", user=user)
    assert not fake.config.exists()  # nothing written


def test_the_default_operator_is_the_env_user_else_the_login_name():
    import getpass

    from openclaw_memory.service.installer import default_user

    assert default_user({"OPENCLAW_MEMORY_USER": " mei "}) == "mei"
    assert default_user({}) == getpass.getuser()
