"""What every SQL backend shares: the dialect (what differs between SQLite and PostgreSQL), the
connection discipline, a scope's condition, a record as a `records` row and back, the episodes
around episodes, and the rows of an export and an import.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import sys
import threading
from typing import Any, Collection, ContextManager, Iterator, TypeVar, Sequence
from ..types import Scope, Channel, MemoryRecord, MemoryType, Source, Status
from ..errors import StoreError
from .ports import content_hash

# What differs between the SQL of SQLite and PostgreSQL: the dialect.
#
# The record store's statements are written once (`store/records.py`, `store/sql_store.py`) with
# `?` marks and these in place of the few spellings that differ: null-safe equality, the smaller
# and larger of two values, a planner hint, the ties of a list's order, an upsert, a JSON list of
# values, a key prefix, and the keyword index as a whole (SQLite's FTS5 table, PostgreSQL's
# BM25 tables). Each backend's subclass lives beside its connection (`store/sqlite/dialect.py`,
# `store/postgres/dialect.py`); a connection of a driver with another mark translates `?`.

#: the highest code point: a key prefix's range ends below prefix + this
MAX_CHAR = "\U0010ffff"


class Dialect:
    """One backend's spellings and its keyword index (subclasses: SQLite, PostgreSQL). The
    spellings given here are SQLite's."""

    name = ""
    #: the parameter mark of the driver (sqlite3: ?, psycopg: %s)
    mark = "?"
    #: equality that holds between two NULLs
    same = "IS"
    #: the smaller and the larger of two values (SQLite's two-argument MIN and MAX)
    least = "MIN"
    greatest = "MAX"
    #: before a column: keep it out of the planner's choice of index (SQLite's unary `+`)
    hint = ""
    #: whether a correlated side of a statement is written as a lateral join (PostgreSQL)
    lateral = False
    #: after a list's order: what breaks its ties ("" leaves them to the index read)
    tie = ""

    def marks(self, n: int) -> str:
        """n parameter marks, comma-separated."""
        return ", ".join([self.mark] * n)

    def order(self, order: str) -> str:
        """A record list's order with this backend's tie-breaker."""
        return order if not self.tie or "rid" in order else order + self.tie

    def columns(self, conn: Any, table: str) -> set[str]:
        """The column names of a table."""
        raise NotImplementedError

    def upsert(self, table: str, columns: Sequence[str], key: Sequence[str]) -> str:
        """An INSERT of `columns` (with `?` marks) that replaces the row with the same `key`."""
        raise NotImplementedError

    def json_values(self) -> str:
        """A subquery of the values of a JSON list given as one parameter."""
        raise NotImplementedError

    def extending(self, column: str, prefix: str) -> tuple[str, list[str]]:
        """The condition (and its arguments) of a key that begins with `prefix` and is longer,
        and the collation that orders keys by code point."""
        raise NotImplementedError

    #: after ORDER BY a key: order by code point
    binary = ""

    # ---- the keyword index: one document per record, its search tokens (`text.fts_document`)

    def index_text(self, conn: Any, rid: int, record: MemoryRecord) -> None:
        """The record's keyword row(s)."""
        raise NotImplementedError

    def unindex(self, conn: Any, rids: Sequence[int]) -> int:
        """Drop the keyword rows of these records; how many documents went."""
        raise NotImplementedError

    def keyword_search(
        self, conn: Any, scope: Scope, text: str, *, statuses: Sequence[str], limit: int
    ) -> list[tuple[str, float]]:
        """(record id, BM25 > 0) of the scope's records of `statuses` matching text, best first."""
        raise NotImplementedError

    def search_tokens(self, conn: Any, ids: Sequence[str]) -> dict[str, frozenset[str]]:
        """record id -> its search tokens as the keyword index holds them."""
        raise NotImplementedError

    def keyword_gaps(self, conn: Any) -> tuple[list[int], list[str]]:
        """Keyword rows of no record (their keys), and ids of records with no keyword row."""
        raise NotImplementedError

    def optimize_keyword_index(self, conn: Any) -> None:
        """Let deleted rows' tokens leave the disk."""

    def text_filter(self, scope: Scope, text: str, cap: int) -> tuple[str, list[Any]]:
        """The console's keyword filter: rid among the newest `cap` matches of text."""
        raise NotImplementedError

    def list_index(self, column: str) -> str:
        """What follows `FROM records` in a console page's read of its sort column's range."""
        return ""


class SharedConnection:
    """One connection shared by a process's threads behind a lock: reads, and write
    transactions in which nested calls join the outer one. A backend's subclass opens `_conn`
    (with `_lock` and `_depth`) and says how its write transaction begins and ends."""

    _conn: Any
    _lock: threading.RLock
    _depth: int

    @contextlib.contextmanager
    def read(self) -> Iterator[Any]:
        with self._lock:
            yield self._conn

    def nested(self) -> bool:
        """True inside this thread's own write transaction (another thread's holds the lock)."""
        with self._lock:
            return self._depth > 0

    @contextlib.contextmanager
    def write(self) -> Iterator[Any]:
        """A write transaction; nested calls join the outer one."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            self._depth = 1
            try:
                with self._transaction():
                    yield self._conn
            finally:
                self._depth = 0

    def _transaction(self) -> ContextManager[None]:
        """The backend's outermost write transaction (committed on leaving, rolled back on an
        error)."""
        raise NotImplementedError


def dialect_of(conn: Any) -> Dialect:
    """The dialect of an open connection: its own (a PostgreSQL connection names it), else
    SQLite's (sqlite3's and SQLCipher's connections)."""
    found = getattr(conn, "dialect", None)
    if isinstance(found, Dialect):
        return found
    from .sqlite.dialect import SQLITE  # late: the SQLite package builds on this module

    return SQLITE


def as_dict(row: Any) -> dict[str, Any]:
    """A row (sqlite3.Row, or a PostgreSQL row answering keys()) as column -> value."""
    return dict(zip(row.keys(), row))


# The SQL condition of a scope, shared by the statements of `records` and `entities`.


def scope_sql(
    scope: Scope, alias: str = "", *, by_id: bool = False, hint: str = "+"
) -> tuple[str, list]:
    """The scope's condition. `by_id`: for a lookup by a list of ids, which should use the id's
    unique index; SQLite otherwise picked a (user, agent) index and scanned every row of the
    user (3 ms at 1,000 records a user). `hint`: the dialect's (`Dialect.hint`)."""
    a = (hint if by_id else "") + (f"{alias}." if alias else "")
    sql = f"{a}user_id = ? AND {a}agent_id = ?"
    args: list = [scope.user_id, scope.agent_id]
    if scope.workspace is not None:
        sql += f" AND ({a}workspace = ? OR {a}workspace IS NULL)"
        args.append(scope.workspace)
    return sql, args


# A record as a `records` row and back: the columns both SQL backends write, and the read
# path's fast conversion of a row into a frozen `MemoryRecord` (no `__init__` call).
#
# The fast path fills an instance's `__dict__` directly, which is only the constructor's result
# while the classes it builds stay plain frozen dataclasses whose every field the row fills. This
# module checks that on import (`fast_path_problems`, then a probe record read back through the
# fast path) and refuses to load otherwise, naming what changed: a `__post_init__`, `__slots__`,
# an own `__init__` or `__new__`, a field with `init=False`, or a field the row does not fill.

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
            "store/sql.py: row_to_record builds records without calling __init__, "
            "which is no longer safe: " + "; ".join(problems) + " (update row_to_record, or "
            "build the record with its constructor)"
        )


check_fast_path()


# The episodes around episodes, read in one statement for any number of them: the read path
# delivers a recalled turn with the turns just before and after it in its session
# (`recall/recaller.py`), for a dozen turns a request (three statements each before).
#
# The statement's text does not depend on how many episodes are asked for (their ids go in as
# one JSON list), so SQLite's statement cache keeps it prepared: a text per count was planned
# afresh on most requests, the other statements with lists of varying length evicting it, which
# cost more than the statements it replaced.

#: (earlier, later) of an episode: nearest first
Around = tuple[list[MemoryRecord], list[MemoryRecord]]

# `+type`, `+status`: seek the session in (user, agent, session, created_at) and walk it from
# the episode's time on; SQLite otherwise walked the user's history by (user, agent, type or
# status, created_at) through every other session's rows (2x the whole read at 10k memories)
_LIVE = (
    "{scope} AND e.session_id = ep.session_id AND {h}e.type = 'episode' AND {h}e.status = 'active' "
    "AND (e.expires_at IS NULL OR e.expires_at > ?)"
)
_SIDE = (
    "SELECT ep.id AS _w, {side} AS _s, r.* FROM ep JOIN records r ON r.rid IN ("
    "SELECT e.rid FROM records e WHERE {live} AND e.created_at {cmp}= ep.created_at "
    "AND (e.created_at {cmp} ep.created_at OR e.rid {cmp} ep.rid) "
    "ORDER BY e.created_at {order}, e.rid {order} LIMIT ?)"
)
# PostgreSQL plans `r.rid IN (subquery)` as a scan of records; a lateral join reads each side
# from the session's index (`Dialect.lateral`)
_SIDE_LATERAL = (
    "SELECT ep.id AS _w, {side} AS _s, r.* FROM ep CROSS JOIN LATERAL ("
    "SELECT e.* FROM records e WHERE {live} AND e.created_at {cmp}= ep.created_at "
    "AND (e.created_at {cmp} ep.created_at OR e.rid {cmp} ep.rid) "
    "ORDER BY e.created_at {order}, e.rid {order} LIMIT ?) r"
)


def _statement(d: Dialect, scope: Scope) -> tuple[str, list]:
    """The statement and its scope's arguments, in the order of its places: the episodes, the
    earlier side, the later side (each: scope, now, limit; the ids and limits are the caller's)."""
    found, found_args = scope_sql(scope, "r", by_id=True, hint=d.hint)
    within, within_args = scope_sql(scope, "e")
    live = _LIVE.format(scope=within, h=d.hint)
    side = _SIDE_LATERAL if d.lateral else _SIDE
    text = (
        f"WITH ep AS (SELECT r.id, r.rid, r.session_id, r.created_at FROM records r "
        f"WHERE r.id IN ({d.json_values()}) AND {found} "
        f"AND r.session_id IS NOT NULL) "
        + side.format(side=0, live=live, cmp="<", order="DESC")
        + " UNION ALL "
        + side.format(side=1, live=live, cmp=">", order="ASC")
    )
    return text, [found_args, within_args]


def neighbours_of(
    db: Any,
    scope: Scope,
    record_ids: Sequence[str],
    *,
    before: int,
    after: int,
    now: float,
) -> dict[str, Around]:
    """`session_neighbours` of several episodes in one statement; a record met in several
    windows is converted once. Every id is a key (([], []) for no episode of scope's)."""
    out: dict[str, Around] = {rid: ([], []) for rid in record_ids}
    if not out or (before <= 0 and after <= 0):
        return out
    text, (found_args, within_args) = _statement(dialect_of(db), scope)
    params = [
        json.dumps(list(out)),
        *found_args,
        *within_args,
        now,
        max(int(before), 0),
        *within_args,
        now,
        max(int(after), 0),
    ]
    rows: dict[str, tuple[list, list]] = {}
    for row in db.execute(text, params):
        rows.setdefault(row["_w"], ([], []))[row["_s"]].append(row)
    made: dict[str, MemoryRecord] = {}
    for rid, (earlier, later) in rows.items():
        # nearest first, as each side's subquery ordered them (the join need not keep that order)
        earlier.sort(key=lambda r: (r["created_at"], r["rid"]), reverse=True)
        later.sort(key=lambda r: (r["created_at"], r["rid"]))
        out[rid] = ([_made(made, r) for r in earlier], [_made(made, r) for r in later])
    return out


def _made(made: dict[str, MemoryRecord], row: Any) -> MemoryRecord:
    r = made.get(row["id"])
    if r is None:
        r = made[row["id"]] = row_to_record(row)
    return r


# Export and import of a user's rows (the JSONL format, Markdown, OpenClaw files): the
# statements SQLite and PostgreSQL share, written once with their `Dialect`.
#
# Each function takes an open connection of its backend (inside the backend's own read or write
# transaction) and returns plain values.

#: the user tables an export carries beside the records, and the columns that identify a row
USER_ROWS: dict[str, tuple[str, ...]] = {
    "versions": ("record_id", "version"),
    "audit": ("at", "agent_id", "record_id", "action", "reason"),
    "sessions": ("agent_id", "id"),
    "messages": ("agent_id", "session_id", "created_at", "role", "content"),
}


def user_where(d: Dialect, user_id: str, agent_id: str | None) -> tuple[str, list[str]]:
    """The condition selecting a user's rows (of one agent, when given)."""
    if agent_id is None:
        return f"user_id = {d.mark}", [user_id]
    return f"user_id = {d.mark} AND agent_id = {d.mark}", [user_id, agent_id]


def user_records(
    conn: Any, d: Dialect, user_id: str, agent_id: str | None, *, newest_first: bool
) -> list[MemoryRecord]:
    where, args = user_where(d, user_id, agent_id)
    order = "created_at DESC, rid DESC" if newest_first else "rid"
    rows = conn.execute(f"SELECT * FROM records WHERE {where} ORDER BY {order}", args).fetchall()
    return [row_to_record(r) for r in rows]


def user_rows(
    conn: Any, d: Dialect, table: str, user_id: str, agent_id: str | None, order: str
) -> list[dict[str, Any]]:
    """A user's rows of one USER_ROWS table in `order` (the written order), without `seq`."""
    if table not in USER_ROWS:
        raise ValueError(f"table: expected one of {sorted(USER_ROWS)}, found {table!r}")
    where, args = user_where(d, user_id, agent_id)
    rows = conn.execute(f"SELECT * FROM {table} WHERE {where} ORDER BY {order}", args).fetchall()
    return [{k: row[k] for k in row.keys() if k != "seq"} for row in rows]


def record_owner(conn: Any, d: Dialect, record_id: str) -> tuple[str, str] | None:
    row = conn.execute(
        f"SELECT user_id, agent_id FROM records WHERE id = {d.mark}", (record_id,)
    ).fetchone()
    return None if row is None else (row[0], row[1])


def holds(conn: Any, d: Dialect, scope: Scope, record: MemoryRecord) -> bool:
    """The store holds this record: its id, its text (any type, any status: the type list
    lets the (scope, type, hash) index answer), or its summary under the same type and
    subject."""
    m = d.mark
    types = tuple(t.value for t in MemoryType)
    row = conn.execute(
        f"SELECT EXISTS (SELECT 1 FROM records WHERE id = {m}) "
        f"OR EXISTS (SELECT 1 FROM records WHERE user_id = {m} AND agent_id = {m} "
        f"AND type IN ({d.marks(len(types))}) AND content_hash = {m}) "
        f"OR EXISTS (SELECT 1 FROM records WHERE user_id = {m} AND agent_id = {m} "
        f"AND type = {m} AND subject {d.same} {m} AND summary = {m})",
        (
            record.id,
            scope.user_id,
            scope.agent_id,
            *types,
            content_hash(record),
            scope.user_id,
            scope.agent_id,
            record.type.value,
            record.subject,
            record.summary,
        ),
    ).fetchone()
    return bool(row[0])


def import_row(conn: Any, d: Dialect, table: str, item: dict[str, Any]) -> int:
    """Add one exported row of a user table unless a row with its identity is there; returns 1
    when added. Unknown keys are ignored. conn: a write transaction."""
    key = USER_ROWS[table]
    columns = d.columns(conn, table) - {"seq"}
    values = {k: v for k, v in item.items() if k in columns}
    if table == "versions":
        values["turn_ids"] = values.get("turn_ids") or "[]"
    ident = ("user_id", *key)
    cond = " AND ".join(f"{k} {d.same} {d.mark}" for k in ident)
    if conn.execute(
        f"SELECT 1 FROM {table} WHERE {cond} LIMIT 1", [values.get(k) for k in ident]
    ).fetchone():
        return 0
    names = sorted(values)
    conn.execute(
        f"INSERT INTO {table} ({', '.join(names)}) VALUES ({d.marks(len(names))})",
        [values[n] for n in names],
    )
    return 1
