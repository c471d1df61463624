"""The speaker channel (recall/channels.py): a request about one person of the chat gets
the nearest of that person's own turns, in English and Chinese side by side; a reply to the person
is not theirs; a request naming two such people, or a person few memories name, gets nothing from
it; `search --explain` says whose words brought a memory in."""

from __future__ import annotations

import pytest

from openclaw_memory.capture.events import episode_candidate
from openclaw_memory.recall.channels import EntityChannel
from openclaw_memory.recall.pool import Pool
from openclaw_memory.recall.query import build_query
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.recall.channels import SpeakerChannel
from openclaw_memory.recall.channels import speakers
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of

A = Scope("alice", "main")

#: two people, each with turns of their own and replies naming the other; the request asks about
#: the first one; "answer" is a turn of hers the request shares words with
CHATS = {
    "en": {
        "people": ("Melanie", "Caroline"),
        "own": [f"Melanie: my note number {i} about the garden shed" for i in range(8)],
        "replies": [
            f"Caroline: thanks Melanie, I signed form number {i} for the shed" for i in range(8)
        ],
        "answer": "Melanie: I signed the form for pottery lessons",
        "request": "Which classes has Melanie signed up for?",
        "both": "Which classes have Melanie and Caroline signed up for?",
        "rare": ("Oscar", "Melanie: dinner with Oscar was fun", "What did Oscar cook for dinner?"),
        "asked back": [
            "Caroline: Melanie, which classes have you signed up for lately?",
            "Caroline: I signed up for classes too, Melanie, which ones have you?",
            "Caroline: which classes has everyone signed up for, Melanie?",
        ],
    },
    "zh": {
        "people": ("刘婷", "赵刚"),
        "own": [f"刘婷: 今天第{i}次去菜市场买菜" for i in range(8)],
        "replies": [f"赵刚: 刘婷，第{i}次去菜市场辛苦了" for i in range(8)],
        "answer": "刘婷: 科目二过了，下个月考科目三",
        "request": "刘婷学车时考过哪些科目？",
        "both": "刘婷和赵刚学车考了哪些科目？",
        "rare": ("王伟", "刘婷: 昨天王伟来家里吃饭了", "王伟来的时候做了什么菜？"),
        "asked back": [
            "赵刚: 刘婷，你学车时考过哪些科目？",
            "赵刚: 我学车时考过科目一，刘婷你呢？",
            "赵刚: 学车要考哪些科目啊，刘婷？",
        ],
    },
}


def say(engine, speaker, text, session):
    """A turn of the chat as capture writes it: the speaker its first tag and an entity."""
    c = episode_candidate(text, speaker=speaker, turn_id=f"{session}:{text[-2:]}")
    return writer_of(engine).write(A, [c], session_id=session)[0].record


def fill(engine, chat):
    first, second = chat["people"]
    own = [say(engine, first, t, f"s{i}") for i, t in enumerate(chat["own"])]
    replies = [say(engine, second, t, f"s{i}") for i, t in enumerate(chat["replies"])]
    answer = say(engine, first, chat["answer"], "s99")
    return own, replies, answer


def propose(engine, text, pool=None, limit=4):
    """The entity channel, then the speaker channel, over pool (a vector channel's candidates)."""
    pool = pool or Pool()
    q = build_query(text)
    qvec = engine.embed_query(text)
    EntityChannel(engine.store, limit).propose(A, q, qvec, pool)
    SpeakerChannel(engine.store, engine.indexer.searcher, limit).propose(A, q, qvec, pool)
    return pool


def by_speaker(pool):
    return {
        rid for rid, chans in pool.channels.items() if any(c.startswith("speaker:") for c in chans)
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_request_about_one_person_gets_her_own_nearest_turns(engine, lang):
    chat = CHATS[lang]
    own, replies, answer = fill(engine, chat)
    pool = propose(engine, chat["request"])
    found = by_speaker(pool)
    # the answer shares the request's words: it is the nearest of hers
    assert answer.id in found
    assert pool.channels[answer.id] == [f"speaker:{chat['people'][0]}"]
    # hers only: a reply that names her says what the other one thinks
    assert found <= {r.id for r in own} | {answer.id}
    assert not found & {r.id for r in replies}
    assert len(found) == int(4 * 0.5)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_what_another_channel_proposed_is_not_proposed_again(engine, lang):
    chat = CHATS[lang]
    _, _, answer = fill(engine, chat)
    pool = Pool()
    pool.propose(answer.id, "vector")
    pool = propose(engine, chat["request"], pool)
    assert pool.channels[answer.id] == ["vector"]
    assert answer.id not in by_speaker(pool)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_two_people_or_a_rarely_named_one_get_nothing_from_it(engine, lang):
    chat = CHATS[lang]
    fill(engine, chat)
    assert not by_speaker(propose(engine, chat["both"]))
    name, text, request = chat["rare"]
    rare = say(engine, chat["people"][0], text, "s100")
    pool = propose(engine, request)
    # a person few memories name: the entity channel's, by name
    assert not by_speaker(pool)
    assert pool.channels[rare.id] == [f"entity:{name}"]


def test_a_request_naming_no_one_gets_nothing_from_it(engine):
    fill(engine, CHATS["en"])
    assert not by_speaker(propose(engine, "Which classes did I sign up for?"))
    assert not by_speaker(propose(engine, "How do I sort a list in Python?"))


def test_who_said_it_is_the_episodes_first_tag_or_a_speaker_tag(engine):
    turn = say(engine, "Melanie", "Melanie: hello there", "s1")
    assert speakers(turn) == ["Melanie"]
    fact = (
        writer_of(engine)
        .write(A, [Candidate(MemoryType.FACT, "Jon runs a dance studio", tags=("speaker:Jon",))])[0]
        .record
    )
    assert speakers(fact) == ["Jon"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_recall_brings_in_her_turn_the_other_channels_miss_and_explains_it(
    make_config, tmp_path, clock, lang
):
    """The other one's questions back to her hold the request's words: they fill the vector and
    keyword channels' few candidates. Her answer comes in by the speaker channel, and
    `search --explain` names whose words it is."""
    from openclaw_memory.runtime.engine import MemoryEngine
    from openclaw_memory.recall.rank import entity_of

    config = make_config(tmp_path, recall={"candidates_per_channel": 2})
    engine = MemoryEngine.open(config, clock=clock, background=False)
    try:
        chat = CHATS[lang]
        _, _, answer = fill(engine, chat)
        for i, text in enumerate(chat["asked back"]):
            say(engine, chat["people"][1], text, f"q{i}")
        recaller = Recaller(read_ports(engine), engine.config.recall)
        without = [c for c in recaller.channels if not isinstance(c, SpeakerChannel)]
        missed = Recaller(read_ports(engine), engine.config.recall, channels=without)
        text = chat["request"]
        assert answer.id not in {s.record.id for s in missed.recall(A, text).ranked}
        found = {s.record.id: s for s in recaller.recall(A, text).ranked}
        assert found[answer.id].channels == (f"speaker:{chat['people'][0]}",)
        assert entity_of(found[answer.id]) == f"{chat['people'][0]} (speaker)"
    finally:
        engine.close()


def test_the_vector_search_is_shared_searched_once_as_deep_as_asked():
    import numpy as np

    from openclaw_memory.recall.pool import SharedSearch

    class Counting:
        def __init__(self):
            self.vectors, self.parts, self.asked = {"m0": np.ones(2)}, {}, []

        def __call__(self, vector, k):
            self.asked.append(k)
            return [(f"m{i}", 1.0 - i / 100) for i in range(k)]

    inner = Counting()
    search = SharedSearch(inner)
    assert search.vectors is inner.vectors  # what read_ahead reads of a prepared search
    search.widen(120)
    q = np.ones(2)
    assert [r for r, _ in search(q, 30)] == [f"m{i}" for i in range(30)]
    assert len(search(q, 120)) == 120 and inner.asked == [120]  # the vector channel, the speaker's
    search(q, 200)  # deeper than searched: searched again
    search(np.ones(2), 30)  # another query vector: searched again, as deep as widened
    assert inner.asked == [120, 200, 120]


def test_a_person_the_user_often_mentions_but_who_never_speaks_costs_a_bounded_read(
    engine, monkeypatch
):
    """In a chat of the user's own, "Anna" is named in many turns and says none: nothing is
    proposed, and no more than READ_CAP of the nearest memories naming her are read."""
    from openclaw_memory.recall.channels import READ_CAP

    for i in range(READ_CAP + 40):
        say(engine, "user", f"I walked route number {i} with Anna by the river", f"s{i}")
    engine.sync_index(A)  # the search's own drain then reads no record: only the channel does
    read: list[str] = []
    get_many = engine.store.get_many

    def counting(scope, ids):
        read.extend(ids)
        return get_many(scope, ids)

    monkeypatch.setattr(engine.store, "get_many", counting)
    pool = Pool()
    q = build_query("Which route did Anna walk?")
    SpeakerChannel(engine.store, engine.indexer.searcher, 30).propose(
        A, q, engine.embed_query(q.text), pool
    )
    assert not by_speaker(pool)
    assert 0 < len(read) <= READ_CAP
