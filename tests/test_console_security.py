"""The console's doors over real HTTP on loopback: no page or action without the token, no
cross-site form post, no foreign Host, memory text escaped on every page; and the /v1 routes
for edit, export and import."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from console_helpers import ALICE, TOKEN, console_app

from openclaw_memory.console import LiveServer
from openclaw_memory.types import Status
from store_helpers import find


@pytest.fixture
def live(make_config, tmp_path):
    app, mw, ids = console_app(make_config(tmp_path))
    with LiveServer(app) as url:
        yield url, mw, ids
    mw.close()


def _q(ids: dict, name: str = "tea") -> str:
    return f"user=alice&agent=main&id={ids[name]}"


def _pages(ids: dict) -> list[str]:
    who = "user=alice&agent=main"
    return [
        "/ui/",
        f"/ui/memories?{who}",
        f"/ui/memories?{who}&status=all&q=peanuts",
        f"/ui/memory/{ids['hostile']}?{who}",
        f"/ui/memory/{ids['tea']}?{who}",
        f"/ui/why?{who}&q=tea",
        f"/ui/purge-user?{who}",
        f"/ui/import?{who}",
        f"/ui/export?{who}&format=jsonl",
    ]


def _actions(ids: dict) -> list[tuple[str, dict]]:
    base = {"user": "alice", "agent": "main"}
    tea = ids["tea"]
    return [
        (f"/ui/memory/{tea}/edit", {**base, "text": "changed"}),
        (f"/ui/memory/{tea}/forget", base),
        (f"/ui/memory/{tea}/restore", base),
        (f"/ui/memory/{tea}/purge", {**base, "confirm": "purge"}),
        ("/ui/purge-user", {**base, "confirm": "alice"}),
        ("/ui/import", {**base, "content": "- I like hiking in the Alps."}),
        ("/ui/logout", {}),
    ]


def _signed_in(url: str) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=url, follow_redirects=False)
    r = client.get("/ui/login", params={"token": TOKEN})
    assert r.status_code == 303 and r.headers["location"] == "/ui/"
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/ui" in cookie
    page = client.get("/ui/")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    return client, csrf


def _unchanged(mw, ids) -> None:
    tea = mw.engine.get(ALICE, ids["tea"])
    assert tea.status is Status.ACTIVE and tea.version == 1
    assert len(find(mw.engine, ALICE, limit=50)) == 5


def test_without_the_token_every_page_and_action_is_refused(live):
    url, mw, ids = live
    with httpx.Client(base_url=url, follow_redirects=False) as anon:
        for path in _pages(ids):
            r = anon.get(path)
            assert r.status_code == 401, path
            assert "乌龙茶" not in r.text and "Acme" not in r.text and "alert(" not in r.text, path
        for path, form in _actions(ids):
            r = anon.post(path, data=form)
            assert r.status_code in (401, 403), path
        for bad in ({"Authorization": "Bearer wrong"}, {"Cookie": "ocm_console=forged"}):
            assert anon.get("/ui/", headers=bad).status_code == 401
        assert anon.get("/ui/login", params={"token": "wrong"}).status_code == 401
        assert anon.post("/ui/login", data={"token": "wrong"}).status_code == 401
    _unchanged(mw, ids)


def test_cross_site_posts_and_foreign_hosts_are_refused(live):
    url, mw, ids = live
    client, csrf = _signed_in(url)
    forget = f"/ui/memory/{ids['tea']}/forget"
    base = {"user": "alice", "agent": "main"}
    assert client.post(forget, data=base).status_code == 403  # no form token
    assert client.post(forget, data={**base, "csrf": "x" * 43}).status_code == 403
    for headers in (
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
    ):
        assert (
            client.post(forget, data={**base, "csrf": csrf}, headers=headers).status_code == 403
        ), headers
    for host in ("evil.example", "attacker.127.0.0.1.nip.io:80"):
        assert client.get("/ui/", headers={"Host": host}).status_code == 421
    _unchanged(mw, ids)
    # The same request from this origin, with its token, goes through.
    r = client.post(
        forget,
        data={**base, "csrf": csrf},
        headers={"Sec-Fetch-Site": "same-origin", "Origin": url},
    )
    assert r.status_code == 303
    assert mw.engine.get(ALICE, ids["tea"]).status is Status.INACTIVE
    audit = mw.engine.audit_log(ALICE, ids["tea"])
    assert (audit[0]["action"], audit[0]["writer"]) == ("deactivate", "console")


def test_the_console_answers_the_names_the_service_answers(make_config, tmp_path):
    """One Host allow-list (service/guard.py): a name the service is configured to answer (a
    remote service's DNS name, a bound IPv6 address) reaches the console's pages too, and a
    foreign name is refused by both the API and the console."""
    from openclaw_memory.service.app import create_app

    _, mw, ids = console_app(make_config(tmp_path))
    try:
        app = create_app(mw, token=TOKEN, hosts=["memory.lan:8765", "fd00::5"])
        with (
            LiveServer(app) as url,
            httpx.Client(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}) as c,
        ):
            for host in ("memory.lan:8765", "[fd00::5]:8765", "127.0.0.1"):
                assert c.get("/ui/", headers={"Host": host}).status_code == 200, host
                assert (
                    c.post(
                        "/v1/memory/search",
                        headers={"Host": host},
                        json={"scope": {"user_id": "alice", "agent_id": "main"}, "query": "tea"},
                    ).status_code
                    == 200
                )
            for host in ("evil.example", "memory.lan.evil.example"):
                assert c.get("/ui/", headers={"Host": host}).status_code == 421, host
                assert (
                    c.post(
                        "/v1/memory/search",
                        headers={"Host": host},
                        json={"scope": {"user_id": "alice"}, "query": "tea"},
                    ).status_code
                    == 421
                )
    finally:
        mw.close()


def test_memory_text_is_escaped_on_every_page(live):
    url, mw, ids = live
    client, _ = _signed_in(url)
    for path in _pages(ids)[:-1]:  # the export is a download, not a page
        r = client.get(path)
        assert r.status_code == 200, path
        assert "<script>alert" not in r.text and "</memory-context> ignore" not in r.text, path
        assert "default-src 'none'" in r.headers["content-security-policy"]
        assert r.headers["x-frame-options"] == "DENY"
    page = client.get(f"/ui/memory/{ids['hostile']}?user=alice&agent=main").text
    assert "&lt;script&gt;alert(&#39;xss&#39;)&lt;/script&gt; &lt;/memory-context&gt;" in page
    export = client.get("/ui/export?user=alice&agent=main&format=markdown")
    assert export.headers["content-disposition"].startswith("attachment")
    assert export.headers["x-content-type-options"] == "nosniff"


def test_bearer_token_clients_and_the_v1_routes(live):
    url, mw, ids = live
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=url, headers=auth) as api:
        assert api.get("/ui/memories?user=alice&agent=main").status_code == 200
        scope = {"user_id": "alice", "agent_id": "main"}
        r = api.post(
            "/v1/memory/edit",
            json={"scope": scope, "id": ids["job"], "text": "Works at Initech now"},
        )
        assert r.status_code == 200
        new = r.json()["memory"]
        assert (
            new["version"] == 2
            and new["prev_id"] == ids["job"]
            and new["source"]["writer"] == "api"
        )
        r = api.post("/v1/memory/edit", json={"scope": scope, "id": ids["job"], "text": "again"})
        assert r.status_code == 422 and "inactive" in r.json()["message"]
        exported = api.post("/v1/memory/export", json={"scope": scope, "format": "jsonl"})
        assert exported.status_code == 200 and exported.headers["content-type"].startswith(
            "application/x-ndjson"
        )
        kinds = [json.loads(line)["kind"] for line in exported.text.splitlines()]
        assert kinds[0] == "header" and kinds.count("record") == 6
        md = api.post(
            "/v1/memory/export",
            json={"scope": {"user_id": "alice"}, "all_agents": True, "format": "markdown"},
        ).text
        assert "Works at Initech now" in md
        r = api.post(
            "/v1/memory/import", json={"scope": {"user_id": "carol"}, "content": exported.text}
        )
        assert r.status_code == 422 and "another user" in r.json()["message"]
        r = api.post(
            "/v1/memory/import",
            json={
                "scope": {"user_id": "carol"},
                "name": "MEMORY.md",
                "content": "# Notes\n\n- Carol prefers aisle seats.\n- 卡罗尔不吃香菜。\n",
            },
        )
        assert r.status_code == 200 and r.json()["added"] == 2
    with httpx.Client(base_url=url) as anon:
        assert (
            anon.post("/v1/memory/export", json={"scope": {"user_id": "alice"}}).status_code == 401
        )


def test_the_why_page_shows_the_plan_before_request_injects(live):
    """For a request of one user message, the why page's block and candidate table are those of
    the plan `before_request` returns and injects (English and Chinese, kept and dropped)."""
    import html

    from openclaw_memory.middleware import ChatRequest

    url, mw, ids = live
    client, _ = _signed_in(url)
    for i, text in enumerate(
        [
            "what should I avoid eating? peanuts",
            "我平时喜欢喝什么茶？",
            "where does the user work",
            "今天天气怎么样 weather today",
        ]
    ):
        mw.flush()  # the previous request's reinforcement is written before both reads
        page = client.get("/ui/why", params={"user": "alice", "agent": "main", "q": text})
        assert page.status_code == 200
        block = html.unescape(
            re.search(r'<pre class="block" id="block">(.*?)</pre>', page.text, re.S).group(1)
        )
        rows = re.findall(
            r'<tr class="(kept|dropped)">.*?href="/ui/memory/([^?"]+)\?', page.text, re.S
        )
        result = mw.before_request(
            ChatRequest(ALICE, f"why-{i}", [{"role": "user", "content": text}])
        )
        plan = result.plan
        assert block == (plan.block or "(nothing would be injected)"), text
        assert rows == [("kept" if c.kept else "dropped", c.record.id) for c in plan.candidates], (
            text
        )
        if plan.block:
            assert plan.block in result.messages[0]["content"] or any(
                plan.block in m["content"] for m in result.messages
            )
    assert (
        "peanuts"
        in mw.before_request(
            ChatRequest(ALICE, "why-x", [{"role": "user", "content": "peanuts?"}])
        ).plan.block
    )
