"""Check before write for procedures: one live procedure per kind of task and scope.

Like a fact keyed by its subject (the kind, "deploy site"): a working procedure restated updates
the live one in place (a new version, the same record); a working one after a failed one
supersedes it (the failed one is retired, the chain keeps it); a newer failure replaces an older
failure. A failure after a procedure that works is not stored over it: the working one stays
the answer, and the failure stays in the episodic log as the tool events it came from.
"""

from __future__ import annotations

import numpy as np

from ..write.consolidate.records import RecordWrites, deactivate
from ..types import MemoryRecord, MemoryType, WriteResult
from .distil import worked


def write_procedure(writes: RecordWrites, db, r: MemoryRecord, vec: np.ndarray) -> WriteResult:
    """What a procedure drafted as r does to the live procedures of its kind, done in db."""
    live = db.live_claims(r.scope, [MemoryType.PROCEDURE.value], subject=r.subject, limit=10)
    if not live:
        return writes.insert(db, r, vec, "new procedure")
    old, extra = live[0], live[1:]
    for other in extra:  # never two live procedures for one kind (a repair, should it happen)
        deactivate(db, other, r.created_at, f"a second live procedure for {r.subject!r}")
    if worked(r.tags) and worked(old.tags):
        return writes.restate(db, old, r, vec, 1.0)
    if worked(old.tags):
        return WriteResult("skip", old, "a working procedure is kept over a failed attempt")
    return writes.supersede(db, old, r, vec, 0.0)


__all__ = ["write_procedure"]
