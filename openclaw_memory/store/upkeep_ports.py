"""The record store's ports for whole-store work: the forgetting jobs' look-ups, housekeeping
(reindex, doctor, purge, the console's counts) and portability (contracts in ports.py)."""

from __future__ import annotations

from typing import Any, Iterator, Protocol, Sequence

import numpy as np

from ..types import MemoryRecord, Scope


class Forgetting(Protocol):
    """The look-ups of the forgetting jobs (TTL, cleanup, compaction, the cap)."""

    def scopes(self, user_id: str | None = None) -> list[Scope]:
        """Every (user, agent) partition holding records (of one user), sorted."""

    def expired(self, scope: Scope, now: float, limit: int) -> list[MemoryRecord]:
        """Active records whose `expires_at` has passed, oldest expiry first."""

    def unused(
        self,
        scope: Scope,
        kept_types: Sequence[str],
        max_importance: float,
        cutoff: float,
        limit: int,
    ) -> list[MemoryRecord]:
        """Active or archived records not of `kept_types`, not explicit, of importance at most
        `max_importance`, neither accessed nor updated after `cutoff`, in written order."""

    def crowded_event_subjects(self, scope: Scope, more_than: int) -> list[str | None]:
        """Subjects holding more than `more_than` active events, sorted."""

    def live_event_count(self, scope: Scope, subject: str | None) -> int: ...

    def oldest_live_events(
        self, scope: Scope, subject: str | None, limit: int
    ) -> list[MemoryRecord]:
        """Active events of the subject (None: no subject), oldest first."""

    def curated_count(self, scope: Scope, uncapped: Sequence[str]) -> int:
        """Active records not of the `uncapped` types."""

    def lowest_value(self, scope: Scope, uncapped: Sequence[str], limit: int) -> list[MemoryRecord]:
        """Active records not of the `uncapped` types, lowest value first: profile and explicit
        ones last, then by importance, last use, access count, age, written order."""


class Housekeeping(Protocol):
    """Whole-store work: reindex, doctor, purge, counts for the console, lifecycle."""

    def records_by_id(self, ids: Sequence[str]) -> list[MemoryRecord]:
        """Records for ids in any scope (the ids came from a scoped query)."""

    def live_statuses(self, scope: Scope) -> dict[str, str]:
        """record id -> status of the partition's records that are not inactive."""

    def record_count(self) -> int:
        """Records of every scope and status."""

    def live_count(self) -> int:
        """Records that are not inactive, in every scope."""

    def embedder(self) -> str | None:
        """The embedder the stored vectors come from (None: a new store)."""

    def set_embedder(self, name: str) -> None: ...

    def put_vector(self, record: MemoryRecord, vector: np.ndarray, model: str) -> None:
        """Store a record's vector (without parts), replacing the one it had."""

    def stale_vector_ids(self, model: str, dim: int, scope: Scope | None = None) -> list[str]:
        """Live records whose stored vector is missing, of another model or dimension, or of
        an older text, in written order."""

    def part_stale_ids(self, max_parts: int, scope: Scope | None = None) -> list[str]:
        """Live records whose sentence-part vectors are not the ones `max_parts` asks for."""

    def retire_vectors(self, model: str, dim: int) -> int:
        """Drop stored vectors of another model or dimension or of no record; record `model`
        as the store's embedder. Returns how many were dropped."""

    def orphan_vector_rows(self, *, delete: bool = False) -> int:
        """Stored vectors of no record (deleted when `delete`)."""

    def last_outbox_seq(self) -> int: ...

    def clear_outbox(self, upto: int) -> int:
        """Drop the outbox entries up to `upto` (a full rebuild covered them)."""

    def pending_by_scope(self) -> dict[tuple[str, str], set[str]]:
        """Records with outbox entries still to apply, by (user, agent)."""

    def keyword_index_gaps(self) -> tuple[list[int], list[str]]:
        """Keyword rows of no record (their keys), and ids of records with no keyword row."""

    def repair_keyword_index(self, orphan: Sequence[int], missing: Sequence[str]) -> None: ...

    def optimize_keyword_index(self) -> None:
        """Compact the keyword index so deleted rows' tokens leave the disk (purge)."""

    def user_agents(self, user_id: str, agent_id: str | None = None) -> list[str]:
        """The agents under which the user has any row."""

    def purge_user(
        self, user_id: str, agent_id: str | None, at: float, writer: str
    ) -> dict[str, int]:
        """Delete every row of a user (every agent, or one); audit the purge under a hashed
        user id. Returns rows removed per kind (records, fts, vectors, versions, outbox,
        messages, sessions, audit)."""

    def episodes_of_turns(self, scope: Scope, turns: Sequence[str]) -> list[str]:
        """Ids of the episodes logged for these turns."""

    def purge_records(
        self, scope: Scope, ids: Sequence[str], turns: Sequence[str]
    ) -> dict[str, int]:
        """Delete records everywhere with their audit rows, and the short-term messages of
        `turns`. Returns {vectors, records, audit, messages}."""

    def purged_at(self, user_id: str, agent_id: str) -> float | None:
        """When the user (every agent, or this one) was last purged."""

    def audit_purge_request(
        self, user_id: str, agent_id: str | None, at: float, reason: str, writer: str
    ) -> None:
        """An audit row about a purge of a user, under the hashed user id."""

    def counts_by_scope(self) -> list[dict[str, Any]]:
        """{user_id, agent_id, status, type, n} for every non-empty group."""

    def vacuum(self) -> None:
        """Give freed space back, so deleted content leaves the disk."""

    def close(self) -> None: ...


class Portability(Protocol):
    """A user's rows out and in: the JSONL export, Markdown, OpenClaw imports."""

    def user_records(
        self, user_id: str, agent_id: str | None = None, *, newest_first: bool = False
    ) -> list[MemoryRecord]:
        """Every record of a user (every agent, or one), in written order or newest first."""

    def user_rows(
        self, table: str, user_id: str, agent_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        """The user's rows of "versions", "audit", "sessions" or "messages", in written order,
        as column -> value."""

    def record_owner(self, record_id: str) -> tuple[str, str] | None:
        """(user, agent) of the record with this id, in any scope."""

    def holds(self, scope: Scope, record: MemoryRecord) -> bool:
        """The store holds this record: its id (any scope), its text (any type or status),
        or its summary under the same type and subject."""

    def import_row(self, table: str, item: dict[str, Any]) -> int:
        """Add one exported row of a user table unless one with its identity is there;
        returns 1 when added."""
