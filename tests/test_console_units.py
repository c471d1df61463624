"""The console's door helpers and its `ui` command, table-driven."""

from __future__ import annotations

import pytest

from openclaw_memory.cli import _parser
from openclaw_memory.console import console_url
from openclaw_memory.console.pages import Filters
from openclaw_memory.console.base import RefusedError
from openclaw_memory.console.base import Sessions
from openclaw_memory.console.base import check_host
from openclaw_memory.console.base import check_same_origin
from openclaw_memory.errors import ValidationError
from openclaw_memory.service.guard import allowed_hosts


@pytest.mark.parametrize(
    "header, ok",
    [
        ("127.0.0.1:1", True),
        ("localhost:9", True),
        ("[::1]:2", True),
        ("10.0.0.5:8765", True),
        ("memory.lan:8765", True),
        ("[fd00::5]:8765", True),
        ("evil.com", False),
        ("127.0.0.1.evil.com", False),
        ("", False),
        (None, False),
    ],
)
def test_console_host_check_is_the_service_allow_list(header, ok):
    """The console asks service/guard.py's allow-list (the set the service's guard checks)."""
    hosts = allowed_hosts("10.0.0.5", ["memory.lan", "fd00::5"])
    if ok:
        check_host(header, hosts)
    else:
        with pytest.raises(RefusedError) as exc:
            check_host(header, hosts)
        assert exc.value.status == 421


@pytest.mark.parametrize(
    "headers, ok",
    [
        ({"host": "127.0.0.1:8"}, True),
        (
            {
                "host": "127.0.0.1:8",
                "sec-fetch-site": "same-origin",
                "origin": "http://127.0.0.1:8",
            },
            True,
        ),
        ({"host": "127.0.0.1:8", "sec-fetch-site": "none"}, True),
        ({"host": "127.0.0.1:8", "sec-fetch-site": "same-site"}, False),
        ({"host": "127.0.0.1:8", "sec-fetch-site": "cross-site"}, False),
        ({"host": "127.0.0.1:8", "origin": "http://127.0.0.1:9"}, False),
        ({"host": "127.0.0.1:8", "origin": "https://127.0.0.1:8"}, False),
        ({"host": "127.0.0.1:8", "origin": "null"}, False),
    ],
)
def test_same_origin(headers, ok):
    if ok:
        check_same_origin(headers, "http")
    else:
        with pytest.raises(RefusedError):
            check_same_origin(headers, "http")


def test_sessions_expire_and_never_accept_an_empty_token():
    now = [0.0]
    s = Sessions("tok", clock=lambda: now[0])
    sid, csrf = s.open()
    assert (
        s.csrf_for(sid) == csrf
        and s.token_ok("tok")
        and not s.token_ok("to")
        and not s.token_ok(None)
    )
    now[0] += 13 * 3600
    assert s.csrf_for(sid) is None
    assert not Sessions("").token_ok("")


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"type": "nope"}, "type"),
        ({"status": "gone"}, "status"),
        ({"sort": "importance"}, "sort"),
        ({"order": "up"}, "order"),
        ({"date_from": "01/02/2024"}, "date_from"),
    ],
)
def test_filters_name_the_bad_field(kwargs, field):
    with pytest.raises(ValidationError, match=field):
        Filters(**kwargs)


def test_ui_command_and_its_address():
    args = _parser().parse_args(["ui", "--port", "9999"])
    assert args.func.__name__ == "run_ui" and args.port == 9999
    assert (
        console_url("127.0.0.1", 8765, "a/b+c") == "http://127.0.0.1:8765/ui/login?token=a%2Fb%2Bc"
    )
    assert console_url("::1", 1, "t").startswith("http://[::1]:1/ui/")
