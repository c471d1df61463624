"""Episode context: the turn is searched alone and delivered with the exchange around it."""

from __future__ import annotations

import dataclasses

import pytest

from openclaw_memory.capture.events import episode_candidate
from openclaw_memory.config import config_from_dict
from openclaw_memory.inject.render import render_record
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.types import Candidate, MemoryType, Scope, Status
from openclaw_memory.inject.assemble import BlockAssembler
from store_helpers import forget_in, writer_of

ALICE, BOB = Scope("alice"), Scope("bob")

DIALOGUE = [  # (speaker, text): Melanie's question, Caroline's answer, an unrelated aside
    ("Melanie", "What kind of jobs are you thinking of?"),
    ("Caroline", "I'm keen on counseling or working in mental health"),
    ("Melanie", "My kids started swimming lessons"),
    ("Caroline", "The weather was rainy all weekend"),
]


def log(engine, scope, session, turns, first=1):
    out = []
    for n, (speaker, text) in enumerate(turns, start=first):
        cand = episode_candidate(f"{speaker}: {text}", speaker=speaker, turn_id=f"{session}:{n}")
        out.append(writer_of(engine).write(scope, [cand], session_id=session)[0].record)
        engine.clock.advance(seconds=5)
    return out


def recaller_for(engine, before=1, after=1):
    cfg = config_from_dict(
        {"recall": {"episode_context_before": before, "episode_context_after": after}},
        base=engine.config,
    )
    return Recaller(read_ports(engine), cfg.recall), cfg


def unit(result, record):
    return next(s for s in result.ranked if s.record.id == record.id)


def test_a_kept_episode_brings_the_turns_before_and_after_it_in_session_order(engine):
    ask, answer, aside, _ = log(engine, ALICE, "s1", DIALOGUE)
    rec, _ = recaller_for(engine)
    s = unit(rec.recall(ALICE, "counseling mental health jobs"), answer)
    assert s.kept
    assert [c.id for c in s.context] == [ask.id, answer.id, aside.id]
    assert s.turn_ids == ("s1:2", "s1:1", "s1:3")


@pytest.mark.parametrize(
    "before,after,expected",
    [
        (0, 1, ["s1:2", "s1:3"]),
        (1, 0, ["s1:1", "s1:2"]),
        (0, 0, ["s1:2"]),
        (2, 2, ["s1:1", "s1:2", "s1:3", "s1:4"]),
    ],
)
def test_the_window_size_comes_from_config(engine, before, after, expected):
    _, answer, _, _ = log(engine, ALICE, "s1", DIALOGUE)
    rec, _ = recaller_for(engine, before, after)
    s = unit(rec.recall(ALICE, "counseling mental health jobs"), answer)
    assert sorted(s.turn_ids) == expected


def test_context_never_crosses_a_session_or_a_scope(engine):
    log(engine, ALICE, "s0", [("Melanie", "an earlier session about gardening")])
    _, answer = log(engine, ALICE, "s1", DIALOGUE[:2], first=1)[0:2]
    log(engine, ALICE, "s2", [("Melanie", "a later session about pottery")])
    log(engine, BOB, "s1", [("Bob", "bob's own turn in a session with the same id")], first=3)
    rec, _ = recaller_for(engine, 2, 2)
    s = unit(rec.recall(ALICE, "counseling mental health jobs"), answer)
    assert {c.summary for c in s.context} == {
        "Melanie: What kind of jobs are you thinking of?",
        "Caroline: I'm keen on counseling or working in mental health",
    }


def test_forgotten_neighbours_do_not_come_back_as_context(engine):
    ask, answer, aside, _ = log(engine, ALICE, "s1", DIALOGUE)
    forget_in(engine, ALICE, aside.id)
    rec, _ = recaller_for(engine)
    s = unit(rec.recall(ALICE, "counseling mental health jobs"), answer)
    assert aside.id not in {c.id for c in s.context}
    assert engine.get(ALICE, aside.id).status is Status.INACTIVE


def test_outdated_neighbours_do_not_come_back_as_context(engine):
    old = episode_candidate(
        "Caroline: I drink coffee every morning", speaker="Caroline", turn_id="s1:1"
    )
    writer_of(engine).write(
        ALICE,
        [
            old,
            Candidate(
                MemoryType.PREFERENCE, "Caroline likes coffee", subject="drink", turn_ids=("s1:1",)
            ),
        ],
        session_id="s1",
    )
    engine.clock.advance(seconds=5)
    now = log(engine, ALICE, "s1", [("Caroline", "Counseling is the career I want")], first=2)[0]
    engine.clock.advance(seconds=5)
    writer_of(engine).write(
        ALICE,
        [
            Candidate(
                MemoryType.PREFERENCE, "Caroline likes tea now", subject="drink", turn_ids=("s1:3",)
            )
        ],
        session_id="s1",
    )
    rec, _ = recaller_for(engine)
    s = unit(rec.recall(ALICE, "counseling career"), now)
    assert "s1:1" not in s.turn_ids


def test_a_turn_shown_as_context_gives_up_its_own_place(engine):
    ask, answer, _, _ = log(engine, ALICE, "s1", DIALOGUE)
    rec, _ = recaller_for(engine)
    result = rec.recall(ALICE, "what jobs is Caroline thinking of: counseling or mental health")
    first, second = sorted((unit(result, ask), unit(result, answer)), key=lambda s: s.rank)
    assert first.kept and first.context
    assert not second.kept and second.reason == f"shown as context of {first.record.id}"


def test_the_injected_block_holds_the_whole_exchange_once(engine):
    log(engine, ALICE, "s1", DIALOGUE)
    rec, cfg = recaller_for(engine)
    plan = BlockAssembler(engine.store, engine.clock, cfg).assemble(
        ALICE, rec.recall(ALICE, "counseling mental health jobs")
    )
    assert plan.block.count("What kind of jobs are you thinking of?") == 1
    assert plan.block.count("keen on counseling") == 1
    assert plan.block.index("What kind of jobs") < plan.block.index("keen on counseling")


@pytest.mark.parametrize(
    "texts,expected",
    [
        (
            [("Melanie", "What jobs?"), ("Caroline", "Counseling.")],
            "2023-11-14, Melanie: What jobs? / Caroline: Counseling.",
        ),
        (
            [("小明", "你想做什么工作？"), ("小红", "心理咨询。")],
            "2023-11-14 小明：你想做什么工作？ / 小红：心理咨询。",
        ),
    ],
)
def test_a_window_renders_as_one_line_of_who_said_what(engine, texts, expected):
    records = log(engine, ALICE, "s1", [(who, text) for who, text in texts])
    plain = [
        dataclasses.replace(r, summary=text, tags=(f"speaker:{who}",))
        for r, (who, text) in zip(records, texts)
    ]
    line = render_record(plain[1], now=engine.clock.now(), window=plain)
    assert line == expected


def test_only_turns_shown_in_full_count_as_delivered(engine):
    from openclaw_memory.inject.render import delivered_turns

    long_reply = "Caroline: " + "counseling and mental health " * 30
    records = log(
        engine,
        ALICE,
        "s1",
        [
            ("Melanie", "What jobs are you thinking of?"),
            ("Caroline", long_reply[10:]),
            ("Melanie", "Sounds great!"),
        ],
    )
    rec, _ = recaller_for(engine)
    result = rec.recall(ALICE, "what job are you thinking of")  # one thing: no list question
    ask = unit(result, records[0])
    assert ask.kept and set(ask.turn_ids) == {
        "s1:1",
        "s1:2",
    }  # the window reaches the long reply...
    assert delivered_turns(ask) == ("s1:1",)  # ...but it is shown cut, so it is not delivered
    answer = dataclasses.replace(ask, record=records[1], context=())
    assert delivered_turns(answer) == ()  # a recalled turn cut short is not delivered either


def test_neighbours_are_nearest_first_with_ties_in_insertion_order(engine):
    """An episode's neighbours: nearest first, ties on the timestamp broken by insertion order,
    other sessions (even at the same times) and other scopes left out."""
    first = log(engine, ALICE, "s1", DIALOGUE)
    engine.clock.advance(seconds=-20)  # s2's turns share timestamps with s1's
    second = log(engine, ALICE, "s2", DIALOGUE[:3])
    same_time = [
        writer_of(engine)
        .write(
            ALICE,
            [episode_candidate(f"tie {n}", speaker="user", turn_id=f"s3:{n}")],
            session_id="s3",
        )[0]
        .record
        for n in range(4)
    ]
    log(engine, BOB, "s1", DIALOGUE[:2])

    def ids(rs):
        return [r.id for r in rs]

    for before, after in [(1, 1), (2, 0), (0, 3), (3, 3)]:
        earlier, later = engine.neighbours(ALICE, first[1].id, before=before, after=after)
        assert ids(earlier) == ids(first[:1])[:before] and ids(later) == ids(first[2:])[:after]
        earlier, later = engine.neighbours(ALICE, second[2].id, before=before, after=after)
        assert ids(earlier) == ids(reversed(second[:2]))[:before] and later == []
        earlier, later = engine.neighbours(ALICE, same_time[1].id, before=before, after=after)
        assert (
            ids(earlier) == ids(same_time[:1])[:before] and ids(later) == ids(same_time[2:])[:after]
        )
    assert engine.neighbours(ALICE, "mem_missing") == ([], [])


def test_two_exchanges_of_one_day_share_one_dated_line(engine):
    from openclaw_memory.core.tokens import count_tokens

    fillers = [("Melanie", f"My kids played game number {n} today") for n in range(4)]
    later = [
        ("Melanie", "Any counseling workshops lately?"),
        ("Caroline", "Yes, a mental health counseling workshop"),
    ]
    log(engine, ALICE, "s1", [*DIALOGUE[:2], *fillers, *later])
    rec, cfg = recaller_for(engine)
    plan = BlockAssembler(engine.store, engine.clock, cfg).assemble(
        ALICE, rec.recall(ALICE, "counseling mental health jobs workshop")
    )
    related = plan.block.split("Related memories:\n", 1)[1].splitlines()[:-1]
    dated = [line for line in related if line.startswith("- 20")]
    assert len(dated) == 1 and " … " in dated[0]
    assert dated[0].count(dated[0][2:12]) == 1  # the date is shown once
    assert "keen on counseling" in dated[0] and "mental health counseling workshop" in dated[0]
    assert plan.sections["retrieved"] == sum(count_tokens(line[2:]) for line in related)


def _one_by_one(engine, scope, ranked, before, after, units):
    """Episode context as it was computed before the retired-turn lookups were batched: each
    episode's neighbours and their retired turns read when the episode is reached."""
    from openclaw_memory.recall.recaller import _answered
    from openclaw_memory.recall.recaller import _eligible

    shown: dict[str, str] = {}
    out, done = [], 0
    for s in ranked:
        r = s.record
        if s.kept and r.id in shown:
            s = dataclasses.replace(s, kept=False, reason=f"shown as context of {shown[r.id]}")
        elif _eligible(s) and done < units:
            done += 1
            earlier, later = engine.neighbours(scope, r.id, before=before, after=after + 1)
            later = _answered(later, after)
            turns = [t for c in [*earlier, *later] for t in c.source.turn_ids]
            retired = engine.store.retired_turns(scope, turns) if turns else {}
            hide = shown if s.kept else {}
            window = tuple(
                c
                for c in [*reversed(earlier), r, *later]
                if c is r
                or (
                    c.id not in hide
                    and not (c.source.turn_ids and all(t in retired for t in c.source.turn_ids))
                )
            )
            context = window if len(window) > 1 else ()
            s = dataclasses.replace(s, context=context)
            if s.kept:
                shown.setdefault(r.id, r.id)
                for c in context:
                    shown.setdefault(c.id, r.id)
        out.append(s)
    return out


@pytest.mark.parametrize("units", [1, 2, 3, 20])
def test_contexts_read_ahead_equal_contexts_read_one_by_one(engine, units):
    """The first `units` episodes' neighbours are read ahead; an episode past them (a kept one
    shown as another's context let it in) is read when reached: the same windows either way."""
    from openclaw_memory.recall.recaller import attach_context
    from openclaw_memory.types import ScoredMemory

    logged = [
        r
        for n, session in enumerate(("s1", "s2", "s3"))
        for r in log(engine, ALICE, session, DIALOGUE, first=1 + 10 * n)
    ]
    # neighbours ranked near each other (some are shown as another's context), one below the bar
    order = [1, 0, 5, 9, 2, 4, 10, 6, 11, 3, 8, 7]
    ranked = [
        ScoredMemory(
            logged[i],
            1.0 - rank / 100,
            rank=rank,
            kept=rank != 4,
            reason="" if rank != 4 else "below relevance threshold (test)",
        )
        for rank, i in enumerate(order, start=1)
    ]
    got = attach_context(engine.store, engine.clock, ALICE, ranked, before=1, after=1, units=units)
    want = _one_by_one(engine, ALICE, ranked, 1, 1, units)
    assert got == want
    assert any(s.context for s in got)
    assert any(s.reason.startswith("shown as context") for s in got)


def test_a_list_question_gets_one_more_turn_after(engine):
    turns = [
        ("Melanie", "I read a great book last month"),
        ("Caroline", "Oh nice, a good book makes a month"),
        ("Melanie", "Charlotte's Web, I loved it as a kid"),
        ("Caroline", "The weather was rainy all weekend"),
    ]
    first, *_ = log(engine, ALICE, "s1", turns)
    rec, _ = recaller_for(engine, before=0, after=1)
    one = unit(rec.recall(ALICE, "Did Melanie read a great book last month?"), first)
    several = unit(rec.recall(ALICE, "What books has Melanie read?"), first)
    assert len(one.context) == 2 and len(several.context) == 3  # the turn itself, then after
    off, _ = recaller_for(engine, before=0, after=0)
    assert unit(off.recall(ALICE, "What books has Melanie read?"), first).context == ()


QUESTION_ANSWERED = [
    # (turns, the request, how many turns the hit's window holds with one turn after it)
    (  # the turn after the hit asks, another speaker answers: the answer comes too
        [
            ("Caroline", "I loved Becoming Nicole by Amy Ellis Nutt"),
            ("Melanie", "What did you take away from it?"),
            ("Caroline", "It taught me self-acceptance and how to find support"),
            ("Melanie", "The weather was rainy all weekend"),
        ],
        "Did Caroline love Becoming Nicole by Amy Ellis Nutt?",
        3,
    ),
    (  # a photo shared after the question does not hide it
        [
            ("Caroline", "I loved Becoming Nicole by Amy Ellis Nutt"),
            ("Melanie", "Nice! Which part stuck? [shares a photo: a book on a table]"),
            ("Caroline", "It taught me self-acceptance and how to find support"),
        ],
        "Did Caroline love Becoming Nicole by Amy Ellis Nutt?",
        3,
    ),
    (
        [
            ("小林", "周末我们去看了两家咖啡店"),
            ("王伟", "你最后选了哪家？"),
            ("小林", "选了河边那家，安静"),
            ("王伟", "下周天气转凉"),
        ],
        "小林周末去看了两家咖啡店",
        3,
    ),
    (
        [
            ("小林", "周末我们去看了两家咖啡店"),
            ("王伟", "最后选的是河边那家吗"),
            ("小林", "对，安静"),
        ],
        "小林周末去看了两家咖啡店",
        3,
    ),
    (  # the same speaker going on is no answer
        [
            ("Caroline", "I loved Becoming Nicole by Amy Ellis Nutt"),
            ("Caroline", "Have you read it?"),
            ("Caroline", "I should lend it to my cousin too"),
        ],
        "Did Caroline love Becoming Nicole by Amy Ellis Nutt?",
        2,
    ),
    (  # no question, no further turn
        [
            ("小林", "周末我们去看了两家咖啡店"),
            ("王伟", "听起来不错"),
            ("小林", "选了河边那家，安静"),
        ],
        "小林周末去看了两家咖啡店",
        2,
    ),
]


@pytest.mark.parametrize("turns,request_text,size", QUESTION_ANSWERED)
def test_a_window_ending_on_a_question_brings_its_answer(engine, turns, request_text, size):
    first, *rest = log(engine, ALICE, "s1", turns)
    rec, _ = recaller_for(engine, before=0, after=1)
    s = unit(rec.recall(ALICE, request_text), first)
    assert [c.id for c in s.context] == [first.id, *(r.id for r in rest)][:size]
    off, _ = recaller_for(engine, before=0, after=0)
    assert unit(off.recall(ALICE, request_text), first).context == ()


def test_a_user_alone_log_is_never_stretched_by_its_own_questions(engine):
    """A log of the user's turns only (no replies stored): a question of theirs has no answer."""
    turns = [
        ("user", "I booked the flight to Lisbon"),
        ("user", "what should I pack?"),
        ("user", "the hotel is near the river"),
    ]
    cands = [
        episode_candidate(t, speaker=who, turn_id=f"s1:{n}") for n, (who, t) in enumerate(turns)
    ]
    first = writer_of(engine).write(ALICE, cands[:1], session_id="s1")[0].record
    for c in cands[1:]:
        engine.clock.advance(seconds=5)
        writer_of(engine).write(ALICE, [c], session_id="s1")
    rec, _ = recaller_for(engine, before=0, after=1)
    s = unit(rec.recall(ALICE, "Did I book the flight to Lisbon?"), first)
    assert [c.summary for c in s.context] == [
        "I booked the flight to Lisbon",
        "what should I pack?",
    ]
