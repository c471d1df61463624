"""mem0's vocabulary and ours: the arguments `Memory` checks (each error names the argument the
caller passed) and the dicts it answers (records, scored results, write outcomes, history).

A caller's metadata is kept as tags (`meta:<key>=<JSON value>`), so it travels with a record
through consolidation, edits, export and import without a column of its own.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ValidationError
from ..types import MemoryRecord, MemoryType, ScoredMemory, Scope, Turn, WriteResult

if TYPE_CHECKING:
    from ..config import MemoryConfig
    from ..middleware import MemoryMiddleware

#: the agent id when a call names none: the one the OpenClaw plugin and the CLI use, so what
#: `Memory` writes is what `openclaw-memory list --user ...` shows
DEFAULT_AGENT = "main"
#: tags that carry a caller's metadata: "meta:<key>=<json value>"
META_PREFIX = "meta:"
#: filter keys read from the record itself; any other key filters the metadata
_RECORD_FILTERS = ("type", "subject", "status", "run_id")


# ---- arguments ------------------------------------------------------------------------------


def config_arg(config: Any) -> MemoryConfig | str | Path | None:
    """What `build_middleware` takes, from a path, a mapping of YAML keys or a MemoryConfig."""
    from ..config import MemoryConfig, config_from_dict

    if config is None or isinstance(config, (MemoryConfig, str, Path)):
        return config
    if isinstance(config, Mapping):
        return config_from_dict(config, where="Memory(config=...)")
    raise ValidationError(
        "config: expected a YAML path, a mapping of config sections or a MemoryConfig, "
        f"found {type(config).__name__}"
    )


def scope_arg(user_id: Any, agent_id: Any) -> Scope:
    """The call's scope; a missing user id is an error (there is no unscoped call)."""
    if user_id is None:
        raise ValidationError(
            "user_id: expected the id of the user whose memory this is (every read and write "
            "carries one), found none"
        )
    try:
        return Scope(user_id, DEFAULT_AGENT if agent_id is None else agent_id)
    except ValidationError as exc:  # name the argument the caller passed, not the field
        raise ValidationError(str(exc).removeprefix("scope.")) from None


@contextmanager
def naming(field: str, argument: str) -> Iterator[None]:
    """A ValidationError about `field` of a lower door names the caller's argument instead."""
    try:
        yield
    except ValidationError as exc:
        text = str(exc)
        if not text.startswith((f"{field}: ", f"{field}.")):
            raise
        raise ValidationError(argument + text[len(field) :]) from None


def session_arg(run_id: Any) -> str:
    """The session of a call: its run_id, or a new one."""
    from ..capture.pipeline import check_session_id

    if run_id is None:
        return f"api-{secrets.token_hex(6)}"
    try:
        check_session_id(run_id)
    except ValidationError as exc:
        raise ValidationError(str(exc).replace("session_id", "run_id", 1)) from None
    return str(run_id)


def memory_id_arg(memory_id: Any) -> str:
    """A memory id, stripped."""
    if not isinstance(memory_id, str) or not memory_id.strip():
        raise ValidationError(f"memory_id: expected a memory id, found {memory_id!r}")
    return memory_id.strip()


def limit_arg(limit: Any, *, most: int = 100) -> int:
    """A result count from 1 to `most`."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= most:
        raise ValidationError(f"limit: expected an integer from 1 to {most}, found {limit!r}")
    return limit


def messages_arg(messages: Any) -> list[dict[str, Any]]:
    """Chat messages from a text, one message dict or a list of them; one user text at least."""
    from ..inject.render import validate_messages

    if isinstance(messages, str):
        if not messages.strip():
            raise ValidationError("messages: expected a non-empty text or a list of messages")
        return [{"role": "user", "content": messages}]
    if isinstance(messages, Mapping):
        messages = [messages]  # one message dict, as mem0 also takes it
    if isinstance(messages, (list, tuple)):
        messages = [dict(m) if isinstance(m, Mapping) else m for m in messages]
    validate_messages(messages)
    chat: list[dict[str, Any]] = messages
    if not any(m["role"] == "user" and (m.get("content") or "").strip() for m in chat):
        raise ValidationError("messages: expected at least one user message with content")
    return chat


def metadata_tags(metadata: Any) -> tuple[str, ...]:
    """A caller's metadata as tags (`meta:<key>=<JSON value>`)."""
    if metadata is None:
        return ()
    if not isinstance(metadata, Mapping):
        raise ValidationError(
            f"metadata: expected a mapping of names to values, found {type(metadata).__name__}"
        )
    tags = []
    for key, value in metadata.items():
        if not isinstance(key, str) or not key or "=" in key:
            raise ValidationError(
                f"metadata: expected names that are non-empty strings without '=', found {key!r}"
            )
        if value is not None and not isinstance(value, (str, int, float, bool)):
            raise ValidationError(
                f"metadata.{key}: expected a string, number, true/false or null, "
                f"found {type(value).__name__}"
            )
        tags.append(f"{META_PREFIX}{key}={json.dumps(value, ensure_ascii=False)}")
    return tuple(tags)


def record_filter(filters: Any, run_id: Any) -> Callable[[MemoryRecord], bool] | None:
    """A predicate over records for `filters` (and a run_id), or None when nothing filters."""
    if filters is not None and not isinstance(filters, Mapping):
        raise ValidationError(
            f"filters: expected a mapping of names to values, found {type(filters).__name__}"
        )
    wanted = dict(filters or {})
    if run_id is not None:
        wanted["run_id"] = session_arg(run_id)
    wanted.pop("status", None)  # get_all reads it; search recalls active memories only
    if "type" in wanted:
        _types(wanted["type"])
    meta = {k: v for k, v in wanted.items() if k not in _RECORD_FILTERS}
    with naming("metadata", "filters"):
        metadata_tags(meta)  # the same checks as metadata's
    if not wanted:
        return None

    def keep(r: MemoryRecord) -> bool:
        found = metadata_of(r.tags)
        return (
            ("type" not in wanted or r.type.value in _types(wanted["type"]))
            and ("subject" not in wanted or r.subject == wanted["subject"])
            and ("run_id" not in wanted or wanted["run_id"] in (r.session_id, r.source.session_id))
            and all(k in found and found[k] == v for k, v in meta.items())
        )

    return keep


def _types(value: Any) -> set[str]:
    names = {value} if isinstance(value, str) else set(value) if isinstance(value, list) else None
    known = {t.value for t in MemoryType}
    if not names or not names <= known:
        raise ValidationError(
            f"filters.type: expected one of {', '.join(sorted(known))} (or a list of them), "
            f"found {value!r}"
        )
    return names


def turns_of(mw: MemoryMiddleware, scope: Scope, session: str, chat: list[dict[str, Any]]) -> list:
    """The user turns of the messages as the capture keys them (`CapturePipeline.submit_transcript`)."""
    from ..capture import transcript_turns

    now = mw.clock.now()
    return [
        Turn(scope, session, t.user, t.reply, f"{session}#{t.key}", now)
        for t in transcript_turns(chat)
        if t.user.strip()
    ]


# ---- answers ------------------------------------------------------------------------------


def _iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, tz=timezone.utc).isoformat()


def metadata_of(tags: Sequence[str]) -> dict[str, Any]:
    """The caller's metadata a record's tags carry."""
    out = {}
    for tag in tags:
        if tag.startswith(META_PREFIX) and "=" in tag:
            key, _, value = tag[len(META_PREFIX) :].partition("=")
            try:
                out[key] = json.loads(value)
            except ValueError:
                out[key] = value
    return out


def record_item(r: MemoryRecord) -> dict[str, Any]:
    """A record in mem0's shape, with our type, subject, status and version beside it."""
    return {
        "id": r.id,
        "memory": r.summary,
        "metadata": metadata_of(r.tags),
        "type": r.type.value,
        "subject": r.subject,
        "status": r.status.value,
        "version": r.version,
        "created_at": _iso(r.created_at),
        "updated_at": _iso(r.updated_at),
        "user_id": r.scope.user_id,
        "agent_id": r.scope.agent_id,
        "run_id": r.session_id or r.source.session_id,
    }


def scored_item(s: ScoredMemory) -> dict[str, Any]:
    """A search result: the record, its score, and why (the channels, the score's parts)."""
    reasons = [f"found by {', '.join(s.channels)}"] if s.channels else []
    reasons += [f"{k} {v:.2f}" for k, v in sorted(s.components.items())]
    reasons += [s.reason] if s.reason else []
    return {**record_item(s.record), "score": round(float(s.score), 4), "reasons": reasons}


def is_curated(w: WriteResult) -> bool:
    """Whether a write stored a curated memory (not the episode of the turn)."""
    return w.record is not None and w.record.type is not MemoryType.EPISODE


def write_event(mw: MemoryMiddleware, scope: Scope, w: WriteResult) -> dict[str, Any]:
    """One consolidation outcome as mem0's event, with our reason beside it."""
    r = w.record
    assert r is not None  # _curated
    out = {"id": r.id, "memory": r.summary, "reason": w.reason}
    if w.action == "skip":
        return {**out, "event": "NONE"}
    if w.action == "update" and w.replaced_id == r.id:  # a restatement, merged in place
        earlier = mw.engine.versions(scope, r.id)
        before = earlier[-1]["summary"] if earlier else r.summary
        if before == r.summary:
            return {**out, "event": "NONE"}
        return {**out, "event": "UPDATE", "previous_id": r.id, "previous_memory": before}
    if w.action == "update" and w.replaced_id:
        old = mw.store.get(scope, w.replaced_id)
        previous = old.summary if old is not None else None
        return {**out, "event": "UPDATE", "previous_id": w.replaced_id, "previous_memory": previous}
    if w.action == "doubt":  # stored, never injected: a weaker claim against a confident one
        return {**out, "event": "ADD", "doubt_of": w.replaced_id}
    return {**out, "event": "ADD"}


def last_audit_seq(mw: MemoryMiddleware, scope: Scope) -> int:
    """The scope's newest audit row, so a write's own rows can be told from older ones."""
    rows = mw.engine.audit_log(scope, limit=1)
    return int(rows[0]["seq"]) if rows else 0


def audit_seq(row: Mapping[str, Any]) -> int:
    """An audit row's place in the log."""
    return int(row["seq"])


#: audit actions as mem0's history events
_EVENTS = {"insert": "ADD", "update": "UPDATE", "edit": "UPDATE", "deactivate": "DELETE"}


def history_entry(
    row: Mapping[str, Any], chain: Mapping[str, MemoryRecord], versions: Sequence[Mapping]
) -> dict[str, Any]:
    """One audit row of a version chain as a mem0 history entry: the event, the texts before
    and after, and the row's reason, channel, writer and time."""
    record = chain.get(row["record_id"])
    new = record.summary if record is not None else None
    old = None
    if row["action"] == "update":  # a restatement: the texts before and after are versions
        saved = sorted(
            (v for v in versions if v["record_id"] == row["record_id"]),
            key=lambda v: int(v["version"]),
        )
        at = [i for i, v in enumerate(saved) if v["superseded_at"] == row["at"]]
        if at:
            old = saved[at[0]]["summary"]
            new = saved[at[0] + 1]["summary"] if at[0] + 1 < len(saved) else new
    elif record is not None and record.prev_id and row["action"] in ("insert", "edit"):
        prev = chain.get(record.prev_id)
        old = prev.summary if prev is not None else None
    event = _EVENTS.get(row["action"], row["action"].upper())
    if event == "ADD" and old is not None:  # a successor: the value changed
        event = "UPDATE"
    return {
        "memory_id": row["record_id"],
        "event": event,
        "action": row["action"],
        "old_memory": old,
        "new_memory": new if row["action"] != "deactivate" else None,
        "reason": row["reason"],
        "channel": row.get("channel"),
        "actor": row.get("writer"),
        "created_at": _iso(row["at"]),
    }
