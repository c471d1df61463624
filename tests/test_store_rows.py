"""A stored row read back as a record: the fast paths of `store/records.py` give exactly what
the JSON parser and the dataclass constructors give."""

from __future__ import annotations

import dataclasses
import json
import sqlite3

import pytest

from openclaw_memory.store import records as rec
from openclaw_memory.store.records import _json_tuple, row_to_record
from openclaw_memory.types import Channel, MemoryRecord, MemoryType, Scope, Source, Status

LISTS = [
    [],
    [""],
    ["", ""],
    ["speaker:Caroline"],
    ["s1#3", "s1#4"],
    ["咖啡", "北京", "小王"],
    ['say "hi"', "x"],
    ["back\\slash"],
    ['a", "b'],
    ["a, b", "c"],
    ["tab\there", "new\nline"],
    ["]", "["],
    ["emoji 🎉", "ünïcödé"],
]


@pytest.mark.parametrize("items", LISTS)
@pytest.mark.parametrize("ascii_only", [True, False])
def test_json_lists_read_as_the_parser_reads_them(items: list[str], ascii_only: bool) -> None:
    stored = json.dumps(items, ensure_ascii=ascii_only)
    assert _json_tuple(stored) == tuple(json.loads(stored))


@pytest.mark.parametrize(
    "stored",
    ['["a","b"]', '[ "a" ]', '["a", 1]', '["a", 1, "b"]', "[1, 2]", '["a" , "b"]', '["x"]'],
)
def test_lists_written_otherwise_are_parsed(stored: str) -> None:
    assert _json_tuple(stored) == tuple(json.loads(stored))


def _record(items: list[str]) -> MemoryRecord:
    return MemoryRecord(
        id="m-1",
        scope=Scope("u1", "main", "ws"),
        type=MemoryType.FACT,
        summary="用户喜欢喝咖啡",
        subject="drink",
        detail="every morning",
        session_id="s1",
        tags=tuple(items),
        entities=tuple(reversed(items)),
        importance=0.7,
        confidence=0.9,
        source=Source(Channel.EXPLICIT, "s1", tuple(items), "tester"),
        status=Status.ARCHIVED,
        version=3,
        prev_id="m-0",
        superseded_at=12.5,
        created_at=10.0,
        updated_at=11.0,
        last_accessed_at=13.0,
        access_count=4,
        expires_at=99.0,
        doubt_of=None,
        links=tuple(items[:1]),
    )


@pytest.mark.parametrize("items", LISTS)
def test_a_row_reads_back_equal_to_the_record_written(items: list[str]) -> None:
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    names = [c.strip() for c in rec._COLUMNS.split(",")]
    db.execute(f"CREATE TABLE records ({', '.join(names)})")
    original = _record(items)
    db.execute(
        f"INSERT INTO records VALUES ({', '.join('?' * len(names))})", rec._row_values(original)
    )
    back = row_to_record(db.execute("SELECT * FROM records").fetchone())
    assert back == original
    assert hash(back) == hash(original)
    # every field is set, as the constructor sets it (no default left to a class attribute)
    assert set(vars(back)) == {f.name for f in dataclasses.fields(MemoryRecord)}
    assert set(vars(back.source)) == {f.name for f in dataclasses.fields(Source)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        back.summary = "changed"  # type: ignore[misc]
    assert back.replace(summary="x").summary == "x"
