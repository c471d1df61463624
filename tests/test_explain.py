"""Explanations: a fixed-width table that lines up with Chinese text, and a JSON-safe dict."""

from __future__ import annotations

import json

import pytest

from openclaw_memory.recall.rank import display_width
from openclaw_memory.recall.rank import explain_table
from openclaw_memory.recall.rank import plan_to_json
from openclaw_memory.types import InjectionPlan, MemoryRecord, MemoryType, Scope, ScoredMemory

SCOPE = Scope("u1")
NOW = 1_750_000_000.0


def rec(rid, type_, summary, **kw):
    return MemoryRecord(id=rid, scope=SCOPE, type=type_, summary=summary, created_at=NOW, **kw)


def plan() -> InjectionPlan:
    cands = [
        ScoredMemory(
            rec("m1", MemoryType.PREFERENCE, "用户不吃花生，对花生过敏"),
            0.912345,
            {"semantic": 0.9, "keyword": 0.81234},
            ("vector", "keyword"),
            rank=1,
        ),
        ScoredMemory(
            rec("m2", MemoryType.FACT, "Switched to frontend auth", subject="PRD-223"),
            0.7,
            {"semantic": 0.6, "recency": 1.0},
            ("vector",),
            rank=2,
        ),
        ScoredMemory(
            rec("m3", MemoryType.EVENT, "部署失败：权限校验未通过，详细日志见附件，" * 3),
            0.51,
            {"keyword": 0.5},
            ("keyword",),
            rank=3,
            kept=False,
            reason="over section budget retrieved (1400+200>1500)",
        ),
        ScoredMemory(
            rec("m4", MemoryType.EPISODE, "line one\nline two\tｆｕｌｌｗｉｄｔｈ"),
            float("nan"),
            {},
            (),
            rank=4,
            kept=False,
            reason="below min_semantic",
        ),
    ]
    return InjectionPlan(
        block="<memory-context>\n...\n</memory-context>",
        position="after_system",
        query="我对什么过敏？",
        candidates=cands,
        sections={"profile": 20, "summaries": 0, "retrieved": 15},
        tokens=35,
        to_confirm=[rec("c1", MemoryType.PREFERENCE, "可能喜欢猫", confidence=0.3)],
    )


@pytest.mark.parametrize(
    "text,width", [("abc", 3), ("中文", 4), ("ｆｕｌｌ", 8), ("e\u0301", 1), ("", 0), ("a中b", 4)]
)
def test_display_width(text, width):
    assert display_width(text) == width


def _columns(table_lines):
    """Column start offsets read from the dashed rule under the header."""
    rule = table_lines[1]
    starts = [0] + [i + 1 for i in range(len(rule) - 1) if rule[i] == " " and rule[i + 1] == "-"]
    return starts


def _char_at_column(line: str, col: int) -> str:
    used = 0
    for ch in line:
        if used == col:
            return ch
        used += display_width(ch)
        if used > col:
            return "<split>"
    return ""


def test_table_columns_line_up_with_chinese_text():
    lines = explain_table(plan()).split("\n")
    table = lines[1:7]  # header, rule, four rows
    starts = _columns(table)
    # rank fate score keyword recency semantic channels type summary reason
    assert len(starts) == 10
    for line in [table[0], *table[2:]]:
        for col in starts[1:]:
            assert _char_at_column(line, col - 1) == " ", (col, line)
            assert _char_at_column(line, col) not in (" ", "", "<split>"), (col, line)
    # len()-based padding would misalign these rows: their widths differ from their lengths.
    assert any(len(r) != display_width(r) for r in table[2:])


def test_table_header_and_cells():
    lines = explain_table(plan()).split("\n")
    assert lines[0].startswith("query: 我对什么过敏？ | position: after_system | tokens: 35")
    assert lines[1].split() == [
        "rank",
        "fate",
        "score",
        "keyword",
        "recency",
        "semantic",
        "channels",
        "type",
        "summary",
        "reason",
    ]
    row1, row2, row3, row4 = lines[3:7]
    assert row1.split()[:8] == [
        "1",
        "kept",
        "0.9123",
        "0.8123",
        "-",
        "0.9000",
        "vector,keyword",
        "preference",
    ]
    assert row2.split()[3:5] == ["-", "1.0000"]
    assert row3.endswith("over section budget retrieved (1400+200>1500)")
    assert "dropped" in row3 and "…" in row3
    assert row4.split()[2] == "-" and "line one line two" in row4
    assert lines[-1] == "to confirm: c1 可能喜欢猫"
    assert len(lines) == 8


def test_summary_cell_is_clipped_by_display_width():
    lines = explain_table(plan()).split("\n")
    starts = _columns(lines[1:3])
    row3 = lines[5]
    summary_col, reason_col = starts[-2], starts[-1]
    cells = row3  # the summary cell is between those two columns, minus the 2-space gap
    width = 0
    segment = []
    for ch in cells:
        if summary_col <= width < reason_col - 2:
            segment.append(ch)
        width += display_width(ch)
    text = "".join(segment).rstrip()
    assert text.endswith("…") and display_width(text) <= 40


def test_empty_plan():
    out = explain_table(InjectionPlan(block="", position="after_system", query="hi"))
    assert out.split("\n")[1] == "(no candidates)"


def test_plan_to_json_shape():
    data = plan_to_json(plan())
    json.dumps(data, allow_nan=False, ensure_ascii=False)
    assert set(data) == {
        "query",
        "position",
        "tokens",
        "sections",
        "block",
        "candidates",
        "to_confirm",
    }
    first = data["candidates"][0]
    assert first == {
        "rank": 1,
        "kept": True,
        "score": 0.9123,
        "components": {"keyword": 0.8123, "semantic": 0.9},
        "channels": ["vector", "keyword"],
        "entity": None,
        "reason": "",
        "record": {
            "id": "m1",
            "type": "preference",
            "subject": None,
            "summary": "用户不吃花生，对花生过敏",
            "status": "active",
            "version": 1,
            "created_at": NOW,
        },
    }
    assert data["candidates"][3]["score"] is None
    assert [c["rank"] for c in data["candidates"]] == [1, 2, 3, 4]
    assert data["to_confirm"][0]["id"] == "c1"
    assert data["sections"] == {"profile": 20, "summaries": 0, "retrieved": 15}
