"""Whose value a request asks: the user's own answers a question about the user, and another
person's value of the same attribute, or a frame word in another memory, is no answer. English
and Chinese side by side, through the real write and read paths with the default embedder, as
an assistant's user runs them: requests for help, statements about the user and their people;
the frames read on a hand-built pool. Each rule's switch (`channel.holder`, `channel.frames`)
brings the old reading back."""

from __future__ import annotations

import pytest
from middleware_helpers import switched_middleware, tell

from openclaw_memory.core import switches_from
from openclaw_memory.extract.rules import RuleExtractor
from openclaw_memory.inject.assemble import section_of
from openclaw_memory.lang import Languages
from openclaw_memory.config.schema import RecallConfig
from openclaw_memory.recall.gate import anchored, evidence, relevant, signals
from openclaw_memory.recall.pool import Pool
from openclaw_memory.recall.query import build_query
from openclaw_memory.types import MemoryRecord, MemoryType, Scope, ScoredMemory, Source, Turn

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
        "theirs": ("What is my daughter allergic to?",),
    },
    "zh": {
        "own": ("我对什么过敏？", "花生", "芒果"),
        "theirs": ("我女儿对什么过敏？",),
    },
}


def _retrieved(tmp_path, lang: str, off: tuple[str, ...] = ()) -> dict[str, str]:
    """Each request of ASK's retrieved memories (the profile section aside), one per line."""
    mw = switched_middleware(tmp_path, off)
    try:
        tell(mw, ALICE, SESSION[lang], mw.clock)
        out = {}
        for key, asked in ASK[lang].items():
            plan = mw.recall(ALICE, "ask", asked[0])
            kept = [c.record for c in plan.candidates if c.kept]
            out[key] = "\n".join(r.text for r in kept if section_of(r) != "profile")
        return out
    finally:
        mw.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_users_own_value_answers_and_another_persons_gives_way(tmp_path, lang):
    got = _retrieved(tmp_path / "on", lang)
    _, mine, hers = ASK[lang]["own"]
    # neither her fact nor the turn it was distilled from (the user's own is in the profile)
    assert hers not in got["own"], got["own"]
    # a request that names her gets hers, and not the turn of the user's own
    assert hers in got["theirs"] and mine not in got["theirs"], got["theirs"]
    # switched off, her value is back for the user's question, and the user's for hers
    off = _retrieved(tmp_path / "off", lang, ("channel.holder",))
    assert hers in off["own"], off["own"]


#: the user's allergy and a daughter's, each with the turn it was distilled from
HOLDERS = {
    "en": (
        ("allergy/peanut", "The user is allergic to peanuts", ()),
        ("daughter/lina/allergy/mango", "The user's daughter Lina is allergic to mango", ("Lina",)),
        ("What am I allergic to?", "What is Lina allergic to?"),
    ),
    "zh": (
        ("allergy/花生", "用户对花生过敏", ()),
        ("daughter/lina/allergy/芒果", "用户的女儿Lina对芒果过敏", ("Lina",)),
        ("我对什么过敏？", "Lina对什么过敏？"),
    ),
}


def _pooled(lang: str, cos: float, specs) -> tuple[Pool, list[ScoredMemory]]:
    """A pool of a request about the user's world holding (id, subject, text, names) memories at
    cosine `cos`: a fact of the daughter when it has names, a profile record of the user's when
    it has a subject, else an episode; each distilled from turn `t-<id>`."""
    pool = Pool(personal=True, request_unspaced=lang == "zh")
    scored = []
    for rid, subject, text, names in specs:
        kind = MemoryType.FACT if names else MemoryType.PROFILE if subject else MemoryType.EPISODE
        record = MemoryRecord(
            rid,
            ALICE,
            kind,
            text,
            subject=subject,
            tags=("person", "daughter") if names else (),
            entities=names,
            detail="daughter Lina" if names else None,
            source=Source(turn_ids=(f"t-{rid}",)),
        )
        pool.records[rid], pool.cosine[rid], pool.channels[rid] = record, cos, ["vector"]
        scored.append(ScoredMemory(record, 0.5, {"structure": 0.0, "keyword": 0.5}, ("vector",)))
    return pool, scored


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_request_decides_whose_value_gives_way(lang):
    mine, hers, (own_question, her_question) = HOLDERS[lang]
    pool, scored = _pooled(lang, 0.8, [("u", *mine), ("d", *hers)])
    asked_own = anchored(signals(pool, build_query(own_question)), scored, pool)
    assert asked_own.own == {"allergy"} and not asked_own.theirs
    assert asked_own.yielded == {"t-d"}  # her fact's turn gives way with it
    asked_hers = anchored(signals(pool, build_query(her_question)), scored, pool)
    assert asked_hers.theirs == {"allergy"} and not asked_hers.own
    assert asked_hers.yielded == {"t-u"}
    off = Languages(switches_from(["channel.holder"]))
    for question in (own_question, her_question):
        sig = anchored(signals(pool, build_query(question, langs=off)), scored, pool)
        assert not (sig.own or sig.theirs or sig.yielded)


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


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("off", [(), ("channel.holder",)])
def test_once_the_person_it_names_answers_meaning_alone_admits_only_their_facts(lang, off):
    _, hers, (_, her_question) = HOLDERS[lang]
    other = "I just adopted a kitten named Mochi" if lang == "en" else "我刚领养了一只小猫叫Mochi"
    pool, scored = _pooled(lang, 0.95, [("d", *hers), ("k", None, other, ())])
    pool.background, pool.background_across = 0.78, 0.76
    langs = Languages(switches_from(off))
    sig = anchored(signals(pool, build_query(her_question, langs=langs)), scored, pool)
    cfg = RecallConfig()
    assert relevant(scored[0], pool, 0.8, cfg, sig)  # her allergy
    # far above every bar on meaning alone, but about no one the question names
    assert relevant(scored[1], pool, 0.8, cfg, sig) is bool(off)
