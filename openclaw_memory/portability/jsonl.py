"""JSON Lines export and import: a user's whole memory, losslessly.

One JSON object a line. The first is a header (`kind: "header"`, the format name and version,
the user, the embedder that wrote the vectors); then every record (all statuses, oldest first),
its earlier versions, the audit trail, the sessions and the short-term messages, each with a
`kind`. Vectors are not exported: they belong to an embedder, and the importing store rebuilds
them with its own, so an export moves between embedders.

Import into an empty store gives the same records (ids, version chains, statuses, times,
provenance), versions, audit rows, sessions and messages. Import is idempotent: a record whose
id is already in the store is left as it is, and rows already present are not added twice.
Records can be moved to another user id with `user_id=`; an id held by another user is an error.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from ..embedding import embed_with_parts
from ..errors import ValidationError
from ..types import Channel, MemoryRecord, MemoryType, Scope, Source, Status

if TYPE_CHECKING:
    from ..engine import MemoryEngine

FORMAT = "openclaw-memory-export"
FORMAT_VERSION = 1
#: tables exported row by row besides records, with the columns that identify a row (for
#: idempotent import); `seq` columns are the store's own counters and are not carried over
_TABLES: dict[str, str] = {
    "version": "versions",
    "audit": "audit",
    "session": "sessions",
    "message": "messages",
}
_EMBED_BATCH = 256


def record_to_dict(r: MemoryRecord) -> dict[str, Any]:
    """Every field of a record, JSON-safe (tuples as lists, enums as their values)."""
    return {
        "id": r.id,
        "user_id": r.scope.user_id,
        "agent_id": r.scope.agent_id,
        "workspace": r.scope.workspace,
        "type": r.type.value,
        "summary": r.summary,
        "subject": r.subject,
        "detail": r.detail,
        "session_id": r.session_id,
        "tags": list(r.tags),
        "entities": list(r.entities),
        "importance": r.importance,
        "confidence": r.confidence,
        "source": {
            "channel": r.source.channel.value,
            "session_id": r.source.session_id,
            "turn_ids": list(r.source.turn_ids),
            "writer": r.source.writer,
        },
        "status": r.status.value,
        "version": r.version,
        "prev_id": r.prev_id,
        "superseded_at": r.superseded_at,
        "created_at": r.created_at,
        "updated_at": r.updated_at,
        "last_accessed_at": r.last_accessed_at,
        "access_count": r.access_count,
        "expires_at": r.expires_at,
        "doubt_of": r.doubt_of,
        "links": list(r.links),
    }


def record_from_dict(
    d: dict[str, Any], *, user_id: str | None = None, where: str = "record"
) -> MemoryRecord:
    """The record `record_to_dict` wrote; `user_id` moves it to another user."""
    try:
        src = d.get("source") or {}
        return MemoryRecord(
            id=_str(d["id"], f"{where}.id"),
            scope=Scope(
                user_id or d["user_id"], d.get("agent_id") or "default", d.get("workspace")
            ),
            type=MemoryType(d["type"]),
            summary=_str(d["summary"], f"{where}.summary"),
            subject=d.get("subject"),
            detail=d.get("detail"),
            session_id=d.get("session_id"),
            tags=tuple(d.get("tags") or ()),
            entities=tuple(d.get("entities") or ()),
            importance=float(d.get("importance", 0.5)),
            confidence=float(d.get("confidence", 1.0)),
            source=Source(
                Channel(src.get("channel", "implicit")),
                src.get("session_id"),
                tuple(src.get("turn_ids") or ()),
                src.get("writer") or "openclaw-memory",
            ),
            status=Status(d.get("status", "active")),
            version=int(d.get("version", 1)),
            prev_id=d.get("prev_id"),
            superseded_at=d.get("superseded_at"),
            created_at=float(d["created_at"]),
            updated_at=float(d.get("updated_at", d["created_at"])),
            last_accessed_at=d.get("last_accessed_at"),
            access_count=int(d.get("access_count", 0)),
            expires_at=d.get("expires_at"),
            doubt_of=d.get("doubt_of"),
            links=tuple(d.get("links") or ()),
        )
    except KeyError as exc:
        raise ValidationError(f"{where}: missing field {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{where}: {exc}") from None


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValidationError(f"{where}: expected a non-empty string, found {value!r}")
    return value


# ---- export ---------------------------------------------------------------------------------


def export_lines(
    engine: MemoryEngine, user_id: str, agent_id: str | None = None
) -> Iterator[dict[str, Any]]:
    """The export of a user (every agent, or one) as dicts, header first."""
    Scope(user_id, agent_id or "default")  # validates the ids
    yield {
        "kind": "header",
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "user_id": user_id,
        "agent_id": agent_id,
        "embedder": engine.model_name,
        "exported_at": engine.clock.now(),
    }
    for r in engine.store.user_records(user_id, agent_id):
        yield {"kind": "record", **record_to_dict(r)}
    for kind, table in _TABLES.items():
        for row in engine.store.user_rows(table, user_id, agent_id):
            yield {"kind": kind, **{k: v for k, v in row.items() if k != "user_id"}}


def export_jsonl(
    engine: MemoryEngine, user_id: str, out: IO[str], agent_id: str | None = None
) -> dict[str, int]:
    """Write the export to `out`; return how many lines of each kind were written."""
    counts: dict[str, int] = {}
    for item in export_lines(engine, user_id, agent_id):
        out.write(json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n")
        counts[item["kind"]] = counts.get(item["kind"], 0) + 1
    counts.pop("header", None)
    return counts


# ---- import ---------------------------------------------------------------------------------


@dataclass
class ImportReport:
    """What an import did: rows added per kind, records already present, per-line problems."""

    added: dict[str, int] = field(default_factory=dict)
    existing: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary."""
        return {"added": dict(self.added), "existing": self.existing, "skipped": dict(self.skipped)}


def read_jsonl(
    lines: Iterable[str], *, where: str = "import"
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of each non-blank line; the first must be this format's header."""
    seen_header = False
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise ValidationError(
                f"{where}:{number}: expected a JSON object, found invalid JSON ({exc})"
            ) from None
        if not isinstance(item, dict) or "kind" not in item:
            raise ValidationError(f"{where}:{number}: expected a JSON object with a 'kind' field")
        if not seen_header:
            if item.get("kind") != "header" or item.get("format") != FORMAT:
                raise ValidationError(
                    f"{where}:{number}: expected the header line of an {FORMAT} file"
                )
            if int(item.get("version", 0)) > FORMAT_VERSION:
                raise ValidationError(
                    f"{where}: format version {item.get('version')} is newer than "
                    f"{FORMAT_VERSION}; upgrade openclaw-memory to import it"
                )
            seen_header = True
        yield number, item
    if not seen_header:
        raise ValidationError(f"{where}: empty file; expected an {FORMAT} header line")


def import_jsonl(
    engine: MemoryEngine,
    lines: Iterable[str],
    *,
    user_id: str,
    where: str = "import",
    writer: str = "import",
) -> ImportReport:
    """Import an export into the store under `user_id`; vectors are computed by the store's embedder."""
    Scope(user_id)
    records: list[MemoryRecord] = []
    rows: list[tuple[str, dict[str, Any]]] = []
    for number, item in read_jsonl(lines, where=where):
        kind = item.pop("kind")
        if kind == "record":
            records.append(record_from_dict(item, user_id=user_id, where=f"{where}:{number}"))
        elif kind in _TABLES:
            rows.append((kind, item))
    report = ImportReport()
    fresh = _new_records(engine, records, report, where)
    _insert_records(engine, fresh, report, writer)
    with engine.store.transaction():
        for kind, item in rows:
            added = engine.store.import_row(_TABLES[kind], {**item, "user_id": user_id})
            report.added[kind] = report.added.get(kind, 0) + added
            if not added:
                report.skipped[kind] = report.skipped.get(kind, 0) + 1
    engine.written()
    return report


def _new_records(
    engine: MemoryEngine, records: list[MemoryRecord], report: ImportReport, where: str
) -> list[MemoryRecord]:
    fresh = []
    for r in records:
        owner = engine.store.record_owner(r.id)
        if owner is None:
            fresh.append(r)
        elif owner == (r.scope.user_id, r.scope.agent_id):
            report.existing += 1
        else:
            raise ValidationError(
                f"{where}: record id {r.id!r} already belongs to another user or agent "
                "in this store; nothing was imported"
            )
    return fresh


def _insert_records(
    engine: MemoryEngine, records: list[MemoryRecord], report: ImportReport, writer: str
) -> None:
    """Insert in batches: one embedding call and one transaction a batch."""
    for start in range(0, len(records), _EMBED_BATCH):
        batch = records[start : start + _EMBED_BATCH]
        vecs = embed_with_parts(
            engine.embedder, [r.text for r in batch], engine.config.long_term.sentence_vectors
        )
        with engine.store.transaction():
            for r, vec, parts in zip(batch, vecs.whole, vecs.parts):
                engine.store.insert(r, vec, engine.model_name)
                engine.store.put_parts(r, parts)
        report.added["record"] = report.added.get("record", 0) + len(batch)
