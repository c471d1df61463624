"""Which store a command looks at: `--config`, else the installed config, never a silent ./data.
And `ui` with a service already running: that service's console, with the token it takes."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from openclaw_memory.cli import main
from openclaw_memory.middleware import MemoryMiddleware
from openclaw_memory.service.app import create_app
from openclaw_memory.service.server import build_server
from openclaw_memory.service.installer import token_path
from openclaw_memory.types import Scope


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A user's machine: an empty working dir, XDG_CONFIG_HOME of its own, no token in env."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("OPENCLAW_MEMORY_TOKEN", raising=False)
    return tmp_path


def _config(path, data_dir, port=None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    service = f"service:\n  port: {port}\n" if port else ""
    path.write_text(
        f'storage:\n  data_dir: "{data_dir}"\n  embedding_model: hash\n{service}', encoding="utf-8"
    )


def _remember(data_dir, text: str) -> None:
    mw = MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(data_dir), "embedding_model": "hash"}}
    )
    try:
        mw.remember(Scope("mei", "main"), text)
    finally:
        mw.close()


def test_list_and_search_find_the_installed_config(home, capsys):
    data = home / "share" / "openclaw-memory"
    _config(home / "xdg" / "openclaw-memory" / "memory.yaml", data)
    _remember(data, "我对花生过敏")
    assert main(["list", "--user", "mei"]) == 0
    assert "花生" in capsys.readouterr().out
    assert main(["search", "--user", "mei", "花生"]) == 0
    assert "花生" in capsys.readouterr().out
    assert not (home / "work" / "data").exists()


def test_without_any_config_a_command_refuses_to_make_a_store_and_names_config(home, capsys):
    assert main(["list", "--user", "mei"]) == 2
    err = capsys.readouterr().err
    assert "--config" in err and "openclaw-memory openclaw install" in err
    assert not (home / "work" / "data").exists()


def test_a_config_whose_store_is_new_says_so(home, capsys):
    config = home / "project.yaml"
    _config(config, home / "fresh")
    assert main(["--config", str(config), "list", "--user", "mei"]) == 0
    assert "starting a new, empty memory store" in capsys.readouterr().err


def test_a_missing_config_file_is_named(home, capsys):
    assert main(["--config", str(home / "nope.yaml"), "list", "--user", "mei"]) == 2
    assert "--config: expected a YAML config file" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def running(home):
    """The installed service, running: its config, data dir and token file."""
    data = home / "share" / "openclaw-memory"
    port = _free_port()
    _config(home / "xdg" / "openclaw-memory" / "memory.yaml", data, port)
    data.mkdir(parents=True)
    token_path(data).write_text("the-service-token\n")
    mw = MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(data), "embedding_model": "hash"}}
    )
    server = build_server(create_app(mw, token="the-service-token"), host="127.0.0.1", port=port)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield data, port
    server.should_exit = True
    thread.join(timeout=10)
    mw.close()


def test_ui_opens_the_console_of_the_running_service_with_its_token(running, capsys):
    data, port = running
    assert main(["ui"]) == 0
    out = capsys.readouterr().out
    assert f"http://127.0.0.1:{port}/ui/login?token=the-service-token" in out
    assert token_path(data).read_text().strip() == "the-service-token"  # no token minted


def test_ui_says_so_when_the_running_service_refuses_the_token(running, capsys, monkeypatch):
    monkeypatch.setenv("OPENCLAW_MEMORY_TOKEN", "another-token")
    assert main(["ui"]) == 2
    err = capsys.readouterr().err
    assert "refuses the token from $OPENCLAW_MEMORY_TOKEN" in err and "--config" in err
