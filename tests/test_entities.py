"""Entity memory: extraction (zh, en), aliases, links in the store, the entity channel and its
hop, purge and forget of links."""

from __future__ import annotations

import numpy as np
import pytest

from openclaw_memory.lang.entities import (
    DATE,
    NAME,
    ORG,
    PERSON,
    PLACE,
    PRODUCT,
    MAX_NAME,
    Mentions,
    aliases,
    extract,
    mentions_of,
    named_in,
    nickname_of,
    normalise,
)
from openclaw_memory.maintain import purge_record, purge_user
from openclaw_memory.runtime.factory import maintenance_ports
from openclaw_memory.recall.channels import EntityChannel
from openclaw_memory.recall.analyse import request_keys
from openclaw_memory.recall.pool import Pool
from openclaw_memory.recall.query import build_query
from openclaw_memory.types import Candidate, MemoryRecord, MemoryType, Scope, Status
from store_helpers import forget_in, restore_in, writer_of
from openclaw_memory.store import inspect

A, B = Scope("alice", "main"), Scope("bob", "main")


@pytest.mark.parametrize(
    "text, expected",
    [
        # English: capitalised spans, connectors inside a name, the sentence's first word only
        # when it is not a common word
        (
            "Yesterday Melanie and I visited the Museum of Modern Art.",
            {("Melanie", NAME), ("Museum of Modern Art", NAME)},
        ),
        ("I went to Barnes & Noble with Jon.", {("Barnes & Noble", NAME), ("Jon", NAME)}),
        ("The Louvre was amazing, said John Smith.", {("Louvre", NAME), ("John Smith", NAME)}),
        ("Caroline moved to Boston.", {("Caroline", NAME), ("Boston", PLACE)}),
        # the gazetteer: lower-case mentions and kinds
        ("i bought a desk at ikea and a new iphone", {("ikea", ORG), ("iphone", PRODUCT)}),
        ("we flew from new york to paris", {("new york", PLACE), ("paris", PLACE)}),
        # dates in three orders; a bare "May" is a verb as often as a month
        ("We met on 7 May 2023 and again on June 3.", {("7 May 2023", DATE), ("June 3", DATE)}),
        ("It started in March 2022.", {("March 2022", DATE)}),
        ("May I ask something?", set()),
        # codes
        ("PRD-223 is due on Friday.", {("PRD-223", NAME)}),
        # nothing capitalised but the sentence's first common word
        ("Thanks, that sounds great.", set()),
        # Chinese: jieba's person, place and organisation tags; dates
        ("上周我和李娜去了杭州。", {("李娜", PERSON), ("杭州", PLACE)}),
        (
            "2023年5月7日我在北京见了张三",
            {("2023年5月7日", DATE), ("北京", PLACE), ("张三", PERSON)},
        ),
        ("我们明天开会", set()),
    ],
)
def test_extract(text, expected):
    assert {(e.name, e.kind) for e in extract(text)} == expected


def test_extract_keeps_given_names_and_one_entity_per_key():
    found = extract("Melanie said melanie's plan works", given=("Melanie",))
    assert [e.key for e in found] == ["melanie"]


def test_given_values_count_when_written_like_names():
    given = ("hiking", "to give kids a loving home", "Oscar", "王伟", "PRD-7")
    assert [e.name for e in extract("I love it", given)] == ["Oscar", "王伟", "PRD-7"]


@pytest.mark.parametrize(
    "name, key",
    [("The  Louvre", "louvre"), ("Melanie's", "melanie"), ("ＩＫＥＡ", "ikea"), ("王伟", "王伟")],
)
def test_normalise(name, key):
    assert normalise(name) == key


@pytest.mark.parametrize(
    "text, pairs",
    [
        ("Mel is short for Melanie.", [("Mel", "Melanie")]),
        ("Robert, also known as Bob, called.", [("Bob", "Robert")]),
        ("我叫王伟，大家都叫我小王。", [("小王", "王伟")]),
        ("其实小王就是王伟。", [("小王", "王伟")]),
        ("Melanie went hiking.", []),
        ("我喜欢喝茶。", []),
    ],
)
def test_aliases(text, pairs):
    assert aliases(text) == pairs


@pytest.mark.parametrize(
    "short, names, expected",
    [
        ("Mel", ["Melanie", "Caroline"], "Melanie"),
        ("Mel", ["Melanie", "Melvin"], None),  # two candidates: no guess
        ("Jo", ["John"], None),  # too short to say
        ("Art", ["Arthur"], "Arthur"),  # a word, but no function word: a nickname here
        ("The", ["Theodore"], None),  # a function word never is
    ],
)
def test_nickname_of(short, names, expected):
    assert nickname_of(short, names) == expected


@pytest.mark.parametrize(
    "text, given, pairs, names",
    [
        ("Mel is short for Melanie; she lives in Paris.", (), [("Mel", "Melanie")], {"Paris"}),
        ("小王就是王伟，他在北京工作。", (), [("小王", "王伟")], {"北京"}),
        ("We met at the usual place.", ("Caroline", "", "X" * (MAX_NAME + 1)), [], {"Caroline"}),
        ("我们在老地方见面。", ("王伟", "", "长" * (MAX_NAME + 1)), [], {"王伟"}),
    ],
)
def test_what_a_record_names_is_read_on_the_write_side(text, given, pairs, names):
    """`named_in` reads the aliases a text states and its entities, the record's `entities`
    among them (an empty one, or one too long to be a name, left out); a forgotten record is
    read as naming nothing (it keeps no links)."""
    found = named_in(text, given)
    assert list(found.aliases) == pairs
    assert names <= {e.name for e in found.entities}
    assert all(0 < len(e.name) <= MAX_NAME for e in found.entities)
    record = MemoryRecord(id="m1", scope=A, type=MemoryType.FACT, summary=text, entities=given)
    assert mentions_of(record) == found
    assert mentions_of(record.replace(status=Status.INACTIVE)) == Mentions()


# ---- the store -------------------------------------------------------------------------------


def write(engine, scope, text, session="s1", type_=MemoryType.EPISODE, **kw):
    return (
        writer_of(engine).write(scope, [Candidate(type_, text, **kw)], session_id=session)[0].record
    )


def entity_rows(engine, scope=A):
    return {e["name"]: e for e in engine.store.entity_list(scope)}


def test_a_sentences_first_word_is_a_name_only_when_known(engine):
    write(engine, A, "Oliver is my cat.")  # "Oliver", or "Painting": no telling
    assert entity_rows(engine) == {}
    write(engine, A, "I fed Oliver at noon.")
    write(engine, A, "Oliver is asleep.")
    assert entity_rows(engine)["Oliver"]["links"] == 2


def test_links_with_first_and_last_seen(engine, clock):
    write(engine, A, "Today Caroline joined a choir in Boston.")
    clock.advance(86400)
    write(engine, A, "Caroline sang a solo at the spring concert.", session="s2")
    rows = entity_rows(engine)
    assert rows["Caroline"]["links"] == 2
    assert rows["Caroline"]["last_seen"] - rows["Caroline"]["first_seen"] == 86400
    assert rows["Boston"]["kind"] == PLACE and rows["Boston"]["links"] == 1
    assert entity_rows(engine, B) == {}  # scoped


def test_nickname_and_stated_alias_merge(engine):
    write(engine, A, "On Sunday Mel took the kids camping.")
    write(
        engine, A, "Yesterday Melanie painted a sunset."
    )  # the long name takes the short one over
    rows = entity_rows(engine)
    assert "Mel" not in rows and rows["Melanie"]["aliases"] == ["mel"]
    assert rows["Melanie"]["links"] == 2
    write(engine, A, "王伟今天加班。")
    write(engine, A, "我叫王伟，大家都叫我小王。")
    write(engine, A, "小王明天去上海出差。")
    rows = entity_rows(engine)
    assert "小王" in rows["王伟"]["aliases"] and rows["王伟"]["links"] == 3


def test_forget_removes_links_and_restore_brings_them_back(engine):
    r = write(engine, A, "Caroline adopted a dog named Biscuit.")
    forget_in(engine, A, r.id)
    assert "Biscuit" not in entity_rows(engine)
    restore_in(engine, A, r.id)
    assert entity_rows(engine)["Biscuit"]["links"] == 1


def table_text(engine) -> str:
    rows = [
        *inspect.select(engine.store, "entities", ("key", "name")),
        *inspect.select(engine.store, "entity_aliases", ("alias",)),
        *inspect.select(engine.store, "entity_links", ("entity_id", "rid")),
    ]
    return repr([tuple(r.values()) for r in rows])


def test_purge_record_and_user_leave_no_entity(engine):
    keep = write(engine, A, "Last week Caroline visited Lisbon.")
    gone = write(
        engine, A, "By the way, Mel is short for Melanie; Melanie loves Quasimodo the fish."
    )
    write(engine, B, "Bob visited Quasimodo's pond.")
    purge_record(maintenance_ports(engine), A, gone.id)
    a_rows = entity_rows(engine)
    assert set(a_rows) == {"Caroline", "Lisbon"} and keep
    assert inspect.count(engine.store, "entity_aliases", user_id="alice") == 0
    purge_user(maintenance_ports(engine), "alice")
    text = table_text(engine)
    assert "Caroline" not in text and "lisbon" not in text.lower()
    assert entity_rows(engine, B)  # bob keeps his


@pytest.mark.real_store("SQLite's migration 10")
@pytest.mark.sqlite_only  # SQLite's migration 10 (PostgreSQL's 6: the store contract tests)
def test_migration_reruns_cleanly(config, clock):
    from openclaw_memory.runtime.engine import MemoryEngine
    from openclaw_memory.store.schema import MIGRATIONS

    eng = MemoryEngine.open(config, clock=clock, background=False)
    write(eng, A, "Caroline visited Lisbon.")
    inspect.execute(eng.store, "DELETE FROM schema_version WHERE version >= 10")
    eng.close()
    eng = MemoryEngine.open(config, clock=clock, background=False)
    try:
        assert eng.db.schema_version == len(MIGRATIONS)
        assert entity_rows(eng)["Lisbon"]["links"] == 1
    finally:
        eng.close()


# ---- the channel -----------------------------------------------------------------------------


def test_request_keys_cover_lower_case_and_chinese():
    keys = request_keys("what did caroline do in new york?")
    assert {"caroline", "new york"} <= keys
    assert "李娜" in request_keys("李娜上周去哪了")


@pytest.mark.parametrize(
    "text, name",
    [
        # jieba does not know these names: it glues each to the character after or before it
        ("王伟来的时候做了什么菜？", "王伟"),
        ("刘婷学车考了哪些科目？", "刘婷"),
        ("刘婷考了哪些科目？", "刘婷"),
    ],
)
def test_a_chinese_name_glued_to_a_character_is_still_a_key(text, name):
    assert name in request_keys(text)


def test_a_word_jieba_knows_is_not_cut_into_names():
    # 津贴 and 今天 are dictionary words: 天津 (a city) is no key of 今天津贴发了吗
    assert "天津" not in request_keys("今天津贴发了吗")
    # a dictionary word of three characters keeps its ends: 王老吉 (a drink) gives no 王老 or
    # 老吉, 支付宝 no 付宝 (支付, a dictionary word inside it, is jieba's own key)
    keys = request_keys("我喝了王老吉，用支付宝付的")
    assert {"王老吉", "支付宝", "支付"} <= keys
    assert not {"王老", "老吉", "付宝"} & keys


def test_a_chinese_name_inside_a_longer_named_one_is_its_piece(engine):
    from openclaw_memory.recall.channels import EntityReads

    write(engine, A, "李明轩: 我下个月搬去东莞", entities=("李明轩",))
    write(engine, A, "李明: 我在成都上班", entities=("李明",))
    named = EntityReads(engine.store, A).named(request_keys("李明轩搬去哪了？"))
    assert set(named.values()) == {"李明轩"}
    assert set(EntityReads(engine.store, A).named(request_keys("李明在哪上班？")).values()) == {
        "李明"
    }


def propose(engine, text, pool=None):
    pool = pool or Pool()
    q = build_query(text)
    EntityChannel(engine.store, 20).propose(A, q, np.zeros(1), pool)
    return pool


def test_entity_channel_finds_memories_across_sessions_by_alias(engine):
    a = write(engine, A, "In May Melanie ran a charity race for mental health.", session="s1")
    b = write(engine, A, "Mel is short for Melanie, by the way.", session="s2")
    write(engine, A, "Caroline went to a support group.", session="s3")
    pool = propose(engine, "What did mel do for charity?")
    assert {a.id, b.id} <= set(pool.channels)
    assert pool.channels[a.id] == ["entity:Melanie"]


def test_entity_channel_ignores_a_name_in_every_memory(engine):
    for i in range(12):
        write(engine, A, f"Caroline: note number {i} about gardening plans", session=f"s{i}")
    rare = write(engine, A, "Caroline met Oscar at the gallery.", session="s99")
    pool = propose(engine, "What did Caroline do with Oscar?")
    assert list(pool.channels) == [rare.id]


def test_off_topic_request_proposes_nothing(engine):
    write(engine, A, "Caroline met Oscar at the gallery.")
    assert propose(engine, "How do I sort a list in Python?").channels == {}
    assert propose(engine, "帮我把这句话翻译成英文").channels == {}


def test_hop_follows_the_strong_candidates_entities_and_is_bounded(engine):
    seed = write(engine, A, "Caroline's mentor is Oscar.", session="s1")
    hops = [
        write(engine, A, f"Oscar taught a pottery class number {i}.", session=f"h{i}")
        for i in range(10)
    ]
    for i in range(20):  # make the names selective
        write(engine, A, f"The weather was mild on day {i}.", session=f"w{i}")
    pool = Pool()
    pool.propose(seed.id, "vector")
    pool.cosine[seed.id] = 0.9
    pool = propose(engine, "what does caroline's mentor teach?", pool)
    hopped = [r for r, c in pool.channels.items() if any(x.startswith("hop:") for x in c)]
    assert hopped and set(hopped) <= {h.id for h in hops}
    assert len(hopped) <= max(1, int(20 * 0.2))
    assert pool.channels[hopped[0]] == ["hop:Oscar"]


def test_recall_explains_the_entity(engine):
    from openclaw_memory.recall.recaller import Recaller
    from openclaw_memory.runtime.factory import read_ports

    write(engine, A, "In May Melanie ran a charity race for mental health.")
    result = Recaller(read_ports(engine), engine.config.recall).recall(A, "What did Melanie run?")
    chans = {c for s in result.ranked for c in s.channels}
    assert "entity:Melanie" in chans


def test_explain_names_the_entity():
    from openclaw_memory.recall.rank import entity_of
    from openclaw_memory.types import ScoredMemory

    def scored(*channels):
        return ScoredMemory(record=None, score=0.5, components={}, channels=channels)  # type: ignore[arg-type]

    assert entity_of(scored("vector", "entity:Melanie")) == "Melanie"
    assert entity_of(scored("hop:Boston")) == "Boston (hop)"
    assert entity_of(scored("vector", "keyword")) is None


def test_the_lexicons_tagger_leaves_the_shared_word_tags_alone():
    """The preference lexicon asks jieba's tagger too; reloading its word-tag table (as
    `posseg.dt.initialize()` does) emptied it for a moment, and a write tagging meanwhile lost
    its places and names (成都 tagged "x")."""
    import threading

    import jieba.posseg

    from openclaw_memory.extract import slot as lexicon

    before = jieba.posseg.dt.word_tag_tab
    text = "周磊: 我下个月要去成都出差一周"
    seen: list[list[str]] = []
    done = threading.Event()

    def tag() -> None:
        while not done.is_set():
            seen.append([e.name for e in extract(text)])

    worker = threading.Thread(target=tag)
    worker.start()
    try:
        for _ in range(3):
            lexicon._posseg()
    finally:
        done.set()
        worker.join()
    assert jieba.posseg.dt.word_tag_tab is before
    assert seen and all("成都" in names for names in seen)
