"""Index the sentence, deliver the memory: a memory of several sentences is also indexed by its
sentences, so an aside inside a turn about something else is found by its own words. English
and Chinese side by side; real SQLite and Chroma, the hashing embedder."""

from __future__ import annotations

import numpy as np
import pytest

from openclaw_memory.runtime.factory import maintenance_ports
from openclaw_memory.config import ConfigError, config_from_dict
from openclaw_memory.embed.embedding import embed_passages
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.maintain.doctor import doctor
from openclaw_memory.maintain.doctor import purge_user
from openclaw_memory.maintain.doctor import reindex
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.store import inspect
from openclaw_memory.store.vector import part_ids, record_of
from openclaw_memory.lang.text import sentence_parts
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import forget_in, writer_of

pytestmark = pytest.mark.real_store(
    "sentence parts in Chroma's collections, and reindex of the files"
)

ALICE, BOB = Scope("alice"), Scope("bob")

ASIDE_EN = (
    "We are launching a new product next month and the whole team is busy with the launch plan. "
    "Tom and I keep aligning the launch timeline with the sales team every week. "
    "By the way, I have worked as a senior marketing specialist for three years."
)
ASIDE_ZH = (
    "我们下个月要发布新产品，整个团队都在忙发布计划。"
    "我和小王每周都在跟销售团队对齐发布时间表。"
    "顺便说一下，我已经在这家公司做了三年的高级市场专员。"
)


@pytest.mark.parametrize(
    "text, max_parts, expected",
    [
        ("One short sentence about coffee.", 8, []),
        ("Hi! Thanks. I went to the lake on Sunday with my kids.", 8, []),
        (
            "I went to the lake on Sunday with my kids. We caught three fish and grilled them.",
            8,
            [
                "I went to the lake on Sunday with my kids.",
                "We caught three fish and grilled them.",
            ],
        ),
        (
            "I moved to Berlin last spring. Ok! My new job is at a bank near the river.",
            8,
            ["I moved to Berlin last spring.", "Ok! My new job is at a bank near the river."],
        ),
        (
            "First line of a note about the plan\nsecond line about the budget for it",
            8,
            ["First line of a note about the plan", "second line about the budget for it"],
        ),
        (
            "我最近在学吉他。顺便说一下，我下个月要搬到杭州了。",
            8,
            ["我最近在学吉他。", "顺便说一下，我下个月要搬到杭州了。"],
        ),
        ("好的。谢谢你。我下个月要搬到杭州了，新公司在西湖附近。", 8, []),
        ("我喜欢喝咖啡。", 8, []),
        (
            "I went to the lake on Sunday with my kids. We caught three fish and grilled them.",
            0,
            [],
        ),
        (
            "I went to the lake on Sunday with my kids. We caught three fish and grilled them.",
            1,
            [],
        ),
    ],
)
def test_sentence_parts_english_and_chinese(text, max_parts, expected):
    assert sentence_parts(text, max_parts) == expected


#: every tier in Chroma: these tests read the parts Chroma holds
CHROMA = {"vector_store": {"exact_below": 0}}


def test_more_sentences_than_the_limit_are_grouped_in_order_into_near_equal_runs():
    sentences = [f"Sentence number {i} talks about topic {i}." for i in range(10)]
    parts = sentence_parts(" ".join(sentences), 4)
    assert len(parts) == 4
    assert " ".join(parts) == " ".join(sentences)  # nothing lost, order kept
    assert sorted(p.count("Sentence") for p in parts) == [2, 2, 3, 3]


def test_the_setting_is_bounded_and_names_its_key(tmp_path):
    with pytest.raises(ConfigError, match=r"long_term.sentence_vectors.*0 to 16.*17"):
        config_from_dict({"long_term": {"sentence_vectors": 17}})
    with pytest.raises(ConfigError, match=r"long_term.sentence_vectors.*>= 0"):
        config_from_dict({"long_term": {"sentence_vectors": -1}})


def _episode(engine, scope, text):
    return writer_of(engine).write(scope, [Candidate(MemoryType.EPISODE, text)])[0].record


def _open(make_config, tmp_path, clock, parts=8):
    return MemoryEngine.open(
        make_config(tmp_path, storage=CHROMA, long_term={"sentence_vectors": parts}),
        clock=clock,
        background=False,
    )


@pytest.mark.parametrize(
    "text, query",
    [
        (ASIDE_EN, "how long have I worked as a marketing specialist"),
        (ASIDE_ZH, "我做高级市场专员多久了"),
    ],
)
def test_an_aside_is_found_by_its_own_sentence_and_the_memory_comes_back_whole(
    make_config, tmp_path, clock, text, query
):
    eng = _open(make_config, tmp_path, clock)
    try:
        r = _episode(eng, ALICE, text)
        qvec = eng.embed_query(query)
        whole = float(np.dot(embed_passages(eng.embedder, [text])[0], qvec))
        aside = float(np.dot(embed_passages(eng.embedder, [sentence_parts(text, 8)[-1]])[0], qvec))
        assert aside > whole + 0.1  # the premise: the aside alone is much nearer the question
        eng.indexer.drain()
        hits = eng.semantic(ALICE, qvec, limit=5)
        assert hits[0][0] == r.id and len(hits) == 1  # the record, once, not its parts
        assert hits[0][1] == pytest.approx(aside, abs=1e-4)
        result = Recaller(read_ports(eng), eng.config.recall).recall(ALICE, query, ())
        best = next(s for s in result.ranked if s.record.id == r.id)
        assert best.record.summary == text  # delivered whole
        assert (
            best.kept and best.reason == f"matched by its sentence: {sentence_parts(text, 8)[-1]}"
        )
    finally:
        eng.close()


def test_without_sentence_vectors_the_memory_is_one_vector(make_config, tmp_path, clock):
    eng = _open(make_config, tmp_path, clock, parts=0)
    try:
        r = _episode(eng, ALICE, ASIDE_EN)
        qvec = eng.embed_query("how long have I worked as a marketing specialist")
        eng.indexer.drain()
        col = eng.index._store(ALICE, "hot")._collection
        assert col.get(include=[])["ids"] == [r.id]
        whole = float(np.dot(embed_passages(eng.embedder, [ASIDE_EN])[0], qvec))
        assert eng.semantic(ALICE, qvec, limit=5)[0][1] == pytest.approx(whole, abs=1e-4)
        result = Recaller(read_ports(eng), eng.config.recall).recall(
            ALICE, "how long have I worked as a marketing specialist", ()
        )
        assert [s.reason for s in result.ranked if s.record.id == r.id] == [""]
    finally:
        eng.close()


def _index_ids(eng, scope, tier="hot"):
    return sorted(eng.index._store(scope, tier)._collection.get(include=[])["ids"])


def test_parts_follow_their_memory_through_update_archive_forget_and_purge(
    make_config, tmp_path, clock
):
    eng = _open(make_config, tmp_path, clock)
    try:
        fact = (
            writer_of(eng)
            .write(
                ALICE,
                [
                    Candidate(
                        MemoryType.FACT,
                        "I work at Acme in Berlin. My team builds the billing service.",
                        subject="job",
                    )
                ],
            )[0]
            .record
        )
        eng.indexer.drain()
        assert _index_ids(eng, ALICE) == sorted([fact.id, *part_ids(fact.id, 2)])
        _, parts = eng.store.vectors_with_parts([fact.id])
        assert parts[fact.id].shape == (2, eng.index.dim)
        # a new value with one sentence supersedes it: the old record's parts leave the index too
        new = (
            writer_of(eng)
            .write(ALICE, [Candidate(MemoryType.FACT, "I work at Globex now", subject="job")])[0]
            .record
        )
        eng.indexer.drain()
        assert _index_ids(eng, ALICE) == [new.id]
        ep = _episode(eng, ALICE, ASIDE_ZH)
        eng.indexer.drain()
        assert {record_of(i) for i in _index_ids(eng, ALICE)} == {new.id, ep.id}
        assert len(_index_ids(eng, ALICE)) == 1 + 1 + len(sentence_parts(ASIDE_ZH, 8))
        report = doctor(maintenance_ports(eng), repair=False)
        assert report.problems == 0, report.found  # parts are not orphans of their record
        forget_in(eng, ALICE, ep.id)
        eng.indexer.drain()
        assert _index_ids(eng, ALICE) == [new.id]
        bobs = _episode(eng, BOB, ASIDE_EN)
        eng.indexer.drain()
        assert eng.store.vectors_with_parts([bobs.id])[1]
        purge_user(maintenance_ports(eng), "bob")
        eng.indexer.drain()
        assert _index_ids(eng, BOB) == []
        assert eng.store.vectors_with_parts([bobs.id])[1] == {}
    finally:
        eng.close()


def test_reindex_gives_an_older_store_its_sentence_vectors_and_takes_them_away(
    make_config, tmp_path, clock
):
    eng = _open(make_config, tmp_path, clock, parts=0)
    r = _episode(eng, ALICE, ASIDE_EN)
    short = _episode(eng, ALICE, "one short turn")
    eng.close()
    on = make_config(tmp_path, storage=CHROMA, long_term={"sentence_vectors": 8})
    out = reindex(on)
    assert out["reembedded"] == 1  # only the memory that has parts
    eng = MemoryEngine.open(on, clock=clock, background=False)
    try:
        assert _index_ids(eng, ALICE) == sorted([r.id, short.id, *part_ids(r.id, 3)])
        assert doctor(maintenance_ports(eng), repair=False).problems == 0
    finally:
        eng.close()
    assert reindex(on)["reembedded"] == 0  # nothing left to do
    off = make_config(tmp_path, storage=CHROMA, long_term={"sentence_vectors": 0})
    assert reindex(off)["reembedded"] == 1
    eng = MemoryEngine.open(off, clock=clock, background=False)
    try:
        assert _index_ids(eng, ALICE) == sorted([r.id, short.id])
    finally:
        eng.close()


@pytest.mark.real_store("SQLite's schema migrations")
def test_a_store_from_before_sentence_vectors_is_migrated(make_config, tmp_path, clock):
    from openclaw_memory.store.schema import MIGRATIONS
    from openclaw_memory.store.sqlite import SQLiteStore

    eng = _open(make_config, tmp_path, clock, parts=0)
    r = _episode(eng, ALICE, ASIDE_EN)
    eng.close()
    old = SQLiteStore.open(tmp_path / "memory.db")
    older_schema = [
        "ALTER TABLE vectors DROP COLUMN parts",
        "DELETE FROM schema_version WHERE version > 5",
    ]
    inspect.execute(old, older_schema)
    old.close()
    eng = _open(make_config, tmp_path, clock)
    try:
        assert eng.db.schema_version == len(MIGRATIONS)
        assert eng.get(ALICE, r.id).summary == ASIDE_EN
        later = _episode(eng, ALICE, ASIDE_ZH)
        assert later.id in eng.store.vectors_with_parts([later.id])[1]
    finally:
        eng.close()


def test_reused_vectors_include_the_parts(make_config, tmp_path, clock):
    from openclaw_memory_bench.evaluate.reuse import load_vectors
    from openclaw_memory.store.records import text_hash

    eng = _open(make_config, tmp_path, clock)
    try:
        _episode(eng, ALICE, ASIDE_EN)
        known = load_vectors(tmp_path, eng.embedder)
        for part in sentence_parts(ASIDE_EN, 8):
            assert np.allclose(
                known[text_hash(part)], embed_passages(eng.embedder, [part])[0], atol=1e-6
            )
        assert text_hash(ASIDE_EN) in known
    finally:
        eng.close()
