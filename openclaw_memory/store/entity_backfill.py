"""Entity links for the records written before entity memory existed: a resumable backlog.

Entity memory (SQLite's migration 10, PostgreSQL's 6) links each record on write; the records
already stored then had no links. The next migration (SQLite's 11, PostgreSQL's 7) notes the
backlog in `entity_backfill`: the records up to the newest one at that moment (none in a new
store). Maintenance works through it a batch at a time (`backfill`), so a large store opens at
once and is linked in the background.

The records are linked oldest first, as their writes would have linked them
(store/entity_linking.py: the same entities, aliases and nicknames, first and last seen from the
records' creation times), those linked already (written after the migration, or rewritten
since) left as they are. A record forgotten or replaced since was linked while it was live, so
it is linked too, and its links go when the backlog is done: its names keep the kind and
spelling it gave them first, their first sighting its time, the aliases it stated, as on a
store that had entity memory all along (until then the entity channel, which reads live
records only, does not see them). Each batch moves the cursor in its own transaction: a run
stopped anywhere resumes where it stopped, and running it again over a done backlog changes
nothing.
"""

from __future__ import annotations

import heapq
import math
from typing import Any, Callable

from ..errors import ValidationError
from .dialect import Dialect
from .entity_linking import EntityRows, link
from ..types import MemoryRecord, Status
from .record_rows import row_to_record

#: records a batch examines (one write transaction)
BATCH = 500


def backfill(conn: Any, dialect: Dialect, rows: EntityRows, limit: int = BATCH) -> tuple[int, int]:
    """Link the next `limit` records of the backlog, in conn's write transaction, with `rows`
    on the same connection; returns (records examined, records left)."""
    if limit < 1:
        raise ValidationError(f"limit: expected an integer >= 1, found {limit}")

    def run(statement: str, args: tuple = ()) -> Any:
        return conn.execute(statement.replace("?", dialect.mark), args)

    state = run("SELECT next_rid, upto FROM entity_backfill").fetchone()
    if state is None:
        return 0, 0
    start, upto = int(state[0]), int(state[1])
    batch = run(
        "SELECT * FROM records WHERE rid > ? AND rid <= ? ORDER BY rid LIMIT ?",
        (start, upto, limit),
    ).fetchall()
    if not batch:
        return 0, 0
    first, last = int(batch[0]["rid"]), int(batch[-1]["rid"])
    linked = {
        int(r[0])
        for r in run(
            "SELECT DISTINCT rid FROM entity_links WHERE rid >= ? AND rid <= ?", (first, last)
        ).fetchall()
    }
    retired = _Retired(rows, _still_linked(run, start))
    for row in batch:
        rid, record = int(row["rid"]), row_to_record(row)
        retired.before(record)
        if rid not in linked:
            link(rows, rid, record.replace(status=Status.ACTIVE))
            if record.status is Status.INACTIVE:
                retired.add(_retired_at(record), rid, record.id)
    run("UPDATE entity_backfill SET next_rid = ?", (last,))
    left = int(
        run("SELECT COUNT(*) FROM records WHERE rid > ? AND rid <= ?", (last, upto)).fetchone()[0]
    )
    if not left:  # done: what is no longer live keeps no links
        retired.unlink_until(math.inf)
    return len(batch), left


def _retired_at(record: MemoryRecord) -> float:
    """When a record stopped being live: replaced (superseded_at), else forgotten (its update)."""
    return record.superseded_at if record.superseded_at is not None else record.updated_at


def _still_linked(run: Callable[..., Any], upto: int) -> list[tuple[float, int, str]]:
    """(retired at, rid, id) of the backlog's records up to `upto` that are no longer live but
    still linked (earlier batches linked them; they lose their links when they retired)."""
    return [
        (float(r[1]), int(r[0]), r[2])
        for r in run(
            "SELECT r.rid, COALESCE(r.superseded_at, r.updated_at), r.id FROM records r "
            "WHERE r.rid <= ? AND r.status = 'inactive' "
            "AND EXISTS (SELECT 1 FROM entity_links l WHERE l.rid = r.rid)",
            (upto,),
        ).fetchall()
    ]


class _Retired:
    """The backlog's retired records still linked, unlinked when their writes unlinked them: a
    replaced version just before the record replacing it is linked (consolidation retires the
    old one first), any other at the first record created after it retired. An entity left
    without links goes then, as it went on the store that had entity memory."""

    def __init__(self, rows: EntityRows, found: list[tuple[float, int, str]]) -> None:
        self.rows = rows
        self.heap = [(at, rid) for at, rid, _ in found]
        heapq.heapify(self.heap)
        self.by_id = {record_id: rid for _, rid, record_id in found}
        self.gone: set[int] = set()

    def add(self, at: float, rid: int, record_id: str) -> None:
        heapq.heappush(self.heap, (at, rid))
        self.by_id[record_id] = rid

    def before(self, record: MemoryRecord) -> None:
        """Unlink what had retired by the time `record` was written."""
        self.unlink_until(record.created_at)
        replaced = self.by_id.get(record.prev_id or "")
        if replaced is not None:
            self._unlink(replaced)

    def unlink_until(self, until: float) -> None:
        while self.heap and self.heap[0][0] < until:
            self._unlink(heapq.heappop(self.heap)[1])

    def _unlink(self, rid: int) -> None:
        if rid not in self.gone:
            self.gone.add(rid)
            self.rows.unlink(rid)
