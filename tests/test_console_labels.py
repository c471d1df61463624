"""The console for people: the default list shows what the agent knows, the raw turns one filter
away, and no page shows a store word ("implicit", "after_response", "episode", "inactive"...)
without plain words for it, from the one label table (console/base.py)."""

from __future__ import annotations

import re

import httpx
import pytest

from console_helpers import ALICE, TOKEN, console_app
from openclaw_memory.console.base import KNOWN_TYPES
from openclaw_memory.console.base import LABELS
from openclaw_memory.console.base import RAW_TYPES
from openclaw_memory.console.base import explain
from openclaw_memory.console.base import label
from openclaw_memory.console import LiveServer
from openclaw_memory.types import Channel, MemoryType, Status


@pytest.fixture
def live(make_config, tmp_path):
    app, mw, ids = console_app(make_config(tmp_path / "store"))
    with LiveServer(app) as url:
        yield url, mw, ids
    mw.close()


@pytest.fixture
def client(live):
    with httpx.Client(base_url=live[0], follow_redirects=False) as c:
        assert c.get("/ui/login", params={"token": TOKEN}).status_code == 303
        yield c


def _visible(html: str) -> str:
    """The page's text as a person reads it: no tags, no attribute values, and not the Why
    page's folded copy of the command line's table (`search --explain`, shown as it prints)."""
    html = re.sub(r'<pre class="table">.*?</pre>', " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_default_list_is_what_the_agent_knows_and_raw_turns_are_one_filter_away(live, client):
    url, mw, ids = live
    known = client.get("/ui/memories?user=alice&agent=main").text
    raw_link = re.search(r'id="show-raw" href="([^"]+)"', known).group(1).replace("&amp;", "&")
    raw = client.get(raw_link).text
    everything = client.get("/ui/memories?user=alice&agent=main&type=").text
    for name in ("tea", "peanut", "job"):
        assert ids[name] in known
    assert ids["episode"] not in known
    assert ids["episode"] in raw and ids["tea"] not in raw
    assert all(ids[n] in everything for n in ("tea", "peanut", "job", "episode"))
    assert "What the agent knows" in _visible(known)


def test_no_page_shows_a_store_word_bare(live, client):
    url, mw, ids = live
    who = "user=alice&agent=main"
    pages = [
        "/ui/",
        f"/ui/memories?{who}",
        f"/ui/memories?{who}&type=raw&status=all",
        f"/ui/memory/{ids['tea']}?{who}",
        f"/ui/memory/{ids['peanut']}?{who}",
        f"/ui/memory/{ids['episode']}?{who}",
        f"/ui/why?{who}&q=peanuts",
    ]
    bare = re.compile(
        r"\b(implicit|explicit|after_response|save-hook|summary-hook|episode|inactive|"
        r"deactivate|insert)\b"
    )
    for path in pages:
        resp = client.get(path)
        assert resp.status_code == 200, path
        text = _visible(resp.text)
        # memory texts may say anything; the page's own words may not be store words
        for r in mw.engine.store.listing(ALICE, status=None, type_=None, limit=50):
            text = text.replace(r.summary, " ")
        assert not bare.findall(text), (path, bare.findall(text))


def test_every_type_status_and_channel_has_plain_words_and_an_explanation():
    for kind, words in (
        ("type", [t.value for t in MemoryType]),
        ("status", [s.value for s in Status]),
        ("channel", [c.value for c in Channel]),
    ):
        for word in words:
            assert word in LABELS[kind], (kind, word)
            assert label(word, kind) != word and word in explain(word, kind)
    assert set(KNOWN_TYPES) | set(RAW_TYPES) == {t.value for t in MemoryType}
    assert MemoryType.EPISODE.value in RAW_TYPES and "summary" in KNOWN_TYPES
    assert label("after_response", "writer") == "Captured after a reply"
    assert "store's own word" in explain("brand-new-word", "writer")  # shown, never hidden
