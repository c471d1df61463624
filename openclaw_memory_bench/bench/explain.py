"""The query plans of the read path (`bench --explain N`): every statement the source of truth
receives while `before_request` serves N requests, explained on that same store.

SQLite: the statements come from the connection's trace callback (their values bound in) and are
explained with EXPLAIN QUERY PLAN. A step that walks a whole table or index ("SCAN records",
"SCAN r USING INDEX ...") is a full scan; a per-user read is a SEARCH on an index whose leading
columns are the scope. PostgreSQL: the statements and their arguments come from the store's
connection and are explained with EXPLAIN; a "Seq Scan" is a full scan. Statements SQLite runs
inside FTS5 and triggers (reported as comments), transaction control and pragmas are not the
read path's queries and are left out; the background jobs a request starts (its access counts)
are kept.
"""

from __future__ import annotations

import contextlib
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

#: statements a plan is shown for (what a request's SQL starts with)
EXPLAINED = ("SELECT", "WITH", "UPDATE", "DELETE", "INSERT")
_LITERAL = re.compile(r"X'[0-9A-Fa-f]*'|'(?:[^']|'')*'|\b\d+(?:\.\d+)?(?:e[-+]?\d+)?\b")
_PLACEHOLDER = re.compile(r"%\(\w+\)s|%s|\?")
_IN_LIST = re.compile(r"\(\s*\?(?:\s*,\s*\?)*\s*\)")
#: a SQLite plan step that reads every row of a table or of an index
_SQLITE_SCAN = re.compile(r"^SCAN (\w+)\b(?! VIRTUAL TABLE| ROW)")
#: the names a SQLite plan gives its own intermediate results (CTEs, subqueries)
_SQLITE_OWN = re.compile(r"^(?:MATERIALIZE|CO-ROUTINE) (\w+)")
_PG_SCAN = re.compile(r"Seq Scan on (\w+)")


def shape(sql: str) -> str:
    """The statement with its values and IN lists folded, spaces collapsed: what is grouped."""
    folded = _PLACEHOLDER.sub("?", _LITERAL.sub("?", sql))
    return " ".join(_IN_LIST.sub("(...)", folded).split())


@dataclass
class Statement:
    """One statement shape the read path sent: how often, one example and its plan."""

    shape: str
    sql: str
    args: Any = ()
    count: int = 0
    threads: set[str] = field(default_factory=set)
    plan: list[str] = field(default_factory=list)
    scans: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "statement": self.shape,
            # one statement as sent (SQLite: its values bound in), to explain again elsewhere
            "example": self.sql,
            "args": list(self.args.values()) if isinstance(self.args, dict) else list(self.args),
            "count": self.count,
            "threads": sorted(self.threads),
            "plan": self.plan,
            "full_scans": self.scans,
        }


class StatementLog:
    """The statements sent to one store's database while it is open (see `recording`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.statements: dict[str, Statement] = {}

    def add(self, sql: str, args: Any = ()) -> None:
        text = sql.strip()
        if not text.upper().startswith(EXPLAINED):
            return
        key = shape(text)
        with self._lock:
            st = self.statements.get(key)
            if st is None:
                st = self.statements[key] = Statement(key, text, args)
            st.count += 1
            st.threads.add(_thread_kind(threading.current_thread().name))


def _thread_kind(name: str) -> str:
    """A thread's name without its number, so a pool's threads read as one."""
    return re.sub(r"[-_]?\d+$", "", name) or name


def is_sqlite(db: Any) -> bool:
    with db.read() as conn:
        return hasattr(conn, "set_trace_callback")


@contextlib.contextmanager
def recording(db: Any) -> Iterator[StatementLog]:
    """Log the statements sent to `db` (the store's `Database` or `PostgresDatabase`) inside
    the block, from every thread."""
    log = StatementLog()
    with db.read() as conn:
        if hasattr(conn, "set_trace_callback"):
            conn.set_trace_callback(log.add)
        else:
            plain = conn.execute

            def execute(sql: str, args: Any = ()) -> Any:
                log.add(sql, args)
                return plain(sql, args)

            conn.execute = execute
    try:
        yield log
    finally:
        with db.read() as conn:
            if hasattr(conn, "set_trace_callback"):
                conn.set_trace_callback(None)
            else:
                del conn.execute


def explain(db: Any, statements: Iterable[Statement]) -> list[Statement]:
    """Each statement with its plan and full scans, the most frequent first."""
    out = sorted(statements, key=lambda s: (-s.count, s.shape))
    with db.read() as conn:
        sqlite = hasattr(conn, "set_trace_callback")
        for st in out:
            if sqlite:
                st.plan = _sqlite_plan(conn, st.sql)
                st.scans = sqlite_scans(st.plan)
            else:
                rows = conn.execute(f"EXPLAIN {st.sql}", st.args).fetchall()
                st.plan = [r[0] for r in rows]
                st.scans = postgres_scans(st.plan)
    return out


def _sqlite_plan(conn: Any, sql: str) -> list[str]:
    """EXPLAIN QUERY PLAN's steps, indented by depth as the sqlite3 shell shows them."""
    rows = conn.execute(f"EXPLAIN QUERY PLAN {sql}").fetchall()
    depth: dict[int, int] = {0: -1}
    lines = []
    for node, parent, _unused, detail in rows:
        depth[node] = depth.get(parent, -1) + 1
        lines.append("  " * depth[node] + detail)
    return lines


def sqlite_scans(plan: Sequence[str]) -> list[str]:
    """The tables and indexes a SQLite plan walks whole (its own CTEs and subqueries aside)."""
    own = {m.group(1) for line in plan if (m := _SQLITE_OWN.match(line.strip()))}
    scans = []
    for line in plan:
        m = _SQLITE_SCAN.match(line.strip())
        if m and m.group(1) not in own:
            scans.append(line.strip())
    return scans


def postgres_scans(plan: Sequence[str]) -> list[str]:
    """The tables a PostgreSQL plan reads sequentially."""
    return [m.group(1) for line in plan if (m := _PG_SCAN.search(line))]


def read_path_plans(mw: Any, requests: Sequence[Any], call: Callable[[Any], Any]) -> dict[str, Any]:
    """Serve `requests` through `call` with the store's statements logged; their plans.

    The worker's queue is drained before (nothing of an earlier step is logged) and after (the
    jobs a request starts, such as its access counts, are)."""
    db = mw.engine.store.db
    mw.flush()
    with recording(db) as log:
        for request in requests:
            call(request)
        mw.flush()
    plans = explain(db, log.statements.values())
    return {
        "requests": len(requests),
        "backend": "sqlite" if is_sqlite(db) else "postgres",
        "statements": [st.as_dict() for st in plans],
        "with_full_scans": sum(1 for st in plans if st.scans),
    }


def format_plans(plans: dict[str, Any]) -> str:
    """The plans as text: each statement (how often it ran), its plan, its full scans."""
    statements = plans["statements"]
    lines = [
        f"query plans ({plans['backend']}): {len(statements)} statements over "
        f"{plans['requests']} requests, {plans['with_full_scans']} with a full scan"
    ]
    for st in statements:
        lines += ["", f"  x{st['count']} [{', '.join(st['threads'])}] {st['statement']}"]
        lines += [f"      {step}" for step in st["plan"]]
        if st["full_scans"]:
            lines.append(f"      FULL SCAN: {'; '.join(st['full_scans'])}")
    return "\n".join(lines)
