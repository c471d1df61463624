"""A stored row read back as a record: the fast paths of `store/sql.py` give exactly
what the JSON parser and the dataclass constructors give, and refuse classes they would not."""

from __future__ import annotations

import dataclasses
import json
import sqlite3

import pytest

from openclaw_memory.errors import StoreError
from openclaw_memory.store import sql as rec_rows
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


# ---- the fast path's guard: it refuses a class the constructor would build differently -------


@dataclasses.dataclass(frozen=True)
class _Plain:
    a: str
    b: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class _PostInit:
    a: str
    b: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "b", tuple(sorted(self.b)))


@dataclasses.dataclass(frozen=True, slots=True)
class _Slotted:
    a: str
    b: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class _Factory:
    a: str
    b: tuple[str, ...] = ()
    seen: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class _Computed:
    a: str
    b: tuple[str, ...] = ()
    size: int = dataclasses.field(init=False, default=0)


@dataclasses.dataclass(frozen=True)
class _OwnInit:
    a: str
    b: tuple[str, ...] = ()

    def __init__(self, a: str, b: tuple[str, ...] = ()) -> None:
        object.__setattr__(self, "a", a.strip())
        object.__setattr__(self, "b", b)


@dataclasses.dataclass
class _Mutable:
    a: str
    b: tuple[str, ...] = ()


@pytest.mark.parametrize(
    "cls, problem",
    [
        (_PostInit, "__post_init__"),
        (_Slotted, "__slots__"),
        (_Factory, "_Factory.seen is not filled from the row"),
        (_Computed, "_Computed.size has init=False"),
        (_OwnInit, "its own __init__"),
        (_Mutable, "not a frozen dataclass"),
    ],
)
def test_the_guard_names_what_the_fast_path_would_skip(cls: type, problem: str) -> None:
    assert rec_rows.fast_path_problems(_Plain, ("a", "b")) == []
    found = rec_rows.fast_path_problems(cls, ("a", "b"))
    assert any(problem in p for p in found), found


def test_the_guard_names_fields_the_row_leaves_out_or_adds() -> None:
    assert rec_rows.fast_path_problems(_Plain, ("a",)) == ["_Plain.b is not filled from the row"]
    assert rec_rows.fast_path_problems(_Plain, ("a", "b", "c")) == [
        "the row fills c, which _Plain has no field for"
    ]


def test_the_record_classes_pass_the_guard_and_the_probe_reads_back_equal() -> None:
    fields = [f.name for f in dataclasses.fields(MemoryRecord)]
    assert rec_rows.fast_path_problems(MemoryRecord, fields) == []
    assert rec_rows.fast_path_problems(Source, [f.name for f in dataclasses.fields(Source)]) == []
    rec_rows.check_fast_path()  # what the module runs on import


def test_a_record_class_that_gains_a_field_fails_the_check(monkeypatch) -> None:
    grown = dataclasses.make_dataclass(
        "MemoryRecord",
        [("note", str, dataclasses.field(default=""))],
        bases=(MemoryRecord,),
        frozen=True,
    )
    monkeypatch.setattr(rec_rows, "MemoryRecord", grown)
    with pytest.raises(StoreError, match=r"MemoryRecord\.note is not filled from the row"):
        rec_rows.check_fast_path()


def test_a_source_class_that_gains_post_init_fails_the_check(monkeypatch) -> None:
    checked = dataclasses.make_dataclass(
        "Source", [], bases=(Source,), frozen=True, namespace={"__post_init__": lambda self: None}
    )
    monkeypatch.setattr(rec_rows, "Source", checked)
    with pytest.raises(StoreError, match="Source has __post_init__"):
        rec_rows.check_fast_path()
