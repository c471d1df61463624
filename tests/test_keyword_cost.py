"""The keyword channel scores at most KEYWORD_SCORED matches of a request: below that it is the
plain BM25 query; above it, the matches are shared among the terms rarest first (a rare term's
all, the commoner terms' newest), each keeping its exact BM25 score."""

from __future__ import annotations

import pytest

from openclaw_memory.store import inspect
from openclaw_memory.store import records as rec
from openclaw_memory.store.sqlite import dialect as fts
from openclaw_memory.store.schema import scope_token
from openclaw_memory.lang.text import fts_query
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import forget_in, writer_of

ALICE, BOB = Scope("alice"), Scope("bob")
#: the SQLite store's own keyword query against FTS5's bm25()
pytestmark = pytest.mark.real_store("SQLite's keyword query and FTS5's BM25")

#: a common word in every memory, a rarer one in some, and a rare one in the oldest two
EN = ["coffee", "oat milk", "Lisbon"]
ZH = ["咖啡", "燕麦奶", "杭州"]


def _stock(engine, words):
    common, some, rare = words
    texts = []
    for i in range(24):
        parts = [common, f"note {i}"]
        if i % 3 == 0:
            parts.append(some)
        if i < 2:
            parts.append(rare)
        if i % 5 == 0:
            parts.append(common)  # twice: a higher term frequency
        texts.append(" ".join(parts))
    for scope in (ALICE, BOB):
        writer_of(engine).write(scope, [Candidate(MemoryType.FACT, t) for t in texts])
    return texts


def _every_match(store, scope, text, statuses=("active",)):
    """The query before the cap: BM25 of every match, best first (id -> score, in order)."""
    sql, args = rec._scope_sql(scope, "r")
    scoped = (
        f"scope : {scope_token(scope.user_id, scope.agent_id)} AND tokens : ({fts_query(text)})"
    )
    marks = ",".join("?" * len(statuses))
    rows = inspect.rows(
        store,
        f"SELECT r.id, -bm25(records_fts, 1.0, 0.0) FROM records_fts "
        f"JOIN records r ON r.rid = records_fts.rowid "
        f"WHERE records_fts MATCH ? AND {sql} AND r.status IN ({marks}) "
        f"ORDER BY bm25(records_fts, 1.0, 0.0)",
        (scoped, *args, *statuses),
    )
    return [(r[0], float(r[1])) for r in rows]


def _rid(store, record_id):
    return inspect.select(store, "records", ("rid",), id=record_id)[0]["rid"]


@pytest.mark.parametrize("words", [EN, ZH], ids=["en", "zh"])
def test_under_the_cap_every_match_is_scored_as_before(engine, words):
    common, some, rare = words
    _stock(engine, words)
    with engine.db.read() as db:
        for text in (common, f"{some} {rare}", f"{common} {some} {rare}"):
            want = _every_match(engine.store, ALICE, text)
            assert rec.keyword_search(db, ALICE, text, limit=30) == want[:30]
            assert rec.keyword_search(db, ALICE, text, limit=4) == want[:4]


@pytest.mark.parametrize("words", [EN, ZH], ids=["en", "zh"])
def test_over_the_cap_the_terms_share_it_rarest_first(engine, words, monkeypatch):
    common, some, rare = words
    _stock(engine, words)
    monkeypatch.setattr(fts, "KEYWORD_SCORED", 8)
    text = f"{common} {some} {rare}"
    with engine.db.read() as db:
        exact = dict(_every_match(engine.store, ALICE, text))
        got = rec.keyword_search(db, ALICE, text, limit=30)
        ids = [i for i, _ in got]
        # the same BM25 as the uncapped query, best first
        assert all(exact[i] == s for i, s in got)
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
        # which rows: eight at most; the rare term's two (the oldest memories) all, then the
        # rarer phrase's two terms (oat, milk / 燕麦, 奶: the same eight memories) the newest
        # two each (a third of the six left, then half of the four left), then the common
        # term's newest two (by insertion: row id)
        rows = {_rid(engine.store, i) for i in ids}
        newest = {
            term: sorted(
                (_rid(engine.store, i) for i, _ in _every_match(engine.store, ALICE, term)),
                reverse=True,
            )
            for term in (common, some, rare)
        }
        assert [len(newest[t]) for t in (rare, some, common)] == [2, 8, 24]
        assert rows == {*newest[rare], *newest[some][:2], *newest[common][:2]}
        assert len(ids) < len(exact)  # the other memories are not scored
        # bob's memories hold the same words: the cap counts alice's matches only
        assert all(i in exact for i in ids)


def test_the_cap_keeps_statuses_and_limit(engine, monkeypatch):
    texts = _stock(engine, EN)
    monkeypatch.setattr(fts, "KEYWORD_SCORED", 5)
    with engine.db.read() as db:
        newest = max(
            (i for i, _ in _every_match(engine.store, ALICE, "coffee")),
            key=lambda i: _rid(engine.store, i),
        )
    forget_in(engine, ALICE, newest)
    with engine.db.read() as db:
        got = rec.keyword_search(db, ALICE, "coffee", limit=3)
        assert len(got) == 3 and newest not in [i for i, _ in got]
        # four of the five newest are still active
        assert len(rec.keyword_search(db, ALICE, "coffee", limit=30)) == 4
    assert len(texts) == 24


def test_a_scope_under_the_cap_does_not_count_matches(engine, monkeypatch):
    """A scope of KEYWORD_SCORED records or fewer cannot match more: its matches are not
    counted; one record more and they are."""
    _stock(engine, EN)
    counted = []
    newest = fts._newest_matches
    monkeypatch.setattr(fts, "_newest_matches", lambda *a: counted.append(a) or newest(*a))
    with engine.db.read() as db:
        assert rec.keyword_search(db, ALICE, "coffee", limit=30) == _every_match(
            engine.store, ALICE, "coffee"
        )
        assert fts._scope_rows(db, ALICE) == 24 and not counted
        monkeypatch.setattr(fts, "KEYWORD_SCORED", 23)
        assert len(rec.keyword_search(db, ALICE, "coffee", limit=30)) == 23 and counted


@pytest.mark.parametrize("words", [EN, ZH], ids=["en", "zh"])
def test_the_terms_union_decides_whether_the_cap_applies(engine, words, monkeypatch):
    """Each term's matches are read once: under the cap each, the cap applies when their union
    is over it (the rarer phrase's eight and the rare term's two share one memory: nine)."""
    _, some, rare = words
    _stock(engine, words)
    text = f"{some} {rare}"
    with engine.db.read() as db:
        every = _every_match(engine.store, ALICE, text)
        assert len(every) == 9
        monkeypatch.setattr(fts, "KEYWORD_SCORED", 9)
        assert rec.keyword_search(db, ALICE, text, limit=30) == every
        monkeypatch.setattr(fts, "KEYWORD_SCORED", 8)
        capped = rec.keyword_search(db, ALICE, text, limit=30)
        # the rare term's two, then the phrase's two words the newest three each (the same three)
        assert len(capped) == 5 and all(dict(every)[i] == s for i, s in capped)
