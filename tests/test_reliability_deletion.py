"""Deletion that is real (docs/design.md invariant 6): after purge_user, which vacuums SQLite, the
user's distinctive strings, Chinese and English, are gone from the bytes of the SQLite file, its
-wal and -shm, and every file under the Chroma directory, while the same scan still finds what
another user wrote.

The user's data comes in through every path: turns (episodes and the short-term window),
explicit memories restated and changed (the versions table), a forgotten memory (its audit row
quotes it), tool events with arguments, session summaries and an event compaction.
"""

from __future__ import annotations

import time

import pytest
from reliability_helpers import BASE_TIME, find_in_files, hash_config, store_files

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.maintain import compact_events, purge_user
from openclaw_memory.middleware import ChatRequest, ToolEvent
from openclaw_memory.types import Candidate, MemoryType, Scope
from openclaw_memory.store import inspect

VICTIM = "zanzibar-quokka"
BYSTANDER = "bystander"
STRINGS = {
    VICTIM: ["Flibbertigibbet", "quokkasaurus", "翡翠团子", "青花瓷猫咪"],
    BYSTANDER: ["Snollygoster", "玳瑁橘猫"],
}


def _say(mw, scope: Scope, session: str, texts: list[str]) -> None:
    history: list[dict] = []
    for text in texts:
        history.append({"role": "user", "content": text})
        mw.after_response(ChatRequest(scope, session, list(history)), f"Noted: {text}")
        history.append({"role": "assistant", "content": f"Noted: {text}"})


def _populate(mw, user: str, words: list[str], workspace: str | None = None) -> None:
    en1, en2, zh1, zh2 = (words * 2)[:4]
    for agent in ("main", "coder"):
        scope = Scope(user, agent, workspace)
        _say(
            mw,
            scope,
            "s1",
            [
                f"remember that my cat is called {en1}",
                f"请记住：我的猫叫{zh1}",
                f"we decided to name the project {en2} because of {zh2}",
                f"下一步：给{zh2}买猫粮，然后联系 {en1}",
            ],
        )
        mw.remember(scope, f"my nickname is {en1}", type="profile", subject="nickname")
        mw.remember(
            scope, f"my nickname is {en1} the Great", type="profile", subject="nickname"
        )  # changed
        mw.remember(scope, f"我最喜欢的颜色是{zh1}色", type="preference", subject="颜色")
        mw.remember(
            scope, f"我最喜欢的颜色是{zh1}色", type="preference", subject="颜色"
        )  # restated
        gone = mw.remember(scope, f"my old address mentions {en2}", type="fact", subject="address")
        mw.forget(scope, memory_id=gone.record.id)
        for n in range(4):
            mw.on_tool_event(
                scope,
                "s1",
                ToolEvent("search", {"q": f"{en1} {zh1} {n}"}, f"found {en2} {zh2} #{n}"),
            )
        mw.on_session_end(scope, "s1")
        mw.flush()
        compact_events(mw.maintenance, scope, trigger=2, batch=2)
    mw.flush()


def test_purge_user_leaves_no_trace_of_the_user_on_disk(tmp_path, capsys):
    cfg = hash_config(tmp_path, short_term={"summary_threshold": 200})
    mw = build_middleware(cfg, clock=FakeClock(BASE_TIME))
    victim_words = [VICTIM, *STRINGS[VICTIM]]
    try:
        _populate(mw, VICTIM, STRINGS[VICTIM])
        _populate(mw, BYSTANDER, STRINGS[BYSTANDER])
        store = mw.engine.store
        kinds = {r["type"] for r in inspect.select(store, "records", ("type",), user_id=VICTIM)}
        versions = inspect.count(store, "versions", user_id=VICTIM)
        assert {"summary", "episode", "event", "profile", "preference", "fact"} <= set(
            kinds
        ) and versions >= 2
        before = find_in_files(store_files(cfg), victim_words)
        assert set(before) == set(victim_words), f"the scan must see the data first: {before}"

        counts = purge_user(mw.maintenance, VICTIM)

        files = store_files(cfg)
        after = find_in_files(files, victim_words)
        kept = find_in_files(files, STRINGS[BYSTANDER])
        assert after == {}, f"purged strings still on disk: {after}"
        assert set(kept) == set(STRINGS[BYSTANDER])
        hits = mw.search(Scope(BYSTANDER, "main"), "Snollygoster cat")
        assert any("Snollygoster" in h.record.summary for h in hits)
        assert mw.search(Scope(VICTIM, "main"), "Flibbertigibbet cat") == []
    finally:
        mw.close()
    closed = find_in_files(store_files(cfg), victim_words)
    assert closed == {}, f"purged strings on disk after close: {closed}"
    with capsys.disabled():
        print(
            f"\ndeletion: purged {counts}; {len(victim_words)} strings searched in {len(files)} files: "
            f"found before purge {len(before)}, after purge {len(after)}, after close {len(closed)}"
        )


def test_purge_user_leaves_no_trace_in_the_chroma_directory(tmp_path, capsys):
    """What the vector index held of the user (its ids, vectors and workspace label) goes too."""
    cfg = hash_config(tmp_path)
    mw = build_middleware(cfg, clock=FakeClock(BASE_TIME))
    try:
        _populate(mw, VICTIM, STRINGS[VICTIM], workspace="wsquokkaden")
        _populate(mw, BYSTANDER, STRINGS[BYSTANDER])
        store = mw.engine.store
        held = inspect.select(store, "records", ("id", "user_id", "status"))
        ids = [r["id"] for r in held if r["user_id"] == VICTIM and r["status"] != "inactive"]
        owner = {r["id"]: r["user_id"] for r in held if r["status"] == "active"}
        rows = [
            (owner[v["record_id"]], v["vec"])
            for v in inspect.select(store, "vectors", ("record_id", "vec"))
            if v["record_id"] in owner
        ]
        # Whole vectors (the hash embedder's are sparse: a prefix is often all zeros and matches
        # anything), and only those no other user's record shares.
        others = {r[1] for r in rows if r[0] != VICTIM}
        vecs = [r[1] for r in rows if r[0] == VICTIM and r[1] not in others]
        chroma = [p for p in store_files(cfg) if cfg.chroma_dir in p.parents]
        assert find_in_files(chroma, ["wsquokkaden", *ids[:3]]), (
            "the scan must see the index data first"
        )
        vectors_before = _vectors_in(chroma, vecs)
        assert vectors_before >= len(vecs) // 2 > 0, (
            f"the scan must see the vectors first: {vectors_before}"
        )
        counts = purge_user(mw.maintenance, VICTIM)
        chroma = [p for p in store_files(cfg) if cfg.chroma_dir in p.parents]
        left = find_in_files(chroma, ["wsquokkaden", *ids])
        vectors_left = _vectors_in(chroma, vecs)
    finally:
        mw.close()
    chroma_closed = [p for p in store_files(cfg) if cfg.chroma_dir in p.parents]
    left_closed = find_in_files(chroma_closed, ["wsquokkaden", *ids])
    vectors_closed = _vectors_in(chroma_closed, vecs)
    again = build_middleware(
        cfg, clock=FakeClock(BASE_TIME)
    )  # the scrubbed index still serves the others
    try:
        scope = Scope(BYSTANDER, "main")
        near = again.engine.semantic(
            scope, again.engine.embed_query("my cat is called Snollygoster"), limit=3
        )
        assert near and "Snollygoster" in again.get(scope, near[0][0]).summary
        assert (
            again.engine.semantic(
                Scope(VICTIM, "main"), again.engine.embed_query("Flibbertigibbet"), limit=3
            )
            == []
        )
    finally:
        again.close()
    with capsys.disabled():
        print(
            f"\ndeletion (chroma): {len(ids)} ids + the workspace label and {len(vecs)} distinct vectors "
            f"searched in {len(chroma)} Chroma files: vectors before purge {vectors_before}; after purge "
            f"{len(left)} strings, {vectors_left} vectors; after close {len(left_closed)}, {vectors_closed}; "
            f"collections dropped {counts['collections']}"
        )
    where = sorted({f for v in left.values() for f in v})
    assert left == {} and vectors_left == 0, (
        f"{len(left)} strings and {vectors_left} vectors left in {where}"
    )
    assert left_closed == {} and vectors_closed == 0


def _vectors_in(files, vecs: list[bytes]) -> int:
    blobs = b"".join(p.read_bytes() for p in files)
    return sum(1 for v in vecs if v in blobs)


def test_a_purge_is_not_undone_by_turns_still_queued(tmp_path):
    """Turns the user sent just before the purge (after_response returns at once) are dropped from
    the worker's queue, not written back after it."""
    import threading

    from openclaw_memory.core.worker import Job

    mw = build_middleware(hash_config(tmp_path), clock=FakeClock(BASE_TIME))
    victim, other, gate = Scope(VICTIM, "main"), Scope(BYSTANDER, "main"), threading.Event()
    try:
        mw.worker.submit(Job(other, lambda: gate.wait(30), "gate"))  # a busy worker holds the queue
        for i in range(10):
            for scope in (victim, other):
                turn = {
                    "role": "user",
                    "content": f"remember that my cat is {STRINGS[scope.user_id][0]}{i}",
                }
                mw.after_response(ChatRequest(scope, "s1", [turn]), "ok")
        counts = mw.purge_user(VICTIM)
        gate.set()
        mw.flush()
        store = mw.engine.store
        left = {t: inspect.count(store, t, user_id=VICTIM) for t in ("records", "messages")}
        kept = inspect.count(store, "messages", user_id=BYSTANDER)
        failures = mw.worker.failures
    finally:
        gate.set()
        mw.close()
    assert left == {"records": 0, "messages": 0}, f"the purged user's data came back: {left}"
    assert counts["queued_jobs_dropped"] == 10 and kept == 20 and failures == 0


def test_a_purge_waits_for_the_users_running_capture(tmp_path):
    """A capture of the user already running when the purge starts finishes first, and what it
    wrote is purged with the rest."""
    import threading

    mw = build_middleware(hash_config(tmp_path), clock=FakeClock(BASE_TIME))
    victim, gate, started = Scope(VICTIM, "main"), threading.Event(), threading.Event()
    result: list[dict] = []

    def slow_capture() -> None:  # a capture job as jobs.submit queues it, slowed down
        started.set()
        gate.wait(30)
        mw.writer.write(
            victim,
            [Candidate(MemoryType.FACT, f"my cat is called {STRINGS[VICTIM][0]}", subject="cat")],
        )

    try:
        mw.jobs.submit(victim, slow_capture, "capture")
        assert started.wait(30)
        purge = threading.Thread(target=lambda: result.append(mw.purge_user(VICTIM)))
        purge.start()
        time.sleep(0.5)
        assert purge.is_alive(), "the purge must wait for the user's running capture"
        gate.set()
        purge.join(60)
        assert not purge.is_alive() and result
        mw.flush()
        left = inspect.count(mw.engine.store, "records", user_id=VICTIM)
        assert left == 0, f"{left} records of the purged user written by the running capture"
        assert result[0]["records"] == 1 and mw.worker.failures == 0
    finally:
        gate.set()
        mw.close()


def _forms(texts: list[str]) -> set[str]:
    """The ways a text sits in the keyword index: lowercased words and segmented Chinese tokens
    (fts_document), besides the original strings; short tokens are left out (they match by chance)."""
    from openclaw_memory.lang.text import search_tokens

    out: set[str] = set()
    for text in texts:
        out |= {t for t in search_tokens(text) if len(t) >= 2 and not t.isascii() or len(t) >= 5}
        out |= {w.lower() for w in text.split() if len(w) >= 5}
    return out


def test_purge_leaves_no_case_folded_or_segmented_token_in_the_keyword_index(tmp_path, capsys):
    """Deleting FTS5 rows only adds delete markers: the user's lowercased words and segmented
    Chinese tokens stayed in the index pages until a merge. Purge merges the index (optimize)
    before the vacuum; the scan searches the forms the index stores, not just the original text."""
    cfg = hash_config(tmp_path)
    mw = build_middleware(cfg, clock=FakeClock(BASE_TIME))
    victim, other = Scope("lisbon-fan", "main"), Scope(BYSTANDER, "main")
    said = [
        "I moved from Lisbon to Berlin last year",
        "我最喜欢吃花生酱和榴莲",
        "Zanzibar tortoises outlive everybody",
    ]
    kept = ["my cat is called Snollygoster", "我家的狗叫玳瑁"]
    try:
        cat = mw.remember(other, kept[0], subject="cat").record.id
        for i, text in enumerate(said):
            mw.remember(victim, text, subject=f"topic{i}")
        mw.remember(other, kept[1], subject="狗")
        mw.flush()
        forms = _forms(said) - _forms(kept)
        sqlite = [p for p in store_files(cfg) if cfg.chroma_dir not in p.parents]
        before = find_in_files(sqlite, forms)
        assert {"berlin", "花生"} & set(before), (
            f"the scan must see the index's forms first: {before}"
        )
        purge_user(mw.maintenance, victim.user_id)
        after = find_in_files(store_files(cfg), forms)
        hits = mw.search(other, "Snollygoster cat")
    finally:
        mw.close()
    closed = find_in_files(store_files(cfg), forms)
    with capsys.disabled():
        print(
            f"\ndeletion (keyword index): {len(forms)} lowercased/segmented forms searched, "
            f"{len(before)} seen before purge, {len(after)} after, {len(closed)} after close"
        )
    assert after == {} and closed == {}, f"tokens of the purged user on disk: {after or closed}"
    assert cat in [h.record.id for h in hits], "the bystander's memory must still be found"
