"""A record as a `records` row and back: the columns both SQL backends write, and the read
path's fast conversion of a row into a frozen `MemoryRecord` (no `__init__` call).

The fast path fills an instance's `__dict__` directly, which is only the constructor's result
while the classes it builds stay plain frozen dataclasses whose every field the row fills. This
module checks that on import (`fast_path_problems`, then a probe record read back through the
fast path) and refuses to load otherwise, naming what changed: a `__post_init__`, `__slots__`,
an own `__init__` or `__new__`, a field with `init=False`, or a field the row does not fill.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
from typing import Any, Collection, TypeVar

from ..errors import StoreError
from ..types import Channel, MemoryRecord, MemoryType, Scope, Source, Status
from .port_values import content_hash

_T = TypeVar("_T")

_COLUMNS = (
    "id, user_id, agent_id, workspace, session_id, type, subject, summary, detail, tags, entities, "
    "importance, confidence, channel, source_session, turn_ids, writer, status, version, prev_id, "
    "superseded_at, created_at, updated_at, last_accessed_at, access_count, expires_at, doubt_of, "
    "links, content_hash"
)
COLUMN_NAMES = tuple(c.strip() for c in _COLUMNS.split(","))


def _row_values(r: MemoryRecord) -> tuple:
    return (
        r.id,
        r.scope.user_id,
        r.scope.agent_id,
        r.scope.workspace,
        r.session_id,
        r.type.value,
        r.subject,
        r.summary,
        r.detail,
        json.dumps(list(r.tags), ensure_ascii=False),
        json.dumps(list(r.entities), ensure_ascii=False),
        r.importance,
        r.confidence,
        r.source.channel.value,
        r.source.session_id,
        json.dumps(list(r.source.turn_ids)),
        r.source.writer,
        r.status.value,
        r.version,
        r.prev_id,
        r.superseded_at,
        r.created_at,
        r.updated_at,
        r.last_accessed_at,
        r.access_count,
        r.expires_at,
        r.doubt_of,
        json.dumps(list(r.links)),
        content_hash(r),
    )


def _json_tuple(value: str) -> tuple:
    """A stored JSON list of strings as a tuple. The lists this module writes (json.dumps, its
    ", " separator) are read without the JSON parser when no string holds a backslash, so none
    holds a quote: splitting on the separator is then exact, and anything else is parsed."""
    if value == "[]":
        return ()
    if len(value) >= 4 and value[:2] == '["' and value[-2:] == '"]' and "\\" not in value:
        parts = value[2:-2].split('", "')
        if not any('"' in p for p in parts):
            return tuple(parts)
    return tuple(json.loads(value))


def _frozen(cls: type[_T], fields: dict) -> _T:
    """An instance of the frozen dataclass cls with every field given: a frozen dataclass's
    __init__ sets each field through object.__setattr__, three times the cost of filling its
    __dict__ (MemoryRecord: ~30 against ~10 us here, for ~85 rows a recall). Safe only for the
    classes `fast_path_problems` finds nothing wrong with; the module checks its two on import."""
    obj: _T = object.__new__(cls)
    obj.__dict__.update(fields)
    return obj


def row_to_record(row: Any) -> MemoryRecord:
    """A `records` row (a sqlite3.Row, or any row answering keys()) as a MemoryRecord."""
    # One dict per row: a sqlite3.Row looks each name up by a case-insensitive scan of its
    # columns, which made this about twice as slow (~87 rows per recall at 100k memories).
    c = dict(zip(row.keys(), row))
    return _frozen(
        MemoryRecord,
        dict(
            id=c["id"],
            scope=_scope(c["user_id"], c["agent_id"], c["workspace"]),
            type=_TYPES.get(c["type"]) or MemoryType(c["type"]),
            summary=c["summary"],
            subject=c["subject"],
            detail=c["detail"],
            session_id=c["session_id"],
            tags=_json_tuple(c["tags"]),
            entities=_json_tuple(c["entities"]),
            importance=c["importance"],
            confidence=c["confidence"],
            source=_frozen(
                Source,
                dict(
                    channel=_CHANNELS.get(c["channel"]) or Channel(c["channel"]),
                    session_id=c["source_session"],
                    turn_ids=_json_tuple(c["turn_ids"]),
                    writer=c["writer"],
                ),
            ),
            status=_STATUSES.get(c["status"]) or Status(c["status"]),
            version=c["version"],
            prev_id=c["prev_id"],
            superseded_at=c["superseded_at"],
            created_at=c["created_at"],
            updated_at=c["updated_at"],
            last_accessed_at=c["last_accessed_at"],
            access_count=c["access_count"],
            expires_at=c["expires_at"],
            doubt_of=c["doubt_of"],
            links=_json_tuple(c["links"]),
        ),
    )


_TYPES = {t.value: t for t in MemoryType}
_CHANNELS = {ch.value: ch for ch in Channel}
_STATUSES = {st.value: st for st in Status}


@functools.lru_cache(maxsize=1024)
def _scope(user_id: str, agent_id: str, workspace: str | None) -> Scope:
    """Scopes are immutable and a read returns rows of one or a few: validate each once."""
    return Scope(user_id, agent_id, workspace)


# ---- the fast path's guard -------------------------------------------------------------------


def fast_path_problems(cls: type, filled: Collection[str]) -> list[str]:
    """Why `_frozen(cls, ...)` with the fields `filled` would not build what `cls(...)` builds
    (empty: it would)."""
    name = cls.__name__
    if not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        return [f"{name} is not a frozen dataclass"]
    problems = []
    if hasattr(cls, "__post_init__"):
        problems.append(f"{name} has __post_init__, which the fast path would not run")
    if any("__slots__" in vars(k) for k in cls.__mro__[:-1]):
        problems.append(f"{name} declares __slots__: its instances have no __dict__ to fill")
    if cls.__new__ is not object.__new__:
        problems.append(f"{name} defines __new__, which the fast path would not call")
    init = getattr(cls.__init__, "__code__", None)
    module = sys.modules.get(cls.__module__)
    if init is not None and init.co_filename == getattr(module, "__file__", None):
        problems.append(f"{name} defines its own __init__, which the fast path would not run")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    problems += [f"{name}.{n} has init=False" for n, f in fields.items() if not f.init]
    problems += [f"{name}.{n} is not filled from the row" for n in fields if n not in filled]
    problems += [
        f"the row fills {n}, which {name} has no field for" for n in filled if n not in fields
    ]
    return problems


class _ProbeRow(tuple):
    """A row as the drivers give one: keys() and the values in order."""

    def keys(self) -> tuple[str, ...]:
        return COLUMN_NAMES


def _probe() -> MemoryRecord:
    """A record with no field at its default (a field added with a default stays at it)."""
    return MemoryRecord(
        id="probe",
        scope=Scope("u", "a", "w"),
        type=MemoryType.FACT,
        summary="summary",
        subject="subject",
        detail="detail",
        session_id="s",
        tags=("tag",),
        entities=("entity",),
        importance=0.25,
        confidence=0.75,
        source=Source(Channel.EXPLICIT, "s0", ("s0#1",), "probe"),
        status=Status.ARCHIVED,
        version=2,
        prev_id="prev",
        superseded_at=3.0,
        created_at=1.0,
        updated_at=2.0,
        last_accessed_at=4.0,
        access_count=5,
        expires_at=6.0,
        doubt_of="doubted",
        links=("link",),
    )


def check_fast_path() -> None:
    """Raise StoreError unless `row_to_record` builds exactly what the constructors build."""
    probe = _probe()
    back: Any = row_to_record(_ProbeRow(_row_values(probe)))
    problems = fast_path_problems(MemoryRecord, vars(back))
    problems += fast_path_problems(Source, vars(back.source))
    if not problems and back != probe:
        problems.append(f"a record read back differs from the one written: {back} != {probe}")
    if problems:
        raise StoreError(
            "store/record_rows.py: row_to_record builds records without calling __init__, "
            "which is no longer safe: " + "; ".join(problems) + " (update row_to_record, or "
            "build the record with its constructor)"
        )


check_fast_path()
