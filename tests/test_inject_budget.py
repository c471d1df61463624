"""Budget packing: a pure function, tested table-driven with a word counter and with tiktoken."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_memory.core.clock import DAY
from openclaw_memory.config import BudgetConfig
from openclaw_memory.errors import ValidationError
from openclaw_memory.inject.assemble import ALL_SECTIONS
from openclaw_memory.inject.assemble import SECTIONS
from openclaw_memory.inject.assemble import pack
from openclaw_memory.inject.assemble import section_of
from openclaw_memory.inject.assemble import total_budget
from openclaw_memory.inject.render import render_record
from openclaw_memory.core.tokens import count_tokens, truncate_tokens
from openclaw_memory.types import MemoryRecord, MemoryType, Scope, ScoredMemory

SCOPE = Scope("u1")
NOW = 1_750_000_000.0
T = MemoryType


def words(text: str) -> int:
    return len(text.split())


def cut_words(text: str, n: int) -> str:
    parts = text.split()
    return text if len(parts) <= n else " ".join(parts[: n - 1] + ["…"])


def rec(rid: str, type_: MemoryType, summary: str, **kw) -> MemoryRecord:
    return MemoryRecord(id=rid, scope=SCOPE, type=type_, summary=summary, **kw)


def sm(record: MemoryRecord, *, kept: bool = True, reason: str = "", rank: int = 0) -> ScoredMemory:
    return ScoredMemory(record=record, score=0.5, kept=kept, reason=reason, rank=rank)


def run(cands, budgets=(10, 10, 10), total=None, truncate=cut_words):
    b = dict(zip(SECTIONS, budgets, strict=True))
    return pack(
        cands, b, total=total, count=words, render_one=lambda r: r.summary, truncate=truncate
    )


W3 = "alpha beta gamma"
W2 = "delta epsilon"

CASES = [
    (
        "everything fits",
        [sm(rec("p1", T.PROFILE, W3)), sm(rec("r1", T.FACT, W2))],
        (10, 10, 10),
        None,
        ["p1", "r1"],
        {},
    ),
    (
        "section overflow",
        [sm(rec("p1", T.PROFILE, W3)), sm(rec("p2", T.PREFERENCE, "one two three"))],
        (5, 10, 10),
        None,
        ["p1"],
        {"p2": "over section budget profile (3+3>5)"},
    ),
    (
        "later smaller line still fits after an oversize one",
        [
            sm(rec("p1", T.PROFILE, W2)),
            sm(rec("p2", T.PROFILE, "a b c d e f")),
            sm(rec("p3", T.PROFILE, W3)),
        ],
        (5, 10, 10),
        None,
        ["p1", "p3"],
        {"p2": "over section budget profile (2+6>5)"},
    ),
    (
        "total cap",
        [sm(rec("r1", T.FACT, W3)), sm(rec("s1", T.SUMMARY, W2))],
        (10, 10, 10),
        4,
        ["r1"],
        {"s1": "over total budget (3+2>4)"},
    ),
    (
        "duplicate id",
        [sm(rec("r1", T.FACT, W3)), sm(rec("r1", T.FACT, W3))],
        (10, 10, 10),
        None,
        ["r1"],
        {"r1": "duplicate of r1"},
    ),
    (
        "duplicate text under another id",
        [sm(rec("r1", T.FACT, W3)), sm(rec("r2", T.EVENT, "Alpha  beta\tGAMMA"))],
        (10, 10, 10),
        None,
        ["r1"],
        {"r2": "duplicate of r1"},
    ),
    (
        "pre-dropped keeps its reason",
        [sm(rec("r1", T.FACT, W3), kept=False, reason="below min_semantic (0.71<0.80)")],
        (10, 10, 10),
        None,
        [],
        {"r1": "below min_semantic (0.71<0.80)"},
    ),
    (
        "older version dropped even when it ranks first",
        [sm(rec("r0", T.FACT, W3)), sm(rec("r1", T.FACT, W2, prev_id="r0", version=2))],
        (10, 10, 10),
        None,
        ["r1"],
        {"r0": "superseded by r1"},
    ),
    (
        "zero budget section",
        [sm(rec("s1", T.SUMMARY, W2)), sm(rec("r1", T.EPISODE, W3))],
        (10, 0, 10),
        None,
        ["r1"],
        {"s1": "over section budget summaries (0+2>0)"},
    ),
]


@pytest.mark.parametrize(
    "cands,budgets,total,kept_ids,dropped", [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_pack_table(cands, budgets, total, kept_ids, dropped):
    p = run(cands, budgets, total)
    assert [k.record.id for k in p.kept] == kept_ids
    assert {d.record.id: d.reason for d in p.dropped} == dropped
    assert all(k.kept for k in p.kept) and not any(d.kept for d in p.dropped)
    ranks = sorted(c.rank for c in (*p.kept, *p.dropped))
    assert ranks == list(range(1, len(cands) + 1))
    assert p.total_tokens == sum(p.tokens_by_section.values())
    assert set(p.tokens_by_section) == set(ALL_SECTIONS)


def test_first_oversize_line_is_truncated_not_dropped():
    p = run(
        [sm(rec("p1", T.PROFILE, "a b c d e f")), sm(rec("p2", T.PROFILE, "g"))],
        budgets=(3, 10, 10),
    )
    assert [k.record.id for k in p.kept] == ["p1"]
    assert p.lines["profile"] == ("a b …",)
    assert p.tokens_by_section["profile"] == 3
    assert p.dropped[0].reason == "over section budget profile (3+1>3)"


def test_truncation_also_respects_the_total_cap():
    p = run([sm(rec("r1", T.FACT, "a b c d e f g h i j k l"))], budgets=(10, 10, 10), total=2)
    assert p.lines["retrieved"] == ("a …",)
    assert p.total_tokens == 2


def test_truncation_with_a_mismatched_truncator_still_fits():
    # tiktoken's truncate disagrees with the word counter; pack must re-count until it fits.
    p = run([sm(rec("p1", T.PROFILE, "x " * 50))], budgets=(4, 10, 10), truncate=truncate_tokens)
    assert p.kept and words(p.lines["profile"][0]) <= 4


def test_candidates_taken_by_rank_not_input_order():
    cands = [sm(rec("late", T.FACT, W2), rank=2), sm(rec("early", T.FACT, "z y"), rank=1)]
    p = run(cands, total=2)
    assert [k.record.id for k in p.kept] == ["early"]
    assert p.dropped[0].record.id == "late" and p.dropped[0].rank == 2


def test_kept_lines_grouped_by_section_in_rank_order():
    cands = [
        sm(rec("r1", T.DECISION, "use sqlite")),
        sm(rec("p1", T.PREFERENCE, "likes tea")),
        sm(rec("s1", T.SUMMARY, "talked about tea")),
        sm(rec("r2", T.TASK, "write report")),
    ]
    p = run(cands)
    assert p.lines == {
        "profile": ("likes tea",),
        "summaries": ("talked about tea",),
        "retrieved": ("use sqlite", "write report"),
        "procedures": (),
    }


@pytest.mark.parametrize(
    "type_,section",
    [
        (T.PROFILE, "profile"),
        (T.PREFERENCE, "profile"),
        (T.SUMMARY, "summaries"),
        (T.FACT, "retrieved"),
        (T.EVENT, "retrieved"),
        (T.DECISION, "retrieved"),
        (T.TASK, "retrieved"),
        (T.EPISODE, "retrieved"),
    ],
)
def test_section_of(type_, section):
    assert section_of(rec("x", type_, "s")) == section


@pytest.mark.parametrize(
    "budgets,total,field",
    [
        ({"profile": 1, "summaries": 1}, None, "budgets.retrieved"),
        ({"profile": -1, "summaries": 1, "retrieved": 1}, None, "budgets.profile"),
        ({"profile": 1.5, "summaries": 1, "retrieved": 1}, None, "budgets.profile"),
        ({"profile": 1, "summaries": 1, "retrieved": 1, "extra": 3}, None, "budgets.extra"),
        ({"profile": 1, "summaries": 1, "retrieved": 1}, -5, "total"),
    ],
)
def test_bad_budgets_name_the_field(budgets, total, field):
    with pytest.raises(ValidationError, match=field.replace(".", r"\.")):
        pack([], budgets, total=total, count=words, render_one=lambda r: r.summary)


def test_real_tokens_chinese_and_english_stay_in_budget():
    long_zh = "用户长期在杭州工作，" * 40
    cands = [
        sm(rec("p1", T.PROFILE, long_zh)),
        sm(rec("p2", T.PROFILE, "Prefers answers in tables")),
        sm(rec("f1", T.FACT, "已切换为前端实现", subject="PRD-223")),
        sm(rec("f2", T.FACT, "Switched to frontend auth", subject="PRD-224")),
    ]
    budgets = {"profile": 60, "summaries": 100, "retrieved": 100}
    p = pack(
        cands,
        budgets,
        total=200,
        count=count_tokens,
        render_one=lambda r: render_record(r, now=NOW),
    )
    assert p.lines["profile"][0].endswith("…")
    assert count_tokens(p.lines["profile"][0]) <= 60
    assert p.dropped[0].record.id == "p2"
    assert p.dropped[0].reason.startswith("over section budget profile (")
    assert p.lines["retrieved"] == (
        "PRD-223（当前）：已切换为前端实现",
        "PRD-224 (current): Switched to frontend auth",
    )
    assert p.tokens_by_section["retrieved"] == sum(count_tokens(x) for x in p.lines["retrieved"])


@pytest.mark.parametrize(
    "cfg,request_tokens,expected",
    [
        (BudgetConfig(), 1000, 2700),  # 100 + 800 + 1500 + 300 (procedures)
        (BudgetConfig(model_context_tokens=8000, total_share=0.2), 1000, 1600),
        (BudgetConfig(model_context_tokens=8000, total_share=0.2), 7500, 500),
        (BudgetConfig(model_context_tokens=8000), 9000, 0),
        (BudgetConfig(profile=100, summaries=300, retrieved=500, procedures=0), 0, 900),
    ],
)
def test_total_budget(cfg, request_tokens, expected):
    assert total_budget(cfg, request_tokens) == expected


@pytest.mark.parametrize("bad", [-1, 1.5, "100", None, True])
def test_total_budget_rejects_bad_request_tokens(bad):
    with pytest.raises(ValidationError, match="request_tokens"):
        total_budget(BudgetConfig(), bad)


_TYPES = list(MemoryType)
_WORDS = "ab cd ef gh ij kl".split()


@st.composite
def candidate_lists(draw):
    n = draw(st.integers(0, 12))
    out = []
    for i in range(n):
        pieces = draw(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=9))
        text = " ".join(pieces)
        r = rec(
            f"m{draw(st.integers(0, 8))}",
            draw(st.sampled_from(_TYPES)),
            text,
            created_at=NOW - i * DAY,
        )
        pre_dropped = i % 3 == 0 and draw(st.booleans())
        out.append(sm(r, kept=not pre_dropped, reason="pre" if pre_dropped else ""))
    return out


@settings(max_examples=150, deadline=None)
@given(
    cands=candidate_lists(),
    budgets=st.tuples(*[st.integers(0, 12)] * 3),
    total=st.one_of(st.none(), st.integers(0, 30)),
)
def test_pack_never_exceeds_budgets_and_accounts_for_everyone(cands, budgets, total):
    p = run(cands, budgets, total)
    for name, budget in zip(SECTIONS, budgets, strict=True):
        assert p.tokens_by_section[name] <= budget
        assert p.tokens_by_section[name] == sum(words(x) for x in p.lines[name])
    if total is not None:
        assert p.total_tokens <= total
    assert len(p.kept) + len(p.dropped) == len(cands)
    assert all(d.reason for d in p.dropped)
    kept_ids = [k.record.id for k in p.kept]
    assert len(kept_ids) == len(set(kept_ids))


def test_count_tokens_is_memoised_and_exact():
    from openclaw_memory.core.tokens import count_tokens, get_encoding

    text = "我喜欢喝茶 and I like tea — 42 tokens?"
    exact = len(get_encoding().encode(text, disallowed_special=()))
    assert count_tokens(text) == count_tokens(text) == exact
    assert count_tokens("") == 0 and count_tokens("<|endoftext|>") > 1
