"""JSON Lines export and import: a user's whole memory, losslessly, within an import's caps.

Over 600 lines: the format is one contract, written and read in one place, with the caps of an
import in one table at the top.

An imported claim goes through check-before-write, as a claim said in conversation does: the
workspace import (MEMORY.md and the daily notes, `openclaw.py`) and a JSON Lines import into a
store that already holds other live memories of the user use it (this module says when a file is
a restore instead). The claim is weighed on the imported channel, so the source priority decides
a conflict: explicit > admin > imported > implicit. A file that contradicts what a stronger channel
wrote is kept for the record, inactive, never as a second live value of the subject; what the
user says later corrects an imported value.
"""

from __future__ import annotations

import json
import logging
from typing import IO, Any
from ..types import (
    Candidate,
    MemoryRecord,
    SUBJECT_MAX_CHARS,
    TEXT_MAX_CHARS,
    Channel,
    MemoryType,
    Scope,
    Source,
    Status,
)
from ..write.consolidate import Consolidator
from ..write.consolidate.decide import Decisions
from ..write.consolidate.records import deactivate
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from ..embed.embedding import embed_with_parts
from ..errors import ValidationError
from ..extract.secrets import SecretFilter
from ..lang.entities import mentions_of
from ..core.policy import KEYED_TYPES
from ..write import Storage


# An imported claim goes through check-before-write, as a claim said in conversation does.
#
# Both imports of new facts use it: the workspace import (MEMORY.md and the daily notes) and a JSON
# Lines import into a store that already holds other live memories of the user (`jsonl.py` says
# when a file is a restore instead). The claim is weighed on the imported channel, so the source
# priority decides a conflict: explicit > admin > imported > implicit. A file that contradicts what
# a stronger channel wrote is kept for the record, inactive, never as a second live value of the
# subject; what the user says later corrects an imported value (`Decisions._is_doubt`).


def claim_decisions(storage: Storage) -> Decisions:
    """The decisions of check-before-write over the storage's store, built once per import."""
    return Consolidator(
        storage.store,
        storage.embedder,
        storage.model_name,
        storage.clock,
        storage.config,
        storage.langs,
    ).decisions


def write_claim(
    storage: Storage,
    decisions: Decisions,
    r: MemoryRecord,
    vec: Any,
    parts: Any,
    origin: str,
) -> str:
    """Write one imported claim (its draft record r) in the caller's transaction; returns what
    consolidation did ("insert", "update", "doubt", "skip"). origin names the file and line."""
    result = decisions.decide(storage.store, _candidate(r), r, vec)
    kept = result.record
    if result.action == "doubt" and kept is not None:
        kept = deactivate(
            storage.store,
            kept,
            storage.clock.now(),
            f"imported from {origin}; contradicts {result.replaced_id}, which a stronger "
            "channel wrote",
            r.source.channel,
            r.source.writer,
        )
    if kept is not None and result.action != "skip":
        storage.store.put_parts(kept, parts)
    return result.action


def _candidate(r: MemoryRecord) -> Candidate:
    """The candidate consolidation weighs for an imported draft (the draft is its record)."""
    return Candidate(
        r.type,
        r.summary,
        subject=r.subject,
        tags=r.tags,
        entities=r.entities,
        importance=r.importance,
        confidence=r.confidence,
        channel=r.source.channel,
        turn_ids=r.source.turn_ids,
    )


# JSON Lines export and import: a user's whole memory, losslessly, within an import's caps.
#
# Over 600 lines: the format is one contract, written and read in one place, with the caps of an
# import in one table at the top.

# The caps of an import, in one table (the per-field caps are `remember`'s: types.py).
#
# Safe defaults: far above a real user's memory, far below what keeps the service busy for
# minutes (one 60,000-record request once took 199 s of its CPU; a 60 MB MEMORY.md ran past
# 300 s at 1.99 GB). The CLI's `import --max-bytes / --max-records` raise the JSON Lines ones.

#: a JSON Lines import: its size in bytes and its lines
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_RECORDS = 50_000
#: a workspace import: one memory file, and all of them together
WORKSPACE_FILE_BYTES = 4 * 1024 * 1024
WORKSPACE_TOTAL_BYTES = 32 * 1024 * 1024
#: how often (in lines read, then records written) `progress` is called
PROGRESS_EVERY = 1000

#: progress(phase, done): phase "read" (lines checked) or "written" (records stored)
Progress = Callable[[str, int], None]


def log_progress(logger: Any, where: str) -> Progress:
    """A `Progress` that logs (the service's and the console's imports)."""

    def report(phase: str, done: int) -> None:
        logger.info(
            "import %s: %d %s", where, done, "lines read" if phase == "read" else "records written"
        )

    return report


# JSON Lines export and import: a user's whole memory, losslessly.
#
# One JSON object a line. The first is a header (`kind: "header"`, the format name and version,
# the user, the embedder that wrote the vectors); then every record (all statuses, oldest first),
# its earlier versions, the audit trail, the sessions and the short-term messages, each with a
# `kind`. Vectors are not exported: they belong to an embedder, and the importing store rebuilds
# them with its own, so an export moves between embedders.
#
# Import into an empty store gives the same records (ids, version chains, statuses, times,
# provenance), versions, audit rows, sessions and messages. Import is idempotent: a record whose
# id is already in the store is left as it is, and rows already present are not added twice.
# Records can be moved to another user id with `user_id=`; an id held by another user is an error.
#
# Restore or import of new facts, decided per scope (user and agent) before anything is written:
# when every live claim (a keyed type: profile, preference, fact, task ...) the store holds for the
# scope is in the file, the file is a restore and every record is written as it was (an empty
# store, the store the export came from, or one that has not changed since). When the store holds
# live claims of the scope the file does not, its live claims new to the store are new facts: each
# goes through check-before-write on the imported channel (`claims.py`), so importing never leaves
# two live values of a subject, an imported value never beats an explicit or admin one (it is kept
# inactive, as a doubt), and what the user says later corrects it. The file's inactive records and
# its episodes and events are history and are written as they were in both cases.
#
# An import is as careful as a conversation: the file is streamed under a size cap (bytes and
# lines), every field is checked (required, typed, within the caps `remember` keeps, ids unique)
# and every free text goes through the secret filter before anything is written; then all of it
# is written in one transaction, or none of it.

log = logging.getLogger(__name__)

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
    storage: Storage, user_id: str, agent_id: str | None = None
) -> Iterator[dict[str, Any]]:
    """The export of a user (every agent, or one) as dicts, header first."""
    Scope(user_id, agent_id or "default")  # validates the ids
    yield {
        "kind": "header",
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "user_id": user_id,
        "agent_id": agent_id,
        "embedder": storage.model_name,
        "exported_at": storage.clock.now(),
    }
    for r in storage.store.user_records(user_id, agent_id):
        yield {"kind": "record", **record_to_dict(r)}
    for kind, table in _TABLES.items():
        for row in storage.store.user_rows(table, user_id, agent_id):
            yield {"kind": kind, **{k: v for k, v in row.items() if k != "user_id"}}


def export_jsonl(
    storage: Storage, user_id: str, out: IO[str], agent_id: str | None = None
) -> dict[str, int]:
    """Write the export to `out`; return how many lines of each kind were written."""
    counts: dict[str, int] = {}
    for item in export_lines(storage, user_id, agent_id):
        out.write(json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n")
        counts[item["kind"]] = counts.get(item["kind"], 0) + 1
    counts.pop("header", None)
    return counts


# ---- import ---------------------------------------------------------------------------------

_NUMBER = (int, float)
_TEXT_CAP = {"subject": SUBJECT_MAX_CHARS}
#: the fields of each row kind: required ones with their JSON types, then optional ones
_ROW_FIELDS: dict[str, tuple[dict[str, tuple[type, ...]], dict[str, tuple[type, ...]]]] = {
    "version": (
        {
            "record_id": (str,),
            "agent_id": (str,),
            "version": (int,),
            "summary": (str,),
            "channel": (str,),
            "confidence": _NUMBER,
            "valid_from": _NUMBER,
            "superseded_at": _NUMBER,
        },
        {"detail": (str,), "turn_ids": (str,)},
    ),
    "audit": (
        {"agent_id": (str,), "at": _NUMBER, "action": (str,), "reason": (str,)},
        {"record_id": (str,), "channel": (str,), "writer": (str,)},
    ),
    "session": (
        {"id": (str,), "agent_id": (str,), "started_at": _NUMBER, "last_active_at": _NUMBER},
        {
            "ended_at": _NUMBER,
            "end_reason": (str,),
            "summary_id": (str,),
        },
    ),
    "message": (
        {
            "session_id": (str,),
            "agent_id": (str,),
            "role": (str,),
            "content": (str,),
            "tokens": (int,),
            "created_at": _NUMBER,
        },
        {"turn_id": (str,), "in_window": (int, bool)},
    ),
}
_RECORD_FIELDS: tuple[dict[str, tuple[type, ...]], dict[str, tuple[type, ...]]] = (
    {"id": (str,), "type": (str,), "summary": (str,), "created_at": _NUMBER},
    {
        "user_id": (str,),
        "agent_id": (str,),
        "workspace": (str,),
        "subject": (str,),
        "detail": (str,),
        "session_id": (str,),
        "tags": (list,),
        "entities": (list,),
        "importance": _NUMBER,
        "confidence": _NUMBER,
        "source": (dict,),
        "status": (str,),
        "version": (int,),
        "prev_id": (str,),
        "superseded_at": _NUMBER,
        "updated_at": _NUMBER,
        "last_accessed_at": _NUMBER,
        "access_count": (int,),
        "expires_at": _NUMBER,
        "doubt_of": (str,),
        "links": (list,),
    },
)
_SOURCE_FIELDS: tuple[dict[str, tuple[type, ...]], dict[str, tuple[type, ...]]] = (
    {},
    {"channel": (str,), "session_id": (str,), "turn_ids": (list,), "writer": (str,)},
)
#: free text a person or a tool wrote: what the secret filter reads (ids, times and counts are
#: the store's own and are kept as they are)
_FREE_TEXT = (
    "summary",
    "subject",
    "detail",
    "tags",
    "entities",
    "reason",
    "content",
    "end_reason",
    "writer",
    "role",
    "action",
)


@dataclass
class ImportReport:
    """What an import did: rows added per kind, records already present, per-line problems."""

    added: dict[str, int] = field(default_factory=dict)
    existing: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    secrets_redacted: int = 0
    #: what check-before-write did with the live claims imported as new facts (see module doc)
    consolidated: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary."""
        return {
            "added": dict(self.added),
            "consolidated": dict(self.consolidated),
            "existing": self.existing,
            "skipped": dict(self.skipped),
            "secrets_redacted": self.secrets_redacted,
        }


def read_jsonl(
    lines: Iterable[str],
    *,
    where: str = "import",
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_records: int = DEFAULT_MAX_RECORDS,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of each non-blank line, read one at a time; the first must be this
    format's header. More than `max_bytes` of text or `max_records` lines is refused by name."""
    seen_header = False
    size = count = 0
    for number, line in enumerate(lines, start=1):
        size += len(line.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            raise ValidationError(
                f"{where}:{number}: the file is larger than the import cap of {max_bytes} bytes; "
                "split it, or raise the cap (--max-bytes); nothing was imported"
            )
        if not line.strip():
            continue
        count += 1
        if count > max_records + 1:  # the header is not a record
            raise ValidationError(
                f"{where}:{number}: more than the import cap of {max_records} lines; split the "
                "file, or raise the cap (--max-records); nothing was imported"
            )
        item = _parse_line(line, number, where)
        if not seen_header:
            _check_header(item, number, where)
            seen_header = True
        yield number, item
    if not seen_header:
        raise ValidationError(f"{where}: empty file; expected an {FORMAT} header line")


def file_lines(fh: IO[str], max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[str]:
    """The lines of an open file, none read longer than the cap (a file of one endless line is
    refused by `read_jsonl` after `max_bytes + 1` characters, not read whole first)."""
    while line := fh.readline(max_bytes + 1):
        yield line


def _parse_line(line: str, number: int, where: str) -> dict[str, Any]:
    try:
        item = json.loads(line)
    except ValueError as exc:
        raise ValidationError(
            f"{where}:{number}: expected a JSON object, found invalid JSON ({exc})"
        ) from None
    if not isinstance(item, dict) or "kind" not in item:
        raise ValidationError(f"{where}:{number}: expected a JSON object with a 'kind' field")
    return item


def _check_header(item: dict[str, Any], number: int, where: str) -> None:
    if item.get("kind") != "header" or item.get("format") != FORMAT:
        raise ValidationError(f"{where}:{number}: expected the header line of an {FORMAT} file")
    version = item.get("version", 0)
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ValidationError(
            f"{where}: format version {version!r} is newer than "
            f"{FORMAT_VERSION}; upgrade openclaw-memory to import it"
        )


def check_fields(
    item: dict[str, Any],
    fields: tuple[dict[str, tuple[type, ...]], dict[str, tuple[type, ...]]],
    where: str,
) -> None:
    """Required fields present, every known field of its JSON type (null allowed where optional),
    every text within the cap of `remember`: else a ValidationError naming line and field."""
    required, optional = fields
    for name, kinds in {**required, **optional}.items():
        if name not in item or (item[name] is None and name not in required):
            if name in required:
                raise ValidationError(f"{where}: missing required field {name!r}")
            continue
        value = item[name]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            expected = " or ".join(_JSON_NAMES[k] for k in kinds)
            raise ValidationError(
                f"{where}: field {name!r}: expected {expected}, found {_json_kind(value)}"
            )
        _check_caps(name, value, where)


def _check_caps(name: str, value: Any, where: str) -> None:
    cap = _TEXT_CAP.get(name, TEXT_MAX_CHARS)
    texts = value if isinstance(value, list) else [value]
    for text in texts:
        if isinstance(text, str) and len(text) > cap:
            raise ValidationError(
                f"{where}: field {name!r}: {len(text)} characters, over the cap of {cap} "
                "that remember keeps; nothing was imported"
            )
        if isinstance(value, list) and not isinstance(text, str):
            raise ValidationError(
                f"{where}: field {name!r}: expected a list of strings, found {_json_kind(text)}"
            )


_JSON_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "an object",
}


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    return _JSON_NAMES.get(type(value), type(value).__name__)


def _redacted(item: dict[str, Any], secrets: SecretFilter) -> tuple[dict[str, Any], int]:
    """The item with its free text through the secret filter, and how many fields changed."""
    out, changed = dict(item), 0
    for name in _FREE_TEXT:
        if isinstance(out.get(name), (str, list)):
            clean = secrets.redact_value(out[name])
            changed += clean != out[name]
            out[name] = clean
    if isinstance(out.get("source"), dict):  # a record's provenance: its writer's name
        out["source"], n = _redacted(out["source"], secrets)
        changed += n
    return out, changed


@dataclass
class _Parsed:
    """What a file holds, checked: records with their line numbers, other rows by kind."""

    records: list[tuple[int, MemoryRecord]] = field(default_factory=list)
    rows: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)
    redacted: int = 0


def _parse(
    lines: Iterable[str],
    *,
    user_id: str,
    where: str,
    secrets: SecretFilter,
    max_bytes: int,
    max_records: int,
    progress: Progress | None,
) -> _Parsed:
    parsed = _Parsed()
    ids: dict[str, int] = {}
    for number, item in read_jsonl(
        lines, where=where, max_bytes=max_bytes, max_records=max_records
    ):
        at = f"{where}:{number}"
        kind = item.pop("kind")
        if kind == "record":
            check_fields(item, _RECORD_FIELDS, at)
            if isinstance(item.get("source"), dict):
                check_fields(item["source"], _SOURCE_FIELDS, f"{at}: source")
            if item["id"] in ids:
                raise ValidationError(
                    f"{at}: field 'id': {item['id']!r} is already the id of line "
                    f"{ids[item['id']]}; ids must be unique; nothing was imported"
                )
            ids[item["id"]] = number
            clean, n = _redacted(item, secrets)
            parsed.redacted += n
            parsed.records.append((number, record_from_dict(clean, user_id=user_id, where=at)))
        elif kind in _TABLES:
            check_fields(item, _ROW_FIELDS[kind], at)
            clean, n = _redacted(item, secrets)
            parsed.redacted += n
            parsed.rows.append((number, kind, clean))
        if progress is not None and number % PROGRESS_EVERY == 0:
            progress("read", number)
    return parsed


def import_jsonl(
    storage: Storage,
    lines: Iterable[str],
    *,
    user_id: str,
    where: str = "import",
    writer: str = "import",
    secrets: SecretFilter | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_records: int = DEFAULT_MAX_RECORDS,
    progress: Progress | None = None,
) -> ImportReport:
    """Import an export into the store under `user_id`; vectors are computed by the store's
    embedder.

    The whole file is read and checked first (types, required fields, the caps `remember`
    keeps, unique ids) and its free text goes through the secret filter; then everything is
    written in one transaction. A bad file is a ValidationError naming the line and the field,
    and leaves nothing of it in the store.
    """
    Scope(user_id)
    try:
        parsed = _parse(
            lines,
            user_id=user_id,
            where=where,
            secrets=secrets or SecretFilter(),
            max_bytes=max_bytes,
            max_records=max_records,
            progress=progress,
        )
    except ValidationError as exc:
        if "nothing was imported" in str(exc):
            raise
        raise ValidationError(f"{exc}; nothing was imported") from None
    report = ImportReport(secrets_redacted=parsed.redacted)
    fresh = _new_records(storage, parsed.records, report, where)
    merging = _merging(storage, parsed.records)
    fresh = [(n, _as_new_fact(r, writer) if _is_new_fact(r, merging) else r) for n, r in fresh]
    vectors = _embed(storage, [r for _, r in fresh])
    try:
        with storage.store.transaction():
            _insert_records(storage, fresh, vectors, report, progress, merging, where)
            _insert_rows(storage, parsed.rows, user_id, report)
    except ValidationError:
        raise
    except Exception as exc:  # a store refusal: named by kind, never by the store's path
        log.warning("import of %s failed and was rolled back: %s", where, type(exc).__name__)
        raise ValidationError(
            f"{where}: the store refused the import ({type(exc).__name__}); nothing was imported"
        ) from None
    storage.written()
    return report


def _new_records(
    storage: Storage,
    records: list[tuple[int, MemoryRecord]],
    report: ImportReport,
    where: str,
) -> list[tuple[int, MemoryRecord]]:
    fresh = []
    for number, r in records:
        owner = storage.store.record_owner(r.id)
        if owner is None:
            fresh.append((number, r))
        elif owner == (r.scope.user_id, r.scope.agent_id):
            report.existing += 1
        else:
            raise ValidationError(
                f"{where}:{number}: field 'id': {r.id!r} already belongs to another user or "
                "agent in this store; nothing was imported"
            )
    return fresh


def _merging(storage: Storage, records: list[tuple[int, MemoryRecord]]) -> set[tuple[str, str]]:
    """The scopes the file imports new facts into rather than restores: the store holds a live
    claim of the scope that the file does not (module doc)."""
    in_file = {r.id for _, r in records}
    scopes = {(r.scope.user_id, r.scope.agent_id) for _, r in records}
    return {
        scope
        for scope in scopes
        if any(
            r.status is Status.ACTIVE and r.type in KEYED_TYPES and r.id not in in_file
            for r in storage.store.user_records(*scope)
        )
    }


def _is_new_fact(r: MemoryRecord, merging: set[tuple[str, str]]) -> bool:
    """A live claim of the file imported into a scope that has live claims of its own."""
    scope = (r.scope.user_id, r.scope.agent_id)
    return scope in merging and r.status is Status.ACTIVE and r.type in KEYED_TYPES


def _as_new_fact(r: MemoryRecord, writer: str) -> MemoryRecord:
    """The claim as this import states it: on the imported channel, written by the import
    (whatever channel wrote it in the store it came from), its session and turns kept."""
    return r.replace(
        source=Source(Channel.IMPORTED, r.source.session_id, r.source.turn_ids, writer)
    )


def _embed(storage: Storage, records: list[MemoryRecord]) -> list[tuple[Any, Any]]:
    """(whole vector, sentence parts) of each record, in batches, before the transaction."""
    out: list[tuple[Any, Any]] = []
    for start in range(0, len(records), _EMBED_BATCH):
        batch = records[start : start + _EMBED_BATCH]
        vecs = embed_with_parts(
            storage.embedder, [r.text for r in batch], storage.config.long_term.sentence_vectors
        )
        out += list(zip(vecs.whole, vecs.parts))
    return out


def _insert_records(
    storage: Storage,
    records: list[tuple[int, MemoryRecord]],
    vectors: list[tuple[Any, Any]],
    report: ImportReport,
    progress: Progress | None,
    merging: set[tuple[str, str]],
    where: str,
) -> None:
    decisions = claim_decisions(storage) if merging else None
    for done, ((number, r), (vec, parts)) in enumerate(zip(records, vectors), start=1):
        if decisions is not None and _is_new_fact(r, merging):
            action = write_claim(storage, decisions, r, vec, parts, f"{where}:{number}")
            report.consolidated[action] = report.consolidated.get(action, 0) + 1
        else:
            storage.store.insert(r, vec, storage.model_name, mentions=mentions_of(r, storage.langs))
            storage.store.put_parts(r, parts)
            report.added["record"] = report.added.get("record", 0) + 1
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress("written", done)


def _insert_rows(
    storage: Storage,
    rows: list[tuple[int, str, dict[str, Any]]],
    user_id: str,
    report: ImportReport,
) -> None:
    for _, kind, item in rows:
        added = storage.store.import_row(_TABLES[kind], {**item, "user_id": user_id})
        report.added[kind] = report.added.get(kind, 0) + added
        if not added:
            report.skipped[kind] = report.skipped.get(kind, 0) + 1
