"""The glue between the service's routes and the capture journal (`store/capture_journal.py`):
a queued write is journaled, redacted, before its 202, marked done once its jobs have run, and
replayed at the next start when it was not."""

from __future__ import annotations

import logging
from functools import partial
from typing import Any, Callable

from pydantic import BaseModel, ValidationError

from ..store.capture_journal import new_capture_id, CaptureJournal

log = logging.getLogger(__name__)


# ---- the glue between the routes and the journal ------------------------------------------------

#: the scope the done-marks run under: a purge drops a user's queued jobs, never these
_MARK_SCOPE_USER = "openclaw-memory-journal"

Handler = Callable[[Any, Any], dict[str, Any]]


def redacted_body(secrets: Any, body: BaseModel) -> dict[str, Any]:
    """The request as JSON with secrets redacted in every text it carries (message contents, a
    tool's name, arguments, outcome and files); ids, times and flags as they came."""
    data = body.model_dump(mode="json", exclude_none=True)
    if secrets is None:
        return data
    for message in data.get("messages", ()):
        message["content"] = secrets.redact(message.get("content", ""))
    for key in ("tool", "outcome"):
        if isinstance(data.get(key), str):
            data[key] = secrets.redact(data[key])
    if "arguments" in data:
        data["arguments"] = secrets.redact_value(data["arguments"])
    if "files" in data:
        data["files"] = [secrets.redact(f) for f in data["files"]]
    return data


def queue_write(
    journal: CaptureJournal | None,
    mw: Any,
    route: str,
    body: BaseModel,
    handler: Handler,
    duplicate: dict[str, Any],
) -> dict[str, Any]:
    """Journal the write, queue it through handler(mw, body), and mark it done once the jobs it
    queued have run. A capture id journaled before answers `duplicate` and queues nothing."""
    if journal is None:
        return handler(mw, body)
    data = redacted_body(getattr(mw, "secrets", None), body)
    capture_id = data.pop("capture_id", None) or new_capture_id()
    scope = body.scope.to_scope()  # type: ignore[attr-defined]
    if not journal.add(capture_id, route, scope, data):
        return {**duplicate, "duplicate": True}
    try:  # the redacted request, as a replay would see it, with its id: the records' stable key
        request = type(body).model_validate({**data, "capture_id": capture_id})
    except ValidationError:  # a redaction longer than a capped field: the write path redacts too
        request = body.model_copy(update={"capture_id": capture_id})
    return _run(journal, mw, capture_id, lambda: handler(mw, request))


def replay(journal: CaptureJournal, mw: Any, routes: dict[str, tuple[Any, ...]]) -> int:
    """Queue again what was journaled and not done (the process died first); returns how many.
    A write spooled before its user's purge is refused by its handler and dropped."""
    count = 0
    for entry in journal.pending():
        model, handler = routes.get(entry.route, (None, None))[:2]
        if model is None or handler is None:
            log.warning(
                "journal: capture %s names an unknown route %s; dropped", entry.id, entry.route
            )
            journal.done(entry.id)
            continue
        data = {
            **entry.body,
            "spooled_at": entry.body.get("spooled_at", entry.at),
            "capture_id": entry.id,  # the key the first run gave its records: a replay adds none
        }
        try:
            queue = partial(_validated_call, handler, mw, model, data)  # run at once, in order
            _run(journal, mw, entry.id, queue)
            count += 1
        except Exception as exc:  # noqa: BLE001 - one bad entry must not stop the others
            log.warning("journal: capture %s (%s) not replayed: %s", entry.id, entry.route, exc)
    return count


def _validated_call(handler: Handler, mw: Any, model: Any, data: dict[str, Any]) -> dict:
    return handler(mw, model.model_validate(data))


def _run(
    journal: CaptureJournal, mw: Any, capture_id: str, queue: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    try:
        out = queue()
    except BaseException:
        journal.done(capture_id)  # refused (a purge, bad input): the client is told, nothing queued
        raise
    _mark_when_done(journal, mw, capture_id)
    return out


def _mark_when_done(journal: CaptureJournal, mw: Any, capture_id: str) -> None:
    """Queue the done-mark behind the jobs the write queued: the worker runs its queue in order
    (one thread), so the mark runs after them."""
    worker = getattr(mw, "worker", None)
    if worker is None:  # no background worker: the handler wrote synchronously
        journal.done(capture_id)
        return
    from ..types import Scope
    from ..runtime.worker import Job

    scope = Scope(_MARK_SCOPE_USER, "journal")
    worker.submit(Job(scope, lambda: journal.done(capture_id), "journal", barrier=False))
