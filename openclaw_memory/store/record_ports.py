"""The record store's ports for records themselves: transactions, writes, the reads of the
recall channels and consolidation, and the entity memory (contracts in ports.py)."""

from __future__ import annotations

from typing import Any, ContextManager, Iterable, Protocol, Sequence

import numpy as np

from ..types import MemoryRecord, Scope
from .port_values import ListPage, ListQuery, Scored, TierVector


class Transactional(Protocol):
    def transaction(self) -> ContextManager[None]:
        """Group the calls inside into one atomic write; nested transactions join the outer."""

    def in_transaction(self) -> bool:
        """True inside this thread's own open transaction."""


class RecordWrites(Protocol):
    """Writing records: consolidation, edit, forget, restore, maintenance."""

    def insert(self, record: MemoryRecord, vector: np.ndarray | None, model: str) -> None:
        """Store a new record, its keyword row, its entity links and (given) its vector; queue
        it for the index."""

    def update(
        self, record: MemoryRecord, vector: np.ndarray | None, model: str, *, reindex: bool
    ) -> None:
        """Rewrite a record; `reindex` refreshes its keyword row and vector (its text changed).
        Queues an upsert (a delete for an inactive record)."""

    def put_parts(self, record: MemoryRecord, parts: np.ndarray | None) -> None:
        """Attach sentence-part vectors (k, d) to the record's vector, if that vector is of this
        very text."""

    def save_version(self, old: MemoryRecord, superseded_at: float) -> None:
        """Keep the text of a version that is being replaced (the `versions` history)."""

    def touch(self, scope: Scope, ids: Sequence[str], at: float) -> None:
        """Reinforcement by access: count one access of each record, now."""

    def delete_records(self, scope: Scope, ids: Sequence[str]) -> int:
        """Remove records everywhere (row, keyword row, vector, versions); queue index deletes.
        Returns how many were removed."""


class RecordReads(Protocol):
    """Reading records: the recall channels, consolidation's look-ups, the API."""

    def get(self, scope: Scope, record_id: str) -> MemoryRecord | None: ...

    def get_many(self, scope: Scope, ids: Iterable[str]) -> dict[str, MemoryRecord]: ...

    def in_written_order(self, scope: Scope, ids: Sequence[str]) -> list[MemoryRecord]:
        """The records of these ids in the order they were first written."""

    def live_subjects(self, scope: Scope, limit: int = 2000) -> list[str]:
        """Distinct subjects of the scope's active records."""

    def live_by_subject(
        self,
        scope: Scope,
        subjects: Sequence[str],
        *,
        types: Sequence[str] | None = None,
        limit: int = 20,
    ) -> list[MemoryRecord]:
        """Active records whose subject is one of `subjects` (of `types`), newest update first."""

    def recent_important(
        self, scope: Scope, since: float, min_importance: float, limit: int
    ) -> list[MemoryRecord]:
        """Active curated records (not episodes, not summaries) updated since `since` with
        importance at least `min_importance`, newest update first."""

    def profile(
        self, scope: Scope, types: Sequence[str], whitelist: Sequence[str], limit: int = 20
    ) -> list[MemoryRecord]:
        """Active, undoubted records of the profile `types` (of the `whitelist` subjects when
        one is given), most important first, then newest update."""

    def latest_summaries(self, scope: Scope, count: int) -> list[MemoryRecord]:
        """The newest active session summaries, newest first."""

    def live_claims(
        self,
        scope: Scope,
        types: Sequence[str],
        *,
        subject: str | None = None,
        created_before: float | None = None,
        limit: int = 500,
    ) -> list[MemoryRecord]:
        """Active, undoubted records of `types` (with that subject; created at or before
        `created_before`), newest update first: what a new claim may replace."""

    def copies_of_text(
        self, scope: Scope, type_: str, content_hash: str, limit: int = 20
    ) -> list[MemoryRecord]:
        """Records of a type holding this very text (any status), newest update first."""

    def live_episodes_before(
        self, scope: Scope, at: float, limit: int, *, exclude: str | None = None
    ) -> list[MemoryRecord]:
        """Active episodes created at or before `at` (but `exclude`), newest first."""

    def live_episodes_saying(
        self, scope: Scope, summary: str, *, exclude: str, limit: int = 50
    ) -> list[MemoryRecord]:
        """Active episodes with exactly this text (but `exclude`), newest update first."""

    def session_episodes(
        self, scope: Scope, session_id: str, limit: int = 2000
    ) -> list[MemoryRecord]:
        """The episodes of a session (any status), oldest first."""

    def session_neighbours(
        self, scope: Scope, record_id: str, *, before: int, after: int, now: float
    ) -> tuple[list[MemoryRecord], list[MemoryRecord]]:
        """The live episodes logged just before and just after an episode in its session
        (nearest first)."""

    def neighbours_of(
        self, scope: Scope, record_ids: Sequence[str], *, before: int, after: int, now: float
    ) -> dict[str, tuple[list[MemoryRecord], list[MemoryRecord]]]:
        """`session_neighbours` of each of several episodes, by id (every id asked for is a
        key): the read path asks for a dozen a request."""

    def successors(self, scope: Scope, record_id: str, limit: int = 100) -> list[MemoryRecord]:
        """The records whose `prev_id` is record_id (the versions that replaced it)."""

    def latest_successor(self, scope: Scope, record_id: str) -> MemoryRecord | None:
        """The newest version that replaced record_id, if any."""

    def listing(
        self,
        scope: Scope,
        *,
        status: str | None = None,
        type_: str | None = None,
        curated_only: bool = False,
        oldest_first: bool = False,
        limit: int = 100,
    ) -> list[MemoryRecord]:
        """Records of the scope for a listing (CLI, demo), of a status and type when given:
        newest update first, or oldest creation first; `curated_only` leaves episodes out."""

    def retired_turns(self, scope: Scope, turn_ids: Sequence[str]) -> dict[str, str]:
        """turn id -> an inactive curated record distilled from that turn (it is outdated)."""

    def keyword_search(
        self, scope: Scope, text: str, *, statuses: Sequence[str] = ("active",), limit: int = 30
    ) -> Scored:
        """(record id, relevance in (0, 1]) for the scope's records whose search tokens (jieba
        and Snowball, `text.fts_document`) match the text's (`text.fts_query`), best first:
        BM25 divided by the best hit's, so the best scores 1.0."""

    def search_tokens(self, ids: Sequence[str]) -> dict[str, frozenset[str]]:
        """record id -> its search tokens as the keyword index holds them."""

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """record id -> its stored (normalised) vector."""

    def vectors_with_parts(
        self, ids: Sequence[str]
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """`vectors` and record id -> its sentence-part vectors (k, d), for records with parts."""

    def tier_vectors(
        self, scope: Scope, tier: str, at_most: int | None = None
    ) -> list[TierVector] | None:
        """The vectors the index would hold for a (user, agent)'s tier ("hot": active records,
        "cold": archived), of every workspace, with each record's type and workspace; None
        when the tier holds more than `at_most` records (then no vector is read)."""

    def versions(self, scope: Scope, record_id: str) -> list[dict[str, Any]]:
        """The saved earlier versions of a record (of the scope's user and agent), oldest
        first: {record_id, version, summary, detail, channel, confidence, turn_ids, valid_from,
        superseded_at, ...}."""

    def versions_in_scope(self, scope: Scope, record_id: str) -> list[dict[str, Any]]:
        """`versions`, looked up by record id first (the console's page of one memory)."""

    def list_page(self, scope: Scope, q: ListQuery) -> ListPage:
        """One keyset page of the scope's memories for the console (see `ListQuery`)."""


class EntityMemory(Protocol):
    """Who and what the memories name (people, places, things, dates), their other names, and
    which memories name them: the entity channel's reads. Entity ids are the backend's own and
    hold for one request (rewriting a record may file its names under new ids).

    Writes come with the records: `insert` and `update` link the record to the entities its
    text and its `entities` field name (store/entity_linking.py decides which, for every
    backend) in the same transaction; a forgotten record keeps no links, a restored one gets
    them back. Deleting or purging a record removes its links and the aliases it stated; an
    entity goes with its last link, its aliases with it: a purge leaves no entity text. The
    records stored before entity memory existed are linked by maintenance
    (`backfill_entity_links`)."""

    def entities_named(self, scope: Scope, keys: Iterable[str]) -> dict[int, str]:
        """entity id -> name of the (user, agent)'s entities filed under any of these
        normalised keys (`extract.entities.normalise`), as their own key or an alias."""

    def entity_weights(self, scope: Scope, ids: Sequence[int]) -> dict[int, float]:
        """How much naming each entity tells: `entity_linking.idf` of its links over the
        (user, agent)'s active and archived memories. Ids without links are absent."""

    def records_naming(
        self,
        scope: Scope,
        ids: Sequence[int],
        *,
        statuses: Sequence[str] = ("active",),
        limit: int = 200,
    ) -> list[tuple[str, int]]:
        """(record id, entity id) of the scope's records of `statuses` linked to these
        entities, the newest link first (then the newest record, then the lower entity id)."""

    def entities_of(self, scope: Scope, record_ids: Sequence[str]) -> dict[str, set[int]]:
        """record id -> the entities the scope's record is linked to (records with none
        absent)."""

    def entity_names(self, scope: Scope, ids: Iterable[int]) -> dict[int, str]:
        """entity id -> name, of the (user, agent)'s entities among `ids`."""

    def entity_list(self, scope: Scope, limit: int = 1000) -> list[dict[str, Any]]:
        """The (user, agent)'s entities, most linked first (then oldest): name, kind, aliases
        (sorted keys), first_seen, last_seen, links."""

    def backfill_entity_links(self, limit: int = 500) -> tuple[int, int]:
        """Link the next `limit` of the records stored before entity memory existed, oldest
        first, as their writes would have (store/entity_backfill.py); returns (records
        examined, records left). Resumable, and a done backlog changes nothing."""
