"""MemoryAdmin: what a user, an operator or a memory tool asks of the store directly.

search and get read; remember writes on the explicit channel; forget, forget_plan and restore
are the one forget (forget.py: a `ForgetCommand`, shown before it is taken, undoable); purge_user
deletes everything of a user after dropping their queued jobs. None of these runs on a model
call: the request hooks are `hooks.MemoryHooks`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..capture import PendingTurns
from ..errors import ValidationError
from ..extract.base import Extractor
from ..extract.secrets import SecretFilter
from ..write.forget import MAX_MATCHES, ForgetCommand, episodes_stating
from ..write.forget import plan as forget_plan
from ..write.forget import run as forget_run
from .worker import UserJobs
from ..procedure import stated_procedure
from ..procedure.distil import ProcedureTracker
from ..lang.text import valid_unicode
from ..types import (
    Candidate,
    Channel,
    MemoryRecord,
    MemoryType,
    ScoredMemory,
    Scope,
    Turn,
    WriteResult,
)
from .working_memory import WorkingMemory

if TYPE_CHECKING:
    from .engine import MemoryEngine

__all__ = ["MemoryAdmin"]


class MemoryAdmin:
    """The admin client over one store: search, get, remember, forget, restore, purge. Every
    write is audited; every forget can be undone by `restore`."""

    def __init__(
        self,
        engine: "MemoryEngine",
        working: WorkingMemory,
        *,
        extractor: Extractor,
        secrets: SecretFilter,
        jobs: UserJobs,
        pending: PendingTurns,
        procedures: ProcedureTracker | None = None,
    ) -> None:
        self.engine = engine
        self.working = working
        self.extractor = extractor
        self.secrets = secrets
        self.jobs = jobs
        self.pending = pending
        #: the hooks' open tasks (shared): a purge lets go of the user's requests and tool calls
        self.procedures = procedures if procedures is not None else ProcedureTracker()

    def search(
        self, scope: Scope, query: str, limit: int = 10, *, deep: bool = False
    ) -> list[ScoredMemory]:
        """The memories recall keeps for query, best first (deep: the cold archive too)."""
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query: expected a non-empty string")
        self.jobs.read_your_writes(scope)
        result = self.working.recaller.recall(scope, valid_unicode(query), (), deep=deep)
        return [s for s in result.ranked if s.kept][: max(1, int(limit))]

    def get(self, scope: Scope, memory_id: str) -> MemoryRecord:
        """One record of scope by id; NotFoundError if it is not there."""
        return self.engine.get(scope, memory_id)

    def remember(
        self,
        scope: Scope,
        text: str,
        *,
        type: str | None = None,
        subject: str | None = None,
        session_id: str | None = None,
        tags: Sequence[str] = (),
    ) -> WriteResult:
        """An explicit memory from the user or an admin tool: the explicit channel, written now
        (`tags`: labels the caller files it under, beside the extractor's)."""
        if not isinstance(text, str) or not text.strip():
            raise ValidationError("text: expected a non-empty string")
        if subject is not None and not isinstance(subject, str):
            raise ValidationError(f"subject: expected a string or None, found {_kind(subject)}")
        text, subject = valid_unicode(text), valid_unicode(subject) if subject else subject
        for name, value in (("text", text), ("subject", subject or "")):
            if self.secrets.contains_secret(value):
                raise ValidationError(
                    f"{name}: looks like a secret (password, key, card or ID number); "
                    "secrets are never stored"
                )
        kind = _memory_type(type) if type else None
        cands = (
            []
            if kind
            else [
                c
                for c in self.extractor.extract(Turn(scope, session_id or "tool", text))
                if not c.forget
            ]
        )
        if not cands:
            cand_tags: tuple[str, ...] = ()
            if kind is MemoryType.PROCEDURE:
                # keyed by the kind of task it names, as a stated procedure of the LLM chain is;
                # one that names none (no verb and object) is kept as a fact under its subject
                kind, subject, cand_tags = stated_procedure(subject, text, ())
            cands = [
                Candidate(
                    kind or MemoryType.FACT,
                    text.strip(),
                    subject=subject,
                    importance=0.8,
                    confidence=0.95,
                    tags=cand_tags,
                )
            ]
        cands = [
            Candidate(
                **{
                    **c.__dict__,
                    "channel": Channel.EXPLICIT,
                    "subject": subject or c.subject,
                    "confidence": max(c.confidence, 0.95),
                    "tags": tuple(dict.fromkeys((*c.tags, *tags))),
                }
            )
            for c in cands
        ]
        self.jobs.read_your_writes(scope)
        return self.engine.write(scope, cands[:1], session_id=session_id, writer="memory-tool")[0]

    def forget(
        self,
        scope: Scope,
        *,
        memory_id: str | None = None,
        query: str | None = None,
        dry_run: bool = False,
    ) -> list[str]:
        """Deactivate one memory by id, or the memories a description names by its distinctive
        terms (forget.py); `dry_run`: only say which. Every forget is undone by `restore`."""
        if memory_id:
            # a statement goes with every episode of it (forget.episodes_stating)
            record = self.engine.get(scope, memory_id)
            self.jobs.read_your_writes(scope)
            episodes = [e.id for e in episodes_stating(self.engine, scope, [record])]
            if dry_run:
                return [record.id, *episodes]
            ids = [self.engine.forget(scope, memory_id).id]
            reason = f"forgotten with {record.id}"
            return ids + [self.engine.forget(scope, e, reason).id for e in episodes]
        if not query or not query.strip():
            raise ValidationError("memory_id or query: expected one of them")
        self.jobs.read_your_writes(scope)
        command = self._command(query)
        done = (
            forget_plan(self.engine, scope, command)
            if dry_run
            else forget_run(self.engine, scope, command)
        )
        if done.too_broad:
            raise ValidationError(
                f"query: names {len(done.matches)} memories, more than one forget takes "
                f"({MAX_MATCHES}); name them more precisely or forget by id"
            )
        return done.ids

    def forget_plan(self, scope: Scope, query: str) -> list[MemoryRecord]:
        """The memories `forget(query=...)` would deactivate, nothing changed."""
        self.jobs.read_your_writes(scope)
        return list(forget_plan(self.engine, scope, self._command(query)).matches)

    def _command(self, query: str) -> ForgetCommand:
        # the query is quoted in the audit log: no secret in it (nothing secret is stored to match)
        return ForgetCommand(self.secrets.redact(valid_unicode(query.strip())))

    def restore(self, scope: Scope, memory_id: str) -> MemoryRecord:
        """Undo a forget: the memory is active and recalled again (audited). NotFoundError if absent."""
        if not isinstance(memory_id, str) or not memory_id.strip():
            raise ValidationError("memory_id: expected a memory id")
        record = self.engine.restore(scope, memory_id.strip())
        # the episodes a forget by id took with it (`forget`) come back with it
        turns = sorted(set(record.source.turn_ids))
        episodes = self.engine.store.episodes_of_turns(scope, turns) if turns else []
        taken = f"forgotten with {record.id}"
        newest: dict[str, str] = {}
        for row in self.engine.store.audit_of(scope, episodes):
            newest.setdefault(row["record_id"], str(row.get("reason") or ""))
        for episode in (e for e in episodes if newest.get(e) == taken):
            self.engine.restore(scope, episode, f"restored with {record.id}")
        return record

    def purge_user(self, user_id: str, agent_id: str | None = None) -> dict[str, int]:
        """Delete everything of a user (every agent, or one), as `maintain.purge_user`, after
        dropping the user's captures still queued in the background worker and waiting for the
        one running, so turns the user sent just before cannot write the data back afterwards.

        A purge from another process (the CLI) cannot see this process's queue: stop the agent,
        or purge through it.
        """
        from ..maintain.doctor import purge_user

        Scope(user_id, agent_id or "default")  # validates the ids before anything is dropped
        try:
            return self.jobs.purge(
                user_id, agent_id, lambda: purge_user(self.engine, user_id, agent_id)
            )
        finally:
            self.pending.drop_user(user_id, agent_id)
            self.working.recaller.drop_user(user_id, agent_id)  # cached query vectors
            self.procedures.drop_user(user_id, agent_id)  # open tasks not yet distilled


def _kind(value: object) -> str:
    return type(value).__name__


def _memory_type(name: str) -> MemoryType:
    try:
        return MemoryType(name)
    except ValueError:
        kinds = ", ".join(t.value for t in MemoryType)
        raise ValidationError(f"type: expected one of {kinds}, found {name!r}") from None
